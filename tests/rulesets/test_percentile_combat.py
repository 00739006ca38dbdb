"""Defaults of the percentile ruleset where seed 001 is silent: actions, attacks, reactions."""

from __future__ import annotations

import pytest
from initiative.engine import position
from initiative.events import Attack, EncounterFileError, Parry

from tests.helpers import encounter, fight, of_type
from tests.rulesets.percentile_support import fields, toml

ATTACK_B = '{ type = "Attack", target = "b" }'


SWORD = '[{ name = "sword", damage = "1d10" }]'


def fighter(
    cid: str,
    side: str,
    *extra: str,
    ws: int = 100,
    init: int = 1,
    weapons: str = SWORD,
    **stats: int,
) -> str:
    more = "".join(f", {k} = {v}" for k, v in stats.items())
    return "\n".join(
        [
            f'id = "{cid}"',
            f'side = "{side}"',
            "hp = 40",
            f"stats = {{ agility = 30, weapon_skill = {ws}{more} }}",
            f"initiative_roll = {init}",
            'policy = "scripted"',
            f"weapons = {weapons}",
            *extra,
        ]
    )


def declared(result) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(e.who, type(e.action).__name__) for e in of_type(result.events, "ActionDeclared")]


def rejected(result) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [fields(e, "who", "reason") for e in of_type(result.events, "ActionRejected")]


def test_two_half_actions_a_turn_move_then_attack() -> None:
    """Seed 001 is silent on actions; default: two half actions a turn (``half_actions``)."""
    script = f'script = [{{ type = "Move", to = [3, 0] }}, {ATTACK_B}]'
    result = fight(
        toml(
            fighter("a", "x", script, init=10),
            fighter("b", "y", "position = [4, 0]"),
            rounds=1,
        )
    )
    assert [e.ap for e in of_type(result.events, "PriorityGranted") if e.who == "a"] == [2, 1, 0]
    assert declared(result)[:3] == [("a", "Move"), ("a", "Attack"), ("a", "EndTurn")]


def test_attack_is_a_d100_test_against_weapon_skill() -> None:
    """Default (seed silent): an attack hits when 1d100 is at or under Weapon Skill plus the
    weapon's bonus."""
    spear = '[{ name = "spear", damage = "1d8", bonus = 5 }]'
    result = fight(
        toml(
            fighter("a", "x", f"script = [{ATTACK_B}]", weapons=spear, ws=40, init=10),
            fighter("b", "y"),
            rounds=1,
        ),
        seed=3,
    )
    (roll,) = [e for e in of_type(result.events, "DiceRolled") if e.purpose == "attack on b"]
    (check,) = of_type(result.events, "CheckResolved")
    (resolved,) = of_type(result.events, "AttackResolved")
    assert roll.expr == "1d100"
    assert fields(check, "who", "check", "roll", "against", "against_who") == (
        "a",
        "Weapon Skill",
        roll.total,
        45,
        "b",
    )
    assert resolved.hit == check.success == (roll.total <= 45)


def test_one_attack_a_turn() -> None:
    """Default (seed silent): one attack a turn (``attacks_per_turn``)."""
    result = fight(
        toml(
            fighter("a", "x", f"script = [{ATTACK_B}, {ATTACK_B}]", init=10),
            fighter("b", "y", ws=0),
            rounds=1,
        )
    )
    assert rejected(result) == [("a", "already made 1 attack(s) this turn")]
    assert len(of_type(result.events, "AttackResolved")) == 1


def test_options_override_the_defaults() -> None:
    """Defaults are options: three half actions and two attacks a turn from ``[options]``."""
    result = fight(
        toml(
            fighter("a", "x", f"script = [{ATTACK_B}, {ATTACK_B}]", init=10),
            fighter("b", "y", ws=0),
            rounds=1,
            options="half_actions = 3\nattacks_per_turn = 2",
        )
    )
    assert rejected(result) == []
    assert declared(result)[:3] == [("a", "Attack"), ("a", "Attack"), ("a", "EndTurn")]
    assert [e.ap for e in of_type(result.events, "PriorityGranted") if e.who == "a"] == [3, 2, 1]


def test_parry_turns_a_melee_hit_aside() -> None:
    """Default (seed silent): a hit makes an ``attacked`` opening; the target may Parry with
    a Weapon Skill test, and a successful Parry means no damage."""
    result = fight(
        toml(
            fighter("a", "x", f"script = [{ATTACK_B}]", init=10),
            fighter("b", "y", 'reactions = [{ type = "Parry" }]'),
            rounds=1,
        )
    )
    (opening,) = of_type(result.events, "OpeningOpened")
    assert fields(opening.trigger, "kind", "by", "target", "detail") == (
        "attacked",
        "a",
        "b",
        "melee",
    )
    parry = [e for e in of_type(result.events, "CheckResolved") if e.check == "Parry"]
    assert [fields(e, "who", "success", "against") for e in parry] == [("b", True, 100)]
    (resolved,) = of_type(result.events, "AttackResolved")
    assert fields(resolved, "hit", "detail") == (False, "sword; parried by b")
    assert of_type(result.events, "DamageDealt") == []


def test_failed_dodge_and_damage_formula() -> None:
    """Default (seed silent): Dodge tests the Dodge skill; damage is the weapon's dice plus
    strength // 10 in melee, less toughness // 10 and armor."""
    result = fight(
        toml(
            fighter("a", "x", f"script = [{ATTACK_B}]", init=10, strength=47),
            fighter(
                "b",
                "y",
                'reactions = [{ type = "Dodge" }]',
                "armor = 1",
                "skills = { Dodge = 0 }",
                toughness=31,
            ),
            rounds=1,
        )
    )
    (dodge,) = [e for e in of_type(result.events, "CheckResolved") if e.check == "Dodge"]
    assert fields(dodge, "who", "success", "against") == ("b", False, 0)
    (dmg,) = [e for e in of_type(result.events, "DiceRolled") if e.purpose == "damage to b"]
    (dealt,) = of_type(result.events, "DamageDealt")
    assert dmg.expr == "1d10"
    assert fields(dealt, "who", "amount", "hp", "source") == (
        "b",
        max(0, dmg.total + 4 - 3 - 1),
        40 - max(0, dmg.total + 4 - 3 - 1),
        "a",
    )


def test_ranged_attacks_cannot_be_parried() -> None:
    """Default (seed silent): Parry answers melee attacks only; Dodge answers any."""
    bow = '[{ name = "bow", damage = "1d6", range = 30 }]'
    text = toml(
        fighter("a", "x", f"script = [{ATTACK_B}]", weapons=bow, init=10, ballistic_skill=100),
        fighter(
            "b",
            "y",
            'reactions = [{ type = "Parry" }, { type = "Dodge" }]',
            "position = [10, 0]",
            "skills = { Dodge = 100 }",
        ),
        rounds=1,
    )
    result = fight(text)
    assert rejected(result) == [("b", "only a melee attack can be parried")]
    (check,) = [e for e in of_type(result.events, "CheckResolved") if e.who == "a"]
    assert check.check == "Ballistic Skill"
    (resolved,) = of_type(result.events, "AttackResolved")
    assert fields(resolved, "hit", "detail") == (False, "bow; dodged by b")


def test_one_reaction_a_round() -> None:
    """Default (seed silent): one Parry or Dodge a round (``reactions_per_round``)."""

    def table(cid: str, side: str, x: float) -> dict:
        stats = {"agility": 30, "weapon_skill": 100}
        sword = [{"name": "sword", "damage": "1d10"}]
        return {
            "id": cid,
            "side": side,
            "hp": 40,
            "stats": stats,
            "position": [x, 0],
            "weapons": sword,
        }

    duel = [table("a", "x", 0), table("c", "y", 1)]
    used = position("percentile", combatants=duel, counters={"c": {"percentile.reactions": 1}})
    unparried = used.act("a", Attack(target="c"), reactions={"c": Parry()}, dice=[(10,)])
    assert [type(e).__name__ for e in unparried].count("OpeningOpened") == 0
    used.hook("round_started")
    assert used.get("c").count("percentile.reactions") == 0
    fresh = position("percentile", combatants=duel)
    parried = fresh.act("a", Attack(target="c"), reactions={"c": Parry()}, dice=[(10,), (20,)])
    assert [type(e.action).__name__ for e in of_type(parried, "ActionDeclared")] == [
        "Attack",
        "Parry",
    ]
    assert fresh.get("c").count("percentile.reactions") == 1
    (resolved,) = of_type(parried, "AttackResolved")
    assert fields(resolved, "hit", "detail") == (False, "sword; parried by c")


def test_attack_is_not_a_reaction_and_unknown_actions_are_rejected() -> None:
    """Illegal actions get an ``ActionRejected`` reason, never a traceback."""
    result = fight(
        toml(
            fighter("a", "x", f"script = [{ATTACK_B}]", init=10),
            fighter(
                "b",
                "y",
                "reactions = [{ type = 'Attack', target = 'a' }]",
                "script = [{ type = 'ReadyWeapon', weapon = 'sword' },"
                " { type = 'Attack', target = 'a', variant = 'x' }]",
                ws=0,
            ),
            rounds=1,
        )
    )
    assert rejected(result) == [
        ("b", "Attack is not a reaction in the percentile ruleset"),
        ("b", "ReadyWeapon is not an action of the percentile ruleset"),
        ("b", "the percentile ruleset has no attack variants or hit locations"),
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("[options]\nhalf_actions = 0", r"options.half_actions"),
        ("[options]\nfoo = 1", r"unknown field `options.foo`|Object contains unknown field"),
        ("stats = { agility = 150 }", r"agility is a percentage \(0-100\), got 150"),
        ("stats = { agility = 30, luck = 3 }", r"unknown stat 'luck'"),
        ("skills = { Stealth = 40 }", r"unknown skill 'Stealth'"),
        ("options = { sneak = 'Hide' }", r"combatant 'a'.*sneak"),
        ("weapons = [{ name = 'bow', range = 20 }]", r"ranged weapon but has no ballistic_skill"),
        ("weapons = [{ name = 'club', damage = 'lots' }]", r"lots"),
    ],
)
def test_bad_encounter_files_are_clear_errors(change: str, message: str) -> None:
    """Bad input names what is wrong and where, as an ``EncounterFileError``."""
    base = 'id = "a"\nside = "x"\nhp = 5\n'
    extra = "" if change.startswith("[options]") else change
    if not any(change.startswith(k) for k in ("stats", "[options]")):
        base += "stats = { agility = 30 }\n"
    text = toml(base + extra, 'id = "b"\nside = "y"\nhp = 5\nstats = { agility = 30 }')
    if change.startswith("[options]"):
        text = text.replace("max_rounds = 3\n", "max_rounds = 3\n" + change + "\n", 1)
        text = text.replace("hp = 5\n\n", "hp = 5\nstats = { agility = 30 }\n", 1)
    with pytest.raises(EncounterFileError, match=message):
        encounter(text)
