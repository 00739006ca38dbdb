"""The combatant actor: a Trio task that answers priority tokens with decisions.

It owns a policy. Each token it receives is answered with exactly one :class:`Decision`: the
policy's action, or a recorded failure when the policy raised or ran past the decision timeout.
User policies that are plain functions run in a worker thread, so even one stuck in a loop is
abandoned at the timeout and the fight goes on; built-in policies run inline.
"""

from __future__ import annotations

import inspect
import traceback
from typing import Any

import structlog
import trio

from engine import Decision, PriorityToken
from events import Event

from ._loading import LoadedPolicy

log = structlog.get_logger("initiative.actors")


class PolicyRunner:
    """Calls one policy with the timeout, observation and failure capture the protocol needs."""

    def __init__(self, loaded: LoadedPolicy, timeout: float) -> None:
        self.name = loaded.name
        self.loaded = loaded
        """The policy as loaded (the in-line executor calls it directly when it qualifies)."""
        self.timeout = timeout
        policy = loaded.policy
        self._decide: Any = getattr(policy, "decide", policy)
        self._observe: Any = getattr(policy, "observe", None)
        is_async = inspect.iscoroutinefunction(self._decide)
        self._threaded = not loaded.trusted and not is_async
        self._inline = loaded.trusted and not is_async

    @property
    def observes(self) -> bool:
        return self._observe is not None

    def observe_rest(self, events: tuple[Event, ...]) -> None:
        """Show an observing policy the events after its last decision (the fight's end), so
        it sees every event of the encounter; a failure here changes nothing and is logged."""
        if self._observe is None:
            return
        try:
            for event in events:
                self._observe(event)
        except Exception as err:
            log.warning("policy observe raised", policy=self.name, error=repr(err))

    async def decide(self, token: PriorityToken) -> Decision:
        if self._inline:
            # A trusted plain function cannot be interrupted anyway: skip the cancel scope.
            try:
                for event in token.news:
                    self._observe(event)
                return Decision(action=self._decide(token.view))
            except Exception as err:
                return self._failed(token, err)
        with trio.move_on_after(self.timeout) as scope:
            try:
                for event in token.news:
                    self._observe(event)
                if self._threaded:
                    result = await trio.to_thread.run_sync(
                        self._decide, token.view, abandon_on_cancel=True
                    )
                else:
                    result = self._decide(token.view)
                    if inspect.isawaitable(result):
                        result = await result
            except Exception as err:
                return self._failed(token, err)
        if scope.cancelled_caught:
            log.warning("policy timed out", who=token.who, policy=self.name)
            return Decision(failure="timeout", detail=f"no decision within {self.timeout:g} s")
        return Decision(action=result)

    def _failed(self, token: PriorityToken, err: Exception) -> Decision:
        frame = traceback.extract_tb(err.__traceback__)[-1]
        where = f" ({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})"
        log.warning("policy raised", who=token.who, policy=self.name, error=repr(err))
        return Decision(failure="error", detail=f"{type(err).__name__}: {err}{where}")


async def combatant(
    who: str,
    runner: PolicyRunner,
    tokens: trio.MemoryReceiveChannel[PriorityToken],
    decisions: trio.MemorySendChannel[Decision],
) -> None:
    """The combatant task: one decision for every token, until the scheduler closes the
    token channel."""
    structlog.contextvars.bind_contextvars(combatant=who)
    async with tokens, decisions:
        async for token in tokens:
            decision = await runner.decide(token)
            await decisions.send(decision)
