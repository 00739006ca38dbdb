"""docs/engine.md runs: its Python blocks are executed from the repository's root."""

from __future__ import annotations

import re
from pathlib import Path

from initiative import engine

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "engine.md"


def test_every_python_block_of_the_engine_guide_runs(monkeypatch, capsys):
    """The stepping example plays a whole fight; the in_line example defines a policy."""
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    sides = engine.load_encounter(ROOT / "examples" / "openings-duel.toml").sides
    winner, events = printed[-1].split()
    assert winner in {*sides, "None"}
    assert int(events) > 10
