"""An installed ruleset whose hook cannot take what the engine passes: the command says so in
one line naming the hook and its signature, exits 2, and writes no log."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import cli_support
import pytest
from initiative.engine._ruleset import _REGISTRY

EXAMPLES = Path(__file__).parents[2] / "examples"

CROOKED = '''
from typing import Any

from initiative.engine.rulesets.openings import Openings


class Crooked(Openings):
    """The openings rules, with a round-start hook that guesses it gets the round number."""

    name = "crooked"

    def round_started(self, fight: Any, round: int) -> Any:
        return
        yield
'''


@pytest.fixture
def crooked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The package installed in a folder on ``sys.path`` (its module and its entry point in the
    ``initiative.rulesets`` group); yields an encounter of it."""
    site = tmp_path / "site"
    info = site / "crooked-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "crooked.py").write_text(CROOKED)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: crooked\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[initiative.rulesets]\ncrooked = crooked:Crooked\n")
    monkeypatch.syspath_prepend(str(site))
    encounter = tmp_path / "duel.toml"
    text = (EXAMPLES / "openings-duel.toml").read_text()
    encounter.write_text(text.replace('ruleset = "openings"', 'ruleset = "crooked"'))
    try:
        yield encounter
    finally:
        sys.modules.pop("crooked", None)
        _REGISTRY.pop("crooked", None)


def test_a_hook_with_the_wrong_signature_is_one_line_and_no_log(crooked: Path) -> None:
    """``run`` refuses the ruleset before the fight: one line, exit 2, no partial log."""
    out = crooked.with_suffix(".jsonl")
    done = cli_support.run("run", crooked, "--out", out, "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"error: {crooked}: ruleset 'crooked': Crooked's hook round_started(fight: Any,"
        " round: int) does not take the arguments the engine passes: expected"
        " round_started(fight: Rules) -> Hook\n"
    )
    assert not out.exists()
