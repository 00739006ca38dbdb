"""A real ``initiative serve`` process on a loopback port, and a seat client made of ``socket``
and ``json`` alone, written from ``docs/protocol.md`` as a bot in another language would be."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from initiative.events import read_log
from initiative.replays import verify_log

#: Two duellists and a dog: small enough to end in a few rounds, with a side of two.
ENCOUNTER = """\
ruleset = "openings"
name = "Yard duel"
seed = 5
decision_timeout = 5.0

[[combatants]]
id = "ana"
side = "north"
hp = 14
position = [0, 0]
stats = { agility = 4, strength = 4, defense = 2 }
weapons = [{ name = "sword", damage = "1d6+2", reach = 1.5 }]
policy = "aggressive"

[[combatants]]
id = "bo"
side = "south"
hp = 10
position = [1, 0]
stats = { agility = 3, strength = 4, defense = 2 }
weapons = [{ name = "axe", damage = "1d6+2", reach = 1.5 }]
policy = "aggressive"

[[combatants]]
id = "cur"
side = "south"
hp = 4
position = [0, 1]
stats = { agility = 5, strength = 2, defense = 1 }
weapons = [{ name = "bite", damage = "1d4", natural = true }]
policy = "aggressive"
"""

#: The duel, with hit points enough for what a test does to land in the middle of it.
STURDY = (
    ENCOUNTER.replace("hp = 14", "hp = 90")
    .replace("hp = 10", "hp = 60")
    .replace("hp = 4", "hp = 30")
)


class Server:
    """``initiative serve`` in a child process; the seats' tokens and the port it printed.

    ``command``: the whole command line instead (``initiative ...`` as ``serve`` printed it, to
    go on with a fight); its output goes to files named after ``name``."""

    def __init__(
        self,
        tmp: Path,
        *args: str,
        timeout: float = 60,
        command: list[str] | None = None,
        name: str = "serve",
        encounter: str = ENCOUNTER,
    ) -> None:
        self.tmp = tmp
        self.encounter = tmp / "duel.toml"
        self.encounter.write_text(encounter)
        self.log = tmp / "served.jsonl"
        self.stdout = tmp / f"{name}.out"
        self.stderr = tmp / f"{name}.err"
        self.clients: list[Client] = []
        if command is None:
            argv = ["serve", str(self.encounter), "--out", str(self.log), "-q", *args]
        else:
            assert command[0] == "initiative", command
            argv = command[1:]
        with self.stdout.open("wb") as out, self.stderr.open("wb") as err:
            self.proc = subprocess.Popen(
                # Its refusals as JSON lines on stderr, despite -q.
                [sys.executable, "-m", "initiative", "--log-json", *argv],
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "COLUMNS": "200"},
            )
        deadline = time.monotonic() + timeout
        while "waiting for every seat" not in self.out and "the fight begins" not in self.out:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"serve did not start:\n{self.out}\n{self.err}")
            time.sleep(0.05)
        self.port = int(re.search(r"listening on \S+:(\d+)", self.out).group(1))
        self.tokens = dict(re.findall(r"^seat (\S+) \(.*\): token (\S+)$", self.out, re.M))
        self.gm_token = re.search(r"^gm: token (\S+)$", self.out, re.M).group(1)
        self.spectator_token = re.search(r"^spectators: token (\S+)$", self.out, re.M).group(1)

    @property
    def out(self) -> str:
        return self.stdout.read_text()

    @property
    def err(self) -> str:
        return self.stderr.read_text()

    def client(self) -> Client:
        """A new standard-library client, closed when the server is."""
        client = Client(self.port)
        self.clients.append(client)
        return client

    def url(self, seat: str) -> str:
        return f"http://127.0.0.1:{self.port}/seat/{seat}#token={self.tokens[seat]}"

    def https_url(self, seat: str) -> str:
        """The browser link of a server started with ``--tls``."""
        return f"https://127.0.0.1:{self.port}/seat/{seat}#token={self.tokens[seat]}"

    def finish(self, timeout: float = 60) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def interrupt(self, timeout: float = 60) -> int:
        """Ctrl-C, as a terminal sends it (SIGINT); the exit status."""
        self.proc.send_signal(signal.SIGINT)
        return self.finish(timeout)

    def go_on(self) -> list[str]:
        """The command ``serve`` printed to go on with the fight (as a list of arguments)."""
        found = re.search(r"^if the server stops, go on with: (.*)$", self.out, re.M)
        assert found, self.out
        return shlex.split(found.group(1))

    def logged(self) -> int:
        """Complete lines on disk in the log now."""
        return self.log.read_bytes().count(b"\n")

    def verified(self) -> list[dict[str, Any]]:
        """The log's events (as plain objects), after checking that it verifies."""
        contents = read_log(self.log)
        result = verify_log(contents)
        assert result.ok, result
        return [json.loads(line) for line in self.log.read_bytes().splitlines()]

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self.clients:
            client.close()
        self.kill()


class Served:
    """``initiative serve`` of an example file with its ``seats``, in a child process that
    prints its links (the pages' tests: :class:`Server` reads tokens and the port instead)."""

    def __init__(self, tmp: Path, example: Path, *seats: str, deadline: int = 60) -> None:
        self.log = tmp / "served.jsonl"
        self.output = tmp / "serve.out"
        seated = [arg for seat in seats for arg in ("--seat", seat)]
        with self.output.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "initiative", "serve", str(example), *seated,
                 "--out", str(self.log), "--deadline", str(deadline), "-q"],
                stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            )  # fmt: skip

    def wait(self) -> None:
        """Until it listens; then its links, by page."""
        deadline = time.monotonic() + 60
        while "waiting for every seat" not in self.output.read_text():
            assert self.proc.poll() is None and time.monotonic() < deadline, self.output.read_text()
            time.sleep(0.05)
        text = self.output.read_text()
        self.links = dict(re.findall(r"browser:  (http://\S+/(gm|watch|seat/\S+)#token=\S+)", text))
        self.links = {kind: link for link, kind in self.links.items()}

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Client:
    """A seat client with ``socket`` and ``json`` only."""

    def __init__(self, port: int, timeout: float = 30) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.file = self.sock.makefile("rb")
        self.errors: list[str] = []

    def send(self, frame: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(frame).encode() + b"\n")

    def hello(self, seat: str | None, token: str | None, role: str | None = None) -> dict[str, Any]:
        frame: dict[str, Any] = {"type": "hello", "version": 1}
        if seat is not None:
            frame["seat"] = seat
        if role is not None:
            frame["role"] = role
        if token is not None:
            frame["token"] = token
        self.send(frame)
        return self.receive()

    def receive(self) -> dict[str, Any]:
        line = self.file.readline()
        if not line:
            raise EOFError("the server closed the connection")
        return json.loads(line)

    def next(self, *types: str) -> dict[str, Any]:
        """The next frame of one of ``types`` (news in between is skipped)."""
        while True:
            frame = self.receive()
            if frame["type"] in types:
                return frame

    def decide(self, frame: dict[str, Any], offer: int) -> None:
        self.send({"type": "decision", "who": frame["who"], "seq": frame["seq"], "offer": offer})

    def play(self, choose: Callable[[dict[str, Any]], int] | None = None) -> dict[str, Any]:
        """Answer every priority until the end; returns the end frame. Errors are kept."""
        while True:
            frame = self.next("priority", "end", "error")
            if frame["type"] == "error":
                self.errors.append(frame["reason"])
                continue
            if frame["type"] == "end":
                return frame
            self.decide(frame, (choose or first_attack)(frame))

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def reset(self) -> None:
        """Vanish abruptly: close with a TCP reset (``SO_LINGER`` 0), not a polite FIN."""
        reset(self.sock)
        self.file.close()


def reset(sock: socket.socket) -> None:
    """Close ``sock`` with a TCP reset."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def first_attack(frame: dict[str, Any]) -> int:
    """The first Attack on offer, else the closing EndTurn or Pass (always the last offer)."""
    for i, offer in enumerate(frame["offers"]):
        if offer["action"]["type"] == "Attack":
            return i
    return len(frame["offers"]) - 1


def events_of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


OPENSSL = shutil.which("openssl")


def certificate(folder: Path, name: str = "localhost") -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and 127.0.0.1 (valid for two days) and its
    private key, made by the ``openssl`` command as a game master would: ``(cert, key)``."""
    assert OPENSSL is not None
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-days", "2", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert),
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key
