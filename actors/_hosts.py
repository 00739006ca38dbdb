"""Where a policy runs: in line, in a Trio task, in a worker thread, or in a child process.

A host makes one *call* at a time: show the policy the news (the events since its last call)
and ask it for a decision, all under one deadline. Every host turns whatever the policy does
wrong (raises, ``sys.exit``, ``raise KeyboardInterrupt``, runs past its deadline, crashes its
process) into a :class:`~engine.Decision` with a ``failure``, which the scheduler records; the
fight goes on.

- :class:`InlineHost`: trusted synchronous code (the built-ins, a person at the terminal). It
  cannot be interrupted, so it has no deadline; a real Ctrl-C goes straight through it.
- :class:`TaskHost`: trusted async code, awaited in the combatant's own task under the deadline.
- :class:`ThreadHost`: code from files and entry points. Each call runs in a worker thread (an
  async policy in a fresh Trio loop of its own there), so nothing it raises is mistaken for the
  user's Ctrl-C and nothing it does blocks the fight. A thread cannot be killed: a call that
  misses its deadline is abandoned, and until it returns, every new call fails at once with a
  ``busy`` fault instead of entering the policy a second time. The limit is kept per policy and
  combatant for the whole process, so abandoned threads never pile up across fights.
- :class:`ProcessHost`: a child process (``python -m actors._child``) that the host kills at
  the deadline, for code that must not be trusted to give control back (a loop that never
  yields, ``os._exit``, a crash). It is started again for the next call. Messages on the pipe
  are the protocol's own msgspec types (see :mod:`actors._wire`).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from typing import Any, Protocol

import structlog
import trio
from initiative.engine import Decision, View
from initiative.events import Event

from . import _wire

log = structlog.get_logger("initiative.actors")

HOSTS = ("inline", "task", "thread", "process")
"""The kinds of host, by the name the ``--host`` option and ``process:`` prefix use."""


class Host(Protocol):
    """Runs one policy's calls."""

    kind: str

    async def call(
        self, news: Sequence[Event], view: View | None, timeout: float | None
    ) -> Decision:
        """Show ``news``, then (unless ``view`` is ``None``: the end of the fight) decide."""
        ...

    async def aclose(self) -> None: ...


def fault(err: BaseException) -> Decision:
    """A policy's exception as a recorded ``error`` failure, with where it was raised."""
    frames = traceback.extract_tb(err.__traceback__)
    where = f" ({frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno})" if frames else ""
    return Decision(failure="error", detail=f"{type(err).__name__}: {err}{where}")


def _call_policy(policy: Any, news: Sequence[Event], view: View | None) -> Any:
    """The body of one call: observe each event, then decide (may return an awaitable)."""
    observe = getattr(policy, "observe", None)
    if observe is not None:
        for event in news:
            observe(event)
    if view is None:
        return None
    return getattr(policy, "decide", policy)(view)


def _decided(result: Any) -> Decision:
    return result if isinstance(result, Decision) else Decision(action=result)


class InlineHost:
    """Trusted synchronous policies, called directly (no deadline: they cannot be stopped)."""

    kind = "inline"

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self._observe = getattr(policy, "observe", None)
        self._decide = getattr(policy, "decide", policy)

    def call_now(self, news: Sequence[Event], view: View | None) -> Decision:
        """:meth:`call` without a coroutine: it never waits, so a combatant calls it directly."""
        try:
            observe = self._observe
            if observe is not None:
                for event in news:
                    observe(event)
            return _decided(None if view is None else self._decide(view))
        except Exception as err:
            return fault(err)

    async def call(
        self, news: Sequence[Event], view: View | None, timeout: float | None
    ) -> Decision:
        return self.call_now(news, view)

    async def aclose(self) -> None:
        pass


class TaskHost:
    """Trusted async policies, awaited in the combatant's task under the deadline."""

    kind = "task"

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    async def call(
        self, news: Sequence[Event], view: View | None, timeout: float | None
    ) -> Decision:
        if timeout is None:  # no deadline, no cancel scope to open for every call
            return await self._call(news, view)
        with trio.move_on_after(timeout) as scope:
            return await self._call(news, view)
        assert scope.cancelled_caught
        return timed_out(timeout)

    async def _call(self, news: Sequence[Event], view: View | None) -> Decision:
        try:
            result = _call_policy(self.policy, news, view)
            if inspect.isawaitable(result):
                result = await result
            return _decided(result)
        except Exception as err:
            return fault(err)

    async def aclose(self) -> None:
        pass


def timed_out(timeout: float | None, more: str = "") -> Decision:
    return Decision(failure="timeout", detail=f"no decision within {timeout:g} s{more}")


async def _await(awaitable: Any) -> Any:
    return await awaitable


CANCEL_GRACE = 2.0
"""Real seconds an async policy's own loop has to finish once its deadline cancelled it."""

#: Keys (policy name, combatant) of thread calls still running, abandoned or not.
_RUNNING: set[tuple[str, str]] = set()
_RUNNING_LOCK = threading.Lock()


class ThreadHost:
    """Policies from files and entry points: each call in a worker thread, at most one at a
    time per policy and combatant."""

    kind = "thread"

    def __init__(self, policy: Any, key: tuple[str, str]) -> None:
        self.policy = policy
        self.key = key
        self._loop: tuple[trio.lowlevel.TrioToken, trio.CancelScope] | None = None
        self._async = inspect.iscoroutinefunction(getattr(policy, "decide", policy))
        self._undelivered: list[Event] = []
        """News that a ``busy`` call could not show; the next call shows it first."""

    def _work(self, news: Sequence[Event], view: View | None, done: threading.Event) -> Decision:
        try:
            result = _call_policy(self.policy, news, view)
            if inspect.isawaitable(result):
                result = trio.run(self._await, result)
            return _decided(result)
        except BaseException as err:  # sys.exit, KeyboardInterrupt: the policy's own, here
            return fault(err)
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(self.key)
                self._loop = None
            done.set()

    def _stop_async(self, done: threading.Event) -> bool:
        """Cancel an async policy in its own loop (once that loop runs) and wait, in real time,
        a moment for the call to end; whether it did."""
        end = time.monotonic() + CANCEL_GRACE
        while time.monotonic() < end:
            with _RUNNING_LOCK:
                loop = self._loop
            if loop is not None:
                with contextlib.suppress(trio.RunFinishedError):
                    loop[0].run_sync_soon(loop[1].cancel)
                return done.wait(max(0.0, end - time.monotonic()))
            if done.wait(0.02):
                return True
        return False

    async def _await(self, awaitable: Any) -> Any:
        """Await an async policy in the worker's own loop, which the deadline can cancel."""
        with trio.CancelScope() as scope:
            with _RUNNING_LOCK:
                self._loop = (trio.lowlevel.current_trio_token(), scope)
            return await awaitable
        return None

    async def call(
        self, news: Sequence[Event], view: View | None, timeout: float | None
    ) -> Decision:
        with _RUNNING_LOCK:
            busy = self.key in _RUNNING
            if not busy:
                _RUNNING.add(self.key)
        if busy:
            self._undelivered.extend(news)
            return Decision(
                failure="busy",
                detail="its previous call, abandoned at its deadline, is still running",
            )
        news = [*self._undelivered, *news]
        self._undelivered.clear()
        done = threading.Event()
        with trio.move_on_after(timeout if timeout is not None else float("inf")):
            return await trio.to_thread.run_sync(
                self._work,
                news,
                view,
                done,
                abandon_on_cancel=True,
                limiter=trio.CapacityLimiter(1),
            )
        if self._async and await trio.to_thread.run_sync(self._stop_async, done):
            return timed_out(timeout)
        log.warning("policy abandoned at its deadline", policy=self.key[0], who=self.key[1])
        return timed_out(timeout, "; the call was abandoned (a thread cannot be killed)")

    async def aclose(self) -> None:
        pass


class ProcessHost:
    """A policy in a child process, killed at the deadline and started again when needed."""

    kind = "process"

    def __init__(self, hello: _wire.Hello) -> None:
        self.hello = hello
        self._proc: trio.Process | None = None
        self._reader: _wire.FrameReader | None = None
        self._undelivered: list[Event] = []

    async def start(self) -> Decision | None:
        """Start the child and load its policy; a failure to do so as a decision, else None."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self._proc = await trio.lowlevel.open_process(
            [sys.executable, "-m", f"{__package__}._child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        assert self._proc.stdout is not None
        self._reader = _wire.FrameReader(self._proc.stdout)
        try:
            await self._send(self.hello)
            answer = await self._reader.receive()
        except (trio.BrokenResourceError, trio.ClosedResourceError, EOFError):
            return await self._crashed()
        if answer.failure is not None:
            await self._kill()
            return Decision(failure=answer.failure, detail=answer.detail)
        return None

    async def _send(self, message: _wire.Message) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        await self._proc.stdin.send_all(_wire.frame(message))

    async def _kill(self) -> None:
        proc, self._proc, self._reader = self._proc, None, None
        if proc is None:
            return
        if proc.returncode is None:
            proc.kill()
        with trio.CancelScope(shield=True):
            await proc.wait()
            if proc.stdin is not None:
                await proc.stdin.aclose()
            if proc.stdout is not None:
                await proc.stdout.aclose()

    async def _crashed(self) -> Decision:
        proc = self._proc
        code: int | None = None
        if proc is not None:
            with trio.move_on_after(2):
                code = await proc.wait()
        await self._kill()
        how = "was killed by a signal" if code is not None and code < 0 else f"exited ({code})"
        log.warning("policy process crashed", policy=self.hello.policy, code=code)
        return Decision(failure="crashed", detail=f"the policy's process {how}")

    async def call(
        self, news: Sequence[Event], view: View | None, timeout: float | None
    ) -> Decision:
        self._undelivered.extend(news)
        if self._proc is None:
            failed = await self.start()
            if failed is not None:
                return failed
        assert self._reader is not None
        with trio.move_on_after(timeout if timeout is not None else float("inf")):
            try:
                await self._send(
                    _wire.Call(news=tuple(self._undelivered), view=_wire.portable(view))  # type: ignore[arg-type]
                )
                self._undelivered.clear()
                answer = await self._reader.receive()
            except (trio.BrokenResourceError, trio.ClosedResourceError, EOFError):
                return await self._crashed()
            return Decision(action=answer.action, failure=answer.failure, detail=answer.detail)
        await self._kill()
        return timed_out(timeout, "; its process was killed")

    async def aclose(self) -> None:
        proc = self._proc
        if proc is None:
            return
        assert proc.stdin is not None
        with trio.move_on_after(2):
            await proc.stdin.aclose()
            await proc.wait()
        await self._kill()
