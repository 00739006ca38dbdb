"""Who rolls initiative, and which given dice are accepted, checked against each seed."""

from __future__ import annotations

import pytest
from helpers import encounter, fight, of_type
from initiative.events import EncounterFileError

#: (ruleset, its initiative die, the stats a combatant needs, the seed sentence on who rolls)
RULESETS = [
    (
        "thriller",
        20,
        "agility = 10",
        "At the start of combat, each participant rolls for Initiative to determine turn order.",
    ),
    (
        "openings",
        12,
        "agility = 1",
        "To determine in what order characters take their turns, characters roll initiative.",
    ),
    ("tactical", 10, "ag = 10", "(silent on groups: the plain default, one roll each)"),
]


def copies(ruleset: str, stats: str, extra: str = "") -> str:
    return f"""
ruleset = "{ruleset}"
max_rounds = 1
[[combatants]]
id = "hero"
side = "a"
hp = 50
stats = {{ {stats} }}
policy = "scripted"
[[combatants]]
id = "gob"
side = "b"
hp = 50
count = 3
stats = {{ {stats} }}
position = [20, 0]
policy = "scripted"
{extra}
"""


@pytest.mark.parametrize(("ruleset", "die", "stats", "quote"), RULESETS)
def test_every_participant_rolls_its_own_initiative(ruleset, die, stats, quote):
    """Each ruleset whose seed has every participant roll gives the copies of a ``count``
    one roll each; group rolls are the percentile seed's (see its tests)."""
    result = fight(copies(ruleset, stats))
    rolled = of_type(result.events, "InitiativeRolled")
    assert [e.who for e in rolled] == [("hero",), ("gob-1",), ("gob-2",), ("gob-3",)]
    rolls = [e for e in of_type(result.events, "DiceRolled") if e.purpose == "initiative"]
    assert len(rolls) == 4
    assert all(e.expr == f"1d{die}" for e in rolls)
    assert quote


@pytest.mark.parametrize(("ruleset", "die", "stats", "quote"), RULESETS)
def test_a_group_key_is_refused_where_the_seed_has_no_group_rolls(ruleset, die, stats, quote):
    """A ``group`` under a ruleset that rolls for each participant would be silently ignored;
    it is an error naming the key instead."""
    with pytest.raises(EncounterFileError) as info:
        encounter(copies(ruleset, stats, 'group = "goblins"'))
    text = str(info.value)
    assert "combatants[1]" in text and ".group" in text
    assert f"the {ruleset} ruleset rolls initiative for each participant" in text


@pytest.mark.parametrize(("ruleset", "die", "stats", "quote"), RULESETS)
@pytest.mark.parametrize("face", [0, "die+1", -3])
def test_a_given_initiative_die_must_be_a_face_of_the_rulesets_die(
    ruleset, die, stats, quote, face
):
    """Thriller: "Initiative Roll:1d20 + Initiative Modifier"; openings: "Initiative is rolled
    by using a d12"; tactical's default 1d10: a die rolled at the table shows 1 to its sides."""
    value = die + 1 if face == "die+1" else face
    with pytest.raises(EncounterFileError) as info:
        encounter(copies(ruleset, stats, f"initiative_roll = {value}"))
    assert f"initiative_roll is a d{die} face (1-{die}), got {value}" in str(info.value)


@pytest.mark.parametrize(("ruleset", "die", "stats", "quote"), RULESETS)
def test_the_highest_face_is_accepted(ruleset, die, stats, quote):
    """The die's own highest face is a legal given roll."""
    result = fight(copies(ruleset, stats, f"initiative_roll = {die}"))
    given = [e for e in of_type(result.events, "InitiativeRolled") if e.given]
    assert [e.die for e in given] == [die, die, die]
