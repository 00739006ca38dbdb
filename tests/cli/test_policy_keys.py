"""Every command that takes ``--policy ID=NAME`` or ``--host ID=HOST`` refuses a key that is no
combatant or side with the library's own check: the key named, and a near miss suggested."""

from __future__ import annotations

from pathlib import Path

import pytest
from debug_support import EXAMPLES, cli, record

DUEL = EXAMPLES / "openings-duel.toml"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", DUEL, "-q", "--policy", "ilsa=random"],
            f"--policy ilsa=...: no combatant or side 'ilsa' in {DUEL} (did you mean 'ilse'?)",
        ),
        (
            ["batch", DUEL, "--runs", 2, "--policy", "nrth=random"],
            f"--policy nrth=...: no combatant or side 'nrth' in {DUEL} (did you mean 'north'?)",
        ),
        (
            ["serve", DUEL, "--seat", "ilse", "--policy", "tomsa=random"],
            f"--policy tomsa=...: no combatant or side 'tomsa' in {DUEL} (did you mean 'tomas'?)",
        ),
        (
            ["run", DUEL, "-q", "--host", "tomass=thread"],
            "--host tomass=...: no combatant or side 'tomass' in 'Duel in the rain'"
            " (did you mean 'tomas'?)",
        ),
    ],
    ids=["run", "batch", "serve", "host"],
)
def test_a_misspelled_key_is_one_line_with_a_suggestion(
    args: list[object], message: str, tmp_path: Path
) -> None:
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"error: {message}\n"


def test_fork_refuses_a_misspelled_key_with_a_suggestion(tmp_path: Path) -> None:
    log = record(DUEL, tmp_path / "duel.jsonl")
    done = cli("fork", log, "--at", 5, "--policy", "houns=random", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: --policy houns=...: no combatant or side 'houns' in {log}"
        " (did you mean 'hound'?)\n"
    )
