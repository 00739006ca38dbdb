"""The oracle the tests hold the engine's state transition to: ``apply(state, event)``, a pure
fold that trusts each event and makes one new immutable state per event, and ``fold_pure``,
one ``apply`` per event.

An independent writing of the facts :func:`engine.fold` (and so the live state) records, sharing
no code with it; nothing in the program folds with it, so it lives with the tests
(``tests/engine/test_fold.py`` holds ``engine.fold`` to it over every state-changing event type
in any order and over every golden log after each event).
"""

from __future__ import annotations

from collections.abc import Iterable

from initiative.engine import CombatantState, EncounterState
from msgspec.structs import replace

from initiative import events as ev


def _with(state: EncounterState, who: str, **changes: object) -> EncounterState:
    combatants = dict(state.combatants)
    combatants[who] = replace(combatants[who], **changes)
    return replace(state, combatants=combatants)


def apply(state: EncounterState, event: ev.Event) -> EncounterState:
    """The state after ``event``: a pure fold that trusts the event.

    The program folds with :func:`engine.fold`, which must give the same values."""
    state = replace(state, seq=event.seq)
    match event:
        case ev.EncounterStarted(ruleset=ruleset):
            return replace(state, ruleset=ruleset)
        case ev.CombatantJoined(who=who, side=side, hp=hp, ap=ap, position=position):
            combatants = dict(state.combatants)
            combatants[who] = CombatantState(
                id=who, side=side, hp=hp, max_hp=hp, ap=ap, position=position
            )
            return replace(state, combatants=combatants)
        case ev.InitiativeRolled(who=who, total=total):
            combatants = dict(state.combatants)
            for member in who:
                if member in combatants:
                    combatants[member] = replace(combatants[member], initiative=total)
            return replace(state, combatants=combatants)
        case ev.InitiativeOrdered(order=order):
            return replace(state, order=order)
        case ev.RoundStarted(round=number):
            return replace(state, round=number)
        case ev.TurnStarted(who=who):
            return replace(state, active=who, priority=None)
        case ev.PriorityGranted(who=who):
            return replace(state, priority=who)
        case ev.TurnEnded():
            return replace(state, active=None, priority=None)
        case ev.TurnInserted(who=who):
            return replace(state, active=who, priority=None)
        case ev.InsertedTurnEnded(returns_to=holder):
            return replace(state, active=holder, priority=None)
        case ev.OpeningOpened():
            return replace(state, depth=state.depth + 1)
        case ev.OpeningClosed(returns_to=holder):
            return replace(state, depth=max(0, state.depth - 1), priority=holder)
        case ev.APChanged(who=who, ap=ap):
            return _with(state, who, ap=ap)
        case ev.Moved(who=who, to=to):
            return _with(state, who, position=to)
        case ev.DamageDealt(who=who, hp=hp) | ev.Healed(who=who, hp=hp):
            return _with(state, who, hp=hp)
        case ev.ConditionAdded(who=who, condition=condition):
            held = state.combatants[who].conditions
            if condition in held:
                return state
            return _with(state, who, conditions=(*held, condition))
        case ev.ConditionRemoved(who=who, condition=condition):
            held = state.combatants[who].conditions
            return _with(state, who, conditions=tuple(c for c in held if c != condition))
        case ev.CounterChanged(who=who, name=name, value=value):
            kept = [(k, v) for k, v in state.combatants[who].counters if k != name]
            if value:
                kept.append((name, value))
            return _with(state, who, counters=tuple(sorted(kept)))
        case ev.CombatantDefeated(who=who):
            return _with(state, who, defeated=True)
        case ev.CombatantLeft(who=who):
            return _with(state, who, left=True)
        case ev.CombatantReturned(who=who):
            return _with(state, who, left=False)
        case ev.CombatantRevived(who=who):
            return _with(state, who, defeated=False)
        case ev.MarkerAdded(who=who, text=text, before=before):
            held = list(state.combatants[who].markers)
            if text in held:
                return state
            held.insert(held.index(before) if before in held else len(held), text)
            return _with(state, who, markers=tuple(held))
        case ev.MarkerRemoved(who=who, text=text):
            held = state.combatants[who].markers
            return _with(state, who, markers=tuple(m for m in held if m != text))
        case ev.EncounterEnded(winner=winner):
            return replace(state, ended=True, winner=winner, active=None, priority=None)
    return state


def fold_pure(events: Iterable[ev.Event], upto: int | None = None) -> EncounterState:
    """The state after event ``upto`` by :func:`apply` alone, one new state per event."""
    state = EncounterState()
    for event in events:
        if upto is not None and event.seq > upto:
            break
        state = apply(state, event)
    return state
