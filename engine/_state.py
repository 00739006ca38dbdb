"""Encounter state values and their digest.

The state transition the program runs is the live state's (``_live.py``): a fight changes its
:class:`~engine._live.LiveState` in place per event, and :func:`engine.fold` (what ``state``,
``verify`` and ``why`` rebuild a log with) runs those same per-event changes and freezes the
result into an :class:`EncounterState`. The tests hold it to a second, independent writing of
the same facts, one new value per event (``apply`` in ``tests/oracle.py``), which is not part
of the program.
"""

from __future__ import annotations

from hashlib import blake2b

import msgspec
from initiative.events import (
    Position,
)


class CombatantState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What changes about a combatant during a fight."""

    id: str
    side: str
    hp: int
    max_hp: int
    ap: int
    position: Position
    initiative: int | None = None
    conditions: tuple[str, ...] = ()
    """Condition names, in the order they were gained."""
    counters: tuple[tuple[str, int], ...] = ()
    """Per-combatant tallies the rules keep, sorted by name."""
    defeated: bool = False
    left: bool = False
    """Left the fight without being defeated (fled)."""
    markers: tuple[str, ...] = ()
    """The GM's markers (free text, no rule effect), in the order they were put on."""

    @property
    def standing(self) -> bool:
        """Still in the fight: neither defeated nor gone."""
        return not (self.defeated or self.left)

    def has(self, condition: str) -> bool:
        return condition in self.conditions

    def count(self, name: str, default: int = 0) -> int:
        """The value of tally ``name``."""
        for key, value in self.counters:
            if key == name:
                return value
        return default


class EncounterState(msgspec.Struct, frozen=True, kw_only=True):
    """The whole encounter after some event."""

    seq: int = -1
    ruleset: str = ""
    round: int = 0
    active: str | None = None
    """Who holds the turn (the active player), even when priority is elsewhere."""
    priority: str | None = None
    """Who may act right now."""
    order: tuple[str, ...] = ()
    """Initiative order, highest first."""
    combatants: dict[str, CombatantState] = {}
    depth: int = 0
    """How many openings are open (nested) right now."""
    ended: bool = False
    winner: str | None = None

    def get(self, who: str) -> CombatantState:
        return self.combatants[who]

    def standing(self) -> list[CombatantState]:
        """Combatants still in the fight, in initiative order, then by join order."""
        placed = [self.combatants[c] for c in self.order if c in self.combatants]
        rest = [c for k, c in self.combatants.items() if k not in self.order]
        return [c for c in placed + rest if c.standing]


def state_to_builtins(state: EncounterState) -> dict[str, object]:
    """The state as plain JSON-ready data (the keys ``state --json`` promises)."""
    data = _builtins(state)
    for cid, c in state.combatants.items():
        data["combatants"][cid]["markers"] = list(c.markers)  # type: ignore[index]
    return data


def _builtins(state: EncounterState) -> dict[str, object]:
    """The state as plain data, without the GM's markers unless a combatant has some (what
    the digest is taken of: a fight without markers digests as it did before them)."""
    return {
        "seq": state.seq,
        "ruleset": state.ruleset,
        "round": state.round,
        "active": state.active,
        "priority": state.priority,
        "order": list(state.order),
        "depth": state.depth,
        "ended": state.ended,
        "winner": state.winner,
        "combatants": {
            cid: {
                "side": c.side,
                "ap": c.ap,
                "hp": c.hp,
                "max_hp": c.max_hp,
                "conditions": list(c.conditions),
                "position": [c.position.x, c.position.y],
                "initiative": c.initiative,
                "counters": dict(c.counters),
                "defeated": c.defeated,
                "left": c.left,
                **({"markers": list(c.markers)} if c.markers else {}),
            }
            for cid, c in state.combatants.items()
        },
    }


_digest_encoder = msgspec.json.Encoder()


def state_digest(state: EncounterState) -> str:
    """BLAKE2b (16 bytes, hex) of the canonical JSON of :func:`state_to_builtins` (a
    combatant's ``markers`` only when it has some).

    Canonical because every map there is in insertion order (join order, field order), which the
    events alone decide; nothing depends on hash seeds or the clock."""
    data = _digest_encoder.encode(_builtins(state))
    return blake2b(data, digest_size=16).hexdigest()


CHAIN = blake2b(digest_size=32)
"""An empty BLAKE2b-256: copying it is half the cost of a new one (its parameters parsed)."""


def chain_step(previous: bytes, line: bytes) -> bytes:
    """One link of a log's tamper-evidence chain: ``H(previous || line)`` (BLAKE2b, 32 bytes)."""
    h = CHAIN.copy()
    h.update(previous)
    h.update(line)
    return h.digest()
