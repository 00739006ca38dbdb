"""Installed beside packages called ``events``, ``engine``, ``actors`` and ``replays`` (generic
names other projects use: ``pip install Events``), initiative still works, and so do they:
nothing of initiative's lands at the top of site-packages but ``initiative`` itself."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cli_support
import pytest

pytestmark = pytest.mark.slow  # builds and installs packages, runs real processes

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "openings-duel.toml"
INITIATIVE = str(Path(sys.executable).parent / "initiative")
CLASHING = ["events", "engine", "actors", "replays"]

PYPROJECT = cli_support.pyproject("initiative-test-clashing-names", CLASHING)


ENV: dict[str, str] = {}  # the environment that sees the clashing packages (set by clashing)


@pytest.fixture(scope="module")
def clashing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Packages named like initiative's folders, built and installed offline into a folder of
    their own that the commands see (as site-packages, through PYTHONPATH, so ahead of
    initiative's own); yields a folder outside the repository to run from (so the checkout is
    not on ``sys.path``)."""
    src = tmp_path_factory.mktemp("clashing")
    (src / "pyproject.toml").write_text(PYPROJECT)
    for name in CLASHING:
        (src / name).mkdir()
        (src / name / "__init__.py").write_text(f'WHO = "the other {name}"\n')
    ENV.update(cli_support.install(src, tmp_path_factory.mktemp("clashing-site")))
    try:
        yield tmp_path_factory.mktemp("elsewhere")
    finally:
        ENV.clear()


def run(cwd: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [INITIATIVE, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=ENV,
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
        env=ENV,
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


@pytest.mark.xdist_group("wheel")
def test_the_wheel_puts_only_initiative_at_the_top(initiative_wheel: Path) -> None:
    import zipfile

    wheel = initiative_wheel
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"initiative"}
