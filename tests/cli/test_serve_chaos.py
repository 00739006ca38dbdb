"""A served fight outlives its clients: spectators and seats vanish at random (seeded) points,
by TCP reset, half-close, a frame cut in the middle, on the line protocol and the WebSocket,
and real ``join`` processes are killed; the fight goes on, finishes, and its log verifies."""

from __future__ import annotations

import base64
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from serve_support import STURDY, Client, Server, events_of, first_attack, reset

DROPS_PER_SEAT = 6


def hello(server: Server) -> bytes:
    """A spectator's hello, with the spectators' token."""
    frame = {"type": "hello", "version": 1, "role": "spectator", "token": server.spectator_token}
    return json.dumps(frame).encode() + b"\n"


def raw(server: Server, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket()
    if rcvbuf is not None:  # a small window, so the server's sends stall mid-write
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(30)
    sock.connect(("127.0.0.1", server.port))
    return sock


def websocket(server: Server) -> socket.socket:
    """A WebSocket to ``/ws``, opened by hand (the upgrade, then a masked hello)."""
    sock = raw(server)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    mask = os.urandom(4)
    payload = hello(server).strip()
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    return sock


def reset_at_once(server: Server, rng: random.Random) -> None:
    reset(raw(server))


def reset_mid_read(server: Server, rng: random.Random) -> None:
    """Hello, read part of the stream (cutting a frame), reset."""
    sock = raw(server)
    sock.sendall(hello(server))
    sock.recv(rng.randint(1, 3000))
    reset(sock)


def reset_mid_hello(server: Server, rng: random.Random) -> None:
    """Half a hello, then a reset."""
    sock = raw(server)
    sock.sendall(hello(server)[: rng.randint(1, len(hello(server)) - 2)])
    reset(sock)


def reset_mid_write(server: Server, rng: random.Random) -> None:
    """Hello, read nothing through a tiny window (the server's send stalls), then reset."""
    sock = raw(server, rcvbuf=1024)
    sock.sendall(hello(server))
    threading.Event().wait(rng.uniform(0.02, 0.1))
    reset(sock)


def half_close(server: Server, rng: random.Random) -> None:
    """Hello, close the sending half, read a little, then go (unread news: a reset)."""
    sock = raw(server)
    sock.sendall(hello(server))
    sock.shutdown(socket.SHUT_WR)
    sock.recv(rng.randint(1, 500))
    sock.close()


def websocket_reset(server: Server, rng: random.Random) -> None:
    """A browser's WebSocket that vanishes mid-message."""
    sock = websocket(server)
    sock.recv(rng.randint(1, 2000))
    reset(sock)


def websocket_half_request(server: Server, rng: random.Random) -> None:
    sock = raw(server)
    sock.sendall(b"GET /ws HTTP/1.1\r\nUpgrade: websoc")
    reset(sock)


def killed_join(server: Server, rng: random.Random) -> None:
    """A real ``join --watch`` process, killed (SIGKILL) once it is narrating."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "initiative",
            "join",
            f"127.0.0.1:{server.port}",
            "--watch",
            "--token",
            server.spectator_token,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]


SPECTATORS: list[Callable[[Server, random.Random], None]] = [
    reset_at_once,
    reset_mid_read,
    reset_mid_hello,
    reset_mid_write,
    half_close,
    websocket_reset,
    websocket_half_request,
]


def retake(server: Server, seat: str) -> Client:
    """Take ``seat`` again with its token (taking it over from a connection not yet gone)."""
    client = server.client()
    answer = client.hello(seat, server.tokens[seat])
    assert answer["type"] == "welcome", answer
    return client


def vanish(client: Client, how: str) -> None:
    if how == "reset":
        client.reset()
    elif how == "mid-frame":
        client.sock.sendall(b'{"type": "decision", "who": ')
        client.reset()
    else:  # half-close: a seat that hangs up has left
        client.sock.shutdown(socket.SHUT_WR)
        client.close()


class Seat:
    """A player that attacks at the pace it is given, vanishing at random points meanwhile."""

    def __init__(self, server: Server, name: str, seed: int, turns: threading.Semaphore,
                 fight: threading.Event) -> None:  # fmt: skip
        self.server, self.name, self.rng = server, name, random.Random(seed)
        self.turns, self.fight = turns, fight
        self.drops = 0
        self.kept = 0
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            self.play()
        except BaseException as exc:  # reported by the test
            self.failure = exc

    def play(self) -> None:
        client = retake(self.server, self.name)
        held: int | None = None
        while True:
            frame = client.next("priority", "end", "error")
            if frame["type"] == "end":
                client.close()
                return
            assert frame["type"] == "priority", frame
            # Written ahead: the log on disk holds this grant, and so every decision before it.
            assert self.server.logged() > frame["seq"]
            if held is not None:
                assert frame["seq"] == held, "a drop inside the grace keeps the same decision"
                self.kept += 1
                held = None
            if self.drops < DROPS_PER_SEAT and (self.fight.is_set() or self.rng.random() < 0.5):
                self.drops += 1
                vanish(client, self.rng.choice(["reset", "mid-frame", "half-close"]))
                held = frame["seq"]
                client = retake(self.server, self.name)
                if self.rng.random() < 0.3:  # and again, in the middle of the replayed news
                    client.reset()
                    client = retake(self.server, self.name)
                continue
            self.turns.acquire()
            client.decide(frame, first_attack(frame))


@pytest.mark.slow
def test_a_fight_outlives_thirty_abrupt_disconnects(tmp_path: Path) -> None:
    """Spectators and seats vanish in every rude way at seeded random points; no drop is
    noticed in the fight (each seat comes back inside its grace), which finishes and verifies."""
    rng = random.Random(22)
    args = ["--seat", "ana", "--seat", "south", "--grace", "20"]
    with Server(tmp_path, *args, encounter=STURDY) as server:
        turns, fight = threading.Semaphore(0), threading.Event()
        seats = [Seat(server, name, n, turns, fight) for n, name in enumerate(["ana", "south"])]
        threads = [threading.Thread(target=seat.run, daemon=True) for seat in seats]
        for thread in threads:
            thread.start()
        ways = [rng.choice(SPECTATORS) for _ in range(20)] + [killed_join] * 3
        rng.shuffle(ways)
        for way in ways:
            turns.release(rng.randint(1, 3))  # the fight moves on between disconnects
            way(server, rng)
        fight.set()
        turns.release(10_000)
        for thread in threads:
            thread.join(120)
        for seat in seats:
            assert seat.failure is None, seat.failure
        assert server.finish() == 0
    events = server.verified()
    drops = sum(seat.drops for seat in seats)
    assert drops == 2 * DROPS_PER_SEAT and len(ways) + drops >= 30
    assert sum(seat.kept for seat in seats) == drops
    assert events_of(events, "DecisionFailed") == []
    assert events[-1]["type"] == "EncounterEnded" and events[-1]["winner"]
    assert "Traceback" not in server.err
    lost = [line for line in server.err.splitlines() if "connection lost" in line]
    assert len(lost) >= 10, server.err
