"""The combatant actor: a Trio task that owns its decider and answers priority tokens.

Everything a combatant's policy sees reaches the actor as a message on its inbox: a
:class:`~engine.PriorityToken` (with the news since its last one) is answered with exactly one
:class:`~engine.Decision`; :class:`FightOver` carries the last news and asks for no answer. One
deadline covers everything the policy does for one message (observing the news and deciding).
Where the policy runs is the host's business (see :mod:`actors._hosts`): in line for the
built-ins, in a worker thread for code from files and entry points, in a child process when
asked (``process:NAME`` or ``--host ID=process``), which is killed at the deadline.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import msgspec
import structlog
import trio
from initiative.engine import Decision, PriorityToken
from initiative.events import (
    Action,
    DecisionFailed,
    Event,
    InitiativeError,
    PolicyFailedError,
)

from . import _wire
from ._hosts import HOSTS, Host, InlineHost, ProcessHost, TaskHost, ThreadHost
from ._loading import LoadedPolicy
from ._mailbox import Mailbox

log = structlog.get_logger("initiative.actors")


class FightOver(msgspec.Struct, frozen=True, kw_only=True):
    """The fight has ended: the events the combatant has not seen yet. No answer is expected."""

    news: tuple[Event, ...] = ()


Message = PriorityToken | FightOver


def choose_host(loaded: LoadedPolicy, wanted: str | None = None) -> str:
    """The host a policy runs in: ``wanted`` if given, else in line (trusted, synchronous),
    a task (trusted, async) or a thread (anything from a file or an entry point)."""
    if wanted is not None:
        if wanted not in HOSTS:
            raise InitiativeError(
                f"policy {loaded.name!r}: unknown host {wanted!r}; use one of {', '.join(HOSTS)}"
            )
        return wanted
    decide = getattr(loaded.policy, "decide", loaded.policy)
    if not loaded.trusted:
        return "thread"
    return "task" if inspect.iscoroutinefunction(decide) else "inline"


class PolicyRunner:
    """One combatant's decider: its host, its deadline, and what it is shown."""

    def __init__(
        self,
        loaded: LoadedPolicy,
        timeout: float | None,
        *,
        host: str | None = None,
        hello: _wire.Hello | None = None,
        who: str = "",
    ) -> None:
        self.name = loaded.name
        self.hello = hello
        """What a child process is told (a strict copy of the runner is made with it)."""
        self.loaded = loaded
        """The policy as loaded (the in-line executor calls it directly when it qualifies)."""
        self.timeout = timeout
        """Seconds for one call (observe and decide together); ``None``: no deadline."""
        self.kind = choose_host(loaded, host)
        self.host: Host
        self._in_line: InlineHost | None = None
        if self.kind == "process":
            if hello is None:
                raise InitiativeError(f"policy {loaded.name!r} cannot run in a process here")
            self.host = ProcessHost(hello)
        elif self.kind == "thread":
            self.host = ThreadHost(loaded.policy, (loaded.name, who))
        elif self.kind == "task":
            self.host = TaskHost(loaded.policy)
        else:
            self.host = self._in_line = InlineHost(loaded.policy)
        self.observes = self.kind == "process" or hasattr(loaded.policy, "observe")
        """Whether it is shown the news (a process host might observe: it is always shown)."""
        self.closes = self.kind == "process"
        """Whether the host holds something to release when the combatant ends (a child
        process); the others' ``aclose`` does nothing, so no shielded scope is opened for it."""
        self.warm = getattr(loaded.policy, "warm", True)
        """Whether a resumed or forked fight shows it the replayed tokens (a person is never
        asked again what the log already holds)."""

    @property
    def in_line(self) -> bool:
        """Whether its host never waits (:meth:`decide_now` may be called instead of
        :meth:`decide`)."""
        return self._in_line is not None

    async def decide(self, token: PriorityToken) -> Decision:
        return self._checked(token, await self.host.call(token.news, token.view, self.timeout))

    def decide_now(self, token: PriorityToken) -> Decision:
        """:meth:`decide` for a host that never waits (:attr:`in_line`), without a coroutine."""
        assert self._in_line is not None
        return self._checked(token, self._in_line.call_now(token.news, token.view))

    strict = False
    """Whether a failure is raised rather than warned about (see :class:`Strict`)."""

    def _checked(self, token: PriorityToken, decision: Decision) -> Decision:
        if decision.failure is not None and not self.strict:
            log.warning(
                "policy failed",
                who=token.who,
                policy=self.name,
                kind=decision.failure,
                detail=decision.detail,
            )
        return decision

    async def finish(self, news: tuple[Event, ...]) -> None:
        """The end of the fight: show the last news (under the deadline), then stop the host."""
        try:
            if news and self.observes:
                decision = await self.host.call(news, None, self.timeout)
                if decision.failure is not None:
                    log.warning("policy observe failed", policy=self.name, detail=decision.detail)
        finally:
            await self.host.aclose()

    async def aclose(self) -> None:
        await self.host.aclose()


async def combatant(
    who: str,
    runner: PolicyRunner,
    inbox: Mailbox[Message],
    answers: Mailbox[Decision],
) -> None:
    """The combatant task: one decision in ``answers`` for every token from ``inbox``, until
    :class:`FightOver` or the scheduler closes the inbox. It closes ``answers`` when it ends,
    so a scheduler waiting on it is never left waiting."""
    structlog.contextvars.bind_contextvars(combatant=who)
    in_line = runner.in_line
    try:
        while True:
            try:
                message = await inbox.get()
            except trio.EndOfChannel:
                return
            if isinstance(message, FightOver):
                await runner.finish(message.news)
                return
            if in_line:  # a host that never waits: no coroutine to make and await
                answers.put(runner.decide_now(message))
            else:
                answers.put(await runner.decide(message))
    finally:
        answers.close()
        if runner.closes:
            with trio.CancelScope(shield=True):
                await runner.aclose()


class _Strict:
    """A policy that keeps what went wrong: the exception it raised, or a :class:`TypeError`
    naming what it returned instead of an action. The host still records the failure as it
    always does; :class:`Strict` raises it as :class:`PolicyFailedError` when the fight
    records it. Everything the hosts and the in-line executor ask of a policy (a synchronous or
    async ``decide``, ``observe``, ``in_line``, ``warm``) is the wrapped policy's."""

    def __init__(self, policy: Any, keep: Callable[[BaseException], None]) -> None:
        self._decide: Callable[..., Any] = getattr(policy, "decide", policy)
        self._keep = keep
        is_async = inspect.iscoroutinefunction(self._decide)
        self.decide = self._decide_async if is_async else self._decide_sync
        observe = getattr(policy, "observe", None)
        if observe is not None:
            self._observe: Callable[[Event], Any] = observe
            self.observe = self._observe_kept
        for attr in ("in_line", "warm"):
            value = getattr(policy, attr, getattr(self._decide, attr, None))
            if value is not None:
                setattr(self, attr, value)

    def _checked(self, result: Any) -> Any:
        if not isinstance(result, (Action, Decision)):
            self._keep(TypeError(f"decide returned {result!r}, not an action"))
        return result

    def _decide_sync(self, view: Any) -> Any:
        try:
            return self._checked(self._decide(view))
        except BaseException as err:
            self._keep(err)
            raise

    async def _decide_async(self, view: Any) -> Any:
        try:
            return self._checked(await self._decide(view))
        except BaseException as err:
            self._keep(err)
            raise

    def _observe_kept(self, event: Event) -> Any:
        try:
            return self._observe(event)
        except BaseException as err:
            self._keep(err)
            raise


class Strict:
    """``strict=True``: the first failed decision of a fight stops it with
    :class:`PolicyFailedError`, the policy's exception chained, instead of being recorded and
    passed over.

    :meth:`runners` wraps each runner's policy (a person at the terminal and a policy in a child
    process are not wrapped: their failures still stop the fight, with nothing to chain); the
    object itself is the fight's event sink that raises."""

    def __init__(self) -> None:
        self.errors: dict[str, BaseException] = {}
        self.names: dict[str, str] = {}

    def runners(self, runners: Mapping[str, PolicyRunner]) -> dict[str, PolicyRunner]:
        strict = {}
        for who, runner in runners.items():
            self.names[who] = runner.name
            strict[who] = self._runner(who, runner)
            strict[who].strict = True
        return strict

    def _runner(self, who: str, runner: PolicyRunner) -> PolicyRunner:
        loaded = runner.loaded
        if runner.kind == "process" or getattr(loaded.policy, "person", False):
            return runner

        def keep(err: BaseException) -> None:
            self.errors[who] = err

        wrapped = LoadedPolicy(loaded.name, _Strict(loaded.policy, keep), loaded.trusted)
        return PolicyRunner(wrapped, runner.timeout, host=runner.kind, hello=runner.hello, who=who)

    def __call__(self, event: Event) -> None:
        if isinstance(event, DecisionFailed):
            self.cause = self.errors.pop(event.who, None)
            name = self.names.get(event.who, "?")
            raise PolicyFailedError(
                f"{event.who} (policy {name!r}) failed a decision ({event.kind}): {event.detail}"
            ) from self.cause

    cause: BaseException | None = None
    """The policy's exception behind the failure raised (kept too because the actor executor
    re-raises an error from its nursery without its chain)."""
