"""The tactical ruleset's conditions and counters, each with its wire form in the log.

A condition that remembers someone or something carries it as a field (``BlindedBy(who)`` is
``blinded_by:ID`` in the log, ``Dropped(weapon, at)`` is ``dropped:WEAPON@X,Y``); the strings are
made and read here only.
"""

from __future__ import annotations

from initiative.engine.kit import HIDDEN, Condition, Counter, Hidden
from initiative.events import Position


class Prone(Condition, frozen=True):
    name = "prone"


class Blinded(Condition, frozen=True):
    name = "blinded"


class Restrained(Condition, frozen=True):
    name = "restrained"


class Unconscious(Condition, frozen=True):
    name = "unconscious"


class DefensiveStance(Condition, frozen=True):
    name = "defensive_stance"


class Disengaged(Condition, frozen=True):
    name = "disengaged"


class Withdrawn(Condition, frozen=True):
    """Disengaged and moved out of an enemy's engagement range this turn."""

    name = "disengaged_clear"


class Advantage(Condition, frozen=True):
    """Won an exchange; a Special Advantage may be taken (see ``_attacks``)."""

    name = "advantage"


class Delaying(Condition, frozen=True):
    """Declared a Delay Turn; its triggers are ``DelayOn`` conditions."""

    name = "delaying"


class BlindedBy(Condition, frozen=True):
    """Who blinded it (Blindness ends at that one's next turn start)."""

    name = "blinded_by"
    by: str


class RestrainedBy(Condition, frozen=True):
    """Who restrains it (a Resist escapes that one)."""

    name = "restrained_by"
    by: str


class Feinted(Condition, frozen=True):
    """Feinted ``target``: its next melee attack on it is harder to defend."""

    name = "feint"
    target: str


class DelayOn(Condition, frozen=True):
    """A trigger a Delay Turn declared."""

    name = "delay_on"
    trigger: str


class Disarmed(Condition, frozen=True):
    """The weapon is out of its hand (taken, or flung: see ``Dropped``)."""

    name = "disarmed"
    weapon: str


class Sheathed(Condition, frozen=True):
    name = "sheathed"
    weapon: str


class Dropped(Condition, frozen=True):
    """Where a flung weapon lies (``dropped:WEAPON@X,Y``)."""

    name = "dropped"
    weapon: str
    at: Position

    def wire(self) -> str:
        return f"dropped:{self.weapon}@{self.at.x:g},{self.at.y:g}"

    @classmethod
    def parse(cls, text: str) -> Dropped | None:
        if not text.startswith("dropped:") or "@" not in text:
            return None
        weapon, _, where = text[len("dropped:") :].rpartition("@")
        x, y = where.split(",")
        return cls(weapon, Position(float(x), float(y)))


class Attacks(Counter, frozen=True):
    """Attacks made this round."""

    name = "attacks"


class Aim(Counter, frozen=True):
    """Aim actions chained so far."""

    name = "aim"


class Moved(Counter, frozen=True):
    """Centimetres moved this turn."""

    name = "moved_cm"


class Dashes(Counter, frozen=True):
    name = "dashes"


class InDelayedTurn(Counter, frozen=True):
    """1 while taking a delayed turn."""

    name = "in_delayed_turn"


class Reload(Counter, frozen=True):
    """Reload actions a missile weapon still needs (``reload:WEAPON``)."""

    name = "reload"
    weapon: str


class UsedItem(Counter, frozen=True):
    """Uses of an item so far (``used:ITEM``)."""

    name = "used"
    item: str


PRONE = Prone()
BLINDED = Blinded()
RESTRAINED = Restrained()
UNCONSCIOUS = Unconscious()
DEFENSIVE_STANCE = DefensiveStance()
DISENGAGED = Disengaged()
WITHDRAWN = Withdrawn()
ADVANTAGE = Advantage()
DELAYING = Delaying()
ATTACKS = Attacks()
AIM = Aim()
MOVED = Moved()
DASHES = Dashes()
INSERTED = InDelayedTurn()

#: Conditions a spell or the encounter file may give, by name.
NAMED: dict[str, Condition] = {c.name: c for c in (PRONE, HIDDEN, BLINDED, RESTRAINED, UNCONSCIOUS)}

DECLARED_CONDITIONS = (
    Prone,
    Hidden,
    Blinded,
    Restrained,
    Unconscious,
    DefensiveStance,
    Disengaged,
    Withdrawn,
    Advantage,
    Delaying,
    BlindedBy,
    RestrainedBy,
    Feinted,
    DelayOn,
    Disarmed,
    Sheathed,
    Dropped,
)
DECLARED_COUNTERS = (Attacks, Aim, Moved, Dashes, InDelayedTurn, Reload, UsedItem)
