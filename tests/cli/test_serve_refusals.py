"""Only the right people get in: every refusal is logged with its reason, and the fight and its
log go on as if the intruder had never knocked (the log verifies, the seat records no fault)."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
from serve_support import Server, events_of

pytestmark = pytest.mark.slow  # each test starts a real server process


def frames_of(sock: socket.socket) -> list[dict]:
    """Every frame the server sends before it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return [json.loads(line) for line in data.splitlines()]


def raw(server: Server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    server.sockets.append(sock)
    return sock


@pytest.fixture
def server(tmp_path: Path):
    with Server(
        tmp_path,
        "--seat", "ana", "--seat", "south",
        "--hello-timeout", "1", "--max-frame", "2048", "--max-connections", "6",
    ) as running:  # fmt: skip
        running.sockets = []
        yield running
        for sock in running.sockets:
            sock.close()


def hello(seat: str | None, token: str | None, role: str | None = None) -> bytes:
    return (
        json.dumps(
            {"type": "hello", "version": 1, "seat": seat, "token": token, "role": role}
        ).encode()
        + b"\n"
    )


def test_every_refusal_leaves_the_fight_and_log_untouched(server: Server) -> None:
    """Wrong, missing and other seats' tokens, a seat taken over, a stale or foreign decision,
    malformed and oversized frames, a slow hello, a flood: each refused with its reason."""
    ana = server.client()
    assert ana.hello("ana", server.tokens["ana"])["type"] == "welcome"
    south = server.client()
    assert south.hello("south", server.tokens["south"])["type"] == "welcome"
    thread = threading.Thread(target=south.play, daemon=True)
    thread.start()
    intruders = {
        "wrong token": (hello("ana", "x" * 22), "wrong or missing token for seat 'ana'"),
        "missing token": (hello("ana", None), "wrong or missing token for seat 'ana'"),
        "other seat's token": (
            hello("ana", server.tokens["south"]),
            "wrong or missing token for seat 'ana'",
        ),
        "unknown seat": (hello("zed", "x"), "no seat 'zed'"),
        "malformed": (b"{not json\n", "malformed frame: "),
        "not a hello": (
            b'{"type": "decision", "who": "ana", "seq": 1, "offer": 0}\n',
            "the first frame must be a hello",
        ),
        "old protocol": (
            b'{"type": "hello", "version": 0}\n',
            "protocol version 0 is not spoken here (this server speaks 1)",
        ),
        "oversized": (b'{"type": "hello", "seat": "' + b"a" * 4000, "frame longer than 2048 bytes"),
    }
    for what, (payload, reason) in intruders.items():
        sock = raw(server)
        sock.sendall(payload)
        answer = frames_of(sock)
        assert len(answer) == 1 and answer[0]["fatal"] is True, what
        assert answer[0]["reason"].startswith(reason), (what, answer)
    # One byte at a time, too slowly: cut off when the hello is not whole in time.
    slow = raw(server)
    started = time.monotonic()
    for byte in hello("ana", server.tokens["ana"])[:4]:
        slow.sendall(bytes([byte]))
        time.sleep(0.3)
    assert frames_of(slow) == [{"type": "error", "reason": "no hello in time", "fatal": True}]
    assert time.monotonic() - started < 5
    # Greeted, then one byte and nothing more: cut off once the frame is late.
    dawdler = raw(server)
    dawdler.sendall(hello(None, server.spectator_token, "spectator") + b"{")
    late = frames_of(dawdler)
    assert late[0]["type"] == "welcome" and late[-1] == {
        "type": "error",
        "reason": "a frame took longer than 1 s",
        "fatal": True,
    }
    # A spectator that keeps sending: each frame refused, then cut off.
    chatty = raw(server)
    chatty.sendall(
        hello(None, server.spectator_token, "spectator") + b'{"type": "hello", "version": 1}\n' * 9
    )
    chat = frames_of(chatty)
    assert chat[0]["type"] == "welcome"
    assert chat[-1] == {"type": "error", "reason": "more than 8 refused frames", "fatal": True}
    # A flood: idle connections up to the bound, then refused at once.
    idle = [raw(server) for _ in range(4)]
    refused = frames_of(raw(server))
    assert refused == [{"type": "error", "reason": "too many connections", "fatal": True}]
    for sock in idle:
        sock.close()
    # The seat's token again, from a new connection (a client back from a network blip whose
    # old connection the server has not seen go): it takes the seat over; the old one is told.
    newer = server.client()
    assert newer.hello("ana", server.tokens["ana"])["type"] == "welcome"
    assert ana.next("error") == {
        "type": "error",
        "reason": "seat 'ana' was taken over by a new connection",
        "fatal": True,
    }
    ana = newer
    # The seat's own connection: a decision for another seat's combatant, a stale one, garbage.
    first = ana.next("priority")
    ana.send({"type": "decision", "who": "bo", "seq": first["seq"], "offer": 0})
    ana.send({"type": "decision", "who": "ana", "seq": first["seq"] - 1, "offer": 0})
    ana.send({"type": "decision", "who": "ana", "seq": first["seq"], "offer": 99})
    ana.sock.sendall(b"[1, 2]\n")
    ana.decide(first, len(first["offers"]) - 1)
    ana_refused = [ana.next("error")["reason"] for _ in range(4)]
    assert ana_refused[0] == "'bo' is not played from seat 'ana'"
    assert ana_refused[1] == f"no decision is awaited from 'ana' at seq {first['seq'] - 1}"
    assert ana_refused[2] == f"no offer 99 (there are {len(first['offers'])})"
    assert ana_refused[3].startswith("malformed frame: ")
    ana.play()
    thread.join(30)
    assert server.finish() == 0
    events = server.verified()
    assert events_of(events, "DecisionFailed") == events_of(events, "ActionRejected") == []
    log = [json.loads(line) for line in server.err.splitlines() if line.startswith("{")]
    reasons = {entry.get("reason", "") for entry in log}
    for _, reason in intruders.values():
        assert any(r.startswith(reason) for r in reasons), reason
    assert {
        "no hello in time",
        "too many connections",
        "a frame took longer than 1 s",
        "already greeted: a second hello is refused",
        "more than 8 refused frames",
        "seat 'ana' was taken over by a new connection",
    } <= reasons
    for token in server.tokens.values():
        assert token not in server.err and token not in server.log.read_text()


def test_an_action_off_the_offers_goes_to_the_rules(server: Server) -> None:
    """An action object not among the offers is judged by the rules: rejected, asked again."""
    ana = server.client()
    ana.hello("ana", server.tokens["ana"])
    south = server.client()
    south.hello("south", server.tokens["south"])
    thread = threading.Thread(target=south.play, daemon=True)
    thread.start()
    first = ana.next("priority")
    bogus = {"type": "Attack", "target": "nobody", "weapon": "sword"}
    ana.send({"type": "decision", "who": "ana", "seq": first["seq"], "action": bogus})
    again = ana.next("priority")
    assert again["who"] == "ana" and again["seq"] > first["seq"]
    ana.decide(again, len(again["offers"]) - 1)
    ana.play()
    thread.join(30)
    assert server.finish() == 0
    events = server.verified()
    rejected = events_of(events, "ActionRejected")
    assert [(e["who"], e["action"]["target"], e["cause"]) for e in rejected] == [
        ("ana", "nobody", first["seq"])
    ]
