"""What a policy may ask of an offer before it takes it: its chance to hit and the damage it
deals on average (:class:`Odds`, from :meth:`Ruleset.odds`), and what the table knows of a
combatant (:class:`Sighted`, from :meth:`Ruleset.reveal`).

The helpers compute from the dice exactly (:meth:`Dice.distribution`), so a ruleset's
``odds`` is its own resolution read as probabilities rather than a simulation.
"""

from __future__ import annotations

import msgspec
from initiative.events import Weapon

from ._dice import Dice, _distribution, parse_dice


class Odds(msgspec.Struct, frozen=True, kw_only=True):
    """An attack's prospects as the rules stand at the decision."""

    hit: float
    """The chance that it hits (or, in a roll-under game, that its test succeeds), before any
    reaction the target may answer it with (a Parry, a Dodge, a Block)."""
    damage: float
    """The mean damage a hit deals to the target, after its armour and the like."""

    @property
    def expected(self) -> float:
        """The damage it deals on average: ``hit * damage``."""
        return self.hit * self.damage


class Sighted(msgspec.Struct, frozen=True, kw_only=True):
    """What the table knows of a combatant by looking at it: what the encounter states of its
    arms and armour. Its hit points and AP are in ``View.enemies``; its stats and skills are
    not here (a player does not read an enemy's sheet)."""

    id: str
    name: str
    side: str
    weapons: tuple[Weapon, ...]
    """Its weapons as the encounter gives them (``damage`` dice, ``reach``, ``range``)."""
    armor: int
    """The armour that its hits lose (``armor`` in the encounter)."""
    reach: float
    """The longest reach of its melee weapons (1.5 m unarmed): how close is in its reach."""
    range: float | None
    """The longest range of its ranged weapons; ``None`` without one."""
    speed: float
    size: int


def chance_at_least(dice: str | Dice, target: int) -> float:
    """The exact chance that ``dice`` rolls ``target`` or more."""
    d = parse_dice(dice) if isinstance(dice, str) else dice
    return float(sum(p for total, p in _distribution(d) if total >= target))


def chance_at_most(dice: str | Dice, target: int) -> float:
    """The exact chance that ``dice`` rolls ``target`` or less (a roll-under test)."""
    d = parse_dice(dice) if isinstance(dice, str) else dice
    return float(sum(p for total, p in _distribution(d) if total <= target))


def mean_damage(dice: str | Dice, *, plus: int = 0, less: int = 0, least: int = 0) -> float:
    """The mean of ``max(least, roll + plus - less)``: a hit's damage after armour."""
    d = parse_dice(dice) if isinstance(dice, str) else dice
    return float(sum(p * max(least, total + plus - less) for total, p in _distribution(d)))
