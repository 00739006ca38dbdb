"""The ``percentile`` ruleset's conditions and counters."""

from __future__ import annotations

from initiative.engine.kit import Condition, Counter


class Surprised(Condition, frozen=True):
    """Surprised: no actions or reactions in round 1."""

    name = "surprised"


SURPRISED = Surprised()


class Attacks(Counter, frozen=True):
    """Attacks made this turn."""

    name = "percentile.attacks"


class Reactions(Counter, frozen=True):
    """Parries and Dodges made this round."""

    name = "percentile.reactions"


ATTACKS = Attacks()
REACTIONS = Reactions()


#: What the ruleset declares (``Ruleset.conditions`` and ``counters``).
CONDITIONS = (Surprised,)
COUNTERS = (Attacks, Reactions)
