"""The ``thriller`` ruleset (seed ``000_d9d14e010805cf12.txt``).

From the seed (each rule quoted where it is implemented, and in the test that checks it):

- "Initiative Roll: 1d20 + Initiative Modifier", the modifier "usually derived from Agility":
  the Agility modifier, (AGI - 10) // 2 on the 3-18 scale. "Some Game Masters may instead allow
  Perception (PER) to influence Initiative in ambush situations": ``ambush_initiative``.
  Ties: highest Agility, then Perception, then current Sanity Points (stat ``sanity``), then a
  recorded roll-off. Lightning Reflexes: advantage (2d20, keep the higher); Combat Reflexes: +2.
- Surprise: "a Perception or Insight check opposed by the attacker's Stealth", or ``surprised``
  in the encounter file. The Surprised lose their round-1 turn and may only Dodge; attacks
  against them have advantage; their Dodge is at -2. A horrifying ambush: a Sanity check
  (Willpower vs DC); failure gives Shaken.
- "AP = (Agility - 6) / 2 (Minimum 1 AP per round.)"; AP resets at the start of one's own turn
  and unused AP is held for reactions.
- Standard actions 1 AP; full-round actions take all AP and the turn; reactions (Dodge,
  Intercept, Retaliate) 1 AP of held AP; free actions 0 AP, at most two a turn; special actions
  (2+ AP, several turns, a skill check) declared in the encounter file; Quick Draw.

Defaults where the seed is silent are the options of :class:`ThrillerOptions`; see
``docs/rulesets/thriller.md``.
"""

from ._actions import (
    Assist as Assist,
    Flee as Flee,
    FreeAction as FreeAction,
    FullDefense as FullDefense,
    Interact as Interact,
    Intercept as Intercept,
    Retaliate as Retaliate,
    Special as Special,
    TakeCover as TakeCover,
    UseItem as UseItem,
)
from ._options import ThrillerOptions as ThrillerOptions
from ._ruleset import Thriller as Thriller

RULESET = Thriller
