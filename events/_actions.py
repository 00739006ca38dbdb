"""Actions: the imperative commands a combatant answers priority with.

Every action is a frozen, tagged, keyword-only Struct. The tag is an explicit string, so renaming
a class never orphans a recorded log. Actions carry only what the combatant chooses (a target, a
destination, a weapon); what the rules decide (costs, dice, results) lives in events.

This module holds the core vocabulary, the actions more than one game shares: ``EndTurn``,
``Pass``, ``Attack``, ``Move``, ``Dodge``, ``Parry`` and ``ReadyWeapon``. A ruleset offers and
accepts the subset it knows and rejects the rest with a reason. An action only one ruleset knows
lives in that ruleset's package, tagged ``"<ruleset>.<Name>"`` and declared in its
``Ruleset.actions`` (see ``_vocabulary.py``); the log reader decodes it in that ruleset's logs.
"""

from __future__ import annotations

from typing import ClassVar, Union

import msgspec

from ._values import Position


class Action(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="type", gc=False
):
    """Base of every action.

    Policies ask what an action is through these markers, never through its class name, so a
    ruleset's own actions (``Ruleset.actions``) are understood by every policy that reads them.
    """

    is_attack: ClassVar[bool] = False
    """It strikes at an opponent (an attack, an attack of opportunity, a counter-attack)."""
    is_reaction: ClassVar[bool] = False
    """It is taken only in an opening, in answer to someone else's deed."""
    is_defence: ClassVar[bool] = False
    """It defends against an incoming attack (dodge, parry, block)."""
    is_hold: ClassVar[bool] = False
    """It keeps one's turn to take later (delay)."""
    is_aim: ClassVar[bool] = False
    """It improves one's next attack (aim)."""
    is_guard: ClassVar[bool] = False
    """It takes a hit meant for an ally (intercept)."""

    def describe(self) -> str:
        """A short human phrase for narration and tables."""
        parts = [type(self).__name__]
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if value not in (None, (), ""):
                parts.append(f"{name}={value}")
        return " ".join(parts)


# --- decisions every ruleset knows -------------------------------------------------------------


class EndTurn(Action, frozen=True, tag="EndTurn"):
    """End one's own turn (any AP left is kept or lost as the ruleset says)."""


class Pass(Action, frozen=True, tag="Pass"):
    """Decline to react in an opening; priority goes on to the next creature."""


class Attack(Action, frozen=True, tag="Attack"):
    """Attack a target with a weapon (melee or ranged, as the weapon is)."""

    is_attack: ClassVar[bool] = True

    target: str
    """Id of the combatant attacked."""
    weapon: str | None = None
    """Name of the weapon used; ``None`` means the combatant's first weapon."""
    variant: str | None = None
    """A declared attack variant (``all_out``, ``precision``, ``coup_de_grace``)."""
    location: str | None = None
    """A chosen hit location (Precision Strike)."""


class Move(Action, frozen=True, tag="Move"):
    """Move in a straight line to a point, up to one's speed."""

    to: Position
    """Where to end the move."""


# --- defensive and responsive reactions ---------------------------------------------------------


class Dodge(Action, frozen=True, tag="Dodge"):
    """Try to avoid an incoming attack."""

    is_defence: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True


class Parry(Action, frozen=True, tag="Parry"):
    """Turn aside an incoming melee attack with a weapon."""

    is_defence: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True


# --- other standard actions ---------------------------------------------------------------------


class ReadyWeapon(Action, frozen=True, tag="ReadyWeapon"):
    """Draw, sheathe, withdraw or reload a weapon."""

    weapon: str
    """Name of the weapon."""
    mode: str = "reload"
    """``draw``, ``sheathe``, ``withdraw`` or ``reload`` (which a ruleset allows varies)."""


AnyAction = Union[  # noqa: UP007 - msgspec needs a real Union object to build decoders
    EndTurn,
    Pass,
    Attack,
    Move,
    Dodge,
    Parry,
    ReadyWeapon,
]
"""The core action types; a log or an encounter also decodes its ruleset's own actions
(:func:`action_types`)."""


class Offer(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A legal action as the scheduler offers it: a ready-to-send action and its AP cost."""

    action: Action
    """The action, ready to be sent back as the decision (a core one or its ruleset's own)."""
    cost: int
    """AP the action would spend."""
