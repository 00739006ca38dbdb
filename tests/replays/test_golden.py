"""Golden logs kept in tests/golden/ must still verify byte for byte, and the examples must
still produce them (regenerate on purpose with tests/golden/regenerate.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from initiative.actors import run_encounter_sync
from initiative.events import encode_lines, read_log
from initiative.replays import verify_log

from initiative import engine

HERE = Path(__file__).parents[1] / "golden"
spec = importlib.util.spec_from_file_location("regenerate", HERE / "regenerate.py")
assert spec is not None and spec.loader is not None
regenerate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(regenerate)


@pytest.mark.parametrize(("example", "seed"), regenerate.GOLDEN)
def test_golden_log_verifies_byte_for_byte(example, seed):
    """Re-simulating the golden log from its header and decisions reproduces every byte."""
    contents = read_log(regenerate.golden_path(example, seed))
    result = verify_log(contents)
    assert result.divergence is None
    assert result.complete and result.events == len(contents.events)


@pytest.mark.parametrize(("example", "seed"), regenerate.GOLDEN)
def test_example_still_fights_the_golden_fight(example, seed):
    """Running the example with the same seed and its live policies gives the same bytes."""
    path = regenerate.golden_path(example, seed)
    encounter = engine.load_encounter(regenerate.ROOT / "examples" / example)
    events = run_encounter_sync(encounter, seed).events
    assert encode_lines(events) == path.read_bytes()
