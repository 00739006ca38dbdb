"""``Ruleset.odds`` (what ``View.odds`` answers a policy): an attack's chance to hit and a hit's
mean damage, for each bundled ruleset, against the exact fractions its rules give (counted by
hand from the dice in each docstring), and ``Dice.distribution``."""

from __future__ import annotations

from fractions import Fraction

import pytest
from initiative.engine import Odds, parse_dice, position
from initiative.events import Attack, Move, Position


def odds(ruleset: str, combatants: list[dict], action: Attack, **kw) -> Odds | None:
    board = position(ruleset, combatants=combatants, turn="a", **kw)
    return board.ruleset.odds(board.rules, "a", action)


def exactly(hit: Fraction, damage: Fraction) -> Odds:
    return Odds(hit=float(hit), damage=float(damage))


def test_dice_distribution_is_exact() -> None:
    """2d6 has 36 outcomes, 7 six ways; 2d20kh1 reaches 11 or more in 300 of 400."""
    two = parse_dice("2d6+1").distribution()
    assert two[8] == 6 / 36 and two[3] == 1 / 36 and sum(two.values()) == pytest.approx(1)
    high = parse_dice("2d20kh1").distribution()
    assert sum(p for total, p in high.items() if total >= 11) == pytest.approx(300 / 400)
    assert parse_dice("3").distribution() == {3: 1.0}


def test_openings_attack_odds() -> None:
    """Default (seed 003 silent): "An attack hits when 1d20 + strength (melee) ..., plus the
    weapon's bonus, reaches defense_base + defense of the target"; a hit deals the weapon's
    dice less the target's armor. 1d20 + 3 + 1 >= 10 + 4: faces 10-20, 11/20; 1d8+2 less 2
    armour is 1d8: 9/2."""
    a = {
        "id": "a",
        "side": "x",
        "hp": 10,
        "stats": {"strength": 3},
        "weapons": [{"name": "sword", "damage": "1d8+2", "bonus": 1}],
    }
    b = {"id": "b", "side": "y", "hp": 10, "position": [1, 0], "armor": 2, "stats": {"defense": 4}}
    assert odds("openings", [a, b], Attack(target="b")) == exactly(Fraction(11, 20), Fraction(9, 2))
    assert odds("openings", [a, b], Move(to=Position(0, 1))) is None


THRILLER_A = {
    "id": "a",
    "side": "x",
    "hp": 10,
    "stats": {"agility": 10, "strength": 14},
    "weapons": [{"name": "knife", "damage": "1d6"}],
}
THRILLER_B = {
    "id": "b",
    "side": "y",
    "hp": 10,
    "position": [1, 0],
    "armor": 1,
    "stats": {"agility": 12},
}


def test_thriller_attack_odds() -> None:
    """Seed 000's attack test as the ruleset plays it: 1d20 + the Strength modifier
    ((14 - 10) // 2 = 2) against 10 + the target's Agility modifier (1): faces 9-20, 12/20;
    1d6 less 1 armour (at least 0): (0+1+2+3+4+5)/6 = 15/6."""
    assert odds("thriller", [THRILLER_A, THRILLER_B], Attack(target="b")) == exactly(
        Fraction(12, 20), Fraction(15, 6)
    )


def test_thriller_odds_read_surprise_and_cover() -> None:
    """Seed 000: "Attacks against them have advantage": 2d20 keep the higher reaches 9 unless
    both dice show 8 or less, 1 - (8/20)^2; Take Cover adds ``cover_bonus`` (2) to the
    defence: faces 11-20, 10/20."""
    surprised = odds(
        "thriller", [THRILLER_A, THRILLER_B], Attack(target="b"), conditions={"b": ["surprised"]}
    )
    assert surprised == exactly(1 - Fraction(8, 20) ** 2, Fraction(15, 6))
    covered = odds(
        "thriller", [THRILLER_A, THRILLER_B], Attack(target="b"), conditions={"b": ["in_cover"]}
    )
    assert covered is not None and covered.hit == 10 / 20


def test_percentile_attack_odds() -> None:
    """Default (seed 001 silent on the numbers): "an attack hits when 1d100 is at or under
    Weapon Skill plus the weapon's bonus": 45 + 5 = 50/100; damage 1d10 + strength // 10 (3)
    less armour (1) and toughness // 10 (3): 1d10 - 1, at least 0: 45/10."""
    a = {
        "id": "a",
        "side": "x",
        "hp": 10,
        "stats": {"agility": 30, "weapon_skill": 45, "strength": 34},
        "weapons": [{"name": "axe", "damage": "1d10", "bonus": 5}],
    }
    b = {
        "id": "b",
        "side": "y",
        "hp": 10,
        "position": [1, 0],
        "armor": 1,
        "stats": {"agility": 30, "toughness": 31},
    }
    assert odds("percentile", [a, b], Attack(target="b")) == exactly(
        Fraction(50, 100), Fraction(45, 10)
    )


TACTICAL = [
    {
        "id": "a",
        "side": "x",
        "hp": 10,
        "skills": {"combat_style": 55},
        "weapons": [{"name": "sword", "damage": "1d8"}],
    },
    {"id": "b", "side": "y", "hp": 9, "position": [1, 0], "armor": 2},
]


def test_tactical_attack_odds() -> None:
    """Seed 002: the attack test is d100 under Combat Style (55/100); "All Out Attack ... +20
    to the attack roll": 75/100; damage 1d8 less 2 armour: (0+0+1+2+3+4+5+6)/8 = 21/8."""
    assert odds("tactical", TACTICAL, Attack(target="b")) == exactly(
        Fraction(55, 100), Fraction(21, 8)
    )
    all_out = odds("tactical", TACTICAL, Attack(target="b", variant="all_out"))
    assert all_out == exactly(Fraction(75, 100), Fraction(21, 8))


def test_tactical_odds_fail_from_fumble_from() -> None:
    """A roll at or above ``fumble_from`` always fails: a skill of 120 hits 99/100."""
    strong = [dict(TACTICAL[0], skills={"combat_style": 120}), TACTICAL[1]]
    found = odds("tactical", strong, Attack(target="b"))
    assert found is not None and found.hit == 99 / 100


def test_tactical_coup_de_grace_always_lands() -> None:
    """Seed 002 Coup de Grâce on a helpless target: it is defeated, whatever its hit points."""
    found = odds(
        "tactical",
        TACTICAL,
        Attack(target="b", variant="coup_de_grace"),
        conditions={"b": ["unconscious"]},
    )
    assert found == Odds(hit=1.0, damage=9.0)
    assert found.expected == 9.0
