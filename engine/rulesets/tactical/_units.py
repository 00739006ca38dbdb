"""The tactical ruleset's units, one per action, in the order offers are asked of them.

Each unit holds all of its action: when it is offered, its own conditions, its cost, what it
does, its words. What every action shares (its class, primary, secondary, reaction or move, and
the rules of each class; Advantage; the aim chain) is the ruleset's, in ``_ruleset``. Offers are a
small, useful list for the built-in policies, each checked with the same ``check`` the scheduler
uses, so an offer is always legal. Actions not offered (Hide, Feint, Delay Turn ...) are still
legal when a policy sends them.

| module | its units |
| --- | --- |
| ``_strikes`` | Attack, Attack of Opportunity, Cast Magic |
| ``_moves`` | Move, Dash |
| ``_preparations`` | Defensive Stance, Disengage, Ready Weapon, Aim, Hide, Drink Potion |
| ``_specials`` | Arise, Bash, Blind Opponent, Disarm, Feint, Force Movement, Resist, Trip |
| ``_defences`` | Evade, Parry, Block, Counter-Attack |
| ``_delay`` | Delay Turn, Take Delayed Turn |
"""

from __future__ import annotations

from typing import Any

from ._defences import Blocking, Countering, Evading, Parrying
from ._delay import Delaying, TakingDelayedTurn
from ._moves import Dashing, Moving
from ._preparations import Aiming, Disengaging, Drinking, Hiding, Readying, Stance
from ._specials import Arising, Bashing, Blinding, Disarming, Feinting, Forcing, Resisting, Tripping
from ._strikes import Attacking, Casting, Opportunity
from ._unit import TacticalUnit

#: In the order offers are made: a turn's (attacks, a spell, moves, reloads, standing up,
#: breaking free, a potion), then an opening's (a delayed turn, an AoO, the defences).
UNITS: tuple[TacticalUnit[Any], ...] = (
    Attacking(),
    Casting(),
    Moving(),
    Dashing(),
    Readying(),
    Arising(),
    Resisting(),
    Drinking(),
    Stance(),
    Disengaging(),
    Delaying(),
    Bashing(),
    Disarming(),
    Feinting(),
    Forcing(),
    Aiming(),
    Hiding(),
    Blinding(),
    Tripping(),
    TakingDelayedTurn(),
    Opportunity(),
    Countering(),
    Blocking(),
    Parrying(),
    Evading(),
)


__all__ = ["UNITS", "TacticalUnit"]
