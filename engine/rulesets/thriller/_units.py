"""The ``thriller`` ruleset's units, one per action, in the order offers are asked of them.

Each unit holds all of its action (offers, check, cost, performance, words):

| module | its units |
| --- | --- |
| ``_turn`` | what one does in one's turn: Attack, Move, Take Cover, Use Item, Ready Weapon, a special action, Full Defense, Flee, a free action, Assist, Interact |
| ``_combat`` | the reactions, with the attack they answer: Dodge, Intercept, Retaliate |
"""

from __future__ import annotations

from ._combat import Dodging, Intercepting, Retaliating
from ._turn import (
    Assisting,
    Attacking,
    Defending,
    Fleeing,
    FreeActing,
    Interacting,
    Moving,
    Readying,
    Specials,
    TakingCover,
    UsingItem,
)

#: In the order a turn's offers are made (then the reactions, one at most an opening).
UNITS = (
    Attacking(),
    Moving(),
    TakingCover(),
    UsingItem(),
    Readying(),
    Specials(),
    Defending(),
    Fleeing(),
    FreeActing(),
    Assisting(),
    Interacting(),
    Dodging(),
    Intercepting(),
    Retaliating(),
)
