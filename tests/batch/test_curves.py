"""What one fight gives beyond its totals: the kind of an attack test, and each side's hit
points and damage by round, read from a fight's events."""

from __future__ import annotations

from pathlib import Path

from initiative.batch import attack_kind, fight_one
from initiative.engine import load_encounter
from initiative.events import Weapon

ROOT = Path(__file__).parents[2]


def test_an_attack_kind_is_the_weapon_the_detail_names() -> None:
    """The attacker's weapon that starts the detail (the longest name that does), else the
    weapon of the action it came from, else the detail's first clause."""
    weapons = (Weapon(name="axe"), Weapon(name="axe of ages"), Weapon(name="hand axe"))
    assert attack_kind(weapons, "axe, -5 DoS", None) == "axe"
    assert attack_kind(weapons, "axe of ages", None) == "axe of ages"
    assert attack_kind(weapons, "hand axe; parried by gertrude", None) == "hand axe"
    assert attack_kind(weapons, "goblin-3 moved out of the axe's reach", "axe") == "axe"
    assert attack_kind(weapons, "counter-attack: DoS against DoS", None) == "counter-attack"
    assert attack_kind(weapons, "axes, 3 DoS", None) == "axes"
    assert attack_kind(weapons, "", None) == "attack"


def test_curves_add_up_to_the_fight() -> None:
    """The bridge (tactical, with counter-attacks): each side's damage by round sums to the
    damage it dealt, its last hit points are its combatants' left, one entry a round."""
    spec = load_encounter(ROOT / "examples" / "tactical-bridge.toml")
    for seed in (1, 2, 3):
        s = fight_one(spec, seed, {})
        assert s.curves is not None
        for side in spec.sides:
            assert len(s.curves.hp[side]) == len(s.curves.damage[side]) == s.rounds
            assert sum(s.curves.damage[side]) == s.damage[side]
            left = sum(r.hp or 0 for r in s.combatants.values() if r.side == side)
            assert s.curves.hp[side][-1] == left
            start = sum(c.hp for c in spec.combatants if c.side == side)
            assert s.curves.start[side] == start and all(
                0 <= hp <= start for hp in s.curves.hp[side]
            )
        hits = sum(h for r in s.combatants.values() for h, _ in r.attacks.values())
        assert hits > 0
