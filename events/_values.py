"""Value types shared by actions, events and the encounter description."""

from __future__ import annotations

from typing import Literal

import msgspec

#: Positions are metres on a plane, rounded to this many decimals (centimetres).
POSITION_DECIMALS = 2


class Position(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A point on the battle plane, in metres; encoded as ``[x, y]``."""

    x: float
    """East-west coordinate in metres."""
    y: float
    """North-south coordinate in metres."""

    def __str__(self) -> str:
        return f"({self.x:g}, {self.y:g})"


class Trigger(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What made an opening: the event kind and who is involved."""

    kind: str
    """The trigger's name, e.g. ``turn_ended``, ``left_space``, ``attacked``, ``approach``."""
    by: str | None = None
    """The combatant whose deed made the opening."""
    target: str | None = None
    """The combatant the deed was aimed at, if any."""
    event: int | None = None
    """The seq of the event that made the opening."""
    detail: str | None = None
    """Free text the ruleset adds (a weapon, a spell)."""


class Window(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """When a combatant holds priority: its own turn, or an opening with its trigger."""

    kind: Literal["turn", "opening"]
    """``turn`` for the active player's own turn, ``opening`` for a reaction window."""
    trigger: Trigger | None = None
    """What made the opening (``None`` in a turn)."""
    depth: int = 0
    """How deeply this opening is nested in other openings (0 for a turn)."""

    @property
    def is_turn(self) -> bool:
        return self.kind == "turn"


TURN = Window(kind="turn")
