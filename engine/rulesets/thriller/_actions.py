"""The thriller ruleset's own actions, tagged ``"thriller.<Name>"``.

The shared actions (``EndTurn``, ``Pass``, ``Attack``, ``Move``, ``Dodge``, ``Parry``,
``ReadyWeapon``) live in ``initiative.events``; these are the ones only this ruleset knows. Each has its unit
(in ``_turn`` and ``_combat``), and ``Thriller.units`` lists them, so a log of this ruleset decodes them, as it
would the actions of an installed ruleset.
"""

from __future__ import annotations

from typing import ClassVar

from initiative.events import Action, Position


class Intercept(Action, frozen=True, tag="thriller.Intercept"):
    """Take a hit meant for an adjacent ally."""

    is_guard: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True


class Retaliate(Action, frozen=True, tag="thriller.Retaliate"):
    """Counterattack someone who has just attacked one in melee."""

    is_attack: ClassVar[bool] = True
    is_reaction: ClassVar[bool] = True

    target: str
    """Id of the attacker struck back at."""


class UseItem(Action, frozen=True, tag="thriller.UseItem"):
    """Use an item (a medkit, a grenade, a potion)."""

    item: str
    """Name of the item."""
    target: str | None = None
    """Who the item is used on, if anyone but oneself."""


class Assist(Action, frozen=True, tag="thriller.Assist"):
    """Help an ally with their next test."""

    ally: str
    """Id of the ally helped."""


class TakeCover(Action, frozen=True, tag="thriller.TakeCover"):
    """Get behind cover or brace to dodge."""


class Interact(Action, frozen=True, tag="thriller.Interact"):
    """Interact with the surroundings (open a door, flip a switch)."""

    what: str
    """What is interacted with."""


class FreeAction(Action, frozen=True, tag="thriller.FreeAction"):
    """A minor, instantaneous action (shout, drop an item, glance around)."""

    name: str
    """What is done."""


class Flee(Action, frozen=True, tag="thriller.Flee"):
    """A full-round action: extended movement away from the fight."""

    to: Position
    """Where to run to."""


class FullDefense(Action, frozen=True, tag="thriller.FullDefense"):
    """A full-round action: do nothing but defend until one's next turn."""


class Special(Action, frozen=True, tag="thriller.Special"):
    """A special action declared in the encounter file (a ritual, rigging explosives)."""

    name: str
    """Name of the special action as the encounter file declares it."""
    target: str | None = None
    """Who it is aimed at, if anyone."""
