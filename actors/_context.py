"""What a policy factory gets: the one type every policy module shares.

Kept apart from the policies themselves, so that the plain built-ins, look-ahead, search and
the terminal all import it from below and none of them imports another back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from initiative.engine import Rng
from initiative.events import CombatantSpec, EncounterSpec


@dataclass(frozen=True)
class PolicyContext:
    """What a policy factory gets: who it decides for, the encounter, its random stream."""

    combatant: CombatantSpec
    encounter: EncounterSpec
    rng: Rng = field(compare=False)
