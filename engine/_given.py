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
    """The dice a log gave, by seq; past the log (after seq ``upto``), ``then`` (another
    source) or the generator.

    Within the log, a die it records as rolled is rolled again, whatever ``then`` would say:
    ``then`` is asked only for dice the log does not hold (a longer dice file, given to go on
    with, never changes what the log already says).
    """

    def __init__(
        self,
        given: Mapping[int, tuple[int, ...]],
        then: DiceSource | None = None,
        *,
        upto: int | None = None,
    ) -> None:
        self.given = dict(given)
        self.then = then
        self.upto = max(self.given, default=-1) if upto is None else upto

    def faces(
        self, fight: object, who: str | None, purpose: str, dice: Dice
    ) -> tuple[int, ...] | None:
        seq = fight.next_seq  # type: ignore[attr-defined]
        if seq in self.given:
            return self.given[seq]
        if self.then is not None and seq > self.upto:
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
    """A source that replays a log's given dice up to seq ``upto`` (default: the whole log),
    then asks ``then`` (``None`` when the log gave none and ``then`` is ``None``)."""
    events = list(events)
    given = given_dice(events, upto)
    if not given and then is None:
        return None
    last = events[-1].seq if events else -1
    return RecordedDice(given, then, upto=last if upto is None else min(upto, last))
