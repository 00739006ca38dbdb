"""Random fights with random GM overrides (issue 34): in all four rulesets, overrides of every
kind (undo included) interleaved with decisions, driven through ``initiative.step``.

Three things hold whatever the GM does: the turns are taken in the order the state shows
(``state.order`` at each ``TurnStarted``, as the tracker shows it), every log verifies, and
``replay``'s narration tells every override in a sentence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from initiative.events import (
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    Event,
    GmOverride,
    IllegalOverrideError,
    InitiativeOrdered,
    PriorityGranted,
    RoundStarted,
    TurnStarted,
    Undo,
    parse_log,
)
from initiative.replays import Narrator, verify_log

import initiative
from tests.helpers import examples

EXAMPLES = Path(__file__).parents[1] / "examples"
FIGHTS = {
    "openings": "openings-skirmish.toml",
    "thriller": "thriller-ambush.toml",
    "percentile": "percentile-wilhelm.toml",
    "tactical": "tactical-bridge.toml",
}
CONDITIONS = ("prone", "hidden", "surprised", "shaken", "stunned", "disarmed:axe")
MARKERS = ("blessed", "the one with the key", "Blessed")
DICE = ("2d6+1", "1d20", "3d8-2", "4d6kh3", "2d0", "7", "d%")
DECISIONS = 160
"""Decisions (and overrides) per fight at most: enough for several rounds."""

KINDS = (
    "SetHp",
    "AddCondition",
    "EndCondition",
    "AddCombatant",
    "RemoveCombatant",
    "MoveToken",
    "Reorder",
    "AddMarker",
    "RemoveMarker",
    "Undo",
    "GmRoll",
    "GmNote",
)


def an_override(
    draw: Callable[[st.SearchStrategy[Any]], Any], step: initiative.SteppedFight, n: int
) -> dict[str, object]:
    """An override of a kind drawn from all of them, about the fight as it stands (some the
    rules will refuse: that is part of the test)."""
    state = step.state
    ids = list(state.combatants)
    names = {k: step.fight.queries.spec(k).display for k in ids}
    who_id = draw(st.sampled_from(ids))
    who = draw(st.sampled_from((who_id, names[who_id], names[who_id].upper())))
    c = state.combatants[who_id]
    kind = draw(st.sampled_from(KINDS))
    match kind:
        case "SetHp":
            return {"type": kind, "who": who, "hp": draw(st.integers(-3, c.max_hp))}
        case "AddCondition":
            rounds = draw(st.none() | st.integers(1, 3))
            return {"type": kind, "who": who, "condition": draw(st.sampled_from(CONDITIONS)),
                    "rounds": rounds}  # fmt: skip
        case "EndCondition":
            held = st.sampled_from(c.conditions) if c.conditions else st.sampled_from(CONDITIONS)
            return {"type": kind, "who": who, "condition": draw(held)}
        case "AddCombatant":
            return {"type": kind, "id": f"gm-{n}", "like": who}
        case "RemoveCombatant":
            return {"type": kind, "who": who, "reason": "fled"}
        case "MoveToken":
            dx, dy = draw(st.integers(-3, 3)), draw(st.integers(-3, 3))
            return {"type": kind, "who": who, "to": [c.position.x + dx, c.position.y + dy]}
        case "Reorder":
            before = draw(st.none() | st.sampled_from(ids))
            return {"type": kind, "who": who, "before": before}
        case "AddMarker" | "RemoveMarker":
            return {"type": kind, "who": who, "text": draw(st.sampled_from(MARKERS))}
        case "GmRoll":
            return {
                "type": kind,
                "expr": draw(st.sampled_from(DICE)),
                "secret": draw(st.booleans()),
            }
        case "GmNote":
            return {"type": kind, "text": f"note {n}"}
    return {"type": "Undo"}


UNDONE_WHOLE = {"SetHp", "AddCondition", "EndCondition", "RemoveCombatant", "MoveToken",
                "Reorder", "AddMarker", "RemoveMarker"}  # fmt: skip
"""Overrides an undo at once puts the state back from (a joiner undone stays, as gone)."""


def facets(step: initiative.SteppedFight) -> object:
    """What an override changes and its undoing puts back: the order, and each combatant's
    hit points, place, conditions (as a set), markers and whether it stands."""
    state = step.state
    return state.order, {
        k: (c.hp, c.position, frozenset(c.conditions), c.markers, c.defeated, c.left)
        for k, c in state.combatants.items()
    }


def still(made: list[Event]) -> bool:
    """Whether the fight stood still while the GM stepped in: the override's own events, then
    priority granted again (not the fight going on because it took the holder out)."""
    ours = {made[0].seq}
    for e in made[1:-1]:
        if e.cause not in ours:
            return False
        ours.add(e.seq)
    return isinstance(made[-1], PriorityGranted)


def play(data: st.DataObject, ruleset: str) -> initiative.SteppedFight:
    """A fight of ``ruleset``'s example with overrides drawn between its decisions."""
    seed = data.draw(st.integers(0, 50), label="seed")
    step = initiative.step(EXAMPLES / FIGHTS[ruleset], seed=seed)
    for n in range(DECISIONS):
        if step.over:
            break
        if data.draw(st.integers(0, 4), label="gm?") == 0:
            override = an_override(data.draw, step, n)
            before, start = facets(step), len(step.events)
            try:
                step.override(override)
            except IllegalOverrideError:
                continue  # refused in words, nothing recorded
            if (
                override["type"] in UNDONE_WHOLE
                and still(step.events[start:])
                and data.draw(st.booleans())
            ):
                step.override({"type": "Undo"})  # at once: the state is as it was
                assert facets(step) == before, override
            continue
        offers = step.offers
        step.send(offers[data.draw(st.integers(0, len(offers) - 1), label="offer")].action)
    return step


def turns_follow_the_order(events: list[Event]) -> None:
    """Each turn goes to the next in the round's order who still stands. The round's order is
    the order as it stands when its first turn starts (the last ``InitiativeOrdered``); when
    the order changes within the round, those still to act follow the new order in the places
    they held, and the turn under way, the places passed and those the order dropped stay as
    they were (docs/table.md): one brought back or brought in after its place in the round has
    passed waits for the next round."""
    order: tuple[str, ...] = ()
    down: set[str] = set()
    gone: set[str] = set()
    places: list[str] | None = None  # the round's order, once its first turn starts
    at = -1  # the place of the turn under way (or last taken) in it
    for e in events:
        match e:
            case InitiativeOrdered(order=now):
                order = now
                if places is not None:  # the rest follow it, in the places they held
                    rest = places[at + 1 :]
                    moved = iter([k for k in now if k in rest])
                    places[at + 1 :] = [next(moved) if k in now else k for k in rest]
            case CombatantDefeated(who=who):
                down.add(who)
            case CombatantLeft(who=who):
                gone.add(who)
            case CombatantRevived(who=who):
                down.discard(who)
            case CombatantReturned(who=who):
                gone.discard(who)
            case CombatantJoined(who=who):
                down.discard(who)
                gone.discard(who)
            case RoundStarted():
                places, at = None, -1
            case TurnStarted(who=who):
                if places is None:
                    places = list(order)
                out = down | gone
                due = [k for k in places[at + 1 :] if k not in out]
                assert due and who == due[0], (e.seq, who, due)
                at = places.index(who, at + 1)


def every_override_told(events: list[Event]) -> None:
    """``replay``'s narrator says a sentence for every override; an undo names the override it
    undid."""
    narrate = Narrator()
    for e in events:
        line = narrate(e)
        if isinstance(e, GmOverride):
            assert line is not None and "The GM " in line, (e.seq, e.override)
            if isinstance(e.override, Undo):
                assert f"undoes #{e.override.seq}:" in line


def check(step: initiative.SteppedFight) -> None:
    events = step.events
    turns_follow_the_order(events)
    result = verify_log(parse_log(b"".join(step.lines), name="gm.jsonl"))
    assert result.divergence is None and result.events == len(step.lines)
    assert result.complete == step.over
    every_override_told(events)


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
@settings(max_examples=examples(4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_overrides_keep_the_order_the_log_and_the_narration(ruleset, data):
    """Random overrides of every kind between random decisions: the turns follow the order
    shown, the log verifies, every override is told (a few fights per ruleset)."""
    check(play(data, ruleset))


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_overrides_hold_over_many_fights(ruleset, data):
    """The same property over many more fights per ruleset."""
    check(play(data, ruleset))
