"""The ``percentile`` ruleset (seed ``001_269bc9c9643bf2dd.txt``): percent characteristics.

From the seed (each rule quoted again where it is implemented, and in the tests):

- "To determine Initiative, 1d10 is rolled and the result is added to the character's Agility
  Characteristic." A die rolled at the table (``initiative_roll``) is used as given.
- "This is the order the combatants will act in each round until the combat is over." Initiative
  is rolled once, in the ``start`` hook, and kept.
- "If more than one character has the same Initiative, they act in Agility order (from highest
  to lowest)." Then a recorded 1d10 roll-off.
- "GMs can make one Initiative roll for each group of like characters." (``group`` or
  ``count = N``): one roll, each member still has its own turn.
- "If new combatants join in the midst of the encounter, simply roll Initiative for them and add
  them to the order. The GM determines on which round new combatants arrive." (``arrives = N``)
- "Surprise only affects the first round of a combat." (see ``_surprise``)

Defaults where the seed is silent (options in ``_options``; see docs/rulesets/percentile.md):
two half actions a turn; an attack is a half action and a d100 test at or under Weapon Skill
(Ballistic Skill at range), one a turn; a hit makes an ``attacked`` opening in which the target
may Parry (Weapon Skill) or Dodge (Dodge skill), one a round; damage is the weapon's dice plus
the strength bonus in melee, less the target's toughness bonus and armor.
"""

from ._ruleset import Percentile

RULESET = Percentile

__all__ = ["RULESET", "Percentile"]
