"""``initiative serve``: whole fights with seats held by a standard-library client over a real
loopback socket; spectators; deadlines, drops and reconnection; the log verifies throughout."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from initiative.events import EncounterEnded, read_log
from initiative.replays import verify_log
from serve_support import ENCOUNTER, Client, Server, events_of

pytestmark = pytest.mark.slow  # each test starts a real server process


def test_stdlib_client_plays_a_whole_fight(tmp_path: Path) -> None:
    """A seat held by a socket+json client plays to the end; the log verifies, holds no token."""
    with Server(tmp_path, "--seat", "ana") as server:
        client = server.client()
        welcome = client.hello("ana", server.tokens["ana"])
        assert welcome == {
            "type": "welcome",
            "version": 1,
            "seat": "ana",
            "combatants": ["ana"],
            "deadline": 60.0,
            "encounter": "Yard duel",
            "ruleset": "openings",
            "role": "seat",
            "news": False,
            "reveal": "words",
            "conditions": [],  # (openings declares none)
        }
        end = client.play()
        assert server.finish() == 0
    events = server.verified()
    assert end == {"type": "end", "winner": events[-1]["winner"], "events": len(events)}
    granted = [e for e in events_of(events, "PriorityGranted") if e["who"] == "ana"]
    assert granted, "ana was never asked"
    assert events_of(events, "DecisionFailed") == []
    for token in (server.tokens["ana"], server.gm_token, server.spectator_token):
        assert token not in server.log.read_text() and token not in server.err
    # The log is a log like any other: view renders it, resume finishes a cut copy of it.
    cut = tmp_path / "cut.jsonl"
    lines = server.log.read_bytes().splitlines(keepends=True)
    cut.write_bytes(b"".join(lines[: len(lines) // 2]))
    for command in (
        ["resume", str(cut), "-q"],
        ["view", str(server.log), "-o", str(tmp_path / "v.html")],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "initiative", *command],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    resumed = read_log(cut)
    assert isinstance(resumed.events[-1], EncounterEnded)
    assert verify_log(resumed).ok


def test_a_side_seat_plays_every_combatant_of_its_side(tmp_path: Path) -> None:
    """``--seat south`` hands both south combatants to one connection; the others stay AI."""
    with Server(tmp_path, "--seat", "south", "--seat", "ana") as server:
        south = server.client()
        assert south.hello("south", server.tokens["south"])["combatants"] == ["bo", "cur"]
        ana = server.client()
        ana.hello("ana", server.tokens["ana"])
        asked: set[str] = set()

        def note(frame: dict) -> int:
            asked.add(frame["who"])
            return len(frame["offers"]) - 1  # always end the turn or pass

        thread = threading.Thread(target=lambda: ana.play(note), daemon=True)
        thread.start()
        end = south.play(note)
        thread.join(30)
        assert server.finish() == 0
    events = server.verified()
    assert end["winner"] == events[-1]["winner"]
    granted = {e["who"] for e in events_of(events, "PriorityGranted")}
    assert asked == granted == {"ana", "bo", "cur"}


def test_spectator_receives_the_log_line_for_line(tmp_path: Path) -> None:
    """A spectator (with the spectators' token) who sees everything (``--spectators all``):
    every log line as news, then the end."""
    with Server(tmp_path, "--seat", "ana", "--spectators", "all") as server:
        watcher = server.client()
        assert watcher.hello(None, server.spectator_token, "spectator")["seat"] is None
        player = server.client()
        player.hello("ana", server.tokens["ana"])
        player.play()
        seen = []
        while (frame := watcher.receive())["type"] in ("news", "table", "clock"):
            if frame["type"] == "news":
                seen.append(frame["event"])
        assert frame["type"] == "end"
        assert server.finish() == 0
    assert seen == server.verified()


def test_a_missed_deadline_is_a_recorded_timeout_and_the_fight_goes_on(tmp_path: Path) -> None:
    """No answer within --deadline: DecisionFailed (timeout), the seat is told, play goes on."""
    with Server(tmp_path, "--seat", "ana", "--deadline", "2") as server:
        client = server.client()
        client.hello("ana", server.tokens["ana"])
        first = client.next("priority")  # and say nothing
        told = client.next("error")
        assert told == {
            "type": "error",
            "reason": f"no decision for seq {first['seq']} within 2 s: recorded as a timeout",
            "fatal": False,
        }
        client.decide(first, 0)  # too late: refused, changes nothing
        client.play()
        assert client.errors == [f"no decision is awaited from 'ana' at seq {first['seq']}"]
        assert server.finish() == 0
    events = server.verified()
    failed = events_of(events, "DecisionFailed")
    assert [(e["who"], e["kind"], e["cause"]) for e in failed] == [("ana", "timeout", first["seq"])]


KILLABLE = textwrap.dedent(
    """
    import json, socket, sys
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    sock.sendall(json.dumps({"type": "hello", "version": 1, "seat": "ana",
                             "token": sys.argv[2]}).encode() + b"\\n")
    for line in sock.makefile("rb"):
        frame = json.loads(line)
        if frame["type"] == "priority":
            print(frame["seq"], flush=True)  # then wait to be killed, holding priority
    """
)


def test_a_seat_killed_holding_priority_has_its_grace(tmp_path: Path) -> None:
    """Kill the client holding priority: everyone hears of the grace; back inside it, the same
    decision is asked again (no fault). Gone past it: a recorded failure, and play goes on."""
    script = tmp_path / "client.py"
    script.write_text(KILLABLE)
    with Server(tmp_path, "--seat", "ana", "--grace", "5", "--spectators", "all") as server:
        watcher = server.client()
        watcher.hello(None, server.spectator_token, "spectator")
        token = server.tokens["ana"]
        child = subprocess.Popen(
            [sys.executable, str(script), str(server.port), token],
            stdout=subprocess.PIPE,
            text=True,
        )
        held = int(child.stdout.readline())
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        grace = watcher.next("grace")
        assert grace == {"type": "grace", "seat": "ana", "who": "ana",
                         "remaining": grace["remaining"], "name": "ana"}  # fmt: skip
        assert 0 < grace["remaining"] <= 5
        again = retake(server, "ana")
        same = again.next("priority")
        assert same["seq"] == held  # the same decision, with what is left of its deadline
        assert 0 < same["deadline"] <= 60
        again.decide(same, len(same["offers"]) - 1)
        # Now vanish (a reset) holding the next priority, and stay away past the grace.
        left = again.next("priority")
        again.reset()
        assert watcher.next("grace")["remaining"] <= 5
        while (news := watcher.next("news")["event"])["type"] != "DecisionFailed":
            assert news["seq"] <= left["seq"]
        assert (news["who"], news["cause"]) == ("ana", left["seq"])
        retake(server, "ana").play()
        assert server.finish() == 0
    events = server.verified()
    failed = events_of(events, "DecisionFailed")
    assert [(e["who"], e["kind"], e["cause"]) for e in failed] == [("ana", "error", left["seq"])]
    assert "dropped and did not come back within 5 s" in failed[0]["detail"]
    assert "seat left" in server.err and "Traceback" not in server.err


def test_with_no_grace_a_drop_is_a_fault_at_once(tmp_path: Path) -> None:
    """``--grace 0``: the drop of a seat holding priority is a recorded failure at once."""
    with Server(tmp_path, "--seat", "ana", "--grace", "0", "--spectators", "all") as server:
        watcher = server.client()
        watcher.hello(None, server.spectator_token, "spectator")
        client = server.client()
        client.hello("ana", server.tokens["ana"])
        held = client.next("priority")
        client.reset()
        while watcher.next("news")["event"]["type"] != "DecisionFailed":
            pass
        again = retake(server, "ana")
        later = again.next("priority")
        assert later["seq"] > held["seq"]
        again.decide(later, len(later["offers"]) - 1)
        again.play()
        assert server.finish() == 0
    failed = events_of(server.verified(), "DecisionFailed")
    assert [(e["who"], e["kind"], e["cause"]) for e in failed] == [("ana", "error", held["seq"])]
    assert "the connection to seat 'ana' dropped (" in failed[0]["detail"]


def retake(server: Server, seat: str) -> Client:
    """Take ``seat`` again with its token (taking it over from a connection not yet gone)."""
    client = server.client()
    answer = client.hello(seat, server.tokens[seat])
    assert answer["type"] == "welcome", answer
    return client


def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    """An unknown seat, or no seat at all: one clear line, exit 2, no traceback."""
    enc = tmp_path / "duel.toml"
    enc.write_text(ENCOUNTER)
    for args, message in [
        ([str(enc), "--seat", "zed"], "--seat zed: no combatant or side 'zed' in the encounter"),
        ([str(enc)], "name at least one --seat"),
        ([str(enc), "--seat", "south", "--seat", "bo"],
         "--seat bo: 'bo' already sits in seat 'south'"),
        (["--seat", "ana"], "give either the ENCOUNTER file or --resume LOG"),
        ([str(enc), "--resume", str(enc), "--seat", "ana"],
         "give either the ENCOUNTER file or --resume LOG"),
    ]:  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "initiative", "serve", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
        assert "Traceback" not in done.stderr


def test_the_bot_in_the_protocol_docs_plays_a_seat(tmp_path: Path) -> None:
    """The standard-library client printed in docs/protocol.md plays a whole fight."""
    doc = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    assert "import socket" in code and "import json" in code
    bot = tmp_path / "bot.py"
    bot.write_text(code)
    with Server(tmp_path, "--seat", "south") as server:
        done = subprocess.run(
            [sys.executable, str(bot), "127.0.0.1", str(server.port), "south",
             server.tokens["south"]],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert server.finish() == 0
    events = server.verified()
    assert done.stdout == f"winner: {events[-1]['winner']}\n"
    imports = {line.split()[1] for line in code.splitlines() if line.startswith("import ")}
    assert imports == {"json", "socket", "sys"}
