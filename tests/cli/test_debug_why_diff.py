"""``initiative why`` and ``initiative diff`` through the installed command, on real logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from debug_support import cli, examples, record
from initiative.events import CombatantDefeated, read_log


@pytest.fixture(scope="module", params=examples(), ids=lambda p: p.stem)
def logged(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(request.param, tmp_path_factory.mktemp("why") / "fight.jsonl")


def test_why_walks_causes_from_root_to_the_event(logged: Path) -> None:
    """The chain follows ``cause`` links exactly, root first, ending at SEQ."""
    events = read_log(logged).events
    target = next(e for e in events if isinstance(e, CombatantDefeated))
    expected = []
    seq: int | None = target.seq
    while seq is not None:
        expected.append(seq)
        seq = events[seq].cause
    proc = cli("why", logged, target.seq, "--json", check=0)
    data = json.loads(proc.stdout)
    assert [s["seq"] for s in data["causes"]] == expected[::-1]
    assert data["causes"][-1]["type"] == "CombatantDefeated"
    assert data["causes"][-1]["who"] == target.who
    assert data["causes"][0]["cause"] is None


def test_why_text_marks_the_event_and_names_types(logged: Path) -> None:
    """The text form lists one line per step with seq, type and who; the target is marked."""
    events = read_log(logged).events
    target = next(e for e in events if isinstance(e, CombatantDefeated))
    proc = cli("why", logged, target.seq, check=0)
    lines = proc.stdout.splitlines()
    assert lines[0] == f"why seq {target.seq} (CombatantDefeated {target.who}):"
    assert lines[-1].split()[:4] == [">", str(target.seq), "CombatantDefeated", target.who]
    assert lines[-2].split()[1] == "DamageDealt"


def test_why_effects_lists_every_descendant(logged: Path) -> None:
    """--effects lists exactly the events whose cause chain passes through SEQ."""
    events = read_log(logged).events
    turn = next(e for e in events if type(e).__name__ == "TurnStarted")
    reach = {turn.seq}
    for e in events:
        if e.cause in reach:
            reach.add(e.seq)
    proc = cli("why", logged, turn.seq, "--effects", "--json", check=0)
    got = [s["seq"] for s in json.loads(proc.stdout)["effects"]]
    assert got == sorted(reach - {turn.seq})
    assert got  # a turn always causes something


def test_why_unknown_seq_is_a_usage_error(logged: Path) -> None:
    """A seq past the end: one line on stderr, exit 2, no traceback."""
    n = len(read_log(logged).events)
    proc = cli("why", logged, n + 5, check=2)
    assert (
        proc.stderr.strip() == f"error: {logged}: no event {n + 5}: the log holds seq 0 to {n - 1}"
    )


def test_why_missing_file_exits_2(tmp_path: Path) -> None:
    """A missing log: one clear line on stderr, exit 2."""
    proc = cli("why", tmp_path / "nope.jsonl", 1, check=2)
    assert "cannot read" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_diff_identical_logs_exit_0(logged: Path, tmp_path: Path) -> None:
    """A log against a copy of itself: identical, exit 0."""
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(logged.read_bytes())
    n = len(read_log(logged).events)
    proc = cli("diff", logged, copy, check=0)
    assert proc.stdout.strip() == f"identical: {n} events"


def test_diff_names_first_differing_field_side_by_side(logged: Path, tmp_path: Path) -> None:
    """One edited die: the first difference is at that seq, with the field path and both values."""
    lines = logged.read_bytes().splitlines(keepends=True)
    seq = next(i for i, line in enumerate(lines) if b'"type":"DiceRolled"' in line and i > 30)
    obj = json.loads(lines[seq])
    edited = dict(obj, total=obj["total"] + 100)
    lines[seq] = (json.dumps(edited, separators=(",", ":")) + "\n").encode()
    other = tmp_path / "edited.jsonl"
    other.write_bytes(b"".join(lines))
    proc = cli("diff", logged, other, check=1)
    out = proc.stdout.splitlines()
    assert out[0] == f"first difference at seq {seq}"
    assert out[3].split() == ["field", "A", "B"]
    assert out[4].split() == ["total", str(obj["total"]), str(obj["total"] + 100)]
    assert len(out) == 5 + 1 + 3 + 3 + 3  # header, fields, "context:", before, A after, B after
    assert out[6].split()[0] == str(seq - 3)
    assert out[9].split()[:2] == ["A", str(seq)]
    assert out[12].split()[:2] == ["B", str(seq)]


def test_diff_nested_field_paths(logged: Path, tmp_path: Path) -> None:
    """A nested field (an action's target) is named by its dotted path."""
    lines = logged.read_bytes().splitlines(keepends=True)
    seq = next(
        i for i, line in enumerate(lines) if b'"target":' in line and b"ActionDeclared" in line
    )
    obj = json.loads(lines[seq])
    obj["action"]["target"] = "nobody"
    lines[seq] = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    other = tmp_path / "nested.jsonl"
    other.write_bytes(b"".join(lines))
    proc = cli("diff", logged, other, check=1)
    row = proc.stdout.splitlines()[4].split()
    assert row[0] == "action.target"
    assert row[2] == '"nobody"'


def test_diff_logs_of_different_lengths(logged: Path, tmp_path: Path) -> None:
    """A prefix of a log: the difference is where the shorter one ends, exit 1."""
    lines = logged.read_bytes().splitlines(keepends=True)
    short = tmp_path / "short.jsonl"
    short.write_bytes(b"".join(lines[:40]))
    nxt = json.loads(lines[40])["type"]
    proc = cli("diff", short, logged, check=1)
    out = proc.stdout.splitlines()
    assert out[0] == "first difference at seq 40"
    assert out[3] == f"A ends after seq 39; B goes on with {nxt} at seq 40"
    proc = cli("diff", logged, short, check=1)
    assert proc.stdout.splitlines()[3] == f"B ends after seq 39; A goes on with {nxt} at seq 40"


def test_why_shows_the_rolls_that_decided_a_death() -> None:
    """The chain to a death shows the attack roll, the test and the damage dice behind it."""
    golden = (
        Path(__file__).parents[1] / "golden" / "format1" / "upcast" / "thriller-ambush.seed2.jsonl"
    )
    proc = cli("why", golden, 273, check=0)  # Marlowe falls to Acolyte 2's sickle
    lines = proc.stdout.splitlines()
    assert [line.split()[:3] for line in lines if line.startswith("~")] == [
        ["~", "269", "DiceRolled"],
        ["~", "270", "AttackResolved"],
        ["~", "271", "DiceRolled"],
    ]
    assert "hit=True roll=20 against=11" in lines[6]
    data = json.loads(cli("why", golden, 273, "--json", check=0).stdout)
    assert [s["seq"] for s in data["decided_by"]["272"]] == [269, 270, 271]
