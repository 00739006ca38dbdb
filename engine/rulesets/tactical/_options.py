"""Options of the ``tactical`` ruleset, and the names it knows (skills, conditions, triggers).

Every number here is a default where seed 002 is silent; each can be changed in the encounter's
``[options]`` (or, for :class:`CombatantOptions`, a combatant's ``options``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from initiative.engine.kit import Options
from initiative.events import CombatantSpec, Item, Weapon

#: Characteristics an encounter may give (the seed names Str and Ag; the rest feed skill bases).
STATS = frozenset({"str", "ag", "con", "int", "pow", "cha"})

#: Skills, with the characteristics their base is the sum of when the encounter gives none.
SKILL_BASES: dict[str, tuple[str, str]] = {
    "combat_style": ("str", "ag"),
    "unarmed": ("str", "ag"),
    "evade": ("ag", "ag"),
    "athletics": ("str", "ag"),
    "acrobatics": ("str", "ag"),
    "stealth": ("ag", "int"),
    "observe": ("int", "pow"),
    "deceive": ("int", "cha"),
    "magic": ("pow", "int"),
}

#: The seed's special actions, by action type name (what ``special_advantages`` may list).
SPECIALS = frozenset(
    {"Arise", "Bash", "BlindOpponent", "Disarm", "Feint", "ForceMovement", "Resist", "Trip"}
)

#: Conditions a combatant may start with (``options = { conditions = [...] }``).
CONDITIONS = frozenset({"prone", "hidden", "blinded", "restrained", "unconscious"})

#: The Attack of Opportunity table's triggers (seed 002).
AOO_TRIGGERS = ("approach", "ranged_attack", "ready", "retreat", "spellcast", "standing_up")

#: Trigger conditions a Delay Turn may declare: the AoO table's, plus these.
DELAY_TRIGGERS = frozenset({*AOO_TRIGGERS, "move", "attack", "turn_end"})

#: Hit locations by 1d20 (the usual percentile-family humanoid table).
HIT_LOCATIONS: tuple[tuple[int, str], ...] = (
    (3, "right leg"),
    (6, "left leg"),
    (9, "abdomen"),
    (12, "chest"),
    (15, "right arm"),
    (18, "left arm"),
    (20, "head"),
)
LOCATIONS = frozenset(name for _, name in HIT_LOCATIONS)


class TacticalOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Defaults where seed 002 is silent (see docs/rulesets/tactical.md)."""

    ap: int = 3
    """Action points when full (a combatant's own ``ap`` wins); regained at its turn start."""
    attack_limit: int = 2
    """Attacks a character may make per round (the seed's 2)."""
    fumble_from: int = 100
    """A d100 roll at or above this always fails (101: never)."""
    degree_step: int = 10
    """A success gains one more degree per full this-many points under the target."""
    all_out_bonus: int = 20
    precision_penalty: int = 20
    aim_bonus: int = 10
    aim_max: int = 3
    defensive_bonus: int = 10
    evade_step: float = 1.0
    """Metres an Evade may step freely on success."""
    potion_cost: int = 2
    special_range: float = 2.0
    """Metres within which Bash, Disarm, Feint, Trip and Blind Opponent reach."""
    knockback: float = 1.0
    force_distance: float = 3.0
    fling_dice: str = "1d4"
    """Metres a weapon knocked away flies."""
    shield_arm: str = "left arm"
    pickup_range: float = 1.5
    """Metres from a flung weapon within which it can be drawn again."""
    hands: int = 2
    """Hands for weapons and shield: a free hand lets Disarm take the weapon."""


Count = Annotated[int, msgspec.Meta(ge=0)]
Metres = Annotated[float, msgspec.Meta(ge=0.0, le=100_000.0)]
Name = Annotated[str, msgspec.Meta(pattern=r"\S")]


class Shield(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A shield, for rulesets that let one Block."""

    name: Name = "shield"
    """Name of the shield."""
    br: Count = 4
    """Block rating: damage up to this is stopped."""
    magic_br: bool = False
    """Its BR holds in full against magic damage."""


class Spell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A spell a caster knows."""

    name: Name
    """Name the spell is chosen by."""
    damage: str | None = None
    """Damage dice, if the spell deals damage (it then counts as an attack)."""
    heal: str | None = None
    """Hit points restored, if it heals."""
    range: Metres = 20.0
    """Range in metres."""
    instant: bool = False
    """Has the Instant attribute (castable as a secondary action or reaction)."""
    bolt: bool = False
    """Is a Bolt spell (benefits from Aim)."""
    melee: bool = False
    """Counts as a melee attack (casting it provokes no Attack of Opportunity)."""
    ap: Count = 1
    """AP cost."""
    condition: str | None = None
    """A condition the spell inflicts on a success."""
    area: float = 0.0
    """Radius in metres of the area it strikes around its target (0: the target alone)."""


class CombatantOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A combatant's own ``options`` in the tactical ruleset."""

    shield: Shield | None = None
    """A shield, if carried (what Block needs)."""
    spells: tuple[Spell, ...] = ()
    """Spells known."""
    natural_weapons: tuple[str, ...] = ()
    """Its weapons that are natural (claws, teeth), by name: they cannot be disarmed."""
    magic_weapons: tuple[str, ...] = ()
    """Its weapons that deal magic damage, by name."""
    potions: tuple[str, ...] = ()
    """Its items that are potions (drunk with DrinkPotion), by name."""

    conditions: tuple[str, ...] = ()
    """Conditions it starts with (prone, hidden, blinded, restrained, unconscious)."""
    coup_de_grace_immune: bool = False
    """The GM rules it immune to Coup de Grâce."""
    special_advantages: tuple[str, ...] = ()
    """The special actions its Combat Style lists as Special Advantages (action type names:
    ``Bash``, ``Trip``, ...): with Advantage, one of them is free (0 AP) and may be taken in
    its turn or in any opening."""


def combatant_options(c: CombatantSpec) -> CombatantOptions:
    """``c``'s options (checked when the encounter was loaded)."""
    return msgspec.convert(c.options, CombatantOptions)


def shield_of(c: CombatantSpec) -> Shield | None:
    return combatant_options(c).shield


def spells_of(c: CombatantSpec) -> tuple[Spell, ...]:
    return combatant_options(c).spells


def is_natural(c: CombatantSpec, weapon: Weapon) -> bool:
    return weapon.name in combatant_options(c).natural_weapons


def is_magic(c: CombatantSpec, weapon: Weapon) -> bool:
    return weapon.name in combatant_options(c).magic_weapons


def is_potion(c: CombatantSpec, item: Item) -> bool:
    return item.name in combatant_options(c).potions
