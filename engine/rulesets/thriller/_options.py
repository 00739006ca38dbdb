"""Options of the ``thriller`` ruleset (the defaults where seed 000 is silent) and stat helpers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import msgspec
from initiative.engine.kit import Options
from initiative.events import CheckResolved, CombatantSpec

if TYPE_CHECKING:
    from initiative.engine.kit import Rules

#: Perks the seed names, as the encounter file spells them (compared case-insensitively).
LIGHTNING_REFLEXES = "lightning reflexes"
COMBAT_REFLEXES = "combat reflexes"
QUICK_DRAW = "quick draw"


class ThrillerOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Options of the ``thriller`` ruleset; each is a default where the seed is silent."""

    default_stat: int = 10
    """A 3-18 stat a combatant's sheet leaves out counts as this (``sanity`` counts as 0)."""
    ambush_by: str | None = None
    """The side that springs an ambush; everyone else is tested for surprise."""
    ambush_initiative: Literal["agility", "perception"] = "agility"
    """In an ambush, the stat initiative derives from (the seed lets a GM use Perception)."""
    horrifying: bool = False
    """The ambush is horrifying: everyone ambushed makes a Sanity check (Willpower vs DC)."""
    sanity_dc: int = 12
    """The DC of that Sanity check."""
    shaken_penalty: int = 2
    """Shaken: taken off attack tests, Dodge rolls and skill checks."""
    shaken_ap: int = 1
    """Shaken: AP fewer at the start of each turn (never below 1)."""
    shaken_rounds: int = 2
    """Shaken ends at the end of this round."""
    combat_reflexes_bonus: int = 2
    """What the Combat Reflexes perk adds to initiative."""
    surprise_dodge_penalty: int = 2
    """The seed's penalty to a Surprised character's Dodge."""
    defense_base: int = 10
    """An attack hits when its total reaches this plus the target's Agility modifier (and cover)."""
    min_damage: int = 0
    """Damage a hit deals at least, after armor."""
    cover_bonus: int = 2
    """Take Cover: added to one's defence until the start of one's next turn."""
    full_defense_bonus: int = 4
    """Full Defense: added to one's defence until the start of one's next turn."""
    flee_multiplier: float = 2.0
    """Flee: moves up to this many times one's speed."""
    escape_distance: float = 30.0
    """A fleer who ends farther than this from every enemy has left the fight."""
    free_actions: int = 2
    """Free actions one may take per turn (the seed: "one or two")."""
    assist_bonus: int = 2
    """Assist: added to the ally's next attack test or skill check."""
    assist_reach: float = 1.5
    """How close an ally must be to be assisted, in metres."""
    intercept_reach: float = 1.5
    """How close to the attacked ally an interceptor must stand, in metres."""


Count = Annotated[int, msgspec.Meta(ge=0)]
Metres = Annotated[float, msgspec.Meta(ge=0.0, le=100_000.0)]
Name = Annotated[str, msgspec.Meta(pattern=r"\S")]


class SpecialAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A special action a combatant can take: a ritual, rigging explosives, a stunt."""

    name: Name
    """Name the action is chosen by."""
    ap: Count = 2
    """AP it costs each turn it is worked on."""
    turns: Annotated[int, msgspec.Meta(ge=1)] = 1
    """Turns of work it takes to complete."""
    skill: str | None = None
    """The skill tested when it completes."""
    difficulty: int = 10
    """The target the skill check must reach."""
    damage: str | None = None
    """Damage dealt to the target on success, if any."""
    range: Metres = 30.0
    """How far the target may be."""
    condition: str | None = None
    """A condition given to the target on success, if any."""


class CombatantOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A combatant's own ``options`` in the thriller ruleset."""

    specials: tuple[SpecialAction, ...] = ()
    """Special actions it can take."""
    perks: tuple[str, ...] = ()
    """Perks by name (Lightning Reflexes, Combat Reflexes, Quick Draw)."""


def combatant_options(c: CombatantSpec) -> CombatantOptions:
    """``c``'s options (checked when the encounter was loaded)."""
    return msgspec.convert(c.options, CombatantOptions)


def specials_of(c: CombatantSpec) -> tuple[SpecialAction, ...]:
    return combatant_options(c).specials


def norm(perk: str) -> str:
    """A perk name compared loosely: ``Quick-Draw``, ``quick_draw`` and ``Quick Draw`` match."""
    return " ".join(perk.lower().replace("_", " ").replace("-", " ").split())


def has_perk(spec: CombatantSpec, perk: str) -> bool:
    return any(norm(p) == perk for p in combatant_options(spec).perks)


def stat(spec: CombatantSpec, name: str, default: int) -> int:
    """A stat from the sheet; ``sanity`` defaults to 0, the 3-18 stats to ``default``."""
    return spec.stats.get(name, 0 if name == "sanity" else default)


def modifier(value: int) -> int:
    """The modifier of a 3-18 stat: (stat - 10) / 2 rounded down (10 -> +0, 14 -> +2, 7 -> -2)."""
    return (value - 10) // 2


def resolve_check(
    fight: Rules, who: str, name: str, roll: int, against: int, against_who: str | None = None
) -> bool:
    """Record a check that succeeds when ``roll`` reaches ``against``; whether it succeeded."""
    success = roll >= against
    fight.emit(
        CheckResolved(
            who=who,
            check=name,
            success=success,
            roll=roll,
            against=against,
            margin=roll - against,
            against_who=against_who,
        )
    )
    return success
