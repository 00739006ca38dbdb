"""Dice rolled at the table: where a :class:`~engine.Fight` gets a die it does not roll itself.

A fight with a dice source asks it for every die before rolling; faces it returns are used as
given and recorded as ``DiceGiven`` (the generator is not advanced for them), ``None`` lets the
fight roll. :class:`RecordedDice` gives back the dice a log recorded as given, by the seq of
their event, so a replay, a verification, a fork or a resumed fight re-creates them from the log
alone; a person or a file at the table is a source in ``actors``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from initiative.events import DiceGiven, Event

from ._dice import Dice


class DiceSource(Protocol):
    """Where given dice come from."""

    def faces(
        self, fight: object, who: str | None, purpose: str, dice: Dice
    ) -> tuple[int, ...] | None:
        """The faces for ``dice`` (``dice.count`` of them, each 1 to ``dice.sides``), or
        ``None`` to let the fight roll."""
        ...


class RecordedDice:
    """The dice a log gave, by seq; after those, ``then`` (another source) or the generator."""

    def __init__(
        self, given: Mapping[int, tuple[int, ...]], then: DiceSource | None = None
    ) -> None:
        self.given = dict(given)
        self.then = then

    def faces(
        self, fight: object, who: str | None, purpose: str, dice: Dice
    ) -> tuple[int, ...] | None:
        seq = fight.next_seq  # type: ignore[attr-defined]
        if seq in self.given:
            return self.given[seq]
        if self.then is not None and seq > max(self.given, default=-1):
            return self.then.faces(fight, who, purpose, dice)
        return None


def given_dice(events: Iterable[Event], upto: int | None = None) -> dict[int, tuple[int, ...]]:
    """The faces of every ``DiceGiven`` in ``events`` (up to seq ``upto``), by seq."""
    return {
        e.seq: e.dice
        for e in events
        if isinstance(e, DiceGiven) and (upto is None or e.seq <= upto)
    }


def recorded_dice(
    events: Iterable[Event], upto: int | None = None, then: DiceSource | None = None
) -> RecordedDice | None:
    """A source that replays a log's given dice (``None`` when it has none and ``then`` is
    ``None``)."""
    given = given_dice(events, upto)
    if not given and then is None:
        return None
    return RecordedDice(given, then)
