"""The packages type-check under ``mypy --strict`` with the project's settings, and ship
``py.typed`` so that code using them is checked against their annotations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from packages import FOLDERS, NAMESPACED

ROOT = Path(__file__).parents[1]


def source_tree(tmp_path: Path) -> tuple[Path, list[str]]:
    """Where mypy reads the packages from, and the packages to check. Installed under
    ``initiative.``, the folders are linked into an ``initiative/`` tree as the wheel lays
    them out, since mypy does not read setuptools' folder mapping."""
    if not NAMESPACED:
        return ROOT, FOLDERS
    top = tmp_path / "src" / "initiative"
    top.mkdir(parents=True)
    for entry in (ROOT / "initiative").iterdir():
        (top / entry.name).symlink_to(entry)
    for folder in FOLDERS[:-1]:
        (top / folder).symlink_to(ROOT / folder)
    return top.parent, ["initiative"]


@pytest.mark.slow  # mypy over every package takes half a minute
def test_mypy_strict_reports_nothing(tmp_path: Path) -> None:
    """``[tool.mypy]`` in pyproject.toml says ``strict = true``; a cold run without a cache
    keeps the test independent of earlier runs."""
    where, packages = source_tree(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--strict"]
        + ["--config-file", str(ROOT / "pyproject.toml")]
        + [f"-p{p}" for p in packages],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found")


def test_every_package_is_marked_typed() -> None:
    for folder in FOLDERS:
        assert (ROOT / folder / "py.typed").is_file(), folder
