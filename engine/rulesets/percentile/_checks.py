"""Percentile tests: a d100 roll at or under a characteristic or skill succeeds.

The seed speaks of "Perception Test", "Concealment" and "Silent Move" but gives no mechanics for a
test; the plain default of a percent system is used: roll 1d100, succeed when the roll is at or
under the value tested (after modifiers). The margin is in points: value minus roll.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from initiative.events import CheckResolved, CombatantSpec

if TYPE_CHECKING:
    from initiative.engine.kit import Rules

#: The eight percent characteristics an encounter may give (``agility`` is required).
STATS = frozenset(
    {
        "weapon_skill",
        "ballistic_skill",
        "strength",
        "toughness",
        "agility",
        "intelligence",
        "willpower",
        "fellowship",
    }
)

#: Skills the ruleset tests, with the characteristic an untrained test uses at half value.
SKILL_BASE = {
    "Concealment": "agility",
    "Silent Move": "agility",
    "Perception": "intelligence",
    "Dodge": "agility",
}


class Test(NamedTuple):
    """The outcome of one percentile test."""

    roll: int
    target: int
    success: bool
    margin: int
    seq: int
    """Seq of the recorded ``CheckResolved``."""


def skill_value(spec: CombatantSpec, skill: str) -> int:
    """The skill as given, else half the characteristic it rests on (untrained default)."""
    if skill in spec.skills:
        return spec.skills[skill]
    return spec.stats.get(SKILL_BASE[skill], 0) // 2


def percent_test(
    fight: Rules,
    who: str,
    check: str,
    target: int,
    *,
    purpose: str | None = None,
    against_who: str | None = None,
) -> Test:
    """Roll 1d100 for ``who`` against ``target`` and record the outcome."""
    roll = fight.roll(who, purpose or check, "1d100").total
    success = roll <= target
    margin = target - roll
    seq = fight.emit(
        CheckResolved(
            who=who,
            check=check,
            success=success,
            roll=roll,
            against=target,
            margin=margin,
            against_who=against_who,
        )
    )
    return Test(roll, target, success, margin, seq)
