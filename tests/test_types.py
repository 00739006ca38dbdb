"""The packages type-check under ``mypy --strict`` with the project's settings, and ship
``py.typed`` so that code using them is checked against their annotations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGES = ["events", "engine", "actors", "replays", "initiative"]


def test_mypy_strict_reports_nothing() -> None:
    """``[tool.mypy]`` in pyproject.toml says ``strict = true`` and lists the packages; a cold
    run without a cache keeps the test independent of earlier runs."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--strict",
            *[f"-p{p}" for p in PACKAGES],
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found")


def test_every_package_is_marked_typed() -> None:
    for package in PACKAGES:
        assert (ROOT / package / "py.typed").is_file(), package
