"""Properties of percentile initiative over many encounters, and determinism across processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st
from initiative.engine import Decision, PriorityToken, simulate
from initiative.events import EndTurn, InitiativeOrdered, InitiativeRolled, Pass

from tests.helpers import encounter

ROOT = Path(__file__).parents[2]


def idle(token: PriorityToken) -> Decision:
    return Decision(action=EndTurn() if token.window.is_turn else Pass())


people = st.lists(
    st.tuples(st.integers(0, 100), st.none() | st.integers(1, 10)), min_size=2, max_size=6
)


@settings(max_examples=60, deadline=None)
@given(people=people, seed=st.integers(0, 2**32))
def test_order_is_by_initiative_then_agility(
    people: list[tuple[int, int | None]], seed: int
) -> None:
    """Seed 001: "places each character or creature in Initiative order, from highest to
    lowest" ... "If more than one character has the same Initiative, they act in Agility
    order (from highest to lowest)." """
    lines = ["ruleset = 'percentile'", "max_rounds = 1"]
    for i, (agility, die) in enumerate(people):
        lines += ["[[combatants]]", f"id = 'c{i}'", f"side = 's{i % 2}'", "hp = 5"]
        lines.append(f"stats = {{ agility = {agility} }}")
        if die is not None:
            lines.append(f"initiative_roll = {die}")
    fight = simulate(encounter("\n".join(lines)), seed, idle)
    rolled = [e for e in fight.events if isinstance(e, InitiativeRolled)]
    (ordered,) = [e for e in fight.events if isinstance(e, InitiativeOrdered)]
    total = {e.who[0]: e.total for e in rolled}
    agility = {f"c{i}": a for i, (a, _) in enumerate(people)}
    for i, (ag, die) in enumerate(people):
        event = rolled[i]
        assert event.modifier == ag and event.total == event.die + ag
        assert event.given == (die is not None) and (die is None or event.die == die)
    keys = [(total[c], agility[c]) for c in ordered.order]
    assert keys == sorted(keys, reverse=True)
    assert sorted(ordered.order) == sorted(total)


SCRIPT = """
import sys
from initiative import engine
from initiative.actors import run_encounter_sync
from initiative.events import encode_lines
spec = engine.load_encounter(sys.argv[1])
with open(sys.argv[2], "wb") as out:
    out.write(encode_lines(run_encounter_sync(spec, 5).events))
"""


def test_same_bytes_across_processes_with_different_hash_seeds(tmp_path: Path) -> None:
    """The Wilhelm example gives the same log bytes whatever ``PYTHONHASHSEED`` is."""
    outputs = []
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        log = tmp_path / f"{hash_seed}.jsonl"
        example = str(ROOT / "examples" / "percentile-wilhelm.toml")
        subprocess.run(
            [sys.executable, "-c", SCRIPT, example, str(log)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        outputs.append(log.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") > 50
