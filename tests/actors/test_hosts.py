"""Policy faults are recorded and the fight goes on: through the real ``initiative run``."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from initiative.events import DecisionFailed, EncounterEnded, read_log

from tests.helpers import sword_duel


def duel(hp: int) -> str:
    """The actor tests' sword duel with a one-second decision timeout, ``a`` on ``hp``."""
    return sword_duel("seed = 2\ndecision_timeout = 1.0", a_hp=hp)


def run(
    tmp_path: Path, source: str, *args: str, limit: float = 60, hp: int = 6
) -> tuple[subprocess.CompletedProcess[str], list]:
    """``initiative run`` the duel with ``a`` played by ``source``; the result and the events."""
    (tmp_path / "duel.toml").write_text(duel(hp))
    (tmp_path / "pol.py").write_text(source)
    log = tmp_path / "duel.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "initiative",
            "run",
            "duel.toml",
            "-q",
            "--out",
            str(log),
            "--policy",
            "a=pol.py:decide",
            *args,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=limit,
    )
    events = read_log(log).events if log.exists() else []
    return done, events


def faults(events: list) -> list[DecisionFailed]:
    return [e for e in events if isinstance(e, DecisionFailed)]


def test_sys_exit_in_a_policy_is_a_recorded_fault_and_the_fight_goes_on(tmp_path: Path) -> None:
    """``sys.exit`` inside a policy ends nothing but its own decision."""
    done, events = run(tmp_path, "import sys\ndef decide(view):\n    sys.exit(3)\n")
    assert done.returncode == 0, done.stderr
    assert isinstance(events[-1], EncounterEnded)
    assert faults(events) and all(f.detail.startswith("SystemExit: 3") for f in faults(events))
    assert events[-1].winner == "blue"


def test_keyboard_interrupt_raised_by_a_policy_is_a_recorded_fault(tmp_path: Path) -> None:
    """A policy's own ``raise KeyboardInterrupt`` is its fault, not the user's Ctrl-C."""
    done, events = run(tmp_path, "def decide(view):\n    raise KeyboardInterrupt\n")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert isinstance(events[-1], EncounterEnded)
    assert {f.detail.split(" (")[0] for f in faults(events)} == {"KeyboardInterrupt: "}


def test_an_async_policy_that_never_yields_is_held_to_its_deadline(tmp_path: Path) -> None:
    """An ``async`` policy spinning without an ``await`` times out once, then is busy, and the
    fight still ends."""
    started = time.monotonic()
    done, events = run(tmp_path, "async def decide(view):\n    while True:\n        pass\n")
    assert done.returncode == 0, done.stderr
    assert isinstance(events[-1], EncounterEnded)
    kinds = [f.kind for f in faults(events)]
    assert kinds[0] == "timeout" and set(kinds[1:]) <= {"busy"}
    assert time.monotonic() - started < 30


def test_a_stuck_threaded_policy_is_never_called_twice_at_once(tmp_path: Path) -> None:
    """While an abandoned call still runs, new tokens fail at once ("busy"): no second thread
    enters the policy, so abandoned threads cannot pile up."""
    source = (
        "import threading, time\n"
        "inside = threading.Lock()\n"
        "def decide(view):\n"
        "    if not inside.acquire(blocking=False):\n"
        "        open('overlap', 'w').close()\n"
        "        raise RuntimeError('entered twice')\n"
        "    time.sleep(3)\n"
        "    inside.release()\n"
        "    from actors import aggressive\n"
        "    return aggressive(view)\n"
    )
    done, events = run(tmp_path, source, hp=20)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "overlap").exists()
    kinds = [f.kind for f in faults(events)]
    assert "timeout" in kinds and "busy" in kinds and "error" not in kinds


def test_an_observe_that_sleeps_is_held_to_the_same_deadline(tmp_path: Path) -> None:
    """One deadline covers observing the news and deciding: a sleeping ``observe`` times out
    instead of stretching each decision."""
    source = (
        "import time\n"
        "from initiative.actors import aggressive\n"
        "class decide:\n"
        "    def observe(self, event):\n"
        "        time.sleep(1)\n"
        "    def decide(self, view):\n"
        "        return aggressive(view)\n"
    )
    started = time.monotonic()
    done, events = run(tmp_path, source)
    assert done.returncode == 0, done.stderr
    assert isinstance(events[-1], EncounterEnded)
    assert faults(events) and faults(events)[0].kind == "timeout"
    assert time.monotonic() - started < 30


@pytest.mark.slow  # policies hosted in real child processes
def test_an_observe_that_loops_is_held_to_its_deadline_in_a_process(tmp_path: Path) -> None:
    """In the process host a looping ``observe`` is killed at the deadline, and the fight ends."""
    source = (
        "from initiative.actors import aggressive\n"
        "class decide:\n"
        "    def observe(self, event):\n"
        "        while True:\n"
        "            pass\n"
        "    def decide(self, view):\n"
        "        return aggressive(view)\n"
    )
    done, events = run(tmp_path, source, "--host", "a=process", "--timeout", "1")
    assert done.returncode == 0, done.stderr
    assert isinstance(events[-1], EncounterEnded)
    assert {f.kind for f in faults(events)} == {"timeout"}
    assert faults(events)[0].detail.endswith("its process was killed")


@pytest.mark.slow  # policies hosted in real child processes
def test_a_crashed_process_hosted_policy_is_one_recorded_fault(tmp_path: Path) -> None:
    """A policy that kills its own process (``os._exit``) is one ``crashed`` fault; the next
    token starts it again and the fight goes on."""
    source = (
        "import os\n"
        "from initiative.actors import aggressive\n"
        "calls = 0\n"
        "def decide(view):\n"
        "    global calls\n"
        "    calls += 1\n"
        "    if calls == 2 and not os.path.exists('crashed'):\n"
        "        open('crashed', 'w').close()\n"
        "        os._exit(9)\n"
        "    return aggressive(view)\n"
    )
    done, events = run(tmp_path, source, "--host", "a=process", "--timeout", "5")
    assert done.returncode == 0, done.stderr
    assert isinstance(events[-1], EncounterEnded)
    crashed = faults(events)
    assert [(f.who, f.kind, f.detail) for f in crashed] == [
        ("a", "crashed", "the policy's process exited (9)")
    ]


@pytest.mark.slow  # policies hosted in real child processes
def test_a_process_host_plays_like_the_same_policy_in_line(tmp_path: Path) -> None:
    """The wire changes nothing: a built-in in a child process (``process:NAME``) gives the
    same log."""
    (tmp_path / "duel.toml").write_text(duel(6))
    for name, extra in (
        ("inline.jsonl", []),
        ("child.jsonl", ["--policy", "a=process:aggressive"]),
    ):
        subprocess.run(
            [sys.executable, "-m", "initiative", "run", "duel.toml", "-q", "--out", name, *extra],
            cwd=tmp_path,
            check=True,
            timeout=60,
            capture_output=True,
        )
    assert (tmp_path / "inline.jsonl").read_bytes() == (tmp_path / "child.jsonl").read_bytes()
