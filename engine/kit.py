"""The ruleset author's kit: the helpers the bundled rulesets share, under public names.

A ruleset of its own package (docs/rulesets.md, "Writing a ruleset") imports these rather than
writing its offers and checks by hand, for three reasons:

- **Offers and checks agree.** :func:`attack_offers` offers only attacks that
  :func:`check_plain_attack` accepts (with ``melee_only``, only targets that
  :func:`check_melee_target` accepts), and :func:`move_offers` only points that
  :func:`check_move` accepts. The engine takes an offered action without checking it again, so
  a ruleset whose own check would refuse one of its offers is wrong
  (:func:`initiative.engine.check_ruleset` finds it).
- **Speed comes free.** The offer helpers ask the position grid rather than scanning everyone,
  and keep their answers until somebody moves, so a ruleset using them stays fast with
  hundreds of combatants.
- **Games read alike.** :func:`resolve_attack` records an attack as the bundled rulesets do
  (its roll, an ``AttackResolved``, the damage), so narration, ``why`` and the timeline tell
  an installed ruleset's attacks as well as the bundled ones'.

- **Odds from the dice.** :func:`chance_at_least`, :func:`chance_at_most` and
  :func:`mean_damage` compute a test's chance and a hit's mean damage exactly from dice
  expressions: what a ruleset's ``odds`` hook (``View.odds`` for policies) returns as
  :class:`Odds`.

- **The shared actions read alike.** :class:`AttackUnit`, :class:`MoveUnit`, :class:`DodgeUnit`,
  :class:`ParryUnit` and :class:`ReadyWeaponUnit` are the units of the core actions with their
  words for screens and narration; a ruleset's unit for one of them subclasses it and adds its
  rules (offers, check, cost, performance).

Every helper takes the :class:`~initiative.engine.Rules` a hook receives (``fight``) and only
reads and changes the fight through it. The code lives in a private module of the engine
(``engine/_shared.py``); the bundled rulesets import it from here, as any ruleset does
(``tests/engine/test_kit.py`` refuses any other import of theirs but ``initiative.engine``,
``initiative.events``, their own package, the standard library and msgspec).

- **One import for an author.** Beside the helpers, the kit gathers every name a ruleset
  imports from ``initiative.engine`` and ``initiative.events`` (``Ruleset``, ``Rules``,
  ``ActionUnit``, ``Offer``, ``Trigger``, ``Window``, ``HIDDEN`` ...): each name a bundled
  ruleset or the documented example uses is here (``tests/engine/test_kit.py`` holds it so), so
  that ``from initiative.engine.kit import ...`` is all a ruleset needs.
"""

from initiative.events import (
    Action as Action,
    APChanged as APChanged,
    Attack as Attack,
    AttackResolved as AttackResolved,
    CheckResolved as CheckResolved,
    CombatantLeft as CombatantLeft,
    CombatantSpec as CombatantSpec,
    ConditionAdded as ConditionAdded,
    DiceRolled as DiceRolled,
    Dodge as Dodge,
    EncounterFileError as EncounterFileError,
    EncounterSpec as EncounterSpec,
    EndTurn as EndTurn,
    Item as Item,
    Move as Move,
    Offer as Offer,
    Parry as Parry,
    Pass as Pass,
    Position as Position,
    ReadyWeapon as ReadyWeapon,
    Trigger as Trigger,
    Weapon as Weapon,
    Window as Window,
    did_you_mean as did_you_mean,
    visible as visible,
)

from ._dice import parse_dice as parse_dice
from ._geometry import approach as approach, at as at, away as away, distance as distance
from ._hooks import Hook as Hook, RulesetHooks as RulesetHooks
from ._odds import (
    Odds as Odds,
    chance_at_least as chance_at_least,
    chance_at_most as chance_at_most,
    mean_damage as mean_damage,
)
from ._profile import SearchProfile as SearchProfile
from ._rules import (
    HIDDEN as HIDDEN,
    Condition as Condition,
    Counter as Counter,
    Hidden as Hidden,
    Rules as Rules,
)
from ._ruleset import Options as Options, Ruleset as Ruleset
from ._shared import (
    SPACE as SPACE,
    UNARMED as UNARMED,
    AttackUnit as AttackUnit,
    DodgeUnit as DodgeUnit,
    MoveUnit as MoveUnit,
    ParryUnit as ParryUnit,
    ReadyWeaponUnit as ReadyWeaponUnit,
    attack_offers as attack_offers,
    check_melee_target as check_melee_target,
    check_move as check_move,
    check_plain_attack as check_plain_attack,
    check_target as check_target,
    leaving_space as leaving_space,
    melee_reach as melee_reach,
    move_offers as move_offers,
    occupant as occupant,
    out_of_reach as out_of_reach,
    reaches as reaches,
    resolve_attack as resolve_attack,
    weapon_named as weapon_named,
    weapons as weapons,
)
from ._state import CombatantState as CombatantState
from ._units import (
    ActionUnit as ActionUnit,
    Say as Say,
    listed as listed,
    third_person as third_person,
    words as words,
)
