"""Options of the ``percentile`` ruleset: the defaults chosen where seed 001 is silent."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from initiative.engine.kit import Options

Positive = Annotated[int, msgspec.Meta(ge=1)]
NonNegative = Annotated[int, msgspec.Meta(ge=0)]


class PercentileOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Encounter-wide options (``[options]``); every one is a default, not the seed's rule."""

    half_actions: Positive = 2
    """Half actions (AP) a combatant has each turn; a combatant's own ``ap`` wins."""
    attack_cost: Positive = 1
    """Half actions an attack takes."""
    move_cost: Positive = 1
    """Half actions a move (up to one's ``speed``) takes."""
    attacks_per_turn: Positive = 1
    """Attacks a combatant may make in one turn."""
    reactions_per_round: NonNegative = 1
    """Parries or Dodges a combatant may make in one round (0: no reactions)."""
    parry: bool = True
    """Parry (a Weapon Skill test) is a reaction to a melee attack that hit."""
    dodge: bool = True
    """Dodge (a Dodge skill test) is a reaction to an attack that hit."""
    strength_bonus: bool = True
    """Melee damage adds the attacker's strength bonus (strength // 10)."""
    toughness_bonus: bool = True
    """Damage is reduced by the target's toughness bonus (toughness // 10), then armor."""
    min_damage: NonNegative = 0
    """Damage a hit deals at least, after reductions."""
    circumstance_modifier: int = 0
    """Unusual circumstances, added to every Concealment and Silent Move test for surprise
    (pouring rain +10, noisy cobblestones -10)."""


class CombatantOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Per-combatant options (a combatant's ``options = { ... }``), for surprise."""

    sneak: Literal["Concealment", "Silent Move"] | None = None
    """Before the combat this combatant hides or sneaks, testing this skill."""
    sneak_modifier: int = 0
    """Circumstances for this combatant's sneak test."""
    wary: bool = False
    """Extremely wary: opposes a hidden or sneaking enemy with a Perception test."""
    perception_modifier: int = 0
    """Distractions (negative) or alertness for this combatant's Perception tests."""
