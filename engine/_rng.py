"""The deterministic, counter-based random number generator.

Algorithm ``blake2b64-ctr/1``: the ``n``-th 64-bit draw of a stream is the BLAKE2b digest
(8 bytes, little-endian) of the UTF-8 text ``"{seed}/{stream}/{n}"``. A die of ``s`` sides takes
draws until one falls below the largest multiple of ``s`` that fits in 64 bits (rejection
sampling, so every face is exactly as likely) and returns ``draw % s + 1``.

Counter-based means a draw depends only on (seed, stream, counter), never on the process, the
platform, the hash seed or the order Trio runs tasks in. The engine's dice use the stream
``dice``; a policy gets the stream ``policy/<combatant id>``, so a policy's randomness never moves
the engine's dice. A fork's dice come from ``fork/<k>``, or with paired dice
(:class:`PairedDice`) from one stream per roll, named by who rolls, for what and the how-many-th.
Test vectors in ``tests/engine/test_rng.py`` pin the algorithm.
"""

from __future__ import annotations

from hashlib import blake2b

ALGORITHM = "blake2b64-ctr/1"

_TWO64 = 1 << 64


_EMPTY = blake2b(digest_size=8)
"""An empty BLAKE2b-64: copying it is half the cost of a new one (its parameters parsed)."""


def draw(seed: int, stream: str, counter: int) -> int:
    """The 64-bit draw number ``counter`` of ``stream`` under ``seed``."""
    h = _EMPTY.copy()
    h.update(f"{seed}/{stream}/{counter}".encode())
    return int.from_bytes(h.digest(), "little")


class Rng:
    """A stream of uniform integers; its whole state is (seed, stream, counter)."""

    __slots__ = ("counter", "seed", "stream")

    def __init__(self, seed: int, stream: str = "dice", counter: int = 0) -> None:
        self.seed = seed
        self.stream = stream
        self.counter = counter

    def next64(self) -> int:
        value = draw(self.seed, self.stream, self.counter)
        self.counter += 1
        return value

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = _TWO64 - _TWO64 % n
        while True:
            value = self.next64()
            if value < limit:
                return value % n

    def die(self, sides: int) -> int:
        """One die of ``sides`` faces, 1..sides."""
        return self.below(sides) + 1

    def choice(self, items: list) -> object:  # type: ignore[type-arg]
        """One element of a non-empty sequence."""
        return items[self.below(len(items))]

    def random(self) -> float:
        """A float in [0, 1) with 53 random bits."""
        return (self.next64() >> 11) / float(1 << 53)


def policy_rng(seed: int, combatant: str) -> Rng:
    """The random stream a policy gets for ``combatant``: independent of the engine's dice."""
    return Rng(seed, f"policy/{combatant}")


class PairedDice:
    """Dice drawn by who rolls them and for what: paired dice for a fork (common random numbers).

    The ``n``-th roll of a key ``(who, purpose)`` draws its dice from the stream
    ``<prefix>/<len(who)>:<who>/<purpose>/<n>`` (``-`` for no one; the length keeps the name
    unambiguous whatever the ids hold), from its start. So it is the same roll whatever was
    rolled before it, by anyone, for anything, and however many dice the key's earlier rolls
    took: two forks of one decision with the same ``prefix`` roll alike wherever their fights
    roll alike. Ilse's third attack roll on the ogre is the same die in both, even when their
    first actions differ and the dice before it were not the same ones."""

    __slots__ = ("prefix", "rolls", "seed")

    def __init__(
        self,
        seed: int,
        prefix: str,
        rolls: dict[tuple[str | None, str], tuple[str, int]] | None = None,
    ) -> None:
        self.seed = seed
        self.prefix = prefix
        self.rolls: dict[tuple[str | None, str], tuple[str, int]] = {} if rolls is None else rolls
        """Each key rolled so far: its stream's name less the roll's number, and how many
        rolls it made (looked up, never iterated)."""

    def stream(self, who: str | None, purpose: str) -> Rng:
        """The stream the next roll of ``who`` for ``purpose`` draws its dice from."""
        key = (who, purpose)
        known = self.rolls.get(key)
        if known is None:
            name = "-" if who is None else f"{len(who)}:{who}"
            known = (f"{self.prefix}/{name}/{purpose}", 0)
        base, n = known
        self.rolls[key] = (base, n + 1)
        return Rng(self.seed, f"{base}/{n}")

    def copy(self) -> PairedDice:
        """An independent copy at the same counts (what a fork of a fork goes on from)."""
        return PairedDice(self.seed, self.prefix, dict(self.rolls))
