"""The ``tactical`` ruleset (seed ``002_ef1e1defd7d41b68.txt``): action points, primary and
secondary actions, reactions, special actions and conditions, with d100 roll-under tests.

See ``docs/rulesets/tactical.md`` for what comes from the seed and what is a default.
"""

from ._actions import (
    Aim as Aim,
    Arise as Arise,
    Bash as Bash,
    BlindOpponent as BlindOpponent,
    Block as Block,
    CastMagic as CastMagic,
    CounterAttack as CounterAttack,
    Dash as Dash,
    DefensiveStance as DefensiveStance,
    DelayTurn as DelayTurn,
    Disarm as Disarm,
    Disengage as Disengage,
    DrinkPotion as DrinkPotion,
    Evade as Evade,
    Feint as Feint,
    ForceMovement as ForceMovement,
    Hide as Hide,
    OpportunityAttack as OpportunityAttack,
    Resist as Resist,
    TakeDelayedTurn as TakeDelayedTurn,
    Trip as Trip,
)
from ._ruleset import Tactical

RULESET = Tactical

__all__ = ["RULESET", "Tactical"]
