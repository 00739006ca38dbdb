"""One vocabulary of words: each event type is worded once (replay's line and the table's
sentence side by side) or listed as told by neither, and both narrators draw from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from initiative.events import (
    ActionDeclared,
    ActionRejected,
    APChanged,
    Attack,
    AttackResolved,
    CheckResolved,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    DecisionFailed,
    DiceGiven,
    DiceRolled,
    EncounterEnded,
    Event,
    GmNote,
    GmOverride,
    GmRolled,
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
    PriorityPassed,
    RoundEnded,
    RoundStarted,
    SeedChanged,
    StateDigested,
    Trigger,
    TurnEnded,
    TurnInserted,
    TurnStarted,
    Window,
    read_log,
)
from initiative.replays import Narrator, TableNarrator
from initiative.replays._vocabulary import EVENTS, SAID, SILENT, Words

HEADER = read_log(
    Path(__file__).parents[1] / "golden" / "format1" / "upcast" / "thriller-ambush.seed2.jsonl"
).events[0]
A, B = "marlowe", "ada"
HERE = Position(x=0, y=0)


def one_of_each() -> list[Event]:
    """After the header, one event of every other type, each a root of its own (no cause),
    so that the table tells each on its own rather than inside a deed's sentence."""
    events: list[Event] = [
        CombatantJoined(who=B, side="south", hp=10, ap=3, position=HERE, round=2),
        InitiativeRolled(who=(A,), total=15, die=12, modifier=3),
        InitiativeOrdered(order=(A, B)),
        RoundStarted(round=1),
        TurnStarted(who=A, round=1),
        PriorityGranted(who=A, window=Window(kind="turn"), ap=3),
        ActionDeclared(who=A, action=Attack(target=B), cost=2),
        ActionRejected(who=A, action=Attack(target=B), reason="out of reach"),
        DecisionFailed(who=A, kind="timeout"),
        PriorityPassed(who=A, reason="too many illegal actions"),
        DiceRolled(who=A, purpose="damage", expr="1d6", dice=(4,), modifier=0, total=4),
        DiceGiven(who=A, purpose="damage", expr="1d6", dice=(4,), modifier=0, total=4),
        APChanged(who=A, ap=1),
        Moved(who=B, start=HERE, to=Position(x=1.5, y=2), distance=2.5),
        AttackResolved(who=A, target=B, hit=True, roll=3, against=9),
        CheckResolved(who=B, check="Climb", success=False, roll=15, against=12),
        DamageDealt(who=B, amount=3, hp=7, location="head"),
        Healed(who=B, amount=2, hp=9),
        ConditionAdded(who=A, condition="in_cover"),
        ConditionRemoved(who=A, condition="in_cover"),
        CounterChanged(who=A, name="luck", value=2),
        OpeningOpened(trigger=Trigger(kind="attacked", by=A), offered=(B,)),
        OpeningClosed(returns_to=A),
        TurnEnded(who=A, reason="surprised"),
        TurnInserted(who=B, round=1),
        InsertedTurnEnded(who=B),
        RoundEnded(round=1),
        CombatantDefeated(who=B),
        CombatantLeft(who=B, reason="fled"),
        CombatantReturned(who=B),
        CombatantRevived(who=B),
        StateDigested(round=1, digest="00"),
        SeedChanged(seed=3),
        GmOverride(override=GmNote(text="the bridge creaks")),
        GmRolled(expr="1d6", dice=(2,), modifier=0, total=2),
        MarkerAdded(who=A, text="on fire"),
        MarkerRemoved(who=A, text="on fire"),
        EncounterEnded(winner="investigators", reason="last standing", rounds=1),
    ]
    return [HEADER, *(e.__class__(**{**_fields(e), "seq": i}) for i, e in enumerate(events, 1))]


def _fields(event: Event) -> dict[str, object]:
    return {name: getattr(event, name) for name in event.__struct_fields__}


def told(narrate: Narrator | TableNarrator, events: list[Event]) -> str:
    return "\n".join(line for e in events if (line := narrate(e)) is not None)


def test_every_event_type_is_worded_or_listed_as_told_by_neither() -> None:
    """A new event type cannot be forgotten: it is worded in SAID or listed in SILENT, never
    both."""
    assert set(EVENTS) == set(SAID) | SILENT
    assert not set(SAID) & SILENT


def test_the_example_holds_one_event_of_every_type() -> None:
    assert sorted(t.__name__ for t in {type(e) for e in one_of_each()}) == sorted(
        t.__name__ for t in EVENTS
    )


def test_both_narrators_draw_every_told_event_from_the_vocabulary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With each entry's words replaced, replay and the table say the replacements: neither
    words an event itself."""
    for cls in list(SAID):
        name = cls.__name__
        monkeypatch.setitem(
            SAID,
            cls,
            Words(lambda e, s, n=name: f"<log {n}>", lambda e, s, n=name: f"<table {n}>"),
        )
    replay = told(Narrator(), one_of_each())
    table = told(TableNarrator(gm=True), one_of_each())
    for cls in SAID:
        assert f"<log {cls.__name__}>" in replay, cls
        assert f"<table {cls.__name__}>" in table, cls


def test_what_neither_tells_is_not_told() -> None:
    """The bookkeeping events give no line, in replay or at the table."""
    for narrate in (Narrator(), TableNarrator(gm=True)):
        narrate(HEADER)
        for event in one_of_each()[1:]:
            if type(event) in SILENT:
                assert narrate(event) is None, event


def test_damage_told_on_its_own_names_where_it_landed() -> None:
    """The table's lone line for damage says what the deed's sentence says ("3 damage to the
    head"); it once dropped the place."""
    narrate = TableNarrator()
    narrate(HEADER)
    said = narrate(DamageDealt(seq=1, who=B, amount=3, hp=7, location="head"))
    assert said == "Dr. Ada Vance takes 3 damage to the head"


def test_a_condition_that_names_something_reads_at_the_table_as_on_a_screen() -> None:
    """``disarmed:axe`` and ``blinded_by:<id>``: the table says what a seat's screen lists
    (``disarmed (axe)``, ``blinded by Detective Marlowe``), given and taken away; it once said
    ``is disarmed:axe``."""
    from initiative.actors import Names, condition_words

    narrate = TableNarrator()
    narrate(HEADER)
    names = Names(HEADER.encounter)
    said = [
        narrate(ConditionAdded(seq=1, who=B, condition="disarmed:axe")),
        narrate(ConditionAdded(seq=2, who=B, condition=f"blinded_by:{A}")),
        narrate(ConditionRemoved(seq=3, who=B, condition="disarmed:axe")),
    ]
    assert said == [
        "Dr. Ada Vance is disarmed (axe)",
        "Dr. Ada Vance is blinded by Detective Marlowe",
        "Dr. Ada Vance is no longer disarmed (axe)",
    ]
    assert condition_words("disarmed:axe", names) == "disarmed (axe)"
    assert condition_words(f"blinded_by:{A}", names) == "blinded by Detective Marlowe"
