"""Encounter state values, their digest, and the reference transition ``apply``.

The state transition the program runs is the live state's (``_live.py``): a fight changes its
:class:`~engine._live.LiveState` in place per event, and :func:`engine.fold` (what ``state``,
``verify`` and ``why`` rebuild a log with) runs those same per-event changes and freezes the
result into an :class:`EncounterState`. :func:`apply` here is a second, independent writing
of the same facts, one new value per event, kept only as the oracle the tests hold the
transition to (``tests/engine/test_fold.py``); it shares no code with it. Neither ever
validates or rolls: they record what the events say.
"""

from __future__ import annotations

from collections.abc import Iterable
from hashlib import blake2b

import msgspec
from initiative.events import (
    APChanged,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    EncounterEnded,
    EncounterStarted,
    Event,
    Healed,
    InitiativeOrdered,
    InitiativeRolled,
    InsertedTurnEnded,
    MarkerAdded,
    MarkerRemoved,
    Moved,
    OpeningClosed,
    OpeningOpened,
    Position,
    PriorityGranted,
    RoundStarted,
    TurnEnded,
    TurnInserted,
    TurnStarted,
)
from msgspec.structs import replace


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


def _with(state: EncounterState, who: str, **changes: object) -> EncounterState:
    combatants = dict(state.combatants)
    combatants[who] = replace(combatants[who], **changes)
    return replace(state, combatants=combatants)


def apply(state: EncounterState, event: Event) -> EncounterState:
    """The state after ``event``: a pure fold that trusts the event.

    The oracle for tests only (see the module's docstring): the program folds with
    :func:`engine.fold`, which must give the same values (``tests/engine/test_fold.py``)."""
    state = replace(state, seq=event.seq)
    match event:
        case EncounterStarted(ruleset=ruleset):
            return replace(state, ruleset=ruleset)
        case CombatantJoined(who=who, side=side, hp=hp, ap=ap, position=position):
            combatants = dict(state.combatants)
            combatants[who] = CombatantState(
                id=who, side=side, hp=hp, max_hp=hp, ap=ap, position=position
            )
            return replace(state, combatants=combatants)
        case InitiativeRolled(who=who, total=total):
            combatants = dict(state.combatants)
            for member in who:
                if member in combatants:
                    combatants[member] = replace(combatants[member], initiative=total)
            return replace(state, combatants=combatants)
        case InitiativeOrdered(order=order):
            return replace(state, order=order)
        case RoundStarted(round=number):
            return replace(state, round=number)
        case TurnStarted(who=who):
            return replace(state, active=who, priority=None)
        case PriorityGranted(who=who):
            return replace(state, priority=who)
        case TurnEnded():
            return replace(state, active=None, priority=None)
        case TurnInserted(who=who):
            return replace(state, active=who, priority=None)
        case InsertedTurnEnded(returns_to=holder):
            return replace(state, active=holder, priority=None)
        case OpeningOpened():
            return replace(state, depth=state.depth + 1)
        case OpeningClosed(returns_to=holder):
            return replace(state, depth=max(0, state.depth - 1), priority=holder)
        case APChanged(who=who, ap=ap):
            return _with(state, who, ap=ap)
        case Moved(who=who, to=to):
            return _with(state, who, position=to)
        case DamageDealt(who=who, hp=hp) | Healed(who=who, hp=hp):
            return _with(state, who, hp=hp)
        case ConditionAdded(who=who, condition=condition):
            held = state.combatants[who].conditions
            if condition in held:
                return state
            return _with(state, who, conditions=(*held, condition))
        case ConditionRemoved(who=who, condition=condition):
            held = state.combatants[who].conditions
            return _with(state, who, conditions=tuple(c for c in held if c != condition))
        case CounterChanged(who=who, name=name, value=value):
            kept = [(k, v) for k, v in state.combatants[who].counters if k != name]
            if value:
                kept.append((name, value))
            return _with(state, who, counters=tuple(sorted(kept)))
        case CombatantDefeated(who=who):
            return _with(state, who, defeated=True)
        case CombatantLeft(who=who):
            return _with(state, who, left=True)
        case CombatantReturned(who=who):
            return _with(state, who, left=False)
        case CombatantRevived(who=who):
            return _with(state, who, defeated=False)
        case MarkerAdded(who=who, text=text):
            held = state.combatants[who].markers
            return state if text in held else _with(state, who, markers=(*held, text))
        case MarkerRemoved(who=who, text=text):
            held = state.combatants[who].markers
            return _with(state, who, markers=tuple(m for m in held if m != text))
        case EncounterEnded(winner=winner):
            return replace(state, ended=True, winner=winner, active=None, priority=None)
    return state


def fold_pure(events: Iterable[Event], upto: int | None = None) -> EncounterState:
    """The state after event ``upto`` by :func:`apply` alone, one new state per event: the
    oracle the tests hold :func:`engine.fold` (and so the live state) to. Nothing in the
    program folds with it."""
    state = EncounterState()
    for event in events:
        if upto is not None and event.seq > upto:
            break
        state = apply(state, event)
    return state


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


_CHAIN = blake2b(digest_size=32)
"""An empty BLAKE2b-256: copying it is half the cost of a new one (its parameters parsed)."""


def chain_step(previous: bytes, line: bytes) -> bytes:
    """One link of a log's tamper-evidence chain: ``H(previous || line)`` (BLAKE2b, 32 bytes)."""
    h = _CHAIN.copy()
    h.update(previous)
    h.update(line)
    return h.digest()
