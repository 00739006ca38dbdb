"""A served fight survives its server: Ctrl-C stops ``serve`` cleanly with the command that goes
on, a killed server loses no decision made over the network, and ``serve --resume`` carries the
fight on from its log with the same seats (fresh tokens) until it finishes and verifies."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from initiative.events import ActionDeclared, EndTurn, Pass, PriorityGranted, read_log
from serve_support import STURDY, Client, Server, events_of, first_attack


def take(server: Server) -> Client:
    client = server.client()
    assert client.hello("ana", server.tokens["ana"])["type"] == "welcome"
    return client


@pytest.mark.slow
def test_ctrl_c_and_a_killed_server_then_resume_and_the_fight_finishes(tmp_path: Path) -> None:
    with Server(tmp_path, "--seat", "ana", "--deadline", "30", encounter=STURDY) as first:
        command = first.go_on()
        client = take(first)
        for _ in range(2):
            frame = client.next("priority")
            client.decide(frame, first_attack(frame))
        held = client.next("priority")  # Ctrl-C while ana holds priority
        assert first.interrupt() == 130
        err = first.err
    assert err.startswith("\ninterrupted; the log "), err  # and nothing else
    printed = re.search(r"Go on with:\n  (.*)\n", err)
    assert printed, err
    assert shlex.split(printed.group(1)) == command
    assert command[:5] == ["initiative", "serve", "--resume", str(first.log), "--seat"]
    assert command[5:] == ["ana", "--deadline", "30", "--port", str(first.port), "-q"]
    # The log stayed a valid prefix: whole lines, ending at the grant ana was holding.
    stopped = read_log(first.log)
    assert not stopped.torn
    assert isinstance(stopped.events[-1], PriorityGranted)
    assert stopped.events[-1].seq == held["seq"]

    with Server(tmp_path, command=command, name="second") as second:
        # The tokens are kept beside the log: every link printed before still works.
        assert second.port == first.port and second.tokens == first.tokens
        assert "resuming" in second.out
        client = take(second)
        said = []
        while (frame := client.receive())["type"] == "table":
            said.extend(frame["said"])
            seen = frame["state"]["seq"]
        assert frame["type"] == "priority" and frame["seq"] == held["seq"]  # asked again
        # The rejoining seat is told the fight from its start (in words: a seat gets no news).
        assert seen >= stopped.events[-1].seq and said[0] == "Yard duel"
        client.decide(frame, first_attack(frame))
        decided = client.next("priority")
        client.decide(decided, len(decided["offers"]) - 1)
        # Once the next grant reaches the seat, the decision is on disk: kill -9 loses nothing.
        after = client.next("priority")
        second.kill()
        kept = second.log.read_bytes()
    logged = read_log(second.log)
    assert len(logged.events) > after["seq"]
    answer = logged.events[decided["seq"] + 1]
    assert isinstance(answer, ActionDeclared)
    assert isinstance(answer.action, (EndTurn, Pass))

    with Server(tmp_path, command=command, name="third") as third:
        last = take(third)
        last.play()
        last.close()
        assert third.finish() == 0
    assert third.log.read_bytes().startswith(kept)  # appended to, never rewritten
    events = third.verified()
    assert events[-1]["type"] == "EncounterEnded"
    assert events_of(events, "DecisionFailed") == []
    assert "Traceback" not in third.err
    # Going on with a finished fight: nothing to do, said in one line.
    done = subprocess.run(
        [sys.executable, "-m", "initiative", "serve", "--resume", str(third.log), "--seat", "ana"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "nothing to resume: the encounter already ended" in done.stdout
