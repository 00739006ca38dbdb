"""The tactical ruleset's own actions, tagged ``"tactical.<Name>"``.

The shared actions (``EndTurn``, ``Pass``, ``Attack``, ``Move``, ``Dodge``, ``Parry``,
``ReadyWeapon``) live in ``initiative.events``; these are the ones only this ruleset knows. Each has its unit
(``_units``), and ``Tactical.units`` lists them, so a log of this ruleset decodes them, as it
would the actions of an installed ruleset.
"""

from __future__ import annotations

from typing import ClassVar

from initiative.events import Action, Position


class Block(Action, frozen=True, tag="tactical.Block"):
    """Take an incoming attack on a shield."""

    is_defence: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True


class Evade(Action, frozen=True, tag="tactical.Evade"):
    """Throw oneself out of the way of an attack, optionally stepping to a point."""

    is_defence: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True

    to: Position | None = None
    """Where to step on success (the ruleset bounds the distance)."""


class CounterAttack(Action, frozen=True, tag="tactical.CounterAttack"):
    """Meet an incoming melee attack with one's own; the better result hits."""

    is_attack: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True


class OpportunityAttack(Action, frozen=True, tag="tactical.OpportunityAttack"):
    """A melee attack against an opponent who presents an opening."""

    is_attack: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True

    target: str
    """Id of the opponent attacked."""
    weapon: str | None = None
    """Name of the melee weapon used; ``None`` means the first melee weapon."""


class Aim(Action, frozen=True, tag="tactical.Aim"):
    """Take aim for the next ranged attack."""

    is_aim: ClassVar[bool] = True

    target: str | None = None
    """Who is aimed at, when the ruleset cares."""


class CastMagic(Action, frozen=True, tag="tactical.CastMagic"):
    """Cast a known spell (the encounter file defines the spells)."""

    spell: str
    """Name of the spell."""
    target: str | None = None
    """Who the spell is aimed at (``None``: oneself)."""


class DefensiveStance(Action, frozen=True, tag="tactical.DefensiveStance"):
    """Defend until one's next turn, giving up attacks."""


class Disengage(Action, frozen=True, tag="tactical.Disengage"):
    """Retreat safely: moving out of reach this turn provokes nothing."""


class DelayTurn(Action, frozen=True, tag="tactical.DelayTurn"):
    """Skip the turn, keeping it to insert later when one of the triggers happens."""

    is_hold: ClassVar[bool] = True

    triggers: tuple[str, ...] = ()
    """The trigger conditions declared (names the ruleset documents)."""


class TakeDelayedTurn(Action, frozen=True, tag="tactical.TakeDelayedTurn"):
    """Insert one's delayed turn now, as a reaction to a declared trigger."""


class Dash(Action, frozen=True, tag="tactical.Dash"):
    """Move again, up to one's speed."""

    to: Position
    """Where to end the dash."""


class Hide(Action, frozen=True, tag="tactical.Hide"):
    """Try to hide from enemies."""


class DrinkPotion(Action, frozen=True, tag="tactical.DrinkPotion"):
    """Drink an accessible potion."""

    potion: str
    """Name of the potion (an item with ``potion = true``)."""


class Arise(Action, frozen=True, tag="tactical.Arise"):
    """Stand up from prone carefully."""


class Bash(Action, frozen=True, tag="tactical.Bash"):
    """Shove a target back, maybe off its feet."""

    target: str
    """Id of the combatant bashed."""


class BlindOpponent(Action, frozen=True, tag="tactical.BlindOpponent"):
    """Blind a target (thrown sand, a cloak over the head)."""

    target: str
    """Id of the combatant blinded."""
    method: str = ""
    """How: thrown sand, a cloak over the head (the ``tactical`` seed requires one)."""


class Disarm(Action, frozen=True, tag="tactical.Disarm"):
    """Take or knock away a target's weapon."""

    target: str
    """Id of the combatant disarmed."""
    weapon: str | None = None
    """The weapon aimed at; ``None`` means the target's first weapon that can be disarmed."""


class Feint(Action, frozen=True, tag="tactical.Feint"):
    """Deceive a target so one's next melee attack on it comes unseen."""

    target: str
    """Id of the combatant feinted."""


class ForceMovement(Action, frozen=True, tag="tactical.ForceMovement"):
    """Push a target and go with it."""

    target: str
    """Id of the combatant moved."""
    to: Position
    """Where the target ends; the mover moves the same way."""


class Resist(Action, frozen=True, tag="tactical.Resist"):
    """Try to break free of a restraint or blindness."""


class Trip(Action, frozen=True, tag="tactical.Trip"):
    """Knock a target prone."""

    target: str
    """Id of the combatant tripped."""
