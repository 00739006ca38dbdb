"""docs/library.md and docs/env.md run: their Python blocks are executed as one script each."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
BLOCK = re.compile(r"```python\n(?P<code>.*?)```", re.S)


@pytest.mark.parametrize("doc", ["library.md", "env.md"])
def test_every_python_block_runs_and_prints_only_what_it_prints(doc: str, tmp_path: Path) -> None:
    """The blocks run in order in a fresh process; nothing but their own prints appears."""
    if doc == "env.md":
        pytest.importorskip("pettingzoo")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    code = [m["code"] for m in BLOCK.finditer((ROOT / "docs" / doc).read_text())]
    assert code
    (tmp_path / "script.py").write_text("\n".join(code))
    done = subprocess.run(
        [sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    printed = sum(block.count("print(") for block in code)
    assert len(done.stdout.splitlines()) == printed
