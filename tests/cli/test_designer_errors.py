"""Errors a designer meets (issue 36, item 9): ``duel --policies`` takes exactly two names,
usage errors are one line and exit 2 like every other error, a misspelled policy name gets a
"did you mean" wherever it is given, and one inside an encounter file is refused naming the file
and the key."""

from __future__ import annotations

import json
from pathlib import Path

import cli_support
import pytest

ROOT = Path(__file__).parents[2]
DUEL = "examples/openings-duel.toml"


def run(*args: object, cwd: Path = ROOT) -> tuple[int, str, str]:
    done = cli_support.run(*args, cwd=cwd, env={"COLUMNS": "80"})
    return done.returncode, done.stdout, done.stderr


def one_error(*args: object, cwd: Path = ROOT) -> str:
    """The command fails with exit 2 and one ``error: ...`` line, nothing on standard output."""
    code, out, err = run(*args, cwd=cwd)
    assert (code, out) == (2, ""), err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_duel_policies_takes_exactly_two_names() -> None:
    """Issue 36, reproduction 10: ``duel ENC --policies tactician --runs 3`` said "Missing
    option '--runs'" (the tuple swallowed ``--runs`` as the second policy)."""
    line = one_error("duel", DUEL, "--policies", "tactician", "--runs", 3)
    assert line == "error: --policies takes exactly two names (--policies A B), got 1: tactician"
    line = one_error("duel", DUEL, "--policies", "a", "b", "c", "--runs", 3)
    assert line == "error: --policies takes exactly two names (--policies A B), got 3: a b c"


def test_duel_takes_its_two_policies_either_way() -> None:
    """``--policies A B`` and ``--policies A,B`` are the same duel."""
    code, spaced, err = run("duel", DUEL, "--policies", "first", "random", "--runs", 2, "--json")
    assert code == 0, err
    code, commas, err = run("duel", DUEL, "--policies", "first,random", "--runs", 2, "--json")
    assert code == 0, err
    a, b = json.loads(spaced), json.loads(commas)
    assert [p["policy"] for p in a["policies"]] == ["first", "random"]
    for drop in ("seconds", "per_second"):
        a.pop(drop), b.pop(drop)
    assert a == b


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("batch", DUEL), "error: Missing option '--runs' / '-n' (see initiative batch --help)"),
        (("duel", DUEL, "--policies", "first", "random"), "error: Missing option '--runs'"),
        (("batch", DUEL, "--runs", "x"), "error: Invalid value for '--runs' / '-n'"),
        (("batch", DUEL, "--runz", 3), "error: No such option: --runz"),
        (("league", DUEL, "--policies", "first", "random", "--jobz", 1), "error: No such option"),
        (("sweep", DUEL, "--runs", 2), "error: Missing option '--vary'"),
        (("frobnicate",), "error: No such command 'frobnicate' (see initiative --help)"),
        (("--log-level", "loud", "rulesets"), "error: Invalid value: choose one of debug"),
    ],
    ids=[
        "missing",
        "duel-missing",
        "not-a-number",
        "no-option",
        "league",
        "sweep",
        "command",
        "callback",
    ],
)
def test_usage_errors_are_one_line(args: tuple[object, ...], says: str) -> None:
    """Issue 36: usage errors were five-line Rich boxes where every other error is one line."""
    assert one_error(*args).startswith(says)


@pytest.mark.parametrize(
    "args",
    [
        ("run", DUEL, "--policy", "north=agressive", "--quiet"),
        ("batch", DUEL, "--runs", 1, "--policy", "north=agressive"),
        ("duel", DUEL, "--policies", "tactician", "agressive", "--runs", 1),
        ("league", DUEL, "--policies", "tactician", "agressive", "--runs", 1),
    ],
    ids=["run", "batch", "duel", "league"],
)
def test_a_misspelled_policy_gets_a_did_you_mean(args: tuple[object, ...], tmp_path: Path) -> None:
    """``--policy north=agressive`` (and ``--policies ... agressive``) names the near miss."""
    line = one_error(*args, cwd=ROOT)
    assert "unknown policy 'agressive' (did you mean 'aggressive'?)" in line
    assert "--polic" in line


@pytest.mark.parametrize(
    "command",
    [
        ("run", "--quiet"),
        ("batch", "--runs", 1),
        ("sweep", "--vary", "combatants.ilse.hp=5..6", "--runs", 1),
    ],
    ids=["run", "batch", "sweep"],
)
def test_a_misspelled_policy_in_a_file_names_the_file_and_key(
    command: tuple[object, ...], tmp_path: Path
) -> None:
    """A bad policy name inside an encounter file is refused naming the file and the key, not
    only the combatant."""
    bad = tmp_path / "bad.toml"
    bad.write_text(
        (ROOT / DUEL).read_text().replace('policy = "aggressive"', 'policy = "agressive"')
    )
    line = one_error(command[0], bad, *command[1:])
    assert f"{bad}" in line
    assert "at key combatants (combatant 'tomas').policy: unknown policy 'agressive'" in line
    assert "(did you mean 'aggressive'?)" in line
