"""The encounter description: what an encounter file says, decoded and normalized.

The same Structs are the header of every log (``EncounterStarted.encounter``), so a log carries
everything needed to re-simulate its fight. Unknown keys are errors, so a typo in an encounter
file is reported instead of silently ignored.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ._actions import AnyAction
from ._values import Position


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon: melee when ``range`` is absent, ranged otherwise."""

    name: str
    """Name the weapon is chosen by."""
    damage: str = "1d6"
    """Damage dice, e.g. ``1d8+2``."""
    reach: float = 1.5
    """Melee reach in metres."""
    range: float | None = None
    """Maximum range in metres for a ranged weapon; ``None`` for melee."""
    reload: int = 0
    """AP needed to reload after each shot (0: never needs reloading)."""
    natural: bool = False
    """A natural weapon (claws, teeth): cannot be disarmed."""
    magic: bool = False
    """Deals magic damage."""
    bonus: int = 0
    """Added to attack tests made with it."""
    area: float = 0.0
    """Radius in metres of the area it strikes around its target (0: the target alone)."""

    @property
    def ranged(self) -> bool:
        return self.range is not None


class Item(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A consumable or usable item."""

    name: str
    """Name the item is chosen by."""
    count: int = 1
    """How many uses there are."""
    heal: str | None = None
    """Dice of hit points restored when used, if any."""
    damage: str | None = None
    """Dice of damage dealt to the target when used, if any."""
    range: float = 1.5
    """How far away the target may be, in metres."""
    potion: bool = False
    """A potion (drunk, not used)."""


class Shield(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A shield, for rulesets that let one Block."""

    name: str = "shield"
    """Name of the shield."""
    br: int = 4
    """Block rating: damage up to this is stopped."""
    magic_br: bool = False
    """Its BR holds in full against magic damage."""


class Spell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A spell a caster knows."""

    name: str
    """Name the spell is chosen by."""
    damage: str | None = None
    """Damage dice, if the spell deals damage (it then counts as an attack)."""
    heal: str | None = None
    """Hit points restored, if it heals."""
    range: float = 20.0
    """Range in metres."""
    instant: bool = False
    """Has the Instant attribute (castable as a secondary action or reaction)."""
    bolt: bool = False
    """Is a Bolt spell (benefits from Aim)."""
    melee: bool = False
    """Counts as a melee attack (casting it provokes no Attack of Opportunity)."""
    ap: int = 1
    """AP cost."""
    condition: str | None = None
    """A condition the spell inflicts on a success."""
    area: float = 0.0
    """Radius in metres of the area it strikes around its target (0: the target alone)."""


class SpecialAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A special action a combatant can take: a ritual, rigging explosives, a stunt."""

    name: str
    """Name the action is chosen by."""
    ap: int = 2
    """AP it costs each turn it is worked on."""
    turns: int = 1
    """Turns of work it takes to complete."""
    skill: str | None = None
    """The skill tested when it completes."""
    difficulty: int = 10
    """The target the skill check must reach."""
    damage: str | None = None
    """Damage dealt to the target on success, if any."""
    range: float = 30.0
    """How far the target may be."""
    condition: str | None = None
    """A condition given to the target on success, if any."""


class CombatantSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One combatant as the encounter file describes it."""

    id: str
    """Unique id; ``count = N`` makes ids ``ID-1`` .. ``ID-N``."""
    side: str
    """The side it fights for."""
    hp: int
    """Hit points at the start."""
    name: str = ""
    """Display name (defaults to the id)."""
    stats: dict[str, int] = {}
    """Characteristics by name; the ruleset says which names it knows."""
    skills: dict[str, int] = {}
    """Skills by name (Stealth, Perception, Combat Style, ...)."""
    position: Position = Position(0.0, 0.0)
    """Where it stands at the start, in metres."""
    speed: float = 6.0
    """Metres it may move with one move action."""
    ap: int | None = None
    """Maximum action points; ``None`` lets the ruleset derive them."""
    armor: int = 0
    """Damage subtracted from each hit."""
    size: int = 2
    """1 small, 2 medium, 3 large, 4 huge."""
    weapons: tuple[Weapon, ...] = ()
    """Weapons carried; the first is used when an action names none."""
    shield: Shield | None = None
    """A shield, if carried."""
    items: tuple[Item, ...] = ()
    """Items carried."""
    spells: tuple[Spell, ...] = ()
    """Spells known."""
    specials: tuple[SpecialAction, ...] = ()
    """Special actions it can take."""
    perks: tuple[str, ...] = ()
    """Perks and talents by name (Lightning Reflexes, Quick Draw, ...)."""
    policy: str = "aggressive"
    """The policy that decides for it: a built-in name, ``file.py:function`` or an entry point."""
    script: tuple[AnyAction, ...] = ()
    """Decisions for the ``scripted`` policy in its own turns, in order."""
    reactions: tuple[AnyAction, ...] = ()
    """Decisions for the ``scripted`` policy in openings, in order."""
    count: int = 1
    """Make this many numbered copies (normalized to 1 in the log)."""
    group: str | None = None
    """Initiative group: one roll for the whole group (defaults to the copies of a ``count``)."""
    arrives: int = 1
    """The round it joins the fight in."""
    initiative_roll: int | None = None
    """A die result rolled at the table; used as given instead of rolling."""
    surprised: bool | None = None
    """Surprised in round 1 (``None``: let the ruleset's tests decide)."""
    options: dict[str, Any] = {}
    """Per-combatant ruleset options."""

    @property
    def display(self) -> str:
        return self.name or self.id


class EncounterSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole encounter: the ruleset, its options, and the combatants."""

    ruleset: str
    """Name of the ruleset (``openings``, ``thriller``, ``percentile``, ``tactical``)."""
    combatants: tuple[CombatantSpec, ...]
    """Everyone who fights, including late arrivals."""
    name: str = ""
    """A title for the encounter."""
    description: str = ""
    """A few words on the situation."""
    seed: int = 0
    """Default seed when the command line gives none."""
    sides: tuple[str, ...] = ()
    """Side names in display order (defaults to the order they first appear)."""
    options: dict[str, Any] = {}
    """Ruleset options (defaults documented per ruleset)."""
    decision_timeout: float = 5.0
    """Seconds a policy has for one decision before it is recorded as timed out."""
    max_rounds: int = 100
    """The encounter ends undecided after this many rounds."""
