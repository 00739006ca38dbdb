"""The ``openings`` ruleset's ``[options]``: the defaults where the seed is silent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import (
    Options,
)

if TYPE_CHECKING:
    pass


class OpeningsOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Options of the ``openings`` ruleset (defaults where the seed is silent)."""

    ap: int = 3
    """Action points when full."""
    attack_cost: int = 2
    """AP an attack costs, in a turn or as a reaction."""
    move_cost: int = 1
    """AP a move costs."""
    reaction_move: float = 0.0
    """Metres a reaction Move may cover (0: Move is not a reaction)."""
    defense_base: int = 10
    """An attack hits when its total reaches this plus the target's defense."""
    min_damage: int = 0
    """Damage a hit deals at least, after armor."""
    turn_end_openings: bool = True
    """Ending a turn makes an opening for everyone else."""
    leave_space_openings: bool = True
    """Leaving a creature's space makes an opening for that creature."""
    escape_distance: float = 30.0
    """A creature whose move ends farther than this from every enemy has fled the encounter
    (seed 003: "Encounters may also end abruptly when combatants flee"); 0: nobody flees."""
