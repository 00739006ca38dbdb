"""A fight played at the table: a person decides for one combatant and the party's dice are
rolled by hand, through a real pseudo-terminal; it is stopped every way a table stops (Ctrl-D,
a closed terminal, SIGKILL, Ctrl-C) and resumed, and nothing typed is lost or asked again.
Dice entered from a file, including a resumed or forked fight's, run in this process."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from debug_support import cli
from initiative.events import (
    ActionDeclared,
    DiceGiven,
    EncounterStarted,
    PriorityGranted,
    read_log,
)

from tests.pty_support import PtyProgram

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FACES = [11, 4, 17, 2, 8, 15, 19, 6]
TABLE = ["--policy", "marlowe=human", "--dice", "ask=investigators"]
MARLOWE = "Detective Marlowe> "


class Table:
    """Plays the person's part: dice faces from a fixed list, offer 1 for every decision; keeps
    every line typed (what the same table typing straight through is fed)."""

    def __init__(self) -> None:
        self.faces: list[tuple[int, ...]] = []
        self.choices = 0
        self.typed: list[str] = []
        self.answered: list[str] = []
        """The prompts answered, in order."""

    def type(self, program: PtyProgram, text: str) -> None:
        program.type(text)
        self.typed.append(text)

    def answer(self, program: PtyProgram, line: str) -> None:
        self.answered.append(line)
        dice = re.search(r"roll (\d*)d(\d+)", line)
        if dice is None:
            assert line == MARLOWE, line
            self.type(program, "1")
            self.choices += 1
            return
        count, sides = int(dice.group(1) or 1), int(dice.group(2))
        faces = tuple(
            (FACES[(len(self.faces) + i) % len(FACES)] - 1) % sides + 1 for i in range(count)
        )
        self.type(program, " ".join(map(str, faces)))
        self.faces.append(faces)


def initiative(*args: str) -> list[str]:
    return [sys.executable, "-m", "initiative", *args]


def _given(log: Path) -> list[tuple[int, ...]]:
    return [e.dice for e in read_log(log).events if isinstance(e, DiceGiven)]


@pytest.mark.slow  # six real processes in a pseudo-terminal and one fed by a pipe
def test_a_table_stopped_every_way_loses_nothing_typed(tmp_path: Path) -> None:
    """SIGKILL during initiative entry, Ctrl-D at a surprise die, a closed terminal (SIGHUP) at
    a sanity check, SIGKILL right after a decision and its die, Ctrl-C at a decision: each
    ``resume`` first asks what was being asked when it stopped, never anything typed before,
    and the finished log is, byte for byte, the log of the same lines typed straight through."""
    log = tmp_path / "table.jsonl"
    table = Table()
    again = f"initiative resume {log} --policy marlowe=human --dice ask=investigators"

    # 1. SIGKILL at the second initiative die: the header and the first die are on disk.
    run = PtyProgram(
        initiative("run", str(EXAMPLES / "thriller-ambush.toml"), "--out", str(log), *TABLE),
        cwd=str(tmp_path),
    )
    line = run.prompt()
    assert line == "Detective Marlowe, initiative: roll 1d20 (+3 will be added)> "
    table.answer(run, line)
    stopped = run.prompt()
    assert stopped == "Dr. Ada Vance, initiative: roll 1d20> "
    assert run.kill() == 137
    events = read_log(log).events
    assert isinstance(events[0], EncounterStarted)
    assert _given(log) == table.faces == [(11,)]
    assert not any(isinstance(e, PriorityGranted) for e in events)

    def resume_until(stop: str) -> PtyProgram:
        """Resume; check its first question is the one it stopped at; answer up to ``stop``."""
        nonlocal stopped
        program = PtyProgram(initiative("resume", str(log), *TABLE), cwd=str(tmp_path))
        line = program.prompt()
        assert line == stopped, program.screen[-2000:]
        while line is not None and not _stops_here(stop, line, table):
            table.answer(program, line)
            line = program.prompt()
        assert (line is None) == (stop == "the end"), program.screen[-2000:]
        stopped = line
        return program

    # 2. Ctrl-D (the end of input) at the first surprise die: the command to go on.
    program = resume_until("surprise")
    program.end_input()
    assert program.wait() == 130
    assert "interrupted; the log" in program.screen and again in program.screen
    assert "Traceback" not in program.screen
    assert _given(log) == table.faces

    # 3. A closed terminal at the first sanity check: the fight stops as cleanly.
    program = resume_until("sanity")
    assert program.hang_up() == 130
    assert _given(log) == table.faces and len(table.faces) > 3
    assert not any(isinstance(e, PriorityGranted) for e in read_log(log).events)

    # 4. SIGKILL at the question after Marlowe's decision and its die.
    program = resume_until("decision and die")
    assert program.kill() == 137
    events = read_log(log).events
    assert [e.dice for e in events if isinstance(e, DiceGiven)] == table.faces
    declared = [e for e in events if isinstance(e, ActionDeclared) and e.who == "marlowe"]
    assert len(declared) == table.choices
    # The decision's die is on disk though its action had not finished resolving.
    assert declared[-1].seq < max(e.seq for e in events if isinstance(e, DiceGiven))
    assert not isinstance(events[-1], PriorityGranted)

    # 5. A refused face and the help on the way, then Ctrl-C at a decision.
    program = resume_until("refusal")
    table.type(program, "21")  # a d20 cannot show 21
    assert "Refused: a d20 shows 1 to 20, not 21." in _next_screen(program)
    assert stopped is not None
    table.answer(program, stopped)
    _help_then_interrupt(program, table)
    assert program.wait() == 130
    assert again in program.screen
    stopped = MARLOWE

    # 6. To the end.
    program = resume_until("the end")
    assert program.wait() == 0, program.screen[-2000:]

    straight = tmp_path / "straight.jsonl"
    done = subprocess.run(
        initiative(
            "run", str(EXAMPLES / "thriller-ambush.toml"), "-q", "--out", str(straight), *TABLE
        ),
        input="".join(f"{text}\n" for text in table.typed),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert log.read_bytes() == straight.read_bytes()
    assert _given(log) == table.faces
    assert cli("verify", log, check=0).stdout.startswith("verified")
    cli("replay", log, check=0)

    # A fork after the last die given at the table replays the given dice from the log.
    at = max(e.seq for e in read_log(log).events if isinstance(e, DiceGiven)) + 1
    fork = tmp_path / "fork.jsonl"
    cli("fork", log, "--at", at, "-q", "--out", fork, check=0)
    assert _given(fork) == table.faces
    assert cli("verify", fork, check=0).stdout.startswith("verified")


def _stops_here(stop: str, line: str, table: Table) -> bool:
    """Whether the table stops at the question ``line`` (see the test's steps)."""
    last = table.answered[-2:]
    if stop == "surprise":
        return "against stealth" in line
    if stop == "sanity":
        return "sanity check" in line
    if stop == "decision and die":  # at its next die (a decision's grant writes the log anyway)
        return len(last) == 2 and last[0] == MARLOWE and "roll" in last[1] and "roll" in line
    if stop == "refusal":
        return "roll 1d20" in line
    return False


def _help_then_interrupt(program: PtyProgram, table: Table) -> None:
    """Answer up to Marlowe's next decision, ask for help there, answer it, then Ctrl-C at the
    decision after."""
    helped = False
    while True:
        line = program.prompt()
        assert line is not None, program.screen[-2000:]
        if line == MARLOWE and helped:
            program.interrupt()
            return
        if line == MARLOWE:
            assert "1. " in program.screen
            table.type(program, "?")
            assert "Type the number of an offer" in _next_screen(program)
            helped = True
        table.answer(program, line)


def _next_screen(program: PtyProgram) -> str:
    """What the program shows up to its next prompt (which is left to answer)."""
    line = program.prompt()
    assert line is not None
    return program.screen[-2000:]


ROLLS = "# rolled on Saturday\n7 3\n5, 9\n2 11\n4\n"
"""Faces for the duel's first seven dice (three initiatives, then attacks and damage)."""


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    """The duel entered from ``rolls.txt`` in ``tmp_path``: its log, ``duel.jsonl``."""
    (tmp_path / "rolls.txt").write_text(ROLLS)
    log = tmp_path / "duel.jsonl"
    done = cli(
        "run",
        EXAMPLES / "openings-duel.toml",
        "--out",
        log,
        "--dice",
        "rolls.txt",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    # One plain line, not a structured record (and none under -q: see test_warnings).
    assert done.stderr.splitlines()[0] == (
        "warning: the dice file rolls.txt ran out after 7 faces; the fight rolls the rest"
    )
    assert done.stderr.count("ran out") == 1
    return log


def _cut(log: Path, events: int, to: Path) -> Path:
    """The first ``events`` lines of ``log``, as a fight stopped there leaves them."""
    to.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:events]))
    return to


def test_dice_from_a_file_are_used_in_order_and_the_log_verifies(duel: Path) -> None:
    """``--dice FILE`` enters a fight rolled earlier: its faces in order, then the fight rolls
    (and says once that the file ran out)."""
    given = [e for e in read_log(duel).events if isinstance(e, DiceGiven)]
    assert [face for e in given for face in e.dice] == [7, 3, 5, 9, 2, 11, 4]
    assert cli("verify", duel, check=0).stdout.startswith("verified")


@pytest.mark.parametrize("kept", [10, 24, 70])
def test_resume_with_a_dice_file_goes_on_from_its_first_unused_face(duel: Path, kept: int) -> None:
    """Stopped after its third, fifth or last given die, the fight resumed with the same file
    takes the next face the log has not used (or, the file used up, rolls): the finished log
    is the uninterrupted one, byte for byte."""
    log = _cut(duel, kept, duel.with_name("stopped.jsonl"))
    done = cli("resume", log, "--dice", "rolls.txt", cwd=duel.parent)
    assert done.returncode == 0, done.stderr
    assert log.read_bytes() == duel.read_bytes()
    assert done.stderr.count("ran out after 7 faces") == 1


def test_a_dice_file_that_disagrees_with_the_log_is_refused_naming_its_line(
    duel: Path,
) -> None:
    """A file whose used part is not what the log gave did not enter that fight: refused,
    naming the file's line and the log's event, and nothing is appended."""
    (duel.parent / "other.txt").write_text("7 3\n5 8\n2 11\n")
    log = _cut(duel, 24, duel.with_name("stopped.jsonl"))
    before = log.read_bytes()
    done = cli("resume", log, "-q", "--dice", "other.txt", cwd=duel.parent)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: other.txt, line 2: the face 8 differs from the 9 that"
        f" {log} gave at seq 20 (attack on tomas); this file did not enter that fight"
    )
    assert log.read_bytes() == before


def test_a_fork_with_a_dice_file_goes_on_from_its_first_unused_face(duel: Path) -> None:
    """``fork --dice FILE`` after the fifth given die takes the sixth face next, as the parent
    did."""
    fork = duel.with_name("fork.jsonl")
    cli(
        "fork",
        duel,
        "--at",
        23,
        "-q",
        "--out",
        fork,
        "--dice",
        "rolls.txt",
        cwd=duel.parent,
        check=0,
    )
    assert _given(fork) == _given(duel)


def run_with_dice_file(tmp_path: Path, rolls: str) -> subprocess.CompletedProcess[str]:
    """``run`` the duel with ``--dice rolls.txt`` holding ``rolls``."""
    (tmp_path / "rolls.txt").write_text(rolls)
    return cli(
        "run",
        EXAMPLES / "openings-duel.toml",
        "-q",
        "--out",
        "d.jsonl",
        "--dice",
        "rolls.txt",
        cwd=tmp_path,
    )


def test_a_face_the_die_cannot_show_in_a_dice_file_is_one_clear_error(tmp_path: Path) -> None:
    """A 13 for a d12 names the file and line, exit 2, no traceback."""
    done = run_with_dice_file(tmp_path, "5\n13\n")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "rolls.txt, line 2: initiative: a d12 shows 1 to 12, not 13" in done.stderr


def test_a_5000_digit_face_is_quoted_by_a_short_prefix(tmp_path: Path) -> None:
    """The error stays one readable line: the first 20 digits and an ellipsis."""
    done = run_with_dice_file(tmp_path, "5\n" + "9" * 5000 + "\n")
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == "error: rolls.txt, line 2: '99999999999999999999…' is not a die's face"
    )


@pytest.mark.slow  # a real process whose input ends at its first question
def test_a_fork_stopped_at_the_table_keeps_its_log_to_be_resumed(duel: Path) -> None:
    """A fork whose first die is asked of a terminal that has ended stops like a fight at the
    table: its log is kept and the command says how to go on; resumed with the dice file, it
    takes the file's next face, as the parent did."""
    fork = duel.with_name("fork.jsonl")
    done = subprocess.run(
        initiative("fork", str(duel), "--at", "23", "-q", "--out", str(fork), "--dice", "ask"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 130, done.stderr
    assert f"Go on with:\n  initiative resume {fork} --dice ask" in done.stderr
    # Everything up to the die it asked for is on disk: the parent's next given die.
    asked = min(e.seq for e in read_log(duel).events if isinstance(e, DiceGiven) and e.seq > 23)
    assert len(read_log(fork).events) == asked
    cli("resume", fork, "-q", "--dice", "rolls.txt", cwd=duel.parent, check=0)
    assert _given(fork) == _given(duel)
