"""A fight played at the table, through a real pseudo-terminal: a person decides for one
combatant, the party's dice are rolled by hand, Ctrl-C stops it, ``resume`` finishes it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from initiative.events import ActionDeclared, DiceGiven, PriorityGranted, read_log

from tests.pty_support import PtyProgram

pytestmark = pytest.mark.slow  # real processes in a pseudo-terminal, played to the end

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FACES = [11, 4, 17, 2, 8, 15, 19, 6]
TABLE = ["--policy", "marlowe=human", "--dice", "ask=investigators"]


class Table:
    """Plays the person's part: dice faces from a fixed list, offer 1 for every decision."""

    def __init__(self) -> None:
        self.faces: list[tuple[int, ...]] = []
        self.choices = 0
        self.asked = 0

    def answer(self, program: PtyProgram, line: str) -> None:
        self.asked += 1
        dice = re.search(r"roll (\d*)d(\d+)", line)
        if dice is None:
            assert line == "Detective Marlowe> ", line
            program.type("1")
            self.choices += 1
            return
        count, sides = int(dice.group(1) or 1), int(dice.group(2))
        faces = tuple(
            (FACES[(len(self.faces) + i) % len(FACES)] - 1) % sides + 1 for i in range(count)
        )
        program.type(" ".join(map(str, faces)))
        self.faces.append(faces)


def initiative(*args: str) -> list[str]:
    return [sys.executable, "-m", "initiative", *args]


def test_a_thriller_fight_at_the_table_is_interrupted_resumed_and_verifies(tmp_path: Path) -> None:
    """Nothing typed before Ctrl-C is lost or asked again, and the finished log verifies."""
    log = tmp_path / "table.jsonl"
    table = Table()
    run = PtyProgram(
        initiative("run", str(EXAMPLES / "thriller-ambush.toml"), "--out", str(log), *TABLE),
        cwd=str(tmp_path),
    )
    seen_help = seen_refusal = False
    while table.asked < 14:
        line = run.prompt()
        assert line is not None, run.screen[-2000:]
        if "roll 1d20" in line and not seen_refusal:
            run.type("21")  # a d20 cannot show 21
            assert "Refused: a d20 shows 1 to 20, not 21." in _next_screen(run)
            seen_refusal = True
        if line == "Detective Marlowe> " and not seen_help:
            assert "1. " in run.screen and "You have 14 of 14 hp" in run.screen
            run.type("?")
            assert "Type the number of an offer" in _next_screen(run)
            seen_help = True
        table.answer(run, line)
    assert run.prompt() is not None
    run.interrupt()
    assert run.wait() == 130
    assert "interrupted; the log" in run.screen
    assert f"initiative resume {log} --policy marlowe=human --dice ask=investigators" in run.screen
    before = read_log(log).events
    assert [e.dice for e in before if isinstance(e, DiceGiven)] == table.faces
    assert seen_help and seen_refusal and table.choices >= 1

    resume = PtyProgram(initiative("resume", str(log), *TABLE), cwd=str(tmp_path))
    while (line := resume.prompt(timeout=120)) is not None:
        table.answer(resume, line)
    assert resume.wait() == 0, resume.screen[-2000:]

    events = read_log(log).events
    assert [e.dice for e in events if isinstance(e, DiceGiven)] == table.faces
    grants = {e.seq for e in events if isinstance(e, PriorityGranted) and e.who == "marlowe"}
    answered = [e for e in events if e.cause in grants and e.who == "marlowe"]
    assert len(answered) == table.choices
    assert all(isinstance(e, ActionDeclared) for e in answered)
    for command in (["verify", str(log)], ["replay", str(log)]):
        done = subprocess.run(initiative(*command), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    verified = subprocess.run(initiative("verify", str(log)), capture_output=True, text=True)
    assert verified.stdout.startswith("verified")

    # A fork after the last die given at the table replays the given dice from the log.
    at = max(e.seq for e in events if isinstance(e, DiceGiven)) + 1
    fork = tmp_path / "fork.jsonl"
    done = subprocess.run(
        initiative("fork", str(log), "--at", str(at), "-q", "--out", str(fork)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    forked = read_log(fork).events
    assert [e.dice for e in forked if isinstance(e, DiceGiven)] == table.faces
    verified = subprocess.run(initiative("verify", str(fork)), capture_output=True, text=True)
    assert verified.stdout.startswith("verified"), verified.stdout


def _next_screen(program: PtyProgram) -> str:
    """What the program shows up to its next prompt (which is left to answer)."""
    line = program.prompt()
    assert line is not None
    return program.screen[-2000:]


def test_dice_from_a_file_are_used_in_order_and_the_log_verifies(tmp_path: Path) -> None:
    """``--dice FILE`` enters a fight rolled earlier: its faces in order, then the fight rolls."""
    (tmp_path / "rolls.txt").write_text("# rolled on Saturday\n7 3\n5, 9\n")
    log = tmp_path / "duel.jsonl"
    done = subprocess.run(
        initiative(
            "run",
            str(EXAMPLES / "openings-duel.toml"),
            "-q",
            "--out",
            str(log),
            "--dice",
            "rolls.txt",
        ),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    given = [e for e in read_log(log).events if isinstance(e, DiceGiven)]
    assert [face for e in given for face in e.dice] == [7, 3, 5, 9]
    verified = subprocess.run(initiative("verify", str(log)), capture_output=True, text=True)
    assert verified.stdout.startswith("verified"), verified.stdout


def test_a_face_the_die_cannot_show_in_a_dice_file_is_one_clear_error(tmp_path: Path) -> None:
    """A 13 for a d12 names the file and line, exit 2, no traceback."""
    (tmp_path / "rolls.txt").write_text("5\n13\n")
    done = subprocess.run(
        initiative(
            "run",
            str(EXAMPLES / "openings-duel.toml"),
            "-q",
            "--out",
            "d.jsonl",
            "--dice",
            "rolls.txt",
        ),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "rolls.txt, line 2: initiative: a d12 shows 1 to 12, not 13" in done.stderr
