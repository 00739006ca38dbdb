"""``initiative show`` filters and ``--follow`` on a log still being written."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from debug_support import EXAMPLES, INITIATIVE, cli, examples, record
from initiative.events import read_log
from initiative.replays import select


@pytest.fixture(scope="module", params=examples(), ids=lambda p: p.stem)
def logged(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(request.param, tmp_path_factory.mktemp("show") / "fight.jsonl")


def test_show_json_filters_round_who_type_and_range(logged: Path) -> None:
    """--json with every filter: exactly the matching lines, byte for byte, for jq."""
    contents = read_log(logged)
    who = contents.header.encounter.combatants[0].id
    proc = cli(
        "show",
        logged,
        "--json",
        "--round",
        2,
        "--who",
        who,
        "--type",
        "DiceRolled,DamageDealt",
        "--from",
        10,
        "--to",
        100000,
        check=0,
    )
    expected = select(
        contents.events, rounds={2}, who={who}, types={"DiceRolled", "DamageDealt"}, first=10
    )
    assert proc.stdout.encode() == b"".join(contents.lines[r.event.seq] for r in expected)
    for line in proc.stdout.splitlines():
        assert json.loads(line)["type"] in ("DiceRolled", "DamageDealt")


def test_follow_prints_lines_as_a_writer_appends_them(tmp_path: Path) -> None:
    """A log written in pieces (lines split mid-way) is followed to EncounterEnded; each event
    is printed once, whole, in order. (Following reads bytes and lines: one ruleset's log is
    enough.)"""
    data = record(EXAMPLES / "openings-skirmish.toml", tmp_path / "source.jsonl").read_bytes()
    growing = tmp_path / "growing.jsonl"
    growing.write_bytes(b"")
    proc = subprocess.Popen(
        [INITIATIVE, "show", str(growing), "--follow", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    step = max(1, len(data) // 7) + 13  # never a line boundary by design: pieces cut lines
    with growing.open("ab") as f:
        for start in range(0, len(data), step):
            f.write(data[start : start + step])
            f.flush()
            time.sleep(0.15)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    assert stdout == data


def test_follow_a_real_running_fight(tmp_path: Path) -> None:
    """``show --follow --type`` on the log of an ``initiative run`` still going: every defeat
    and the end, and it stops by itself."""
    log = tmp_path / "live.jsonl"
    run = subprocess.Popen(
        [INITIATIVE, "run", str(EXAMPLES / "openings-skirmish.toml"), "-q", "--out", str(log)],
        stderr=subprocess.DEVNULL,
    )
    waited = time.monotonic()
    while not log.exists() and run.poll() is None and time.monotonic() - waited < 60:
        time.sleep(0.01)  # the writer has not made the file yet: follow a log being written
    show = cli("show", log, "--follow", "--type", "CombatantDefeated,EncounterEnded", check=0)
    assert run.wait(timeout=60) == 0
    events = read_log(log).events
    wanted = [e.seq for e in events if type(e).__name__ in ("CombatantDefeated", "EncounterEnded")]
    assert [int(line.split()[0]) for line in show.stdout.splitlines()] == wanted


def test_follow_idle_stops_on_an_unfinished_log(logged: Path, tmp_path: Path) -> None:
    """--idle ends following a log nobody writes any more, after printing what is there."""
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(logged.read_bytes().splitlines(keepends=True)[:25]))
    proc = cli("show", cut, "--follow", "--idle", "0.3", "--json", check=0)
    assert len(proc.stdout.splitlines()) == 25


def test_follow_missing_file_exits_2(tmp_path: Path) -> None:
    """Following a file that never appears gives up with exit 2 (after --idle seconds)."""
    proc = cli("show", tmp_path / "never.jsonl", "--follow", "--idle", "0", check=2)
    assert "cannot read" in proc.stderr


@pytest.fixture(scope="module")
def duel_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(EXAMPLES / "openings-duel.toml", tmp_path_factory.mktemp("s") / "d.jsonl")


def test_show_who_matching_no_combatant_is_an_error(duel_log: Path) -> None:
    """--who with a name no combatant of the log has: exit 2 and the known names, not an
    empty table."""
    proc = cli("show", duel_log, "--who", "tomas,ilsa", check=2)
    assert proc.stdout == ""
    assert proc.stderr.strip() == (
        f"error: {duel_log}: no combatant 'ilsa' in this log (combatants: ilse, tomas, hound)"
        " (did you mean 'ilse'?)"
    )


def test_show_type_matching_no_event_is_an_error(duel_log: Path) -> None:
    """--type with a type that no event of the log has: exit 2 and the types it holds."""
    proc = cli("show", duel_log, "--type", "DamageDelt", check=2)
    assert proc.stdout == ""
    message = proc.stderr.strip()
    assert message.startswith(f"error: {duel_log}: no event of type 'DamageDelt' in this log")
    assert "DamageDealt, " in message
    assert message.endswith("(did you mean 'DamageDealt'?)")
