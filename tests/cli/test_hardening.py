"""Logs from strangers run no code, one writer per log, output files never clobber, and text
from files and logs is printed literally: through the installed command, in real processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from debug_support import INITIATIVE, cli
from initiative.events import MAX_COMBATANTS, read_log

DUEL = """
ruleset = "openings"
name = "{title}"
[[combatants]]
id = "a"
name = "{name}"
side = "{side}"
hp = 30
position = [0, 0]
policy = "{policy}"
weapons = [{{ name = "{weapon}", damage = "1d4", reach = 1.5 }}]
[[combatants]]
id = "b"
side = "south"
hp = 30
position = [1, 0]
weapons = [{{ name = "club", damage = "1d4", reach = 1.5 }}]
"""

PLAIN = {"title": "duel", "name": "Ann", "side": "north", "policy": "aggressive", "weapon": "club"}

MARKER_POLICY = """
from pathlib import Path
Path(__file__).with_name("IMPORTED").write_text("the log ran this file")

def attack(view):
    return view.offers[0].action
"""


def _write(tmp: Path, **values: str) -> Path:
    path = tmp / "duel.toml"
    path.write_text(DUEL.format(**{**PLAIN, **values}))
    return path


def _log_naming_a_policy_file(tmp: Path) -> Path:
    """A shared log whose header names ``helper.py:attack`` (cut short, so it can be resumed)."""
    sender = tmp / "sender"
    sender.mkdir()
    log = sender / "shared.jsonl"
    cli("run", _write(sender), "-q", "--out", log, check=0)
    lines = log.read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["encounter"]["combatants"][0]["policy"] = "helper.py:attack"
    lines[0] = json.dumps(header, separators=(",", ":")).encode() + b"\n"
    cut = tmp / "received.jsonl"
    cut.write_bytes(b"".join(lines[: len(lines) // 2]))
    (tmp / "helper.py").write_text(MARKER_POLICY)
    return cut


def test_fork_and_resume_never_import_a_policy_file_the_log_names(tmp_path: Path) -> None:
    """Issue: "Reading, verifying, forking and resuming a log must never import anything the
    log names". fork and resume refuse, saying why; the file is never imported."""
    log = _log_naming_a_policy_file(tmp_path)
    before = log.read_bytes()
    for args in (["fork", log, "--at", "5", "--out", tmp_path / "f.jsonl"], ["resume", log]):
        proc = cli(*args, cwd=tmp_path, check=2)
        assert "helper.py:attack" in proc.stderr
        assert "--policy" in proc.stderr and "--trust-log-policies" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "IMPORTED").exists()
    for args in (["verify", log], ["state", log], ["replay", log]):
        cli(*args, cwd=tmp_path)
    assert not (tmp_path / "IMPORTED").exists()
    assert log.read_bytes() == before
    assert not (tmp_path / "f.jsonl").exists()


def test_an_explicit_policy_lets_fork_and_resume_go_on_without_the_file(tmp_path: Path) -> None:
    """--policy for the combatant replaces the log's file: the fight goes on, nothing imported."""
    log = _log_naming_a_policy_file(tmp_path)
    cli(
        "fork",
        log,
        "--at",
        "5",
        "--policy",
        "a=aggressive",
        "-q",
        "-o",
        "f.jsonl",
        cwd=tmp_path,
        check=0,
    )
    cli("resume", log, "--policy", "north=cautious", "-q", cwd=tmp_path, check=0)
    assert read_log(log).complete
    assert not (tmp_path / "IMPORTED").exists()


def test_trust_log_policies_loads_the_file_on_request(tmp_path: Path) -> None:
    """--trust-log-policies is the explicit choice to run what the log names."""
    log = _log_naming_a_policy_file(tmp_path)
    cli("resume", log, "--trust-log-policies", "-q", cwd=tmp_path, check=0)
    assert (tmp_path / "IMPORTED").exists()


def _slow_fight(tmp: Path) -> Path:
    """A fight long enough (many combatants, many rounds) to be racing for its log."""
    path = tmp / "slow.toml"
    path.write_text(
        'ruleset = "openings"\nmax_rounds = 40\n'
        '[[combatants]]\nid = "a"\nside = "n"\nhp = 60\ncount = 6\nposition = [0, 0]\n'
        '[[combatants]]\nid = "b"\nside = "s"\nhp = 60\ncount = 6\nposition = [6, 0]\n'
    )
    return path


@pytest.mark.slow  # three real processes racing for one log
def test_two_resumes_and_a_run_race_for_one_log(tmp_path: Path) -> None:
    """Issue: "Two resumes of one log at once both exit 0 and leave duplicated seqs". Started
    together, one process writes at a time: each other one refuses while the lock is held (or
    finds nothing left to do), and the log that remains verifies, with no NUL byte."""
    encounter = _slow_fight(tmp_path)
    log = tmp_path / "race.jsonl"
    cli("run", encounter, "-q", "--out", log, check=0)
    whole = log.read_bytes()
    log.write_bytes(whole[: len(whole) // 5])
    commands = [
        ["resume", log, "-q"],
        ["resume", log, "-q"],
        ["run", encounter, "-q", "--out", log, "--force"],
    ]
    procs = [
        subprocess.Popen(
            [INITIATIVE, *map(str, c)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for c in commands
    ]
    outcomes = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    for code, stdout, stderr in outcomes:
        assert "Traceback" not in stderr
        if code == 2:
            assert "another process is writing this log" in stderr
        else:
            assert code == 0, (code, stdout, stderr)
    assert any(code == 0 for code, _, _ in outcomes)
    data = log.read_bytes()
    assert b"\x00" not in data
    assert data == whole  # whoever wrote last, the fight is the same fight
    cli("verify", log, check=0)


def test_out_refuses_an_existing_file_and_never_the_input(tmp_path: Path) -> None:
    """Issue: "--out overwrites anything, the encounter file itself included"."""
    encounter = _write(tmp_path)
    text = encounter.read_text()
    proc = cli("run", encounter, "-q", "--out", encounter, "--force", check=2)
    assert "that is the input" in proc.stderr
    assert encounter.read_text() == text
    log = tmp_path / "a.jsonl"
    cli("run", encounter, "-q", "--out", log, check=0)
    other = tmp_path / "keep.txt"
    other.write_text("precious")
    assert "use --force" in cli("run", encounter, "-q", "--out", other, check=2).stderr
    assert "use --force" in cli("view", log, "-o", other, check=2).stderr
    assert "use --force" in cli("fork", log, "--at", "3", "-o", other, check=2).stderr
    assert other.read_text() == "precious"
    cli("view", log, "-o", other, "--force", check=0)
    assert "<html" in other.read_text().lower()
    assert "that is the input" in cli("view", log, "-o", log, "--force", check=2).stderr


HOSTILE = {
    "title": "[link=https://example.invalid]T[/link]",
    "name": "[red]Ann[/red] [link=https://example.invalid]x[/link]",
    "side": "[/x]",
    "weapon": "[bold]club",
}


def test_markup_in_names_sides_and_paths_is_printed_literally(tmp_path: Path) -> None:
    """Issue: "A side named [/x] crashes run, show, state and batch; [link=...] renders a
    hyperlink". Every command prints such text as it is."""
    folder = tmp_path / "[bold]dir"
    folder.mkdir()
    encounter = _write(folder, **HOSTILE)
    log = folder / "[red]x.jsonl"
    run = cli("run", encounter, "--out", log, check=0)
    assert HOSTILE["name"] in run.stdout and "[/x]" in run.stdout
    assert str(log) in run.stderr
    show = cli("show", log, check=0)
    assert "[/x]" in show.stdout
    state = cli("state", log, check=0)
    assert "[/x]" in state.stdout
    replay = cli("replay", log, check=0)
    assert HOSTILE["name"] in replay.stdout and HOSTILE["title"] in replay.stdout
    batch = cli("batch", encounter, "--runs", "2", check=0)
    assert "[/x]" in batch.stdout
    missing = cli("show", folder / "[red]gone.jsonl", check=2)
    assert f"{folder}/[red]gone.jsonl" in missing.stderr


def test_escape_sequences_in_a_log_are_shown_not_sent(tmp_path: Path) -> None:
    """An ANSI or OSC escape in a log's names reaches no terminal: shown as \\x1b."""
    log = tmp_path / "a.jsonl"
    cli("run", _write(tmp_path), "-q", "--out", log, check=0)
    lines = log.read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["encounter"]["name"] = "\x1b[2J\x1b]0;pwned\x07"
    header["encounter"]["combatants"][0]["name"] = "\x1b[31mAnn"
    lines[0] = json.dumps(header, separators=(",", ":")).encode() + b"\n"
    joined = json.loads(lines[1])
    joined["side"] = "\x1b[2J"
    lines[1] = json.dumps(joined, separators=(",", ":")).encode() + b"\n"
    log.write_bytes(b"".join(lines))
    for args in (["replay", log], ["show", log], ["state", log], ["why", log, "1"]):
        proc = cli(*args)
        assert "\x1b" not in proc.stdout + proc.stderr, args
    assert "\\x1b[2J" in cli("replay", log).stdout
    assert "\\x1b[2J" in cli("show", log).stdout


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ("position = [nan, 0]", "combatants[0].position[0]"),
        ("armor = -1", "combatants[0].armor"),
        ("size = 5", "combatants[0].size"),
        ("ap = -2", "combatants[0].ap"),
        ("count = 100000", "combatants[0].count"),
        ('side = "  "', "combatants[0].side"),
        ('name = "A\\u001b[2J"', "combatants[0].name"),
        ("stats = { agility = -3 }", "combatants[0].stats"),
    ],
)
def test_nonsense_in_an_encounter_is_refused_with_file_and_key(
    tmp_path: Path, change: str, key: str
) -> None:
    """Issue: "NaN positions, count = 100000, negative armor, reach, reload, stats or AP, sizes
    outside 1-4, blank names. Each refused at load with file and key"."""
    text = DUEL.format(**PLAIN).replace("hp = 30\nposition = [0, 0]\n", "hp = 30\n", 1)
    setting = change.split(" = ")[0]
    lines = [line for line in text.splitlines() if not line.startswith(f"{setting} =")]
    at = lines.index('id = "a"')
    lines.insert(at + 1, change)
    path = tmp_path / "bad.toml"
    path.write_text("\n".join(lines) + "\n")
    proc = cli("run", path, "-q", "--out", tmp_path / "x.jsonl", check=2)
    assert str(path) in proc.stderr and key in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.jsonl").exists()


def test_nan_timeout_and_too_many_combatants_are_refused(tmp_path: Path) -> None:
    """A decision timeout of nan or inf, and more combatants than the documented limit."""
    for top, key in (
        ("decision_timeout = nan", "decision_timeout"),
        ("decision_timeout = inf", "decision_timeout"),
    ):
        path = tmp_path / "t.toml"
        path.write_text(top + "\n" + DUEL.format(**PLAIN))
        assert key in cli("run", path, "-q", "-o", tmp_path / "t.jsonl", check=2).stderr
    path = tmp_path / "many.toml"
    many = MAX_COMBATANTS
    path.write_text(DUEL.format(**PLAIN).replace('id = "b"', f'id = "b"\ncount = {many}'))
    proc = cli("run", path, "-q", "-o", tmp_path / "m.jsonl", check=2)
    assert f"{many + 1} combatants" in proc.stderr and str(many) in proc.stderr
