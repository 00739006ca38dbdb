"""Overrides: what a game master may change in a fight, outside its turns.

Each is a frozen, tagged Struct, like an action: the GM sends one (``initiative.SteppedFight.
override``, the ``gm`` frame of the seat protocol, the ``gm`` command at a terminal prompt), the
engine checks it against the rules and the state, and an accepted one is recorded as a
:class:`~events._events.GmOverride` event followed by the events it causes (``DamageDealt``,
``ConditionAdded``, ``CombatantJoined``, ``Moved``, ``InitiativeOrdered`` ...), each caused by
it. A replay feeds the recorded override back at the same decision, as it feeds decisions.

Some change nothing the rules read: markers (free text on a combatant), the GM's dice
(:class:`GmRoll`) and notes (:class:`GmNote`); a note and a secret roll are for the GM only
(:func:`events.gm_only` says which events a player's connection must never receive).
"""

from __future__ import annotations

from typing import Union

import msgspec

from ._encounter import CombatantSpec
from ._values import Position


class Override(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="type", gc=False
):
    """Base of every override."""

    @property
    def gm_only(self) -> bool:
        """Whether only the GM may learn of it (a note, a secret roll)."""
        return False


class SetHp(Override, frozen=True, tag="SetHp"):
    """Set a combatant's hit points (0 or below: down, as the ruleset says)."""

    who: str
    """The combatant."""
    hp: int
    """Its hit points after the override."""
    quiet: bool = False
    """Not told to the players (a served fight tells it only to those who see every number;
    the state they see still changes)."""


class AddCondition(Override, frozen=True, tag="AddCondition"):
    """Give a combatant a condition the ruleset declares."""

    who: str
    """The combatant."""
    condition: str
    """The condition, in the log's words (``prone``)."""
    rounds: int | None = None
    """How many rounds it lasts, counting the current one (it ends at the end of the last);
    ``None``: until it is ended (by the rules or the GM)."""


class EndCondition(Override, frozen=True, tag="EndCondition"):
    """End a condition a combatant has."""

    who: str
    """The combatant."""
    condition: str
    """The condition, in the log's words."""


class AddCombatant(Override, frozen=True, tag="AddCombatant"):
    """A late arrival: a new combatant joins the fight (and the initiative, as the ruleset
    says for late arrivals)."""

    id: str
    """Its id (new in the fight)."""
    name: str | None = None
    """Its display name (default: the id)."""
    like: str | None = None
    """Copy the stats and weapons of this combatant (present in the fight)."""
    side: str | None = None
    """Its side, one of the encounter's (default: ``like``'s)."""
    at: Position | None = None
    """Where it stands (default: next to ``like``, or the table's ``position``)."""
    combatant: CombatantSpec | None = None
    """A whole combatant table, as in the encounter file, instead of ``like``."""


class RemoveCombatant(Override, frozen=True, tag="RemoveCombatant"):
    """A combatant leaves the fight (it fled, the GM took it away)."""

    who: str
    """The combatant."""
    reason: str = "removed"
    """Why, in a word or two (``fled``)."""


class MoveToken(Override, frozen=True, tag="MoveToken"):
    """Put a combatant's token somewhere else (no openings, no cost: the GM moves it)."""

    who: str
    """The combatant."""
    to: Position
    """Where it stands now, in metres (``[x, y]``)."""


class Reorder(Override, frozen=True, tag="Reorder"):
    """Move a combatant in the initiative order (delay a turn, swap two)."""

    who: str
    """The combatant to move."""
    before: str | None = None
    """Place it just before this one; ``None``: last in the order."""


MARKER_LIMIT = 80
"""The longest GM marker, in characters (a word or a short phrase on a token)."""

NOTE_LIMIT = 2000
"""The longest GM note, in characters."""


class AddMarker(Override, frozen=True, tag="AddMarker"):
    """Put a GM marker on a combatant: free text (``blessed``, ``the one with the key``) shown
    beside it, with no effect on the rules."""

    who: str
    """The combatant."""
    text: str
    """The marker, at most :data:`MARKER_LIMIT` characters."""


class RemoveMarker(Override, frozen=True, tag="RemoveMarker"):
    """Take a GM marker off a combatant."""

    who: str
    """The combatant."""
    text: str
    """The marker, as it was put on (case-insensitive)."""


class Undo(Override, frozen=True, tag="Undo"):
    """Revert the GM's last override not yet undone, with compensating events (the log stays
    append-only: the override and its undoing are both in it)."""

    seq: int | None = None
    """The ``GmOverride`` undone (recorded; ``None`` when sent: the last one not undone)."""


class GmRoll(Override, frozen=True, tag="GmRoll"):
    """The GM rolls dice at the table (``2d6+1``), in the open or in secret."""

    expr: str
    """The dice expression (``NdS``, ``NdS+M``, ``NdSkhK``)."""
    secret: bool = False
    """Seen by the GM only (the table's filter asks :func:`events.gm_only`)."""

    @property
    def gm_only(self) -> bool:
        return self.secret


class GmNote(Override, frozen=True, tag="GmNote"):
    """A private note of the GM's, kept in the log at this point of the fight (GM only)."""

    text: str
    """The note, at most :data:`NOTE_LIMIT` characters."""

    @property
    def gm_only(self) -> bool:
        return True


AnyOverride = Union[  # noqa: UP007 - msgspec needs a real Union object to build decoders
    SetHp,
    AddCondition,
    EndCondition,
    AddCombatant,
    RemoveCombatant,
    MoveToken,
    Reorder,
    AddMarker,
    RemoveMarker,
    Undo,
    GmRoll,
    GmNote,
]
"""Every override; the decoder's target for a ``gm`` frame's ``override``."""

_decoder = msgspec.json.Decoder(AnyOverride)


def decode_override(data: bytes | str) -> Override:
    """The override a JSON object holds (raises :class:`msgspec.ValidationError` or
    :class:`msgspec.DecodeError` naming what is wrong)."""
    return _decoder.decode(data)


def convert_override(obj: object) -> Override:
    """The override a plain dict (decoded JSON) holds, or the override itself."""
    if isinstance(obj, Override):
        return obj
    return msgspec.convert(obj, AnyOverride)  # type: ignore[no-any-return]
