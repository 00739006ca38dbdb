"""``initiative --version`` and ``initiative examples``: the examples ship with the package, are
listed, and are copied out without overwriting anything."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path

import cli_support
import pytest

ROOT = Path(__file__).parents[2]
COMMAND = str(Path(sys.executable).parent / "initiative")
NAMES = sorted(p.stem for p in (ROOT / "examples").glob("*.toml"))


def initiative(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command, in this process (see cli_support)."""
    return cli_support.run(*args, cwd=cwd)


def test_version_prints_the_installed_version() -> None:
    done = initiative("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"initiative {version('initiative')}\n"


def test_examples_lists_every_example_with_its_ruleset() -> None:
    done = initiative("examples")
    assert done.returncode == 0, done.stderr
    listed = dict(line.split()[:2] for line in done.stdout.splitlines())
    assert sorted(listed) == NAMES
    assert "tactical-bridge     tactical    Ambush at the bridge: Shield-bearers" in done.stdout
    assert listed["tactical-bridge"] == "tactical"
    assert listed["thriller-ambush"] == "thriller"


def test_an_example_is_copied_out_and_runs(tmp_path: Path) -> None:
    """``examples NAME --to DIR`` writes the file byte for byte; the copy runs."""
    done = initiative("examples", "openings-duel", "--to", tmp_path / "mine")
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "mine" / "openings-duel.toml"
    assert copy.read_bytes() == (ROOT / "examples" / "openings-duel.toml").read_bytes()
    ran = initiative("run", copy, "--seed", "1", "--out", tmp_path / "f.jsonl", "-q")
    assert ran.returncode == 0, ran.stderr


def test_copying_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "openings-duel.toml").write_text("# mine\n")
    done = initiative("examples", "--all", "--to", tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert "openings-duel.toml: already exists" in done.stderr
    assert "Traceback" not in done.stderr
    assert (tmp_path / "openings-duel.toml").read_text() == "# mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["openings-duel.toml"]


def test_all_examples_into_the_current_folder_and_unknown_names(tmp_path: Path) -> None:
    done = initiative("examples", "--all", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.stem for p in tmp_path.iterdir()) == NAMES
    unknown = initiative("examples", "nope", cwd=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines() == [f"error: no example 'nope' (known: {', '.join(NAMES)})"]


def pip(*args: str) -> None:
    """pip, offline and without dependencies."""
    subprocess.run(
        [sys.executable, "-m", "pip", "-q", *args, "--no-deps", "--no-index"],
        check=True,
        capture_output=True,
        timeout=300,
    )


@pytest.fixture
def wheel(initiative_wheel: Path) -> Path:
    """The package built as a wheel, offline, from this checkout (once per session)."""
    return initiative_wheel


@pytest.mark.slow  # builds the wheel
@pytest.mark.xdist_group("wheel")
def test_the_wheel_ships_examples_view_and_type_markers(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"initiative/examples/{n}.toml" for n in NAMES} <= names
    assert "initiative/replays/view.html" in names
    for package in ("events", "engine", "actors", "replays"):
        assert f"initiative/{package}/py.typed" in names
    assert "initiative/py.typed" in names
    assert not any(
        n.startswith(tuple(f"{p}/" for p in ("events", "engine", "actors", "replays")))
        for n in names
    )
    assert not any(n.startswith(("tests/", "examples/", "benchmarks/")) for n in names)


@pytest.mark.slow  # builds the wheel
@pytest.mark.xdist_group("wheel")
def test_the_wheel_ships_every_module_and_page_of_the_front_door(wheel: Path) -> None:
    """Every file of initiative/ (its subpackages, the reports, the table's pages) is in the
    wheel: a subpackage missing from setup.py would work in a checkout and fail once installed."""
    root = Path(__file__).parents[2] / "initiative"
    shipped = {
        f"initiative/{path.relative_to(root).as_posix()}"
        for path in root.rglob("*")
        if path.is_file() and path.suffix in {".py", ".html", ".css", ".js", ".typed"}
    }
    assert shipped - set(zipfile.ZipFile(wheel).namelist()) == set()


@pytest.mark.slow  # builds the wheel and installs it
@pytest.mark.xdist_group("wheel")
def test_examples_from_an_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """Installed from the wheel (not from this checkout), the examples are found and copied."""
    target = tmp_path / "site"
    pip("install", "--target", str(target), str(wheel))
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "initiative", "examples", "--all", "--to", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.stem for p in out.iterdir()) == NAMES
    where = subprocess.run(
        [sys.executable, "-c", "import initiative._examples as e; print(e.examples_dir())"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.stdout.strip() == str(target / "initiative" / "examples")
