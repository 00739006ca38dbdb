"""A team ships its AIs as a package: installed, they are found by name through the
``initiative.policies`` entry-point group."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cli_support
import pytest
from initiative.events import read_log

from tests.helpers import DUEL

# Builds and installs a package, runs real processes; on one worker, which installs it once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("teampolicies-package")]

INITIATIVE = str(Path(sys.executable).parent / "initiative")

PYPROJECT = cli_support.pyproject(
    "initiative-test-teampolicies",
    ["teampolicies"],
    ("initiative.policies", "stonewall", "teampolicies:Stonewall"),
)

MODULE = '''
"""A policy package: Stonewall never attacks; it ends its turns and passes."""
from initiative.events import EndTurn, Pass


class Stonewall:
    def __init__(self, ctx):
        self.me = ctx.combatant.id

    def decide(self, view):
        return EndTurn() if view.window.is_turn else Pass()
'''


ENV: dict[str, str] = {}  # the environment that sees the installed package (set by installed)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Build and install the package offline into a folder of its own that the commands see (as
    site-packages, through PYTHONPATH)."""
    src = tmp_path_factory.mktemp("pkg")
    (src / "pyproject.toml").write_text(PYPROJECT)
    (src / "teampolicies").mkdir()
    (src / "teampolicies" / "__init__.py").write_text(MODULE)
    ENV.update(cli_support.install(src, tmp_path_factory.mktemp("pkg-site")))
    try:
        yield "stonewall"
    finally:
        ENV.clear()


def test_an_installed_policy_is_listed(installed: str) -> None:
    """``initiative rulesets`` names it among the policies."""
    done = subprocess.run([INITIATIVE, "rulesets"], capture_output=True, text=True, env=ENV)
    assert done.returncode == 0
    assert installed in done.stdout.split("policies: ", 1)[1].replace(",", " ").split()


def test_an_installed_policy_plays_by_name(installed: str, tmp_path: Path) -> None:
    """``--policy north=stonewall`` loads it: Ilse only ever ends her turns and passes."""
    out = tmp_path / "fight.jsonl"
    done = subprocess.run(
        [
            INITIATIVE,
            "run",
            str(DUEL),
            "--seed",
            "3",
            "--policy",
            f"north={installed}",
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    events = read_log(out).events
    declared = [
        type(e.action).__name__
        for e in events
        if type(e).__name__ == "ActionDeclared" and e.who == "ilse"
    ]
    passed = [e for e in events if type(e).__name__ == "PriorityPassed" and e.who == "ilse"]
    assert declared and set(declared) == {"EndTurn"}
    assert passed and {e.reason for e in passed} == {"pass"}
    assert events[-1].winner == "south"


def test_an_installed_policy_plays_in_a_batch(installed: str, tmp_path: Path) -> None:
    """Batches load it by name too, in worker processes, without faults."""
    done = subprocess.run(
        [
            INITIATIVE,
            "batch",
            str(DUEL),
            "--runs",
            "4",
            "--jobs",
            "2",
            "--policy",
            f"north={installed}",
        ],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    assert "faults by policy: random 0, stonewall 0" in done.stdout.replace("aggressive 0, ", "")
    south = next(line for line in done.stdout.splitlines() if " south " in line)
    assert [c.strip() for c in south.strip("│ ").split("│")][2] == "4"
