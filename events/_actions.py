"""Actions: the imperative commands a combatant answers priority with.

Every action is a frozen, tagged, keyword-only Struct. The tag is an explicit string, so renaming
a class never orphans a recorded log. Actions carry only what the combatant chooses (a target, a
destination, a weapon); what the rules decide (costs, dice, results) lives in events.

The vocabulary is shared by every ruleset: a ruleset offers and accepts the subset it knows and
rejects the rest with a reason. New actions go at the end of their section and into ``AnyAction``.
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


class Block(Action, frozen=True, tag="Block"):
    """Take an incoming attack on a shield."""

    is_defence: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True


class Evade(Action, frozen=True, tag="Evade"):
    """Throw oneself out of the way of an attack, optionally stepping to a point."""

    is_defence: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True

    to: Position | None = None
    """Where to step on success (the ruleset bounds the distance)."""


class Intercept(Action, frozen=True, tag="Intercept"):
    """Take a hit meant for an adjacent ally."""

    is_reaction: ClassVar[bool] = True


class Retaliate(Action, frozen=True, tag="Retaliate"):
    """Counterattack someone who has just attacked one in melee."""

    is_attack: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True

    target: str
    """Id of the attacker struck back at."""


class CounterAttack(Action, frozen=True, tag="CounterAttack"):
    """Meet an incoming melee attack with one's own; the better result hits."""

    is_attack: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True


class OpportunityAttack(Action, frozen=True, tag="OpportunityAttack"):
    """A melee attack against an opponent who presents an opening."""

    is_attack: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True

    target: str
    """Id of the opponent attacked."""
    weapon: str | None = None
    """Name of the melee weapon used; ``None`` means the first melee weapon."""


# --- other standard actions ---------------------------------------------------------------------


class Aim(Action, frozen=True, tag="Aim"):
    """Take aim for the next ranged attack."""

    is_aim: ClassVar[bool] = True

    target: str | None = None
    """Who is aimed at, when the ruleset cares."""


class ReadyWeapon(Action, frozen=True, tag="ReadyWeapon"):
    """Draw, sheathe, withdraw or reload a weapon."""

    weapon: str
    """Name of the weapon."""
    mode: str = "reload"
    """``draw``, ``sheathe``, ``withdraw`` or ``reload`` (which a ruleset allows varies)."""


class UseItem(Action, frozen=True, tag="UseItem"):
    """Use an item (a medkit, a grenade, a potion)."""

    item: str
    """Name of the item."""
    target: str | None = None
    """Who the item is used on, if anyone but oneself."""


class Assist(Action, frozen=True, tag="Assist"):
    """Help an ally with their next test."""

    ally: str
    """Id of the ally helped."""


class TakeCover(Action, frozen=True, tag="TakeCover"):
    """Get behind cover or brace to dodge."""


class Interact(Action, frozen=True, tag="Interact"):
    """Interact with the surroundings (open a door, flip a switch)."""

    what: str
    """What is interacted with."""


class FreeAction(Action, frozen=True, tag="FreeAction"):
    """A minor, instantaneous action (shout, drop an item, glance around)."""

    name: str
    """What is done."""


class Flee(Action, frozen=True, tag="Flee"):
    """A full-round action: extended movement away from the fight."""

    to: Position
    """Where to run to."""


class FullDefense(Action, frozen=True, tag="FullDefense"):
    """A full-round action: do nothing but defend until one's next turn."""


class Special(Action, frozen=True, tag="Special"):
    """A special action declared in the encounter file (a ritual, rigging explosives)."""

    name: str
    """Name of the special action as the encounter file declares it."""
    target: str | None = None
    """Who it is aimed at, if anyone."""


# --- tactical (seed 002) actions ----------------------------------------------------------------


class CastMagic(Action, frozen=True, tag="CastMagic"):
    """Cast a known spell (the encounter file defines the spells)."""

    spell: str
    """Name of the spell."""
    target: str | None = None
    """Who the spell is aimed at (``None``: oneself)."""


class DefensiveStance(Action, frozen=True, tag="DefensiveStance"):
    """Defend until one's next turn, giving up attacks."""


class Disengage(Action, frozen=True, tag="Disengage"):
    """Retreat safely: moving out of reach this turn provokes nothing."""


class DelayTurn(Action, frozen=True, tag="DelayTurn"):
    """Skip the turn, keeping it to insert later when one of the triggers happens."""

    is_hold: ClassVar[bool] = True

    triggers: tuple[str, ...] = ()
    """The trigger conditions declared (names the ruleset documents)."""


class TakeDelayedTurn(Action, frozen=True, tag="TakeDelayedTurn"):
    """Insert one's delayed turn now, as a reaction to a declared trigger."""


class Dash(Action, frozen=True, tag="Dash"):
    """Move again, up to one's speed."""

    to: Position
    """Where to end the dash."""


class Hide(Action, frozen=True, tag="Hide"):
    """Try to hide from enemies."""


class DrinkPotion(Action, frozen=True, tag="DrinkPotion"):
    """Drink an accessible potion."""

    potion: str
    """Name of the potion (an item with ``potion = true``)."""


class Arise(Action, frozen=True, tag="Arise"):
    """Stand up from prone carefully."""


class Bash(Action, frozen=True, tag="Bash"):
    """Shove a target back, maybe off its feet."""

    target: str
    """Id of the combatant bashed."""


class BlindOpponent(Action, frozen=True, tag="BlindOpponent"):
    """Blind a target (thrown sand, a cloak over the head)."""

    target: str
    """Id of the combatant blinded."""
    method: str = ""
    """How: thrown sand, a cloak over the head (the ``tactical`` seed requires one)."""


class Disarm(Action, frozen=True, tag="Disarm"):
    """Take or knock away a target's weapon."""

    target: str
    """Id of the combatant disarmed."""
    weapon: str | None = None
    """The weapon aimed at; ``None`` means the target's first weapon that can be disarmed."""


class Feint(Action, frozen=True, tag="Feint"):
    """Deceive a target so one's next melee attack on it comes unseen."""

    target: str
    """Id of the combatant feinted."""


class ForceMovement(Action, frozen=True, tag="ForceMovement"):
    """Push a target and go with it."""

    target: str
    """Id of the combatant moved."""
    to: Position
    """Where the target ends; the mover moves the same way."""


class Resist(Action, frozen=True, tag="Resist"):
    """Try to break free of a restraint or blindness."""


class Trip(Action, frozen=True, tag="Trip"):
    """Knock a target prone."""

    target: str
    """Id of the combatant tripped."""


AnyAction = Union[  # noqa: UP007 - msgspec needs a real Union object to build decoders
    EndTurn,
    Pass,
    Attack,
    Move,
    Dodge,
    Parry,
    Block,
    Evade,
    Intercept,
    Retaliate,
    CounterAttack,
    OpportunityAttack,
    Aim,
    ReadyWeapon,
    UseItem,
    Assist,
    TakeCover,
    Interact,
    FreeAction,
    Flee,
    FullDefense,
    Special,
    CastMagic,
    DefensiveStance,
    Disengage,
    DelayTurn,
    TakeDelayedTurn,
    Dash,
    Hide,
    DrinkPotion,
    Arise,
    Bash,
    BlindOpponent,
    Disarm,
    Feint,
    ForceMovement,
    Resist,
    Trip,
]
"""Every action type; the decoder's target for actions in logs and encounter scripts."""


class Offer(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A legal action as the scheduler offers it: a ready-to-send action and its AP cost."""

    action: AnyAction
    """The action, ready to be sent back as the decision."""
    cost: int
    """AP the action would spend."""
