"""``join``: a terminal seat. Narrates the news, shows each priority, reads a numbered choice.

The client is plain blocking sockets, one frame per line, as ``docs/protocol.md`` describes; the
screen is the ``human`` policy's (names, not ids; offers in plain words; who is in reach and who
threatens whom), built from the encounter the news stream opens with. :func:`render_priority`
is the plain fallback for a frame that arrives before it.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any, BinaryIO

import msgspec

from initiative.actors import Names, screen
from initiative.engine import View
from initiative.events import EncounterStarted, InitiativeError, decode_event, visible
from initiative.replays import Narrator

from ._wire import PROTOCOL_VERSION


def describe(action: dict[str, Any]) -> str:
    fields = [
        f"{k}={json.dumps(v)}"
        for k, v in action.items()
        if k != "type" and v not in (None, "", [], {})
    ]
    return visible(" ".join([str(action.get("type")), *fields]))


def render_priority(frame: dict[str, Any]) -> str:
    """The screen for one priority frame: who, the state around it, the numbered offers."""
    view = frame["view"]
    lines = [
        f"-- {visible(frame['who'])}: round {view['round']}, {visible(frame['window']['kind'])}"
        f" (answer within {frame['deadline']:g} s)"
    ]
    for role, c in (
        [("me", view["me"])]
        + [("ally", a) for a in view["allies"]]
        + [("enemy", e) for e in view["enemies"]]
    ):
        lines.append(
            f"   {role:5} {visible(c['id']):12} hp {c['hp']}/{c['max_hp']}  ap {c['ap']}"
            f"  at {visible(c['position'])}"
        )
    for i, offer in enumerate(frame["offers"], 1):
        cost = f" ({offer['cost']} AP)" if offer["cost"] else ""
        lines.append(f"  {i}. {describe(offer['action'])}{cost}")
    return "\n".join(lines)


NEWS_PREFIX = b'{"type":"news","event":'


def log_line(frame: bytes) -> bytes:
    """The log line a news frame carries, byte for byte (the frame wraps it unchanged)."""
    frame = frame.rstrip(b"\r\n")
    if not (frame.startswith(NEWS_PREFIX) and frame.endswith(b"}")):
        raise InitiativeError("the server sent a news frame this client cannot read")
    return frame[len(NEWS_PREFIX) : -1] + b"\n"


def parse_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InitiativeError(f"{text!r}: expected HOST:PORT, e.g. 127.0.0.1:7000")
    return host.strip("[]"), int(port)


def join(
    address: str,
    seat: str | None,
    token: str | None,
    *,
    say: Callable[[str, bool], None],
    ask: Callable[[str], str],
    copy: BinaryIO | None = None,
) -> str | None:
    """Play ``seat`` until the end (or watch, without a seat); returns the winner.

    ``say(text, markup)`` prints a line, ``ask(prompt)`` reads one (``EOFError`` leaves the
    fight); ``copy`` receives every log line as it arrives.
    """
    host, port = parse_address(address)
    try:
        sock = socket.create_connection((host, port), timeout=10)
    except OSError as err:
        raise InitiativeError(f"cannot connect to {address}: {err.strerror or err}") from None
    sock.settimeout(None)
    narrate = Narrator()
    names: Names | None = None
    with sock, sock.makefile("rb") as frames:
        hello: dict[str, Any] = {"type": "hello", "version": PROTOCOL_VERSION}
        if seat is not None:
            hello.update(seat=seat, token=token)
        sock.sendall(json.dumps(hello).encode() + b"\n")
        for line in frames:
            frame = json.loads(line)
            kind = frame.get("type")
            if kind == "welcome" and frame["seat"] is None:
                say(f"watching {visible(frame['encounter'])}", False)
            elif kind == "welcome":
                say(
                    f"seated as {visible(', '.join(frame['combatants']))} in {visible(frame['encounter'])}",
                    False,
                )
            elif kind == "news":
                event_line = log_line(line)
                if copy is not None:
                    copy.write(event_line)
                    copy.flush()
                event = decode_event(event_line)
                if isinstance(event, EncounterStarted):
                    names = Names(event.encounter)
                text = narrate(event)
                if text is not None:
                    say(text, True)
            elif kind == "priority":
                say(_screen(frame, names), False)
                choice = _choose(len(frame["offers"]), ask)
                decision = {
                    "type": "decision",
                    "who": frame["who"],
                    "seq": frame["seq"],
                    "offer": choice,
                }
                sock.sendall(json.dumps(decision).encode() + b"\n")
            elif kind == "error":
                if frame.get("fatal"):
                    raise InitiativeError(f"the server refused: {visible(frame['reason'])}")
                say(f"server: {visible(frame['reason'])}", False)
            elif kind == "end":
                winner = frame.get("winner")
                return None if winner is None else str(winner)
    raise InitiativeError("the server closed the connection before the end of the fight")


def _screen(frame: dict[str, Any], names: Names | None) -> str:
    """The human policy's screen for a priority frame, or the plain one without the encounter."""
    if names is None:
        return render_priority(frame)
    try:
        view = msgspec.convert(frame["view"], View)
    except msgspec.ValidationError:
        return render_priority(frame)
    head = f"-- round {view.round}: answer within {frame['deadline']:g} s"
    body = screen(view, names).splitlines()
    offers = len(view.legal)
    # The numbered offers are the last lines; indent them like the plain screen does.
    shown = body[: len(body) - offers] + [f"  {line}" for line in body[len(body) - offers :]]
    return "\n".join([head, *shown])


def _choose(count: int, ask: Callable[[str], str]) -> int:
    while True:
        answer = ask(f"choose 1-{count}: ").strip()
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
