"""``ruff check`` is part of the test command: the rules in ``[tool.ruff]`` of pyproject.toml
hold over the whole tree (packages, tests, benchmarks, docs' examples)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_ruff_check_reports_nothing() -> None:
    """The ruff that the test extra installs, with the project's settings, finds nothing."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff is not None, "ruff is in the test extra: pip install -e '.[test]'"
    done = subprocess.run(
        [ruff, "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
