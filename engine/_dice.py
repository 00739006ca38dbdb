"""Dice expressions: ``NdS``, ``NdS+M``, ``NdS-M``, ``NdSkhK`` (keep highest K), constants."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product

from initiative.events import EncounterFileError

from ._rng import Rng

_DICE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:k([hl])\s*(\d+))?\s*(?:([+-])\s*(\d+))?\s*$")
_CONST = re.compile(r"^\s*([+-]?\d+)\s*$")


@dataclass(frozen=True)
class Dice:
    """A parsed dice expression."""

    count: int
    sides: int
    modifier: int = 0
    keep: int | None = None
    """Keep this many dice (``None``: all)."""
    highest: bool = True

    def __str__(self) -> str:
        return _text(self)

    def _text(self) -> str:
        if self.sides == 0:
            return str(self.modifier)
        text = f"{self.count}d{self.sides}"
        if self.keep is not None:
            text += f"k{'h' if self.highest else 'l'}{self.keep}"
        if self.modifier:
            text += f"{self.modifier:+d}"
        return text

    def total(self, faces: tuple[int, ...]) -> int:
        kept = sorted(faces, reverse=self.highest)[: self.keep] if self.keep else faces
        return sum(kept) + self.modifier

    def roll(self, rng: Rng) -> tuple[tuple[int, ...], int]:
        """Roll it: the faces in the order rolled, and the total."""
        if self.count == 1:  # the common case, without a generator (one die is all it keeps)
            face = rng.die(self.sides)
            return (face,), face + self.modifier
        faces = tuple(rng.die(self.sides) for _ in range(self.count))
        return faces, self.total(faces)

    def distribution(self) -> dict[int, float]:
        """Each total it can roll and its exact probability (in order of the total).

        A plain sum of dice is convolved die by die; ``khK``/``klK`` is enumerated over every
        outcome, which is refused (``ValueError``) beyond a million of them."""
        return {total: float(p) for total, p in _distribution(self)}

    @property
    def mean(self) -> float:
        if self.sides == 0:
            return float(self.modifier)
        kept = self.keep or self.count
        return kept * (self.sides + 1) / 2 + self.modifier


@lru_cache(maxsize=1024)
def _distribution(dice: Dice) -> tuple[tuple[int, Fraction], ...]:
    """Each total and its exact probability, as fractions (see :meth:`Dice.distribution`)."""
    if dice.sides == 0:
        return ((dice.modifier, Fraction(1)),)
    if dice.keep is None or dice.keep >= dice.count:
        ways = {0: 1}
        for _ in range(dice.count):
            step: dict[int, int] = {}
            for total, n in ways.items():
                for face in range(1, dice.sides + 1):
                    step[total + face] = step.get(total + face, 0) + n
            ways = step
    else:
        if dice.sides**dice.count > 1_000_000:
            raise ValueError(f"too many outcomes to enumerate: {dice}")
        ways = {}
        for faces in product(range(1, dice.sides + 1), repeat=dice.count):
            kept = sorted(faces, reverse=dice.highest)[: dice.keep]
            ways[sum(kept)] = ways.get(sum(kept), 0) + 1
    outcomes = dice.sides**dice.count
    return tuple((t + dice.modifier, Fraction(ways[t], outcomes)) for t in sorted(ways))


@lru_cache(maxsize=4096)
def _text(dice: Dice) -> str:
    """``str(dice)``, cached: every roll records its expression."""
    return dice._text()


@lru_cache(maxsize=4096)
def parse_dice(text: str) -> Dice:
    """Parse a dice expression; raises :class:`EncounterFileError` naming the bad text.

    Cached: rules roll the same few expressions over and over (a :class:`Dice` is immutable).
    """
    if m := _CONST.match(text):
        return Dice(count=0, sides=0, modifier=int(m.group(1)))
    m = _DICE.match(text)
    if not m:
        raise EncounterFileError(f"not a dice expression: {text!r} (expected e.g. '1d8+2')")
    count = int(m.group(1) or 1)
    sides = int(m.group(2))
    if not 1 <= count <= 100 or not 1 <= sides <= 1000:
        raise EncounterFileError(f"dice out of range: {text!r} (1-100 dice of 1-1000 sides)")
    keep = int(m.group(4)) if m.group(3) else None
    if keep is not None and not 1 <= keep <= count:
        raise EncounterFileError(f"cannot keep {keep} of {count} dice in {text!r}")
    modifier = int(m.group(6) or 0) * (-1 if m.group(5) == "-" else 1)
    return Dice(count=count, sides=sides, modifier=modifier, keep=keep, highest=m.group(3) != "l")
