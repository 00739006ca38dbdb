"""docs/policies.md runs: its Python blocks are extracted and executed, so docs and code
cannot drift apart."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "policies.md"
BLOCK = re.compile(r"(?:<!-- file: (?P<file>[\w./-]+) -->\n)?```python\n(?P<code>.*?)```", re.S)


def blocks() -> list[tuple[str | None, str]]:
    return [(m["file"], m["code"]) for m in BLOCK.finditer(DOC.read_text())]


def test_the_worked_example_is_in_the_doc() -> None:
    """The doc has the files it uses and the code that runs them."""
    files = [name for name, _ in blocks() if name]
    assert files == ["focus.py", "grudge.py", "ahead.py"]
    assert len(blocks()) == 10


def test_every_python_block_of_the_policy_guide_runs(tmp_path: Path) -> None:
    """Files are written, the other blocks run in order as one script, and its asserts hold."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    script = []
    for name, code in blocks():
        if name:
            (tmp_path / name).write_text(code)
        else:
            script.append(code)
    (tmp_path / "guide.py").write_text("\n".join(script))
    done = subprocess.run(
        [sys.executable, "guide.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"(north|south) won after \d+ rounds\n", done.stdout)
    assert (tmp_path / "grudge.jsonl").is_file()
    assert (tmp_path / "ahead.jsonl").is_file()
    assert (tmp_path / "ford.jsonl").is_file()  # the scripted policy's worked example ran
