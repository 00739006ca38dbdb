"""The state transition (the live state's, which ``engine.fold`` runs) against the oracle,
``apply`` event by event (``fold_pure``, both in ``tests/oracle.py``), an independent writing of
the same facts.

Every state-changing event type is drawn here, with the orders a fight rarely makes (a
combatant joining again, a condition gained twice or lost without being held, a counter set to
zero), both as a replay folds them (no index ever built) and as a fight meets them (the live
state's lazy indexes built and asked between events).
"""

from __future__ import annotations

from pathlib import Path

import msgspec
from hypothesis import given, settings, strategies as st
from initiative.events import (
    AddCondition,
    APChanged,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    EncounterEnded,
    EncounterStarted,
    Event,
    GmOverride,
    Healed,
    InitiativeOrdered,
    InitiativeRolled,
    InsertedTurnEnded,
    MarkerAdded,
    MarkerRemoved,
    Moved,
    OpeningClosed,
    OpeningOpened,
    Position,
    PriorityGranted,
    RoundStarted,
    StateDigested,
    Trigger,
    TurnEnded,
    TurnInserted,
    TurnStarted,
    Window,
    read_log,
)

from initiative import engine
from tests import oracle

GOLDEN = Path(__file__).parents[1] / "golden"
IDS = ("a", "b", "c")

who = st.sampled_from(IDS)
maybe_who = st.none() | who
point = st.builds(Position, st.integers(-5, 5).map(float), st.integers(-5, 5).map(float))
condition = st.sampled_from(("prone", "hidden"))


# An event of each type about the combatants, by type; seq and cause are set when the log is
# laid out.
def joined(who: st.SearchStrategy[str]) -> st.SearchStrategy[CombatantJoined]:
    return st.builds(
        CombatantJoined,
        who=who,
        side=st.sampled_from(("x", "y")),
        hp=st.integers(1, 9),
        ap=st.integers(0, 3),
        position=point,
    )


EVENTS = {
    CombatantJoined: joined(who),
    InitiativeRolled: st.builds(
        InitiativeRolled,
        who=st.lists(st.sampled_from((*IDS, "stranger")), min_size=1, max_size=2).map(tuple),
        total=st.integers(0, 20),
        die=st.just(1),
        modifier=st.just(0),
    ),
    InitiativeOrdered: st.builds(InitiativeOrdered, order=st.permutations(IDS).map(tuple)),
    RoundStarted: st.builds(RoundStarted, round=st.integers(1, 5)),
    TurnStarted: st.builds(TurnStarted, who=who, round=st.just(1)),
    PriorityGranted: st.builds(
        PriorityGranted,
        who=who,
        window=st.just(Window(kind="turn")),
        ap=st.just(1),
        offers=st.just(1),
    ),
    TurnEnded: st.builds(TurnEnded, who=who),
    TurnInserted: st.builds(TurnInserted, who=who, round=st.just(1)),
    InsertedTurnEnded: st.builds(InsertedTurnEnded, who=who, returns_to=maybe_who),
    OpeningOpened: st.builds(
        OpeningOpened, trigger=st.builds(Trigger, kind=st.just("turn_ended")), offered=st.just(())
    ),
    OpeningClosed: st.builds(OpeningClosed, returns_to=maybe_who),
    APChanged: st.builds(APChanged, who=who, ap=st.integers(0, 3)),
    Moved: st.builds(Moved, who=who, start=point, to=point, distance=st.just(1.0)),
    DamageDealt: st.builds(DamageDealt, who=who, amount=st.just(1), hp=st.integers(-3, 9)),
    Healed: st.builds(Healed, who=who, amount=st.just(1), hp=st.integers(0, 9)),
    ConditionAdded: st.builds(ConditionAdded, who=who, condition=condition),
    ConditionRemoved: st.builds(ConditionRemoved, who=who, condition=condition),
    CounterChanged: st.builds(
        CounterChanged, who=who, name=st.sampled_from(("rage", "ammo")), value=st.integers(0, 2)
    ),
    CombatantDefeated: st.builds(CombatantDefeated, who=who),
    CombatantLeft: st.builds(CombatantLeft, who=who),
    CombatantReturned: st.builds(CombatantReturned, who=who),
    CombatantRevived: st.builds(CombatantRevived, who=who),
    MarkerAdded: st.builds(MarkerAdded, who=who, text=st.sampled_from(("blessed", "the key"))),
    MarkerRemoved: st.builds(MarkerRemoved, who=who, text=st.sampled_from(("blessed", "x"))),
    StateDigested: st.builds(StateDigested, round=st.just(1), digest=st.just("")),
    EncounterEnded: st.builds(
        EncounterEnded, winner=st.none() | st.just("x"), reason=st.just("r"), rounds=st.just(1)
    ),
    GmOverride: st.builds(  # keeps when a timed condition ends: nothing the frozen state holds
        GmOverride,
        override=st.builds(
            AddCondition, who=who, condition=condition, rounds=st.none() | st.integers(1, 3)
        ),
    ),
}


@st.composite
def logs(draw: st.DrawFn) -> list[Event]:
    """Events in log order: every combatant joins first, then anything in any order."""
    joins = [draw(joined(st.just(i))) for i in IDS]
    rest = draw(st.lists(st.one_of(*EVENTS.values()), min_size=10, max_size=80))
    return [
        msgspec.structs.replace(e, seq=seq, cause=seq - 1 if seq else None)
        for seq, e in enumerate([*joins, *rest])
    ]


def _same(events: list[Event], upto: int | None = None) -> None:
    fast, reference = engine.fold(events, upto), oracle.fold_pure(events, upto)
    assert fast == reference
    # Equal values with the same insertion order: the digest (what round ends record) agrees.
    assert engine.state_digest(fast) == engine.state_digest(reference)


@settings(max_examples=100, deadline=None)
@given(logs(), st.integers(0, 70))
def test_fold_equals_apply_event_by_event(events, upto):
    """The whole log, a prefix of it, and no events at all fold to the reference's state."""
    _same(events)
    _same(events, upto)
    _same([])


def test_fold_of_every_golden_log_equals_apply_at_every_event():
    """Each ruleset's golden fight, after every one of its events."""
    for path in sorted(GOLDEN.glob("*.jsonl")):
        events = read_log(path).events
        for seq in range(len(events)):
            assert engine.fold(events, seq) == oracle.fold_pure(events, seq), (path.name, seq)
        _same(events)


def test_every_event_type_the_transition_knows_is_drawn():
    """An event type the live state learns to apply must be drawn above (and so held to the
    oracle); the header is met in the golden logs."""
    from initiative.engine._live import CHANGES

    assert set(EVENTS) >= set(CHANGES) - {EncounterStarted}


@settings(max_examples=50, deadline=None)
@given(logs())
def test_the_live_state_with_its_indexes_in_use_equals_the_oracle(events):
    """A fight's live state builds its indexes on first use and keeps them through every
    change: after each event its value is the oracle's, and each index answers as a fresh look
    at that value does."""
    live, reference = engine.LiveState(), engine.EncounterState()
    for event in events:
        live.apply(event)
        reference = oracle.apply(reference, event)
        assert live.freeze() == reference
        assert [c.id for c in live.standing()] == [c.id for c in reference.standing()]
        for side in ("x", "y"):
            assert live.side_standing(side) == [c for c in reference.standing() if c.side == side]
        assert sorted(live.with_ap(1)) == sorted(
            k for k, c in reference.combatants.items() if c.ap >= 1
        )
        for name in ("prone", "hidden"):
            holding = {k for k, c in reference.combatants.items() if c.has(name)}
            assert live.holding.get(name, set()) == holding
        for c in reference.combatants.values():
            assert c.id in live.near(c.position, 0.5)
    assert engine.state_digest(live.freeze()) == engine.state_digest(reference)
