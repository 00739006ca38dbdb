"""Warnings a person reads: one plain line each on standard error, none under ``--quiet``; the
structured log only when asked for (``--log-level``, ``--log-json``); in the library, the
standard ``logging`` module, never raw JSON on standard error."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import structlog
from cli_support import run as cli
from initiative.events import read_log
from serve_support import ENCOUNTER, Client

import initiative

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "examples" / "openings-duel.toml"
FAILED = (
    "warning: policy failed (who=ilse, policy=bad.py:boom, kind=error,"
    " detail=ZeroDivisionError: 1/0 (bad.py:2))"
)

EVENTS = "338 events, 11 round(s), winner: south"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with a policy that raises at every decision."""
    (tmp_path / "bad.py").write_text("def boom(view):\n    raise ZeroDivisionError('1/0')\n")
    return tmp_path


def fight(
    folder: Path, *after: str, before: tuple[str, ...] = (), out: str = "f.jsonl"
) -> subprocess.CompletedProcess[str]:
    """``initiative BEFORE run DUEL ... AFTER`` with Ilse's policy failing, in ``folder``."""
    policy = ("--policy", "ilse=bad.py:boom")
    return cli(*before, "run", DUEL, "--seed", 3, *policy, "--out", out, *after, cwd=folder)


def test_a_policy_that_fails_warns_in_one_plain_line(folder: Path) -> None:
    """A policy failing at each of its decisions: one plain line (repeats are not shown
    again), and nothing at all under --quiet."""
    done = fight(folder)
    assert done.returncode == 0
    assert done.stderr.splitlines() == [FAILED, f"{EVENTS}; log written to f.jsonl"]
    quiet = fight(folder, "-q", out="q.jsonl")
    assert quiet.stderr == f"{EVENTS}; log written to q.jsonl\n"  # (the summary, no warning)


def test_the_structured_log_is_shown_when_asked_for(folder: Path) -> None:
    """--log-level keeps its JSON lines (standard error is no terminal here), --quiet or not;
    --log-json alone gives JSON at warning level."""
    for before, after in ((("--log-level", "warning"), ("-q",)), (("--log-json",), ())):
        done = fight(folder, *after, "--force", before=before)
        *logged, summary = done.stderr.splitlines()
        assert summary == f"{EVENTS}; log written to f.jsonl"
        lines = [json.loads(line) for line in logged]
        assert lines and {line["event"] for line in lines} == {"policy failed"}
        assert {line["level"] for line in lines} == {"warning"}


def test_verify_and_resume_do_not_warn_of_recorded_faults(folder: Path) -> None:
    """A log that records faults verifies, and its cut copy resumes, without a line on
    standard error: the faults are in the log, nothing went wrong now."""
    assert fight(folder, "-q").returncode == 0
    verified = cli("verify", folder / "f.jsonl")
    assert (verified.returncode, verified.stderr) == (0, "")
    events = (folder / "f.jsonl").read_bytes().splitlines(keepends=True)
    failed = [i for i, line in enumerate(events) if b'"DecisionFailed"' in line]
    (folder / "cut.jsonl").write_bytes(b"".join(events[: failed[3] + 3]))
    resumed = cli("resume", folder / "cut.jsonl", "--policy", "ilse=aggressive", "-q")
    assert resumed.returncode == 0
    assert resumed.stderr.splitlines() == [  # the summary alone
        f"312 events, 9 round(s), winner: north; log written to {folder / 'cut.jsonl'}"
    ]
    assert type(read_log(folder / "cut.jsonl").events[-1]).__name__ == "EncounterEnded"


def test_a_dice_file_that_runs_out_warns_in_one_line(tmp_path: Path) -> None:
    """Three faces for a fight that needs many: the rest are rolled, with one line saying so."""
    (tmp_path / "rolls.txt").write_text("3\n7\n5\n")
    done = cli("run", DUEL, "--dice", "rolls.txt", "--out", "d.jsonl", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        "warning: the dice file rolls.txt ran out after 3 faces; the fight rolls the rest",
        "275 events, 7 round(s), winner: north; log written to d.jsonl",
    ]


@pytest.mark.slow
def test_serve_warns_in_plain_lines(tmp_path: Path) -> None:
    """A served fight (a real process) with a client that sends a frame that is not JSON:
    the refusal is one plain line on the server's standard error, never JSON."""
    encounter = tmp_path / "duel.toml"
    encounter.write_text(ENCOUNTER)
    with (tmp_path / "out").open("wb") as out, (tmp_path / "err").open("wb") as err:
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "initiative", "serve", str(encounter), "--seat", "ana"),
                *("--out", str(tmp_path / "s.jsonl")),
            ],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "COLUMNS": "200"},
        )
    try:
        deadline = time.monotonic() + 60
        while not re.search(r"token \S+$", text := (tmp_path / "out").read_text(), re.M):
            assert server.poll() is None and time.monotonic() < deadline, text
            time.sleep(0.05)
        port = int(re.findall(r"listening on \S+:(\d+)", text)[0])
        token = re.findall(r"^seat ana \(.*\): token (\S+)$", text, re.M)[0]
        seat = Client(port)
        assert seat.hello("ana", token)["type"] == "welcome"
        seat.sock.sendall(b"this is not json\n")
        seat.play()
        seat.close()
        assert server.wait(60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    refused, summary = (tmp_path / "err").read_text().splitlines()
    assert re.fullmatch(
        r"warning: frame refused \(peer=127\.0\.0\.1:\d+, seat=ana, reason=malformed frame:"
        r" JSON is malformed: .*\)",
        refused,
    )
    assert summary.endswith(f"winner: south; log written to {tmp_path / 's.jsonl'}")


def test_the_library_logs_through_the_logging_module(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """``initiative.run`` in a program that never configured structlog: the warnings are
    records of the ``initiative.actors`` logger, with their fields as attributes; nothing is
    written to standard error by the library itself."""
    structlog.reset_defaults()  # as in a program that never configured it
    with caplog.at_level(logging.WARNING, logger="initiative"):
        initiative.run(DUEL, seed=3, policies={"ilse": lambda view: 1 / 0})
    records = [r for r in caplog.records if r.name.startswith("initiative")]
    assert records and {r.name for r in records} == {"initiative.actors"}
    first = records[0]
    assert first.levelno == logging.WARNING
    assert first.getMessage().startswith("policy failed (who=ilse, policy=<lambda>, kind=error,")
    assert (first.who, first.kind, first.encounter) == ("ilse", "error", "Duel in the rain")  # type: ignore[attr-defined]
    assert capsys.readouterr().err == ""
