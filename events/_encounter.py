"""The encounter description: what an encounter file says, decoded and normalized.

The same Structs are the header of every log (``EncounterStarted.encounter``), so a log carries
everything needed to re-simulate its fight. Unknown keys are errors, so a typo in an encounter
file is reported instead of silently ignored.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import msgspec

from ._actions import AnyAction
from ._errors import EncounterFileError
from ._values import Position

#: The most combatants one encounter may hold, ``count`` copies included. A decision costs about
#: the same at 1,000 combatants as at 8 (the engine's indexes), but a fight's length still grows
#: with its size, so a larger number is refused when the encounter is loaded rather than left to
#: run for hours.
MAX_COMBATANTS = 1000

#: The longest decision timeout an encounter may give, in seconds (a day).
MAX_TIMEOUT = 86_400.0

Metres = Annotated[float, msgspec.Meta(ge=0.0, le=100_000.0)]
"""A distance: reach, range, speed; never negative."""
Count = Annotated[int, msgspec.Meta(ge=0)]
"""Armor, AP, stats, reload, uses: never negative."""
Size = Annotated[int, msgspec.Meta(ge=1, le=4)]
"""1 small, 2 medium, 3 large, 4 huge."""
Name = Annotated[str, msgspec.Meta(pattern=r"\S")]
"""A name that says something: not empty, not only spaces."""
OptionalName = Annotated[str, msgspec.Meta(pattern=r"^$|\S")]
"""A name that may be left out (empty), but is not only spaces when given."""


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon: melee when ``range`` is absent, ranged otherwise."""

    name: Name
    """Name the weapon is chosen by."""
    damage: str = "1d6"
    """Damage dice, e.g. ``1d8+2``."""
    reach: Metres = 1.5
    """Melee reach in metres."""
    range: Metres | None = None
    """Maximum range in metres for a ranged weapon; ``None`` for melee."""
    reload: Count = 0
    """AP needed to reload after each shot (0: never needs reloading)."""
    bonus: int = 0
    """Added to attack tests made with it."""
    area: float = 0.0
    """Radius in metres of the area it strikes around its target (0: the target alone)."""

    @property
    def ranged(self) -> bool:
        return self.range is not None


class Item(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A consumable or usable item."""

    name: Name
    """Name the item is chosen by."""
    count: Count = 1
    """How many uses there are."""
    heal: str | None = None
    """Dice of hit points restored when used, if any."""
    damage: str | None = None
    """Dice of damage dealt to the target when used, if any."""
    range: Metres = 1.5
    """How far away the target may be, in metres."""


class CombatantSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One combatant as the encounter file describes it."""

    id: str
    """Unique id; ``count = N`` makes ids ``ID-1`` .. ``ID-N``."""
    side: Name
    """The side it fights for."""
    hp: int
    """Hit points at the start."""
    name: OptionalName = ""
    """Display name (defaults to the id)."""
    stats: dict[str, Count] = {}
    """Characteristics by name; the ruleset says which names it knows."""
    skills: dict[str, int] = {}
    """Skills by name (Stealth, Perception, Combat Style, ...)."""
    position: Position = Position(0.0, 0.0)
    """Where it stands at the start, in metres."""
    speed: Metres = 6.0
    """Metres it may move with one move action."""
    ap: Count | None = None
    """Maximum action points; ``None`` lets the ruleset derive them."""
    armor: Count = 0
    """Damage subtracted from each hit."""
    size: Size = 2
    """1 small, 2 medium, 3 large, 4 huge."""
    weapons: tuple[Weapon, ...] = ()
    """Weapons carried; the first is used when an action names none."""
    items: tuple[Item, ...] = ()
    """Items carried."""
    policy: str = "aggressive"
    """The policy that decides for it: a built-in name, ``file.py:function`` or an entry point."""
    script: tuple[AnyAction, ...] = ()
    """Decisions for the ``scripted`` policy in its own turns, in order."""
    reactions: tuple[AnyAction, ...] = ()
    """Decisions for the ``scripted`` policy in openings, in order."""
    count: Annotated[int, msgspec.Meta(ge=1, le=MAX_COMBATANTS)] = 1
    """Make this many numbered copies (normalized to 1 in the log; at most
    :data:`MAX_COMBATANTS`)."""
    group: str | None = None
    """Initiative group: one roll for the whole group (defaults to the copies of a ``count``)."""
    arrives: int = 1
    """The round it joins the fight in."""
    initiative_roll: int | None = None
    """A die result rolled at the table; used as given instead of rolling."""
    surprised: bool | None = None
    """Surprised in round 1 (``None``: let the ruleset's tests decide)."""
    options: dict[str, Any] = {}
    """Per-combatant options of the ruleset (its ``CombatantOptions``): what only one game reads
    (a tactical shield and spells, thriller perks and special actions) lives here."""

    @property
    def display(self) -> str:
        return self.name or self.id


class EncounterSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole encounter: the ruleset, its options, and the combatants."""

    ruleset: str
    """Name of the ruleset (``openings``, ``thriller``, ``percentile``, ``tactical``)."""
    combatants: Annotated[tuple[CombatantSpec, ...], msgspec.Meta(max_length=MAX_COMBATANTS)]
    """Everyone who fights, including late arrivals (at most :data:`MAX_COMBATANTS`, copies
    included)."""
    name: str = ""
    """A title for the encounter."""
    description: str = ""
    """A few words on the situation."""
    seed: int = 0
    """Default seed when the command line gives none."""
    sides: tuple[Name, ...] = ()
    """Side names in display order (defaults to the order they first appear)."""
    options: dict[str, Any] = {}
    """Ruleset options (defaults documented per ruleset)."""
    decision_timeout: Annotated[float, msgspec.Meta(gt=0.0, le=MAX_TIMEOUT)] = 5.0
    """Seconds a policy has for one decision before it is recorded as timed out."""
    max_rounds: int = 100
    """The encounter ends undecided after this many rounds."""
    stalemate_rounds: int | msgspec.UnsetType = msgspec.UNSET
    """End the encounter undecided, as a stalemate, once this many rounds in a row have passed
    with no hit points changed and no one joining, falling or leaving (left out, or 0: never).
    Absent from a log's header when not given, so older logs read and verify as they were."""

    reveal: Literal["words", "all"] | msgspec.UnsetType = msgspec.UNSET
    """What a player seat of ``serve`` sees of its enemies: ``words`` (left out: the default),
    their hit points in words and not their AP; ``all``: every number. Absent from a log's header
    when not given, so older logs read and verify as they were."""

    @property
    def stalemate_window(self) -> int:
        """``stalemate_rounds`` as a number: 0 when the option is off."""
        return self.stalemate_rounds if isinstance(self.stalemate_rounds, int) else 0


def check_encounter_data(data: object, *, name: str = "<encounter>") -> None:
    """Refuse what no encounter means, anywhere in a parsed file, before it is decoded: a number
    that is not finite (``nan``, ``inf``: JSON cannot carry them, so the log could not be read
    back) and text with control characters (they would drive the terminal of whoever reads the
    log). Raises :class:`EncounterFileError` naming the file and the key."""

    def walk(value: object, path: str) -> None:
        where = path or "the top level"
        if isinstance(value, float) and not math.isfinite(value):
            raise EncounterFileError(f"{name}: at key {where}: {value} is not a finite number")
        if isinstance(value, str) and _has_control(value, multiline=path == "description"):
            raise EncounterFileError(
                f"{name}: at key {where}: text with control characters ({value!r})"
            )
        if isinstance(value, dict):
            for key, item in value.items():
                if _has_control(str(key), multiline=False):
                    raise EncounterFileError(
                        f"{name}: at key {where}: a key with control characters ({key!r})"
                    )
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")

    walk(data, "")


def _has_control(text: str, *, multiline: bool) -> bool:
    if text.isprintable():
        return False
    allowed = "\n\t" if multiline else ""
    return any(
        (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in _INVISIBLE) and ch not in allowed
        for ch in text
    )


#: Characters that reorder or hide text (bidirectional controls, line separators).
_INVISIBLE = frozenset(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
