"""Encounter state and the pure fold ``apply(state, event) -> state``.

The fold never validates and never rolls: it only records what events say. Everything a state
holds can be rebuilt from the log alone, which is what ``initiative state --at SEQ`` does.
Combatants live in a dict that is copied on write and never mutated in place.
"""

from __future__ import annotations

from hashlib import blake2b
from itertools import takewhile
from typing import Any

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

    The same value as applying :func:`apply` to each event in turn (the reference, which
    property tests hold it to), computed in one loop over plain locals and a mutable record
    per combatant, each combatant's value built once at the end: replaying a whole log (what
    ``state`` does) pays neither a new state nor a new combatant per event. Each branch
    mirrors its case in :func:`apply`; events that change nothing are skipped by type."""
    if upto is not None:
        events = list(takewhile(lambda e: e.seq <= upto, events))
    elif not isinstance(events, list):
        events = list(events)
    ruleset = ""
    round_ = depth = 0
    active: str | None = None
    priority: str | None = None
    order: tuple[str, ...] = ()
    ended = False
    winner: str | None = None
    # id -> [side, hp, max_hp, ap, position, initiative, conditions, counters, defeated, left]
    records: dict[str, list[Any]] = {}
    changes = _FOLD_CHANGES
    event: Any  # each branch reads the fields its event type has
    for event in events:
        change = changes.get(type(event))
        if change is None:
            continue
        if change == _PRIORITY:
            priority = event.who
        elif change == _AP:
            records[event.who][_R_AP] = event.ap
        elif change == _TURN:
            active = event.who
            priority = None
        elif change == _TURN_ENDED:
            active = priority = None
        elif change == _HP:
            records[event.who][_R_HP] = event.hp
        elif change == _MOVED:
            records[event.who][_R_POSITION] = event.to
        elif change == _CONDITION_ADDED:
            record = records[event.who]
            held = record[_R_CONDITIONS]
            if event.condition not in held:
                record[_R_CONDITIONS] = (*held, event.condition)
        elif change == _CONDITION_REMOVED:
            record = records[event.who]
            gone = event.condition
            record[_R_CONDITIONS] = tuple(c for c in record[_R_CONDITIONS] if c != gone)
        elif change == _COUNTER:
            record = records[event.who]
            record[_R_COUNTERS] = _set_counter(record[_R_COUNTERS], event.name, event.value)
        elif change == _DEFEATED:
            records[event.who][_R_DEFEATED] = True
        elif change == _LEFT:
            records[event.who][_R_LEFT] = True
        elif change == _ROUND:
            round_ = event.round
        elif change == _INSERTED_ENDED:
            active = event.returns_to
            priority = None
        elif change == _OPENED:
            depth += 1
        elif change == _CLOSED:
            depth = max(0, depth - 1)
            priority = event.returns_to
        elif change == _JOINED:
            # A new record even for an id that joined before (the key keeps its place).
            records[event.who] = [
                event.side, event.hp, event.hp, event.ap, event.position,
                None, (), (), False, False,
            ]  # fmt: skip
        elif change == _ROLLED:
            for member in event.who:
                if member in records:
                    records[member][_R_INITIATIVE] = event.total
        elif change == _ORDERED:
            order = event.order
        elif change == _STARTED:
            ruleset = event.ruleset
        elif change == _ENDED:
            ended = True
            winner = event.winner
            active = priority = None
    return EncounterState(
        seq=events[-1].seq if events else -1,
        ruleset=ruleset,
        round=round_,
        active=active,
        priority=priority,
        order=order,
        combatants={
            who: CombatantState(
                id=who,
                side=r[0],
                hp=r[1],
                max_hp=r[2],
                ap=r[3],
                position=r[4],
                initiative=r[5],
                conditions=r[6],
                counters=r[7],
                defeated=r[8],
                left=r[9],
            )
            for who, r in records.items()
        },
        depth=depth,
        ended=ended,
        winner=winner,
    )


# The fields of a combatant's record in :func:`fold` (the order of CombatantState's fields).
_R_HP, _R_AP, _R_POSITION, _R_INITIATIVE, _R_CONDITIONS, _R_COUNTERS = 1, 3, 4, 5, 6, 7
_R_DEFEATED, _R_LEFT = 8, 9

# What each event type changes in :func:`fold`, numbered roughly by how often a fight has it.
(
    _PRIORITY, _AP, _TURN, _TURN_ENDED, _HP, _MOVED, _CONDITION_ADDED, _CONDITION_REMOVED,
    _COUNTER, _DEFEATED, _LEFT, _ROUND, _INSERTED_ENDED, _OPENED, _CLOSED, _JOINED, _ROLLED,
    _ORDERED, _STARTED, _ENDED,
) = range(20)  # fmt: skip
_FOLD_CHANGES: dict[type, int] = {
    PriorityGranted: _PRIORITY,
    APChanged: _AP,
    TurnStarted: _TURN,
    TurnInserted: _TURN,
    TurnEnded: _TURN_ENDED,
    DamageDealt: _HP,
    Healed: _HP,
    Moved: _MOVED,
    ConditionAdded: _CONDITION_ADDED,
    ConditionRemoved: _CONDITION_REMOVED,
    CounterChanged: _COUNTER,
    CombatantDefeated: _DEFEATED,
    CombatantLeft: _LEFT,
    RoundStarted: _ROUND,
    InsertedTurnEnded: _INSERTED_ENDED,
    OpeningOpened: _OPENED,
    OpeningClosed: _CLOSED,
    CombatantJoined: _JOINED,
    InitiativeRolled: _ROLLED,
    InitiativeOrdered: _ORDERED,
    EncounterStarted: _STARTED,
    EncounterEnded: _ENDED,
}


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


_CHAIN = blake2b(digest_size=32)
"""An empty BLAKE2b-256: copying it is half the cost of a new one (its parameters parsed)."""


def chain_step(previous: bytes, line: bytes) -> bytes:
    """One link of a log's tamper-evidence chain: ``H(previous || line)`` (BLAKE2b, 32 bytes)."""
    h = _CHAIN.copy()
    h.update(previous)
    h.update(line)
    return h.digest()
