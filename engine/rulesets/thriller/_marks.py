"""The thriller ruleset's conditions and counters, each with its wire form in the log."""

from __future__ import annotations

from initiative.engine.kit import Condition, Counter


class Surprised(Condition, frozen=True):
    """Loses its round-1 turn and may only Dodge; attacks against it roll at advantage."""

    name = "surprised"


class Shaken(Condition, frozen=True):
    """Failed the Sanity check: a penalty to tests and AP until the end of ``shaken_rounds``."""

    name = "shaken"


class InCover(Condition, frozen=True):
    """Took cover: harder to hit until the start of its next turn."""

    name = "in_cover"


class FullDefense(Condition, frozen=True):
    """Full Defense: harder to hit until the start of its next turn."""

    name = "full_defense"


class Intercepted(Condition, frozen=True):
    """An attack on it is being intercepted (one Intercept per attack)."""

    name = "intercepted"


class SpecialCondition(Condition, frozen=True):
    """A condition a special action of the encounter file gives (its wire form is its name)."""

    label: str

    def wire(self) -> str:
        return self.label

    @classmethod
    def parse(cls, text: str) -> SpecialCondition | None:
        return cls(text) if text and text not in _OWN else None


class FreeActions(Counter, frozen=True):
    """Free actions taken this turn."""

    name = "free_actions"


class FullRound(Counter, frozen=True):
    """1 once a full-round action was taken this turn."""

    name = "full_round"


class Assisted(Counter, frozen=True):
    """An ally's Assist bonus for the next test."""

    name = "assisted"


class Unloaded(Counter, frozen=True):
    """1 while a weapon with ``reload`` needs reloading (``unloaded.WEAPON``)."""

    name = "unloaded"
    sep = "."
    weapon: str


class Used(Counter, frozen=True):
    """Uses of an item so far (``used.ITEM``)."""

    name = "used"
    sep = "."
    item: str


class Progress(Counter, frozen=True):
    """Turns worked so far on a special action of several turns (``special.NAME``)."""

    name = "special"
    sep = "."
    special: str


class Worked(Counter, frozen=True):
    """1 once a special action of several turns was worked on this turn (``worked.NAME``)."""

    name = "worked"
    sep = "."
    special: str


SURPRISED = Surprised()
SHAKEN = Shaken()
IN_COVER = InCover()
FULL_DEFENSE = FullDefense()
INTERCEPTED = Intercepted()
FREE = FreeActions()
FULL_ROUND = FullRound()
ASSISTED = Assisted()

_OWN = frozenset(k.name for k in (Surprised, Shaken, InCover, FullDefense, Intercepted))
CONDITIONS = (Surprised, Shaken, InCover, FullDefense, Intercepted, SpecialCondition)
COUNTERS = (FreeActions, FullRound, Assisted, Unloaded, Used, Progress, Worked)
