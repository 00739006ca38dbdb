"""Seed 001 initiative: 1d10 + Agility, kept for the encounter, ties, groups, arrivals."""

from __future__ import annotations

import pytest
from initiative.events import EncounterFileError

from tests.helpers import encounter, fight, of_type
from tests.rulesets.percentile_support import dice_for, fields, toml, turns_by_round

WILHELM = """
id = "wilhelm"
side = "heroes"
hp = 12
stats = { agility = 35, weapon_skill = 100, strength = 40, toughness = 30 }
weapons = [{ name = "sword", damage = "1d10+10" }]
initiative_roll = 6
policy = "scripted"
script = [{ type = "EndTurn" }, { type = "EndTurn" }, { type = "Attack", target = "goblin-1" }]
"""
GERTRUDE = """
id = "gertrude"
side = "heroes"
hp = 11
stats = { agility = 30, weapon_skill = 35 }
initiative_roll = 9
policy = "scripted"
"""
GOBLINS = """
id = "goblin"
count = 3
side = "goblins"
hp = 5
stats = { agility = 25, weapon_skill = 25, toughness = 30 }
position = [1, 0]
initiative_roll = 5
policy = "scripted"
"""
ORC = """
id = "orc"
side = "goblins"
hp = 12
stats = { agility = 30, weapon_skill = 35 }
position = [1, 0]
arrives = 4
initiative_roll = 2
policy = "scripted"
"""
GOBLIN_IDS = ("goblin-1", "goblin-2", "goblin-3")


def simple(cid: str, side: str, agility: int, *extra: str) -> str:
    lines = [f'id = "{cid}"', f'side = "{side}"', "hp = 10"]
    lines.append(f"stats = {{ agility = {agility}, weapon_skill = 30 }}")
    lines += ['policy = "scripted"', *extra]
    return "\n".join(lines)


def test_worked_example_wilhelm_gertrude_goblins_then_orc() -> None:
    """Seed 001: "Wilhelm rolls a 6 on a d10, so his Initiative for this combat is 41
    (35+6=41). His companion Gertrude gets a 39 and the three Goblins have a 30." ... "The
    previous combat has been going for three rounds now and one of the Goblins has been slain.
    An Orc arrives to aid them so the GM rolls Initiative and gets a 32. In the new round, the
    revised Initiative order will be Wilhelm (41), Gertrude (39), the Orc (32) and finally the
    two remaining Goblins (30)." """
    result = fight(toml(WILHELM, GERTRUDE, GOBLINS, ORC, rounds=4))
    rolled = [
        fields(e, "who", "total", "die", "modifier", "given")
        for e in of_type(result.events, "InitiativeRolled")
    ]
    assert rolled == [
        (("wilhelm",), 41, 6, 35, True),
        (("gertrude",), 39, 9, 30, True),
        (GOBLIN_IDS, 30, 5, 25, True),
        (("orc",), 32, 2, 30, True),
    ]
    orders = [e.order for e in of_type(result.events, "InitiativeOrdered")]
    assert orders == [
        ("wilhelm", "gertrude", *GOBLIN_IDS),
        ("wilhelm", "gertrude", "orc", "goblin-2", "goblin-3"),
    ]
    (slain,) = of_type(result.events, "CombatantDefeated")
    assert slain.who == "goblin-1"
    turns = turns_by_round(result.events)
    assert turns[1] == turns[2] == ["wilhelm", "gertrude", *GOBLIN_IDS]
    assert turns[3] == ["wilhelm", "gertrude", "goblin-2", "goblin-3"]
    assert turns[4] == ["wilhelm", "gertrude", "orc", "goblin-2", "goblin-3"]


def test_initiative_is_1d10_plus_agility() -> None:
    """Seed 001: "To determine Initiative, 1d10 is rolled and the result is added to the
    character's Agility Characteristic." """
    result = fight(toml(simple("a", "x", 42), simple("b", "y", 17), rounds=1), seed=7)
    dice = dice_for(result.events, "initiative")
    assert [fields(d, "who", "expr") for d in dice] == [("a", "1d10"), ("b", "1d10")]
    rolled = of_type(result.events, "InitiativeRolled")
    for die, init, agility in zip(dice, rolled, (42, 17), strict=True):
        assert 1 <= die.total <= 10
        assert fields(init, "die", "modifier", "total", "given") == (
            die.total,
            agility,
            die.total + agility,
            False,
        )


def test_initiative_rolled_once_and_kept_every_round() -> None:
    """Seed 001: "You only need to determine Initiative at the start of the combat, however.
    Once the Initiative order has been established, it remains the same from round to
    round." """
    result = fight(toml(simple("a", "x", 30), simple("b", "y", 31), simple("c", "y", 29)), seed=3)
    assert len(of_type(result.events, "InitiativeRolled")) == 3
    assert len(dice_for(result.events, "initiative")) == 3
    (ordered,) = of_type(result.events, "InitiativeOrdered")
    turns = turns_by_round(result.events)
    assert turns[1] == turns[2] == turns[3] == list(ordered.order)


def test_given_roll_used_as_given_and_recorded_as_given() -> None:
    """Seed 001: "The GM is responsible for determining the Initiative of any NPCs and
    monsters." A die rolled at the table is used as given, not rolled."""
    result = fight(toml(simple("a", "x", 30, "initiative_roll = 10"), simple("b", "y", 50)))
    a, b = of_type(result.events, "InitiativeRolled")
    assert fields(a, "who", "die", "total", "given") == (("a",), 10, 40, True)
    assert b.given is False
    assert [d.who for d in dice_for(result.events, "initiative")] == ["b"]


def test_ties_act_in_agility_order() -> None:
    """Seed 001: "If more than one character has the same Initiative, they act in Agility
    order (from highest to lowest)." """
    result = fight(
        toml(
            simple("slow", "x", 35, "initiative_roll = 6"),
            simple("quick", "y", 40, "initiative_roll = 1"),
        )
    )
    (ordered,) = of_type(result.events, "InitiativeOrdered")
    assert [e.total for e in of_type(result.events, "InitiativeRolled")] == [41, 41]
    assert ordered.order == ("quick", "slow")
    assert dice_for(result.events, "initiative roll-off") == []


def test_equal_initiative_and_agility_rolls_off() -> None:
    """Seed 001: "If more than one character has the same Initiative, they act in Agility
    order" - and when Agility is equal too, a recorded 1d10 roll-off decides."""
    result = fight(
        toml(
            simple("a", "x", 35, "initiative_roll = 6"),
            simple("b", "y", 35, "initiative_roll = 6"),
        ),
        seed=2,
    )
    offs = dice_for(result.events, "initiative roll-off")
    assert len(offs) >= 2 and {d.expr for d in offs} == {"1d10"}
    last = {d.who: d.total for d in offs}
    assert last["a"] != last["b"]
    (ordered,) = of_type(result.events, "InitiativeOrdered")
    assert ordered.order == tuple(sorted(last, key=last.__getitem__, reverse=True))
    assert ordered.ties[0].startswith("tie at 41 broken by roll-off")


def test_group_makes_one_roll_and_each_member_keeps_its_own_turn_and_state() -> None:
    """Seed 001: "GMs can make one Initiative roll for each group of like characters. ... One
    roll will do for all of them and they'll all act at the same time in the Initiative
    order." """
    hero = simple(
        "hero",
        "x",
        50,
        "weapons = [{ name = 'axe', damage = '1d4+20' }]",
        'script = [{ type = "EndTurn" }, { type = "Attack", target = "wolf-2" }]',
        "initiative_roll = 10",
    )
    hero = hero.replace("weapon_skill = 30", "weapon_skill = 100")
    wolves = simple("wolf", "y", 20, "count = 3", "position = [1, 0]")
    rat = simple("rat", "y", 20, 'group = "wolf"', "position = [1, 3]")
    result = fight(toml(hero, wolves, rat, rounds=2), seed=5)
    rolled = of_type(result.events, "InitiativeRolled")
    assert [r.who for r in rolled] == [("hero",), ("wolf-1", "wolf-2", "wolf-3", "rat")]
    assert [d.who for d in dice_for(result.events, "initiative")] == ["wolf-1"]
    turns = turns_by_round(result.events)
    assert turns[1] == ["hero", "wolf-1", "wolf-2", "wolf-3", "rat"]
    assert turns[2] == ["hero", "wolf-1", "wolf-3", "rat"]
    hp = {c.id: c.hp for c in result.fight.state.combatants.values()}
    assert hp["wolf-1"] == hp["wolf-3"] == hp["rat"] == 10
    assert hp["wolf-2"] <= 0


def test_arrival_rolls_on_arrival_and_joins_without_disturbing_the_others() -> None:
    """Seed 001: "If new combatants join in the midst of the encounter, simply roll
    Initiative for them and add them to the order. The GM determines on which round new
    combatants arrive." """
    result = fight(
        toml(
            simple("a", "x", 50, "initiative_roll = 1"),
            simple("b", "y", 20, "initiative_roll = 1"),
            simple("c", "y", 10, "initiative_roll = 1"),
            simple("late", "x", 30, "arrives = 3"),
        ),
        seed=4,
    )
    joined = [fields(e, "who", "round") for e in of_type(result.events, "CombatantJoined")]
    assert joined[-1] == ("late", 3)
    start3 = next(e.seq for e in of_type(result.events, "RoundStarted") if e.round == 3)
    (die,) = dice_for(result.events, "initiative")
    assert die.who == "late" and die.seq > start3 and die.cause == start3
    first, second = of_type(result.events, "InitiativeOrdered")
    assert first.order == ("a", "b", "c")
    assert [c for c in second.order if c != "late"] == ["a", "b", "c"]
    assert second.order.index("late") == (1 if 30 + die.total > 21 else 2)
    turns = turns_by_round(result.events)
    assert "late" not in turns[1] + turns[2]
    assert turns[3] == list(second.order)


def test_arrival_tied_with_the_placed_goes_after_them_without_a_roll_off() -> None:
    """Seed 001: "simply roll Initiative for them and add them to the order": a newcomer tied
    in Initiative and Agility with someone already placed does not move them."""
    result = fight(
        toml(
            simple("a", "x", 30, "initiative_roll = 4"),
            simple("b", "y", 30, "initiative_roll = 3"),
            simple("late", "y", 30, "arrives = 2", "initiative_roll = 4"),
        )
    )
    assert dice_for(result.events, "initiative roll-off") == []
    ordered = of_type(result.events, "InitiativeOrdered")[-1]
    assert ordered.order == ("a", "late", "b")
    assert ordered.ties == ("tie at 34: a already placed, act before newcomers",)


def test_given_roll_must_be_a_d10_face() -> None:
    """Seed 001: "1d10 is rolled": a given roll outside 1-10 is a clear encounter error."""
    with pytest.raises(EncounterFileError, match=r"initiative_roll is a d10 face \(1-10\), got 11"):
        encounter(toml(simple("a", "x", 30, "initiative_roll = 11"), simple("b", "y", 30)))


def test_agility_is_required() -> None:
    """Seed 001: Initiative adds "the character's Agility Characteristic", so it is needed."""
    text = toml(simple("a", "x", 30), simple("b", "y", 30)).replace(
        "stats = { agility = 30, weapon_skill = 30 }", "stats = { weapon_skill = 30 }", 1
    )
    with pytest.raises(EncounterFileError, match="needs stat 'agility'"):
        encounter(text)


def test_late_group_member_acts_on_its_own_roll() -> None:
    """Seed 001: "If new combatants join in the midst of the encounter, simply roll Initiative
    for them": a late member of a group acts where its own roll puts it."""
    result = fight(
        toml(
            simple("hero", "x", 30, "initiative_roll = 5"),
            simple("gob", "y", 25, "count = 2", "initiative_roll = 5"),
            simple("gob-3", "y", 25, 'group = "gob"', "arrives = 2", "initiative_roll = 10"),
            rounds=2,
        )
    )
    rolled = [(e.who, e.total) for e in of_type(result.events, "InitiativeRolled")]
    assert rolled == [(("hero",), 35), (("gob-1", "gob-2"), 30), (("gob-3",), 35)]
    assert of_type(result.events, "InitiativeOrdered")[-1].order == (
        "hero",
        "gob-3",
        "gob-1",
        "gob-2",
    )
    assert turns_by_round(result.events)[2] == ["hero", "gob-3", "gob-1", "gob-2"]
