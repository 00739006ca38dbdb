"""What a policy factory gets: the one type every policy module shares.

Kept apart from the policies themselves, so that the plain built-ins, look-ahead, search and
the terminal all import it from below and none of them imports another back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from initiative.engine import Rng, Sighted, find_ruleset
from initiative.events import CombatantSpec, EncounterSpec


@dataclass(frozen=True)
class PolicyContext:
    """What a policy factory gets: who it decides for, the encounter, its random stream."""

    combatant: CombatantSpec
    encounter: EncounterSpec
    rng: Rng = field(compare=False)

    @property
    def known(self) -> dict[str, Sighted]:
        """What the table knows of the combatant's enemies in the encounter, by id, as the
        ruleset reveals them (the same as every ``View.known`` of the fight): for a policy
        that sizes up its enemies once, when it is made."""
        ruleset = find_ruleset(self.encounter.ruleset)(self.encounter)
        side = self.combatant.side
        return {c.id: ruleset.reveal(c) for c in self.encounter.combatants if c.side != side}
