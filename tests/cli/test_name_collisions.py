"""Installed beside packages called ``events``, ``engine``, ``actors`` and ``replays`` (generic
names other projects use: ``pip install Events``), initiative still works, and so do they:
nothing of initiative's lands at the top of site-packages but ``initiative`` itself."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "openings-duel.toml"
INITIATIVE = str(Path(sys.executable).parent / "initiative")
CLASHING = ["events", "engine", "actors", "replays"]

PYPROJECT = """
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "initiative-test-clashing-names"
version = "0.1"

[tool.setuptools]
packages = ["events", "engine", "actors", "replays"]
"""


def pip(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "-q", *args], check=True, capture_output=True, timeout=300
    )


@pytest.fixture(scope="module")
def clashing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Packages named like initiative's folders, built and installed offline; yields a folder
    outside the repository to run from (so the checkout is not on ``sys.path``)."""
    src = tmp_path_factory.mktemp("clashing")
    (src / "pyproject.toml").write_text(PYPROJECT)
    for name in CLASHING:
        (src / name).mkdir()
        (src / name / "__init__.py").write_text(f'WHO = "the other {name}"\n')
    pip("install", "--no-deps", "--no-build-isolation", "--no-index", str(src))
    try:
        yield tmp_path_factory.mktemp("elsewhere")
    finally:
        pip("uninstall", "-y", "initiative-test-clashing-names")


def run(cwd: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [INITIATIVE, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def test_the_command_runs_verifies_and_shows(clashing: Path) -> None:
    log = clashing / "duel.jsonl"
    assert run(clashing, "run", EXAMPLE, "--seed", "3", "--out", log, "-q").returncode == 0
    done = run(clashing, "verify", log)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = run(clashing, "show", log, "--type", "EncounterEnded")
    assert shown.returncode == 0, shown.stderr
    assert "EncounterEnded" in shown.stdout


def test_the_library_and_the_other_packages_both_import(clashing: Path) -> None:
    code = (
        "import initiative, events, engine, actors, replays\n"
        "from initiative.events import read_log\n"
        "from initiative.engine import Fight\n"
        f"r = initiative.run({str(EXAMPLE)!r}, seed=3)\n"
        "print(type(r).__name__, events.WHO, engine.WHO, actors.WHO, replays.WHO)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=clashing,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "Result",
        "the",
        "other",
        "events",
        "the",
        "other",
        "engine",
        "the",
        "other",
        "actors",
        "the",
        "other",
        "replays",
    ]


def test_the_wheel_puts_only_initiative_at_the_top(tmp_path: Path) -> None:
    import zipfile

    pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(tmp_path), str(ROOT))
    (wheel,) = tmp_path.glob("initiative-*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"initiative"}
