"""Percentile tests: d100 roll-under a skill, with degrees of success, and opposed tests.

Seed 002 points to rules it does not contain; the plain defaults (options in brackets):

- A test rolls ``1d100``; it succeeds when the roll is at most the skill plus modifiers, except
  that a roll at or above ``fumble_from`` (100) always fails.
- Degrees of success (DoS): a success has ``1 + (target - roll) // degree_step`` (10); a failure
  has 0. ``CheckResolved.margin`` records the DoS (negative degrees of failure on a failure).
- An opposed test: both roll; the actor wins when its DoS is higher (a tie goes to the one who
  resists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from initiative.events import CheckResolved

from ._options import SKILL_BASES

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


@dataclass(frozen=True)
class Test:
    """The outcome of one percentile test."""

    roll: int
    target: int
    success: bool
    dos: int
    """Degrees of success (0 on failure)."""


def skill(fight: Rules, who: str, name: str) -> int:
    """``who``'s skill ``name``: as the encounter gives it, else the sum of its two stats."""
    spec = fight.spec(who)
    if name in spec.skills:
        return spec.skills[name]
    a, b = SKILL_BASES[name]
    return spec.stats.get(a, 0) + spec.stats.get(b, 0)


def best_skill(fight: Rules, who: str, names: tuple[str, ...]) -> str:
    """The highest of ``names`` for ``who`` (the first listed on a tie): the seed's "or"."""
    return max(names, key=lambda n: (skill(fight, who, n), -names.index(n)))


def roll_test(fight: Rules, who: str, target: int, purpose: str) -> Test:
    """Roll d100 against ``target`` (recorded as ``DiceRolled``); nothing else is emitted."""
    o = fight.options
    roll = fight.roll(who, purpose, "1d100").total
    success = roll <= target and roll < o.fumble_from
    dos = 1 + (target - roll) // o.degree_step if success else 0
    return Test(roll=roll, target=target, success=success, dos=dos)


def margin(fight: Rules, t: Test) -> int:
    """DoS on a success, minus the degrees of failure on a failure."""
    if t.success:
        return t.dos
    return -(1 + max(0, t.roll - t.target - 1) // int(fight.options.degree_step))


def test(
    fight: Rules,
    who: str,
    name: str,
    check: str,
    modifier: int = 0,
    against_who: str | None = None,
) -> Test:
    """A recorded skill test: the roll, then ``CheckResolved`` with its DoS as ``margin``."""
    target = skill(fight, who, name) + modifier
    t = roll_test(fight, who, target, f"{check} ({name})")
    fight.emit(
        CheckResolved(
            who=who,
            check=check,
            success=t.success,
            roll=t.roll,
            against=t.target,
            margin=margin(fight, t),
            against_who=against_who,
        )
    )
    return t


def opposed(
    fight: Rules,
    who: str,
    skills: tuple[str, ...],
    target: str,
    resist: tuple[str, ...],
    check: str,
    resist_modifier: int = 0,
) -> bool:
    """An opposed test: ``who`` with its best of ``skills`` against ``target``'s best of
    ``resist``; true when ``who`` wins (more DoS; a tie goes to ``target``)."""
    mine = test(fight, who, best_skill(fight, who, skills), check, against_who=target)
    theirs = test(
        fight,
        target,
        best_skill(fight, target, resist),
        f"resist {check}",
        resist_modifier,
        against_who=who,
    )
    return mine.dos > theirs.dos
