"""``run_encounter``: the nursery with the scheduler and one task per combatant.

The scheduler task drives :class:`engine.Fight` and talks to combatants only through channels:
a token channel to each combatant and a decision channel back. It waits on exactly the
combatant that holds priority, so the order of play never depends on Trio's scheduling. Channels
are unbuffered, opened with ``async with`` and closed by their owners, so every task ends when
the encounter does.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import structlog
import trio

from engine import Decision, EncounterState, Fight, PriorityToken, Stepper, policy_rng
from events import (
    EncounterEnded,
    EncounterSpec,
    Event,
    InitiativeError,
    LogWriter,
    PriorityGranted,
)

from ._combatant import PolicyRunner, combatant
from ._inline import Executor, choose, play_inline
from ._loading import PolicyChoice, load_policy
from ._policies import PolicyContext

log = structlog.get_logger("initiative.actors")

_FLUSH = (PriorityGranted, EncounterEnded)
"""The events after which the pending log lines are written."""


@dataclass
class Result:
    """The outcome of one encounter."""

    fight: Fight
    events: list[Event] = field(default_factory=list)

    @property
    def winner(self) -> str | None:
        return self.fight.state.winner

    @property
    def rounds(self) -> int:
        return self.fight.state.round

    @property
    def state(self) -> EncounterState:
        """The final state of the encounter."""
        return self.fight.state

    def to_dicts(self) -> list[dict[str, Any]]:
        """The events as plain dicts (one per event, ``type`` first): what
        ``pandas.DataFrame(result.to_dicts())`` or ``polars.DataFrame(...)`` take."""
        return [msgspec.to_builtins(event) for event in self.events]


def make_runners(
    encounter: EncounterSpec,
    seed: int,
    policies: Mapping[str, PolicyChoice] | None = None,
    *,
    timeout: float | None = None,
) -> dict[str, PolicyRunner]:
    """Load every combatant's policy (``policies`` overrides by combatant id or side, each a
    name, a function, an object with ``decide`` or a class; see :data:`PolicyChoice`)."""
    if timeout is not None and not timeout > 0:
        raise InitiativeError(
            f"the decision timeout must be a positive number of seconds, got {timeout:g}"
        )
    chosen = dict(policies or {})
    runners = {}
    for c in encounter.combatants:
        name = chosen[c.id] if c.id in chosen else chosen.get(c.side, c.policy)
        ctx = PolicyContext(combatant=c, encounter=encounter, rng=policy_rng(seed, c.id))
        runners[c.id] = PolicyRunner(
            load_policy(name, ctx), timeout if timeout is not None else encounter.decision_timeout
        )
    return runners


async def schedule(
    fight: Fight,
    runners: Mapping[str, PolicyRunner],
    *,
    decisions: Sequence[Decision] = (),
    warm: bool = True,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run ``fight`` to its end with one combatant task per runner.

    The first ``len(decisions)`` tokens are answered with ``decisions`` (recorded ones, for a
    fork or a resumed fight), the rest by the live policies. With ``warm``, each replayed token
    is still shown to its combatant's policy and the answer dropped, so a policy with memory or
    its own random stream is in the state it would have been in had it made those decisions.
    """
    async with trio.open_nursery() as nursery:
        links: dict[
            str, tuple[trio.MemorySendChannel[PriorityToken], trio.MemoryReceiveChannel[Decision]]
        ] = {}
        for who, runner in runners.items():
            token_tx, token_rx = trio.open_memory_channel[PriorityToken](0)
            decision_tx, decision_rx = trio.open_memory_channel[Decision](0)
            nursery.start_soon(
                combatant, who, runner, token_rx, decision_tx, name=f"combatant {who}"
            )
            links[who] = (token_tx, decision_rx)
        task_status.started()
        seen = dict.fromkeys(runners, 0)
        recorded = iter(decisions)
        try:
            stepper = Stepper(fight)
            while (token := stepper.token) is not None:
                token_tx, decision_rx = links[token.who]
                if runners[token.who].observes:
                    token = msgspec.structs.replace(
                        token, news=tuple(fight.events[seen[token.who] :])
                    )
                    seen[token.who] = len(fight.events)
                replayed = next(recorded, None)
                if replayed is None or warm:
                    await token_tx.send(token)
                    decision = await decision_rx.receive()
                stepper.apply(decision if replayed is None else replayed)
            for who, runner in runners.items():
                if runner.observes:
                    runner.observe_rest(tuple(fight.events[seen[who] :]))
        finally:
            for token_tx, decision_rx in links.values():
                await token_tx.aclose()
                await decision_rx.aclose()


async def run_encounter(
    encounter: EncounterSpec,
    seed: int,
    *,
    policies: Mapping[str, PolicyChoice] | None = None,
    out: str | Path | None = None,
    on_event: Callable[[Event], None] | None = None,
    timeout: float | None = None,
    parent: str | None = None,
    decisions: Sequence[Decision] = (),
    warm: bool = True,
    written: int = 0,
    policy_seed: int | None = None,
    reseed: dict[int, int] | None = None,
    executor: Executor = "trio",
    runners: Mapping[str, PolicyRunner] | None = None,
) -> Result:
    """Fight ``encounter`` with live policies; write the log to ``out`` as it happens.

    To go on from a recorded fight (a fork, or a resumed one): ``decisions`` answers the first
    tokens (see :func:`schedule`); ``written`` events are already in ``out``, which is then
    appended to from there on. ``policy_seed`` seeds the policies' random streams (default
    ``seed``); ``reseed={seq: n}`` switches the dice to seed ``n`` after event ``seq`` (recorded
    as ``SeedChanged``). ``executor`` picks how policies are called (see
    :mod:`actors._inline`): ``trio`` (the default), ``inline`` or ``auto``; the log is the same.
    """
    if runners is None:
        runners = make_runners(
            encounter, seed if policy_seed is None else policy_seed, policies, timeout=timeout
        )
    seats = choose(runners, executor)
    writer = LogWriter(out, append=written > 0) if out is not None else None

    pending: list[bytes] = []

    def sink(event: Event) -> None:
        # Lines are written together up to each grant of priority (before any policy runs)
        # and at the end: whole lines, one write per decision instead of one per event.
        if writer is not None and event.seq >= written:
            pending.append(fight.last_line)
            if isinstance(event, _FLUSH):
                writer.write_line(b"".join(pending))
                pending.clear()
        if on_event is not None:
            on_event(event)

    fight = Fight(encounter, seed, sink=sink, parent=parent, reseed=reseed)
    structlog.contextvars.bind_contextvars(encounter=encounter.name or encounter.ruleset)
    try:
        if seats is not None:
            play_inline(fight, seats, decisions=decisions, warm=warm)
        else:
            await schedule(fight, runners, decisions=decisions, warm=warm)
    finally:
        if writer is not None:
            if pending:
                writer.write_line(b"".join(pending))
            writer.close()
        structlog.contextvars.unbind_contextvars("encounter", "combatant")
    return Result(fight=fight, events=fight.events)


def run_encounter_sync(encounter: EncounterSpec, seed: int, **kwargs: Any) -> Result:
    """:func:`run_encounter` from synchronous code.

    A fight the in-line executor plays awaits nothing, so it runs without starting Trio (a
    ``trio.run`` costs about as much as a few decisions of a small fight)."""
    if kwargs.get("runners") is None:
        policy_seed = kwargs.get("policy_seed")
        kwargs["runners"] = make_runners(
            encounter,
            seed if policy_seed is None else policy_seed,
            kwargs.get("policies"),
            timeout=kwargs.get("timeout"),
        )
    if choose(kwargs["runners"], kwargs.get("executor", "trio")) is not None:
        fight = run_encounter(encounter, seed, **kwargs)
        try:  # in a copy of the context, as trio.run would: the caller's stays untouched
            contextvars.copy_context().run(fight.send, None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        fight.close()
        raise RuntimeError("an in-line fight awaited")  # pragma: no cover - never awaits
    return trio.run(lambda: run_encounter(encounter, seed, **kwargs))
