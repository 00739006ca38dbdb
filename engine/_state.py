"""Encounter state and the pure fold ``apply(state, event) -> state``.

The fold never validates and never rolls: it only records what events say. Everything a state
holds can be rebuilt from the log alone, which is what ``initiative state --at SEQ`` does.
Combatants live in a dict that is copied on write and never mutated in place.
"""

from __future__ import annotations

from hashlib import blake2b
from itertools import takewhile

import msgspec
from initiative.events import (
    APChanged,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
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


def _set_counter(
    counters: tuple[tuple[str, int], ...], name: str, value: int
) -> tuple[tuple[str, int], ...]:
    kept = [(k, v) for k, v in counters if k != name]
    if value:
        kept.append((name, value))
    return tuple(sorted(kept))


def apply(state: EncounterState, event: Event) -> EncounterState:
    """The state after ``event``: a pure fold that trusts the event."""
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
            counters = _set_counter(state.combatants[who].counters, name, value)
            return _with(state, who, counters=counters)
        case CombatantDefeated(who=who):
            return _with(state, who, defeated=True)
        case CombatantLeft(who=who):
            return _with(state, who, left=True)
        case EncounterEnded(winner=winner):
            return replace(state, ended=True, winner=winner, active=None, priority=None)
    return state


def fold(events: list[Event], upto: int | None = None) -> EncounterState:
    """The state after event ``upto`` (the last event when ``None``).

    The same value as applying :func:`apply` to each event in turn (the reference, which a
    property test holds it to), computed with the engine's in-place live state, which does not
    copy the combatants' table at every event."""
    from ._live import _CHANGES, LiveState

    state = LiveState()
    if upto is not None:
        events = list(takewhile(lambda e: e.seq <= upto, events))
    elif not isinstance(events, list):
        events = list(events)
    # Each event's change found by type in one pass in C; events that change nothing skipped.
    for change, event in zip(map(_CHANGES.get, map(type, events)), events, strict=True):
        if change is not None:
            change(state, event)
    if events:
        state.seq = events[-1].seq  # what LiveState.apply sets at each event (none reads it)
    return state.freeze()


def fold_pure(events: list[Event], upto: int | None = None) -> EncounterState:
    """:func:`fold` by :func:`apply` alone, one new state per event: the reference."""
    state = EncounterState()
    for event in events:
        if upto is not None and event.seq > upto:
            break
        state = apply(state, event)
    return state


def state_to_builtins(state: EncounterState) -> dict[str, object]:
    """The state as plain JSON-ready data (the keys ``state --json`` promises)."""
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
            }
            for cid, c in state.combatants.items()
        },
    }


_digest_encoder = msgspec.json.Encoder()


def state_digest(state: EncounterState) -> str:
    """BLAKE2b (16 bytes, hex) of the canonical JSON of :func:`state_to_builtins`.

    Canonical because every map there is in insertion order (join order, field order), which the
    events alone decide; nothing depends on hash seeds or the clock."""
    data = _digest_encoder.encode(state_to_builtins(state))
    return blake2b(data, digest_size=16).hexdigest()


def chain_step(previous: bytes, line: bytes) -> bytes:
    """One link of a log's tamper-evidence chain: ``H(previous || line)`` (BLAKE2b, 32 bytes)."""
    return blake2b(previous + line, digest_size=32).digest()
