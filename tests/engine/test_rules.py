"""The rules table hooks receive: typed conditions and counters, their log form, and what a
ruleset did not declare."""

from __future__ import annotations

import msgspec
import pytest
from initiative.engine import (
    Condition,
    IllegalAction,
    Mark,
    UndeclaredMarkError,
    find_ruleset,
    position,
)
from initiative.engine.rulesets.tactical._marks import (
    DECLARED_CONDITIONS,
    DECLARED_COUNTERS,
    PRONE,
    Disarmed,
    Dropped,
    Reload,
)
from initiative.events import Attack, ConditionAdded, EncounterFileError, Position

DUEL = [
    {"id": "ann", "side": "a", "hp": 20, "position": [0, 0]},
    {"id": "orc", "side": "b", "hp": 12, "position": [1, 0]},
]


class Stunned(Condition, frozen=True):
    name = "stunned"


@pytest.mark.parametrize(
    ("mark", "wire"),
    [
        (PRONE, "prone"),
        (Disarmed("axe"), "disarmed:axe"),
        (Dropped("axe", Position(1.5, -2)), "dropped:axe@1.5,-2"),
        (Reload("crossbow"), "reload:crossbow"),
    ],
)
def test_each_mark_is_the_string_the_log_always_held(mark, wire) -> None:
    assert mark.wire() == wire
    assert type(mark).parse(wire) == mark
    others = [k for k in (*DECLARED_CONDITIONS, *DECLARED_COUNTERS) if k is not type(mark)]
    assert all(k.parse(wire) is None for k in others)


def test_rules_read_and_write_typed_conditions_and_counters() -> None:
    at = position("tactical", combatants=DUEL, conditions={"orc": ["dropped:axe@3,0"]})
    rules = at.rules
    assert rules.conditions("orc", Dropped) == [Dropped("axe", Position(3, 0))]
    rules.add_condition("orc", Disarmed("axe"), until="picked up")
    rules.add_condition("orc", Disarmed("axe"))  # already held: nothing recorded
    rules.set_counter("ann", Reload("bow"), 2)
    assert at.get("orc").conditions == ("dropped:axe@3,0", "disarmed:axe")
    assert rules.has("orc", Disarmed("axe")) and not rules.has("ann", PRONE)
    assert rules.count("ann", Reload("bow")) == 2 and rules.count("orc", Reload("bow")) == 0
    assert at.get("ann").counters == (("reload:bow", 2),)


def test_a_condition_the_ruleset_does_not_declare_is_an_error_when_emitted() -> None:
    at = position("tactical", combatants=DUEL)
    with pytest.raises(UndeclaredMarkError, match="Stunned is not a condition the tactical"):
        at.rules.add_condition("ann", Stunned())
    with pytest.raises(UndeclaredMarkError, match="'stunned' is not a condition or counter"):
        at.rules.emit(ConditionAdded(who="ann", condition="stunned"))
    assert at.get("ann").conditions == ()
    with pytest.raises(EncounterFileError, match="'stunned' is not a condition the tactical"):
        position("tactical", combatants=DUEL, conditions={"ann": ["stunned"]})


def _sample(kind: type[Mark]) -> Mark:
    """A value of ``kind``, its fields filled by type."""
    values = {str: "long sword", Position: Position(1.5, -2.0)}
    types = [f.type for f in msgspec.structs.fields(kind)]
    return kind(*(values[t] for t in types))


@pytest.mark.parametrize("ruleset", ["openings", "percentile", "tactical", "thriller"])
def test_every_declared_mark_reads_back_as_itself_and_as_nothing_else(ruleset) -> None:
    """One codec per type, in one place: a declared mark's string is read back by its own type
    and by no other the ruleset declares."""
    cls = find_ruleset(ruleset)
    for kinds in (cls.conditions, cls.counters):
        for kind in kinds:
            mark = _sample(kind)
            wire = mark.wire()
            assert kind.parse(wire) == mark, wire
            assert [k for k in kinds if k.parse(wire) is not None] == [kind], wire


def test_a_position_refuses_what_the_ruleset_does_not_know_and_acts_only_legally() -> None:
    with pytest.raises(EncounterFileError, match="'tired' is not a counter the tactical"):
        position("tactical", combatants=DUEL, counters={"ann": {"tired": 1}})
    with pytest.raises(EncounterFileError, match="no combatant 'bob'"):
        position("tactical", combatants=DUEL, turn="bob")
    far = position("tactical", combatants=DUEL, turn="ann", ap={"ann": 0})
    with pytest.raises(IllegalAction, match="needs 1 AP, has 0"):
        far.act("ann", Attack(target="orc"))
    assert far.get("ann").ap == 0
