"""``initiative fork`` and ``initiative resume`` through the installed command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from debug_support import cli, examples, record
from initiative.events import (
    ActionDeclared,
    EncounterStarted,
    EndTurn,
    PriorityGranted,
    SeedChanged,
    read_log,
)

POLICY = """
from initiative.events import EndTurn, Pass

def idle(view):
    return EndTurn() if view.window.is_turn else Pass()
"""


@pytest.fixture(scope="module", params=examples(), ids=lambda p: p.stem)
def logged(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(request.param, tmp_path_factory.mktemp("fork") / "fight.jsonl")


def _turn_decision(path: Path) -> ActionDeclared:
    """A recorded non-EndTurn decision in someone's turn, well into the fight."""
    events = read_log(path).events
    return next(
        e
        for e in events[len(events) // 3 :]
        if isinstance(e, ActionDeclared)
        and not isinstance(e.action, EndTurn)
        and isinstance(events[e.cause], PriorityGranted)
        and events[e.cause].window.kind == "turn"
    )


def test_fork_undoes_a_decision_and_goes_on_live(logged: Path, tmp_path: Path) -> None:
    """--at just before a decision, with another policy: the decision is remade live, every
    earlier event is the parent's, the header names the parent, and the fork verifies."""
    (tmp_path / "idle.py").write_text(POLICY)
    decision = _turn_decision(logged)
    at = decision.seq - 1
    fork = tmp_path / "fork.jsonl"
    cli(
        "fork",
        logged,
        "--at",
        at,
        "--policy",
        f"{decision.who}={tmp_path / 'idle.py'}:idle",
        "--out",
        fork,
        "--quiet",
        check=0,
    )
    parent, child = read_log(logged), read_log(fork)
    assert child.lines[1 : at + 1] == parent.lines[1 : at + 1]
    header = child.events[0]
    assert isinstance(header, EncounterStarted)
    assert header.parent is not None
    assert header.parent.startswith(f"fork of {logged.name} (blake2b ")
    assert header.parent.endswith(f") at seq {at}")
    remade = child.events[at + 1]
    assert isinstance(remade, ActionDeclared)
    assert (remade.who, type(remade.action).__name__) == (decision.who, "EndTurn")
    assert cli("verify", fork).returncode == 0
    diff = cli("diff", logged, fork, check=1).stdout.splitlines()
    assert diff[1] == f"first difference at seq {at + 1}"


def test_fork_at_the_end_is_the_parent(logged: Path, tmp_path: Path) -> None:
    """A fork at the last event replays everything: diff finds only the origin notes, exit 0."""
    last = len(read_log(logged).events) - 1
    fork = tmp_path / "same.jsonl"
    cli("fork", logged, "--at", last, "--out", fork, "--quiet", check=0)
    proc = cli("diff", logged, fork, check=0)
    assert proc.stdout.splitlines() == [
        "note: seq 0: parent differs (where the log came from)",
        f"note: seq {last}: chain differs (where the log came from)",
        f"identical: {last + 1} events",
    ]


def test_fork_with_a_new_seed_records_it_and_verifies(logged: Path, tmp_path: Path) -> None:
    """--seed: a SeedChanged right after the fork point, and the fork still re-simulates."""
    at = _turn_decision(logged).seq
    fork = tmp_path / "luck.jsonl"
    cli("fork", logged, "--at", at, "--seed", 4242, "--out", fork, "--quiet", check=0)
    event = read_log(fork).events[at + 1]
    assert isinstance(event, SeedChanged)
    assert (event.seed, event.stream, event.cause) == (4242, "dice", None)
    assert cli("verify", fork).stdout.startswith("verified: ")
    # A fork of the fork keeps the first reseed and verifies too.
    again = tmp_path / "again.jsonl"
    cli("fork", fork, "--at", at + 5, "--seed", 7, "--out", again, "--quiet", check=0)
    assert cli("verify", again).returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--at", "999999"], "no event 999999"),
        (["--at", "5", "--policy", "nobody=random"], "no combatant or side 'nobody'"),
        (["--at", "5", "--policy", "oops"], "expected ID=NAME"),
    ],
)
def test_fork_bad_input_exits_2(
    logged: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    """A seq out of range or a bad --policy: one line on stderr, exit 2, no log written."""
    out = tmp_path / "bad.jsonl"
    proc = cli("fork", logged, *args, "--out", out, check=2)
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_resume_a_finished_fight_says_there_is_nothing_to_do(logged: Path) -> None:
    """Nothing to resume in a finished log: say so and exit 0, leaving the log as it was."""
    before = logged.read_bytes()
    proc = cli("resume", logged, check=0)
    assert "nothing to resume: the encounter already ended" in proc.stdout
    assert logged.read_bytes() == before


def test_resume_cut_log_equals_uninterrupted(logged: Path, tmp_path: Path) -> None:
    """A log cut mid-line two thirds in: resume appends exactly the missing bytes."""
    data = logged.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) * 2 // 3])
    proc = cli("resume", cut, "--quiet", check=0)
    assert "dropped a torn last line" in proc.stderr
    assert cut.read_bytes() == data
    assert cli("verify", cut).returncode == 0


def test_resume_refuses_a_log_that_does_not_resimulate(logged: Path, tmp_path: Path) -> None:
    """An edited die in the kept part: resume stops before writing anything, exit 2."""
    lines = logged.read_bytes().splitlines(keepends=True)[:60]
    k = next(i for i, line in enumerate(lines) if b'"type":"DiceRolled"' in line)
    obj = json.loads(lines[k])
    obj["total"] += 50
    lines[k] = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    cut = tmp_path / "edited.jsonl"
    cut.write_bytes(b"".join(lines))
    proc = cli("resume", cut, "--quiet", check=2)
    assert f"differs from it at seq {k}" in proc.stderr
    assert cut.read_bytes() == b"".join(lines)
