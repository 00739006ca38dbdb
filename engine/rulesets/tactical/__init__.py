"""The ``tactical`` ruleset (seed ``002_ef1e1defd7d41b68.txt``): action points, primary and
secondary actions, reactions, special actions and conditions, with d100 roll-under tests.

See ``docs/rulesets/tactical.md`` for what comes from the seed and what is a default.
"""

from ._rules import Tactical

RULESET = Tactical

__all__ = ["RULESET", "Tactical"]
