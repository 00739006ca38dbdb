"""The in-line executor: trusted synchronous policies called directly, no task per combatant.

The actor executor (:func:`actors.schedule`) hands every token to a Trio task per combatant,
which is what a policy needs when it is async, threaded, timed, in a child process or remote.
A policy that is trusted and synchronous (every built-in, and a user function or object that
declares itself with :func:`in_line`) gains nothing from that hop, so a fight whose policies
all qualify can be stepped in line: the same :class:`engine.Stepper`, the same tokens (news
included), the same decisions, so the same log byte for byte (a property test holds the two
executors to it). ``run_encounter(executor="auto")`` (the library, ``lookahead``) picks it when
every policy qualifies; ``run`` keeps the actor executor unless asked.

A policy run in line has no deadline: a stuck one stops the fight. That is why only trusted
code qualifies.
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import msgspec
import structlog
from initiative.engine import Decision, Fight, PriorityToken, Stepper
from initiative.events import Event, InitiativeError

log = structlog.get_logger("initiative.actors")

Executor = Literal["trio", "inline", "auto"]
"""``trio``: a task per combatant; ``inline``: call every policy directly (all must qualify);
``auto``: in line when every policy qualifies, else Trio."""

EXECUTORS = ("trio", "inline", "auto")

F = TypeVar("F")


def in_line(policy: F) -> F:
    """Declare a synchronous policy (a function, a class or an object with ``decide``) safe to
    call in line: it is trusted to return promptly, since no deadline can stop it there."""
    policy.in_line = True  # type: ignore[attr-defined]
    return policy


class InlineSeat:
    """One combatant's policy, called directly, with the failure capture the actors have."""

    def __init__(self, name: str, policy: Any) -> None:
        self.name = name
        self._decide: Callable[[Any], Any] = getattr(policy, "decide", policy)
        self._observe: Callable[[Event], Any] | None = getattr(policy, "observe", None)
        self.warm: bool = getattr(policy, "warm", True)
        """Whether a resumed or forked fight shows it the replayed tokens."""

    @property
    def observes(self) -> bool:
        return self._observe is not None

    def decide(self, token: PriorityToken) -> Decision:
        try:
            if self._observe is not None:
                for event in token.news:
                    self._observe(event)
            return Decision(action=self._decide(token.view))
        except Exception as err:
            frame = traceback.extract_tb(err.__traceback__)[-1]
            where = f" ({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})"
            log.warning("policy raised", who=token.who, policy=self.name, error=repr(err))
            return Decision(failure="error", detail=f"{type(err).__name__}: {err}{where}")

    def observe_rest(self, events: tuple[Event, ...]) -> None:
        if self._observe is None:
            return
        try:
            for event in events:
                self._observe(event)
        except Exception as err:
            log.warning("policy observe raised", policy=self.name, error=repr(err))


def qualifies(loaded: Any) -> bool:
    """Whether a loaded policy may run in line: trusted, declared with :func:`in_line`, or
    plain code from a file or an entry point (``LoadedPolicy.plain``); and synchronous. A
    policy that says ``in_line = False`` never does."""
    policy = loaded.policy
    decide = getattr(policy, "decide", policy)
    said = getattr(policy, "in_line", None)
    if said is False or getattr(decide, "in_line", None) is False:
        return False
    declared = bool(said or getattr(decide, "in_line", False))
    if not (loaded.trusted or declared or getattr(loaded, "plain", False)):
        return False
    return not (inspect.iscoroutinefunction(decide) or inspect.isasyncgenfunction(decide))


def inline_seats(runners: Mapping[str, Any]) -> dict[str, InlineSeat] | None:
    """In-line seats for ``runners`` (what :func:`actors.make_runners` gives), or ``None``
    when any of their policies does not qualify."""
    seats = {}
    for who, runner in runners.items():
        loaded = getattr(runner, "loaded", None)
        if loaded is None or getattr(runner, "kind", None) == "process" or not qualifies(loaded):
            return None
        seats[who] = InlineSeat(loaded.name, loaded.policy)
    return seats


def play_inline(
    fight: Fight,
    seats: dict[str, InlineSeat],
    *,
    decisions: Sequence[Decision] = (),
    warm: bool = True,
) -> None:
    """Run ``fight`` to its end calling each seat's policy directly.

    ``decisions`` and ``warm`` mean what they mean for :func:`actors.schedule`."""
    observing = {who for who, seat in seats.items() if seat.observes}
    seen = dict.fromkeys(seats, 0)
    recorded = iter(decisions)
    events = fight.events

    def decide(token: PriorityToken) -> Decision:
        who = token.who
        if who in observing:
            token = msgspec.structs.replace(token, news=tuple(events[seen[who] :]))
            seen[who] = len(events)
        replayed = next(recorded, None)
        if who not in seats:  # a combatant the GM brought in
            from ._joiners import joiner_runner

            loaded = joiner_runner(fight, who).loaded
            seats[who] = InlineSeat(loaded.name, loaded.policy)
        if replayed is None or (warm and seats[who].warm):
            decision = seats[who].decide(token)
        return decision if replayed is None else replayed

    Stepper(fight).play(decide)
    for who in observing:
        seats[who].observe_rest(tuple(events[seen[who] :]))


def choose(runners: Mapping[str, Any], executor: str) -> dict[str, InlineSeat] | None:
    """The in-line seats to use, or ``None`` for the Trio executor; refuses ``inline`` when a
    policy does not qualify, and an unknown executor."""
    if executor not in EXECUTORS:
        raise InitiativeError(f"unknown executor {executor!r}: use one of {', '.join(EXECUTORS)}")
    if executor == "trio":
        return None
    seats = inline_seats(runners)
    if seats is None and executor == "inline":
        names = sorted(
            {
                getattr(r, "name", who)
                for who, r in runners.items()
                if getattr(r, "loaded", None) is None or not qualifies(r.loaded)
            }
        )
        raise InitiativeError(
            "the in-line executor runs only trusted synchronous policies; these are not: "
            + ", ".join(names)
        )
    return seats
