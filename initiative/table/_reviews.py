"""The review and the live odds beside a served fight: their child processes, and what the
GM's connections are told of them (``review_status`` and ``odds`` frames, for the GM alone).

Neither can stop the fight. Each child (:mod:`._reviewer`) only reads the log, runs at a lower
priority, and is watched from here: one that dies or keeps silent too long is stopped and said
in one line on the GM page; the fight, its log and every other connection go on as before (the
log is the same bytes with or without them).

- **The review** (:class:`ReviewDesk`) starts when the GM asks for it once the fight has ended
  (a ``review`` frame), with a small budget (:class:`ReviewOptions`: 8 rollouts of 3
  candidates, 60 s of CPU), and writes ``LOG.review.html`` beside the log, served at
  ``GET /review`` to the GM's token.
- **The live odds** (:class:`OddsDesk`, ``serve --gm-odds``) are worked out by one long-lived
  child after every decision, for the newest position only: each position is sent to the
  child as it comes, and the child drops the work of one that a newer has overtaken.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import structlog
import trio

from . import _wire as wire

log = structlog.get_logger("initiative.serve")

#: The command that starts a helper (its mode and arguments follow).
HELPER = (sys.executable, "-m", "initiative.table._reviewer")


@dataclass(frozen=True)
class ReviewOptions:
    """What the review and the live odds of a served fight may spend, and how long the server
    waits for them."""

    odds: bool = False
    """Work out the live odds for the GM (``serve --gm-odds``)."""
    odds_rollouts: int = 32
    review_rollouts: int = 8
    review_width: int = 3
    review_seconds: float = 60.0
    """CPU seconds the review may spend in all (it stops each decision's rollouts then)."""
    review_timeout: float = 300.0
    """Seconds (on the clock) before a review that has not finished is stopped."""
    silence: float = 60.0
    """Seconds the odds' process may stay silent with a position asked before it is stopped."""
    stay: float = 600.0
    """Seconds the server stays up after the end while a GM page is connected (to ask for the
    review and read it), at most."""
    helper: tuple[str, ...] = HELPER
    """The command that starts a helper (tests put another in its place)."""
    on_stay: Callable[[], None] | None = None
    """Called once when the fight is over and the server stays up for a GM page (the console
    says so; nothing is said when no GM page asked to stay)."""


def _line(text: bytes) -> str:
    """The last line a child said on its standard error, made one plain line."""
    lines = [x for x in text.decode("utf-8", "replace").splitlines() if x.strip()]
    return " ".join(lines[-1].split())[:200] if lines else ""


def _exit_reason(what: str, code: int | None, err: bytes) -> str:
    said = _line(err)
    how = "was stopped" if code is None else f"exited with status {code}"
    return f"{what} {how}" + (f": {said}" if said else "")


class _Lines:
    """The lines a child writes (without their newlines), one at a time."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def next(self) -> bytes | None:
        """The next line that is not blank; ``None`` once the child closes its output."""
        while True:
            line, found, rest = self.buffer.partition(b"\n")
            if found:
                self.buffer = rest
                if line.strip():
                    return line
                continue
            chunk = await self.stream.receive_some(65536)
            if not chunk:
                return None
            self.buffer += chunk


async def _keep(stream: trio.abc.ReceiveStream, into: bytearray) -> None:
    """Keep the last few KiB a child writes on its standard error."""
    while chunk := await stream.receive_some(65536):
        into += chunk
        del into[:-4096]


async def _start(nursery: trio.Nursery, command: list[str], stdin: int, err: bytearray) -> Any:
    """Start the helper ``command`` in ``nursery``, its output piped, the last of its standard
    error kept in ``err``."""
    proc = await nursery.start(partial(
        trio.run_process, command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        check=False,
    ))  # fmt: skip
    nursery.start_soon(_keep, proc.stderr, err)
    return proc


def _problem(problem: Exception) -> str:
    """Why a helper failed, in one line (its type when it says nothing)."""
    return " ".join(str(problem).split())[:200] or type(problem).__name__


class ReviewDesk:
    """The review of the fight, once asked: one child process and how far it got."""

    def __init__(self, log: Path, options: ReviewOptions, tell: Callable[[], None]) -> None:
        self.log = log
        self.options = options
        self.tell = tell
        self.report = log.with_suffix(".review.html")
        """Where the report goes (``LOG.review.html``), served at ``GET /review``."""
        self.status: wire.ReviewStatus | None = None
        """What the GM is told (``None``: not asked yet)."""
        self.played: dict[str, str] = {}
        """Who played in place of the log's policies (``seat NAME`` for a seat, a policy
        ``serve --policy`` chose): the log does not record it, so the review is told."""
        self._asked = trio.Event()

    @property
    def running(self) -> bool:
        return self.status is not None and self.status.state == "running"

    def ask(self) -> None:
        """Start the review (again, after a failure); asked while it runs or once it is ready,
        nothing changes."""
        if self.status is None or self.status.state == "failed":
            self.report.unlink(missing_ok=True)  # (a report from before is not this one)
            self._set(wire.ReviewStatus(state="running"))
            self._asked.set()

    def ready(self) -> Path | None:
        """The report, once written."""
        ok = self.status is not None and self.status.state == "ready"
        return self.report if ok and self.report.exists() else None

    def _set(self, status: wire.ReviewStatus) -> None:
        self.status = status
        self.tell()

    async def serve(self) -> None:
        """Run each review asked, for as long as the server runs."""
        while True:
            await self._asked.wait()
            self._asked = trio.Event()
            try:
                status = await self._run()
            except Exception as problem:  # (a helper that cannot start: said, never raised)
                reason = _problem(problem)
                log.warning("review failed", reason=reason)
                status = wire.ReviewStatus(state="failed", reason=f"the review failed: {reason}")
            self._set(status)

    async def _run(self) -> wire.ReviewStatus:
        o = self.options
        command = [*o.helper, "review", str(self.log), str(self.report), "--rollouts",
                   str(o.review_rollouts), "--width", str(o.review_width), "--seconds",
                   f"{o.review_seconds:g}"]  # fmt: skip
        for who, name in sorted(self.played.items()):
            command += ["--policy", f"{who}={name}"]
        err = bytearray()
        ready = False
        log.info("review started", log=str(self.log))
        with trio.move_on_after(o.review_timeout) as scope:
            async with trio.open_nursery() as nursery:
                proc = await _start(nursery, command, subprocess.DEVNULL, err)
                lines = _Lines(proc.stdout)
                while (line := await lines.next()) is not None:
                    said = _json(line)
                    if said.get("ready"):
                        ready = True
                    elif isinstance(said.get("done"), int) and isinstance(said.get("total"), int):
                        self._set(wire.ReviewStatus(
                            state="running", done=said["done"], total=said["total"]
                        ))  # fmt: skip
        if scope.cancelled_caught:
            reason = f"the review took more than {o.review_timeout:g} s and was stopped"
        elif ready and proc.returncode == 0 and self.report.exists():
            log.info("review ready", report=str(self.report))
            done = self.status.done if self.status else 0
            return wire.ReviewStatus(state="ready", done=done, total=done, path="/review")
        else:
            reason = _exit_reason("the review", proc.returncode, bytes(err))
        log.warning("review failed", reason=reason)
        return wire.ReviewStatus(state="failed", reason=reason)


def _json(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


class OddsDesk:
    """The live odds: the newest position asked of one long-lived child, its newest answer."""

    def __init__(self, log: Path, options: ReviewOptions, tell: Callable[[], None]) -> None:
        self.log = log
        self.options = options
        self.tell = tell
        self.latest: wire.Odds | None = None
        """What the GM is told: the newest odds, or why they stopped."""
        self.wanted = 0
        """How many of the log's lines the newest position is after."""
        self.ended = False
        self._changed = trio.Event()

    def want(self, lines: int) -> None:
        """A new position: the log's first ``lines`` lines (the fight waits on a decision)."""
        if lines > self.wanted and not self.ended:
            self.wanted = lines
            self._changed.set()

    def finish(self, seq: int, sides: list[str], winner: str | None) -> None:
        """The fight is over: its result in place of odds, and the child let go."""
        self.ended = True
        self._changed.set()
        if self.latest is not None and self.latest.stopped:
            return
        sides = list(self.latest.win) if self.latest is not None and self.latest.win else sides
        win = {s: 1.0 if s == winner else 0.0 for s in sides}
        self._say(wire.Odds(
            seq=seq, round=self.latest.round if self.latest else 0, win=win,
            interval={s: (p, p) for s, p in win.items()}, ended=True,
        ))  # fmt: skip

    def _say(self, odds: wire.Odds) -> None:
        self.latest = odds
        self.tell()

    async def serve(self) -> None:
        """Run the child until the fight ends; a child that dies or hangs is stopped and said
        (never raised: the fight goes on)."""
        try:
            reason = await self._serve()
        except Exception as problem:  # (a helper that cannot start, say)
            reason = _problem(problem)
        if reason is not None and not self.ended:
            log.warning("live odds stopped", reason=reason)
            last = self.latest
            self._say(wire.Odds(
                seq=last.seq if last else None, round=last.round if last else 0,
                win=last.win if last else {}, interval=last.interval if last else {},
                rollouts=last.rollouts if last else 0, who=last.who if last else None,
                stopped=f"the live odds stopped: {reason}",
            ))  # fmt: skip

    async def _serve(self) -> str | None:
        o = self.options
        command = [*o.helper, "odds", str(self.log), "--rollouts", str(o.odds_rollouts)]
        err = bytearray()
        reason: str | None = None
        proc: Any = None
        async with trio.open_nursery() as nursery:
            proc = await _start(nursery, command, subprocess.PIPE, err)
            try:
                reason = await self._talk(proc)
            finally:
                nursery.cancel_scope.cancel()
        if reason is None and not self.ended:
            reason = _exit_reason("its process", proc.returncode, bytes(err))
        return reason

    async def _talk(self, proc: Any) -> str | None:
        """Send each new position, read the answers; the reason it stopped (``None``: the fight
        ended, or the child's output did)."""
        asked = 0
        heard = trio.current_time()
        answers = _Lines(proc.stdout)
        outcome: list[str | None] = []
        async with trio.open_nursery() as nursery:

            async def sending() -> None:
                nonlocal asked, heard
                while not self.ended:
                    if self.wanted > asked:
                        if asked <= self._answered:
                            heard = trio.current_time()  # (the silence counts from here)
                        asked = self.wanted
                        try:
                            await proc.stdin.send_all(f"{asked}\n".encode())
                        except (trio.BrokenResourceError, trio.ClosedResourceError):
                            return  # (the child is gone: its exit says why)
                    changed = self._changed
                    waiting = asked > self._answered
                    with trio.move_on_at(heard + self.options.silence if waiting else float("inf")):
                        await changed.wait()
                        self._changed = trio.Event()
                        continue
                    outcome.append(
                        f"no answer in {self.options.silence:g} s (its process was stopped)"
                    )
                    nursery.cancel_scope.cancel()
                    return
                outcome.append(None)
                nursery.cancel_scope.cancel()

            async def reading() -> None:
                nonlocal heard
                while (line := await answers.next()) is not None:
                    said = _json(line)
                    heard = trio.current_time()
                    lines = said.get("lines")
                    if isinstance(lines, int):
                        self._answered = max(self._answered, lines)
                        if not said.get("dropped") and not self.ended:
                            self._odds(said)
                    self._changed.set()
                nursery.cancel_scope.cancel()

            nursery.start_soon(sending)
            nursery.start_soon(reading)
        return outcome[0] if outcome else None

    _answered = 0
    """The newest position the child has answered (or dropped)."""

    def _odds(self, said: dict[str, Any]) -> None:
        try:
            odds = wire.Odds(
                seq=int(said["seq"]), round=int(said["round"]),
                win={str(k): float(v) for k, v in said["win"].items()},
                interval={str(k): (float(v[0]), float(v[1])) for k, v in said["interval"].items()},
                rollouts=int(said["rollouts"]),
                who=str(said["who"]) if said.get("who") is not None else None,
            )  # fmt: skip
        except (KeyError, TypeError, ValueError, AttributeError):
            return
        self._say(odds)
