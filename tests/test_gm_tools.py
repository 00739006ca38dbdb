"""The GM's tools at the engine's level (issue 34): the order the GM sets is the order,
undo, names in place of ids, markers, the GM's dice and notes. Each through
``initiative.step`` / ``SteppedFight.override``, as a script or the table drives them."""

from __future__ import annotations

from pathlib import Path

from initiative.events import parse_log
from initiative.replays import verify_log

import initiative

EXAMPLES = Path(__file__).parents[1] / "examples"


def verifies(step: initiative.SteppedFight) -> None:
    """The log re-simulates to the same bytes (to its end, or as far as it goes)."""
    result = verify_log(parse_log(b"".join(step.lines), name="gm.jsonl"))
    assert result.divergence is None and result.events == len(step.lines)
    assert result.complete == step.over


def end_turns(step: initiative.SteppedFight, until_round: int) -> None:
    """Everyone ends their turn (or passes) until round ``until_round`` has started."""
    while not step.over and step.state.round < until_round:
        step.send(step.offers[-1].action)


# --- 1. the order the GM sets is the order ---------------------------------------------------


def test_a_late_arrival_keeps_the_gms_reorder():
    """Issue 34, reproduction 1: Reorder osric before brenna, later an AddCombatant: brenna is
    not back before osric; the newcomer is slotted in by its initiative."""
    step = initiative.step(EXAMPLES / "openings-skirmish.toml", seed=7)
    step.override({"type": "Reorder", "who": "osric", "before": "brenna"})
    end_turns(step, 2)
    step.override({"type": "AddCombatant", "id": "goblin7", "like": "goblin-5"})
    order = step.state.order
    assert order.index("osric") < order.index("brenna")
    assert [c for c in order if c != "goblin7"] == [
        "goblin-2", "goblin-5", "wren", "goblin-3", "goblin-1", "goblin-4", "osric", "brenna",
        "boss",
    ]  # fmt: skip
    # goblin7 rolled lower than brenna and higher than the boss: it goes between them
    state = step.state.combatants
    at = order.index("goblin7")
    assert state[order[at - 1]].initiative >= state["goblin7"].initiative
    assert state["goblin7"].initiative > state[order[at + 1]].initiative
    end_turns(step, 4)
    turns = [e.who for e in step.events if type(e).__name__ == "TurnStarted" and e.round == 3]
    assert turns.index("osric") < turns.index("brenna")
    verifies(step)


def test_a_rulesets_own_joiner_keeps_the_gms_reorder():
    """Seed 001 (percentile): "If new combatants join in the midst of the encounter, simply
    roll Initiative for them and add them to the order": the orc arriving in round 4 is added
    to the order as the GM left it, not re-sorted with it."""
    step = initiative.step(EXAMPLES / "percentile-wilhelm.toml", seed=1)
    step.override({"type": "Reorder", "who": "goblin-3", "before": "wilhelm"})
    end_turns(step, 4)
    assert step.state.order == ("orc", "goblin-3", "wilhelm", "gertrude", "goblin-1", "goblin-2")
    verifies(step)
