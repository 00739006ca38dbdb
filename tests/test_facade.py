"""The facade for scripts and notebooks: initiative.run, load, verify, state."""

from pathlib import Path

import initiative

EXAMPLE = Path(__file__).parents[1] / "examples" / "openings-duel.toml"


def test_run_load_verify_state(tmp_path):
    """A script runs a fight to a file, loads it, verifies it and folds its state."""
    out = tmp_path / "duel.jsonl"
    result = initiative.run(EXAMPLE, seed=3, out=out)
    log = initiative.load(out)
    assert len(log.events) == len(result.events)
    assert initiative.verify(log).ok
    assert initiative.state(out).winner == result.winner
    assert initiative.state(log, at=0).seq == 0
