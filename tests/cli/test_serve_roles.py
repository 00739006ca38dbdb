"""Roles on the wire: the GM and spectators with their tokens, and what a seat may see.

Raw socket clients (``socket`` and ``json`` only) against a real ``serve``: by default a seat's
frames never carry an enemy's hit points or AP (no raw news, ``null`` in its views and tables);
with ``reveal = "all"`` they do; the GM and spectators get every log line byte for byte."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from serve_support import ENCOUNTER, Client, Server

pytestmark = pytest.mark.slow  # each test starts a real server process

ENEMIES = {"bo", "cur"}  # ana's, in the duel


def hidden_values(frame: Any, enemies: set[str] = ENEMIES) -> list[str]:
    """Where ``frame`` holds an enemy's hit points or AP (a path for each)."""
    found: list[str] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            if value.get("id") in enemies:
                found.extend(
                    f"{path}.{key}" for key in ("hp", "max_hp", "ap") if value.get(key) is not None
                )
            for key, item in value.items():
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")

    walk(frame, frame.get("type", "?") if isinstance(frame, dict) else "?")
    return found


def raw_frames(client: Client) -> list[dict[str, Any]]:
    """Play ``client``'s seat to the end (the first attack each time), keeping every frame."""
    frames = []
    while True:
        frame = client.receive()
        frames.append(frame)
        if frame["type"] == "end":
            return frames
        if frame["type"] == "priority":
            offers = frame["offers"]
            attacks = [i for i, o in enumerate(offers) if o["action"]["type"] == "Attack"]
            client.decide(frame, attacks[0] if attacks else len(offers) - 1)


def until_end(client: Client) -> list[dict[str, Any]]:
    """Every frame ``client`` gets, to the end frame."""
    frames = [client.receive()]
    while frames[-1]["type"] != "end":
        frames.append(client.receive())
    return frames


def refused(port: int, hello: dict[str, Any]) -> str:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        sock.sendall(json.dumps({"type": "hello", "version": 1, **hello}).encode() + b"\n")
        answer = json.loads(sock.makefile("rb").readline())
    finally:
        sock.close()
    assert answer["type"] == "error" and answer["fatal"], answer
    return str(answer["reason"])


def test_roles_tokens_and_a_seat_that_sees_no_hidden_number(tmp_path: Path) -> None:
    """Without ``reveal``, the seat hears no news and sees enemies' numbers as null, as does a
    spectator (by default it sees what the seats see), while the GM gets the log line for line;
    each role needs its own token."""
    with Server(tmp_path, "--seat", "ana") as server:
        port = server.port
        assert refused(port, {}).startswith("a hello names a seat")
        assert refused(port, {"role": "spectator", "token": server.gm_token}) == (
            "spectators need the spectator token (printed by serve)"
        )
        assert refused(port, {"role": "gm", "token": server.spectator_token}) == (
            "the GM needs the GM token (printed by serve)"
        )
        assert refused(port, {"role": "gm"}) == "the GM needs the GM token (printed by serve)"
        terminal = subprocess.Popen(
            [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{port}", "--gm",
             "--token", server.gm_token],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert terminal.stdout is not None
            first = terminal.stdout.readline()  # greeted before the fight starts
        except BaseException:
            terminal.kill()
            raise
        gm, watcher, seat = server.client(), server.client(), server.client()
        assert gm.hello(None, server.gm_token, "gm")["role"] == "gm"
        welcome = watcher.hello(None, server.spectator_token, "spectator")
        assert (welcome["role"], welcome["seat"], welcome["news"]) == ("spectator", None, False)
        welcome = seat.hello("ana", server.tokens["ana"])
        assert (welcome["role"], welcome["news"], welcome["reveal"]) == ("seat", False, "words")
        seen = raw_frames(seat)
        watched, ruled = until_end(watcher), until_end(gm)
        told, errors = terminal.communicate(timeout=60)
        assert terminal.returncode == 0, errors
        assert server.finish() == 0
        lines = server.log.read_bytes().splitlines()
    kinds = {f["type"] for f in seen}
    assert "news" not in kinds and {"priority", "table", "end"} <= kinds
    assert [path for f in seen for path in hidden_values(f)] == []
    # A spectator sees what the seat sees (serve --spectators all: everything).
    assert "news" not in {f["type"] for f in watched}
    assert [path for f in watched for path in hidden_values(f)] == []
    # `join --gm` narrates as the game master, to the end.
    assert first == "the GM of Yard duel (gm help lists commands)\n"
    assert re.search(r"^standing: .*$", told, re.M) and told.endswith(" won\n")
    # The seat still sees its enemies, in words, and its own numbers.
    table = next(f for f in reversed(seen) if f["type"] == "table")["state"]["combatants"]
    rows = {row["id"]: row for row in table}
    assert rows["ana"]["max_hp"] == 14 and rows["bo"]["health"] in {
        "unhurt", "hurt", "bloodied", "down"
    }  # fmt: skip
    views = [f["view"] for f in seen if f["type"] == "priority"]
    assert views and all(e["hp"] is None for v in views for e in v["enemies"])
    # The GM's news are the log's lines, byte for byte.
    news = [f["event"] for f in ruled if f["type"] == "news"]
    assert [json.dumps(e, separators=(",", ":")).encode() for e in news] == lines


def test_reveal_all_shows_a_seat_everything(tmp_path: Path) -> None:
    """``reveal = "all"`` in the encounter: the seat gets the news and every number."""
    encounter = 'reveal = "all"\n' + ENCOUNTER
    with Server(tmp_path, "--seat", "ana", encounter=encounter) as server:
        seat = server.client()
        welcome = seat.hello("ana", server.tokens["ana"])
        assert (welcome["news"], welcome["reveal"]) == (True, "all")
        seen = raw_frames(seat)
        assert server.finish() == 0
    events = server.verified()
    assert [f["event"] for f in seen if f["type"] == "news"] == events
    assert hidden_values(next(f for f in seen if f["type"] == "priority"))
    assert events[0]["encounter"]["reveal"] == "all"
