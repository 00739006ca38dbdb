"""``--json`` on every command that prints results, read back by ``jq``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cli_support
import pytest
from initiative.events import read_log

from tests.helpers import DUEL

INITIATIVE = str(Path(sys.executable).parent / "initiative")


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    """The command, in this process (see cli_support)."""
    return cli_support.run(*args)


def jq(text: str, expression: str = ".") -> object:
    """The value of ``expression`` over ``text`` as jq reads it (json when jq is missing)."""
    if not shutil.which("jq"):
        assert expression == "."
        return json.loads(text)
    done = subprocess.run(
        ["jq", "-c", expression], input=text, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("logs")
    for seed in (2, 3):
        done = cli("run", DUEL, "--seed", seed, "--out", where / f"{seed}.jsonl", "--quiet")
        assert done.returncode == 0, done.stderr
    return where / "2.jsonl", where / "3.jsonl"


def test_verify_json(logs: tuple[Path, Path], tmp_path: Path) -> None:
    """A good log is ``verified`` (exit 0), a changed one ``tampered`` (exit 1), both JSON."""
    good = cli("verify", logs[0], "--json")
    assert good.returncode == 0
    assert jq(good.stdout, "[.status, .ok, .events]") == [
        "verified",
        True,
        len(read_log(logs[0]).events),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(logs[0].read_bytes().replace(b'"total":', b'"total":1', 1))
    done = cli("verify", bad, "--json")
    assert done.returncode == 1
    assert jq(done.stdout, ".status") == "tampered"


def test_diff_json(logs: tuple[Path, Path]) -> None:
    """Two seeds differ first in the header's seed; the events themselves are included."""
    done = cli("diff", *logs, "--json")
    assert done.returncode == 1
    assert jq(done.stdout, "[.seq, .fields[0].path, .a.seed, .b.seed]") == [0, "seed", 2, 3]
    same = cli("diff", logs[0], logs[0], "--json")
    assert same.returncode == 0
    assert jq(same.stdout, ".identical") is True


def test_why_json_carries_the_events(logs: tuple[Path, Path]) -> None:
    """Each step of the chain carries its whole event, as in the log."""
    events = read_log(logs[0]).events
    done = cli("why", logs[0], 30, "--json")
    assert done.returncode == 0
    causes = jq(done.stdout, ".causes")
    assert isinstance(causes, list)
    lines = logs[0].read_bytes().splitlines()
    for step in causes:
        assert step["event"] == json.loads(lines[step["seq"]])
    assert causes[-1]["event"]["seq"] == events[30].seq == 30


def test_rulesets_json() -> None:
    """The four bundled rulesets and the built-in policies."""
    done = cli("rulesets", "--json")
    assert done.returncode == 0
    names = jq(done.stdout, "[.rulesets[].name]")
    # (An installed ruleset is listed too: the plugin test's may still be loaded in this process.)
    assert isinstance(names, list) and names == sorted(names)
    assert {"openings", "percentile", "tactical", "thriller"} <= set(names)
    assert "aggressive" in jq(done.stdout, ".policies")  # type: ignore[operator]
