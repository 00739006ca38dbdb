"""Seed 000, initiative and action points: each test quotes the sentence it checks."""

from __future__ import annotations

import pytest
from initiative.events import EncounterFileError

from ._thriller import declared, events, fighter, one, run


def test_initiative_is_1d20_plus_agility_modifier():
    """Seed 000: "Initiative Roll:1d20 + Initiative Modifier" ... "the Initiative modifier is
    usually derived from Agility (AGI)": (AGI - 10) // 2."""
    r = run(
        fighter("a", "x", stats="agility = 14"),
        fighter("b", "y", stats="agility = 7", x=3.0),
        rounds=1,
    )
    for who, mod in (("a", 2), ("b", -2)):
        die = one(r, "DiceRolled", who=who, purpose="initiative")
        assert die.expr == "1d20"
        rolled = one(r, "InitiativeRolled", who=(who,))
        assert (rolled.die, rolled.modifier, rolled.total) == (die.total, mod, die.total + mod)


def test_perception_may_drive_initiative_in_an_ambush():
    """Seed 000: "Some Game Masters may instead allow Perception (PER) to influence Initiative
    in ambush situations." """
    a = fighter("a", "x", stats="agility = 10, perception = 16", surprised="false")
    b = fighter("b", "y", stats="agility = 10, perception = 4", x=3.0)
    options = 'ambush_by = "y"\nambush_initiative = "perception"'
    r = run(a, b, options=options, rounds=1)
    assert one(r, "InitiativeRolled", who=("a",)).modifier == 3
    assert one(r, "InitiativeRolled", who=("b",)).modifier == -3


def test_perception_initiative_applies_only_in_an_ambush():
    """Seed 000: Perception replaces Agility only "in ambush situations": asking for it with no
    ambush (no ``ambush_by``) would be silently ignored, so it is an error naming the key."""
    a = fighter("a", "x", stats="agility = 14, perception = 4")
    with pytest.raises(EncounterFileError) as info:
        run(a, fighter("b", "y", x=3.0), options='ambush_initiative = "perception"', rounds=1)
    assert str(info.value) == (
        "<test>: in [options]: ambush_initiative = 'perception' needs ambush_by (the side that"
        " springs the ambush)"
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("agility = 11, perception = 3, sanity = 1", "agility = 10, perception = 18, sanity = 90"),
        ("agility = 10, perception = 14, sanity = 1", "agility = 10, perception = 12, sanity = 90"),
        (
            "agility = 10, perception = 12, sanity = 50",
            "agility = 10, perception = 12, sanity = 30",
        ),
    ],
    ids=["agility", "perception", "sanity"],
)
def test_ties_break_by_agility_then_perception_then_sanity(first, second):
    """Seed 000: "If two results are identical, the GM may compare highest Agility, Perception,
    or even current Sanity Points"."""
    low = fighter("low", "x", stats=second, initiative_roll="10")
    high = fighter("high", "y", stats=first, initiative_roll="10", x=3.0)
    r = run(low, high, rounds=1)
    assert [e.total for e in events(r, "InitiativeRolled")] == [10, 10]
    ordered = one(r, "InitiativeOrdered")
    assert ordered.order == ("high", "low")
    assert ordered.ties == ()
    assert events(r, "DiceRolled", purpose="initiative roll-off") == []


def test_full_ties_are_rolled_off_and_recorded():
    """Seed 000: identical results and stats: the tie is settled by a recorded roll-off."""
    same = "agility = 10, perception = 12, sanity = 20"
    r = run(
        fighter("a", "x", stats=same, initiative_roll="9"),
        fighter("b", "y", stats=same, initiative_roll="9", x=3.0),
    )
    rolls = events(r, "DiceRolled", purpose="initiative roll-off")
    last = {e.who: e.total for e in rolls}
    assert sorted(last) == ["a", "b"] and last["a"] != last["b"]
    assert one(r, "InitiativeOrdered").order == tuple(sorted(last, key=lambda w: -last[w]))
    assert "roll-off" in one(r, "InitiativeOrdered").ties[-1]


def test_lightning_reflexes_gives_advantage_on_initiative():
    """Seed 000: "Certain perks (e.g., Lightning Reflexes, Combat Reflexes) grant advantage or
    bonus modifiers to Initiative rolls." Lightning Reflexes: 2d20, keep the higher."""
    r = run(fighter("a", "x", perks='["Lightning Reflexes"]'), fighter("b", "y", x=3.0), rounds=1)
    die = one(r, "DiceRolled", who="a", purpose="initiative")
    assert die.expr == "2d20kh1" and len(die.dice) == 2
    assert one(r, "InitiativeRolled", who=("a",)).die == max(die.dice)
    assert one(r, "DiceRolled", who="b", purpose="initiative").expr == "1d20"


@pytest.mark.parametrize(("options", "bonus"), [("", 2), ("combat_reflexes_bonus = 3", 3)])
def test_combat_reflexes_adds_to_initiative(options, bonus):
    """Seed 000: perks "grant advantage or bonus modifiers to Initiative rolls": Combat Reflexes
    adds ``combat_reflexes_bonus`` (default +2)."""
    a = fighter("a", "x", stats="agility = 12", perks='["combat-reflexes"]')
    r = run(a, fighter("b", "y", x=3.0), options=options, rounds=1)
    assert one(r, "InitiativeRolled", who=("a",)).modifier == 1 + bonus
    assert one(r, "InitiativeRolled", who=("b",)).modifier == 0


@pytest.mark.parametrize(
    ("agility", "ap"), [(3, 1), (6, 1), (7, 1), (9, 1), (10, 2), (11, 2), (14, 4), (18, 6)]
)
def test_ap_from_agility(agility, ap):
    """Seed 000: "AP = (Agility - 6) / 2 (Minimum 1 AP per round.)" "AGI 6-7 -> 1 AP", "AGI 10 -> 2 AP"."""
    r = run(fighter("a", "x", stats=f"agility = {agility}"), fighter("b", "y", x=3.0), rounds=1)
    assert one(r, "CombatantJoined", who="a").ap == ap


def test_ap_given_in_the_encounter_file_wins():
    """A combatant's own ``ap`` overrides the Agility formula."""
    r = run(fighter("a", "x", ap="5"), fighter("b", "y", x=3.0), rounds=1)
    assert one(r, "CombatantJoined", who="a").ap == 5


def test_unused_ap_is_held_for_reactions_and_resets_at_own_turn():
    """Seed 000: "Unused AP can be reserved for reactions and carry through the round until your
    next turn, when AP resets." """
    a = fighter(
        "a",
        "x",
        initiative_roll="20",
        script='[{ type = "Attack", target = "b" }]',
        reactions='[{ type = "Dodge" }]',
    )
    b = fighter("b", "y", x=1.0, initiative_roll="1", script='[{ type = "Attack", target = "a" }]')
    r = run(a, b, rounds=2)
    a_ap = [(e.ap, e.reason) for e in events(r, "APChanged", who="a")]
    # Round 1: one attack (2 -> 1), the held AP pays b's-turn Dodge (1 -> 0), round 2 resets.
    assert a_ap == [(1, "spent"), (0, "spent"), (2, "turn start")]
    assert [(type(e.action).__name__, e.cost) for e in declared(r, "a")] == [
        ("Attack", 1),
        ("Dodge", 1),
    ]
