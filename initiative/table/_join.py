"""``join``: a terminal seat that never stops the clock.

The server and the keyboard are read at once (Trio tasks), so the screen follows the fight
while a person thinks: the deadline counts down on the prompt line, a prompt the server has
moved past (a recorded timeout, news that ends the window) is replaced by the new state, and a
server that goes away is noticed at once. The keyboard is waited on with
:func:`trio.lowlevel.wait_readable` and read with a plain ``os.read``: standard input is never
put in non-blocking mode, which on a terminal would also make standard output non-blocking
(trio issue #174); a file on standard input never blocks and is read directly.

The decision is drawn from the presentation the priority frame carries
(:func:`initiative.actors.render`), the words the ``human`` policy and the browser seat show;
the narration is the table's (:class:`~initiative.replays.TableNarrator`); the state between
decisions comes from the server's ``table`` frames. ``docs/protocol.md`` describes the frames.

With TLS (:func:`client_context`), the certificate is checked against the system's authorities,
or only against the file given (a self-signed certificate), and must name the host joined.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import ssl
import stat
import sys
import termios
import tty
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import h11
import msgspec
import trio

from initiative.actors import (
    MOVE_HELP,
    Known,
    Names,
    NotAMove,
    Presentation,
    Spot,
    StateTable,
    looks_like_move,
    move_frame,
    move_hint,
    present,
    render,
    typed_point,
)
from initiative.engine import View
from initiative.events import (
    CombatantSpec,
    EncounterStarted,
    InitiativeError,
    decode_event,
    visible,
)
from initiative.replays import TableNarrator

from ._gm import gm_said, gm_typed, is_gm
from ._gmterm import NOT_OVER, TABLE_HELP, GmAside, ReportRefused, fetch_report, report_file
from ._wire import PROTOCOL_VERSION

NEWS_PREFIX = b'{"type":"news","event":'

HELP = (
    """\
Type the number of an offer and press Enter, before the countdown ends.
  ?   this help        s   the decision again        Ctrl-C  leave the fight
A decision not made in time is recorded as a timeout and the fight goes on; the seat's token
lets you join again.
"""
    + MOVE_HELP
)


class ServerLost(InitiativeError):
    """The connection ended before the fight did (the server stopped, or the network)."""


class LeftFight(Exception):
    """The person left: the keyboard's input ended (Ctrl-D, a closed terminal)."""


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


def client_context(ca: str | Path | None = None) -> ssl.SSLContext:
    """A client's TLS context: the server's certificate checked against the system's
    authorities, or, with ``ca``, against that file only (PEM: a self-signed server
    certificate itself, or the authority that signed it)."""
    try:
        return ssl.create_default_context(cafile=None if ca is None else str(ca))
    except ssl.SSLError:
        raise InitiativeError(f"--ca {ca}: not a certificate in PEM format") from None
    except OSError as err:
        raise InitiativeError(f"--ca {ca}: cannot read: {err.strerror or err}") from None


def _handshake_failure(err: BaseException) -> str:
    """Why the TLS handshake with a server failed, and what to do about it."""
    cause = err.__cause__ if isinstance(err, trio.BrokenResourceError) else err
    if isinstance(cause, ssl.SSLCertVerificationError):
        return (
            f"its certificate is not trusted ({cause.verify_message}); for a self-signed"
            " certificate, give a copy of it with --ca FILE"
        )
    if isinstance(cause, ssl.SSLError) and cause.reason == "WRONG_VERSION_NUMBER":
        return "it does not speak TLS (was it started with serve --tls?)"
    if isinstance(cause, (ssl.SSLError, ConnectionError)) or cause is None:
        return "the connection closed during the TLS handshake (was it started with serve --tls?)"
    return str(cause)


def standings(table: StateTable) -> str:
    """The state table in one line: who stands (as this seat sees them), who is down, and who
    left the fight without falling (fled, or taken out by the GM)."""
    up = [f"{c.name} ({c.status()})" for c in table.combatants if c.standing]
    down = [c.name for c in table.combatants if not c.standing and c.health != "gone"]
    gone = [c.name for c in table.combatants if not c.standing and c.health == "gone"]
    text = "standing: " + (", ".join(up) or "no one")
    text += f"; down: {', '.join(down)}" if down else ""
    return text + (f"; left the fight: {', '.join(gone)}" if gone else "")


# -- the terminal ------------------------------------------------------------------------


class Screen:
    """Lines scroll above one live line at the bottom (the prompt with its countdown, or
    what the fight is waiting for), redrawn in place on a terminal. On anything else (a pipe,
    a file) a live line is written once, as a line, when it starts to say something new."""

    def __init__(
        self,
        say: Callable[[str, bool], None],
        out: TextIO | None = None,
        *,
        live: bool | None = None,
    ) -> None:
        self._say = say
        self.out = out or sys.stdout
        self.live = self.out.isatty() if live is None else live
        self.line = ""
        self.typed = ""
        self._drawn = 0
        self._written: object = None

    def say(self, text: str, markup: bool = False) -> None:
        """Print ``text`` above the live line."""
        self._erase()
        self._say(text, markup)
        self._draw()

    def status(self, line: str, *, quiet: bool = False, key: object = None) -> None:
        """Show ``line`` as the live line (and what has been typed after it). Off a terminal
        it is written when its ``key`` (what it is about; the line itself by default) changes,
        and a ``quiet`` line (what the fight is waiting for) not at all."""
        if self.live and line == self.line:
            return
        self.line = line
        key = line if key is None else key
        if self.live:
            self._erase()
            self._draw()
        elif line and key != self._written and not quiet:
            self._written = key
            self._say(line, False)

    def echo(self, typed: str) -> None:
        self.typed = typed
        if self.live:
            self._erase()
            self._draw()

    def close(self) -> None:
        self._erase()
        self.line = self.typed = ""

    def _erase(self) -> None:
        if self.live and self._drawn:
            self.out.write("\r" + " " * self._drawn + "\r")
            self.out.flush()
            self._drawn = 0

    def _draw(self) -> None:
        if not (self.live and (self.line or self.typed)):
            return
        width = max(shutil.get_terminal_size().columns - 1, 20)
        shown = (self.line + self.typed)[-width:]
        self.out.write(shown)
        self.out.flush()
        self._drawn = len(shown)


_ESCAPES = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?")


class Keyboard:
    """Standard input as typed lines, read without ever blocking the event loop.

    On a terminal it reads key by key (cbreak mode, restored on exit) and echoes through the
    :class:`Screen`, so a redrawn prompt keeps what was typed; elsewhere it reads lines."""

    def __init__(self, screen: Screen, fd: int = 0) -> None:
        self.screen = screen
        self.fd = fd
        mode = os.fstat(fd).st_mode
        self.tty = os.isatty(fd)
        self.pollable = self.tty or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        self._saved: list[Any] | None = None
        self._pending = b""
        self._keyed = ""
        """Keys read past the end of the last line (lines pasted, or typed ahead, at once)."""
        self.typed = ""

    def __enter__(self) -> Keyboard:
        if self.tty and self.screen.live:
            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd, termios.TCSANOW)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    async def _chunk(self) -> bytes:
        if self.pollable:
            await trio.lowlevel.wait_readable(self.fd)
        else:  # a file: a read never blocks
            await trio.lowlevel.checkpoint()
        try:
            return os.read(self.fd, 1024)
        except OSError:  # the terminal went away
            return b""

    async def line(self) -> str:
        """The next whole line typed; :class:`LeftFight` when the input ends."""
        while True:
            if self._saved is None:
                if b"\n" in self._pending:
                    line, _, self._pending = self._pending.partition(b"\n")
                    return line.decode(errors="replace").rstrip("\r")
                chunk = await self._chunk()
                if not chunk:
                    raise LeftFight("the input ended")
                self._pending += chunk
                continue
            if self._keyed:
                keys, self._keyed = self._keyed, ""
            else:
                chunk = await self._chunk()
                if not chunk:
                    raise LeftFight("the terminal closed")
                keys = _ESCAPES.sub("", chunk.decode(errors="replace"))
            done = self._keys(keys)
            self.screen.echo(self.typed)
            if done is not None:
                return done

    def _keys(self, keys: str) -> str | None:
        for at, key in enumerate(keys):
            if key in "\r\n":
                line, self.typed = self.typed, ""
                self._keyed = keys[at + 1 :]  # (the next lines, for the next call)
                return line
            if key in "\x7f\x08":
                self.typed = self.typed[:-1]
            elif key == "\x15":  # Ctrl-U
                self.typed = ""
            elif key == "\x04" and not self.typed:  # Ctrl-D on an empty line
                raise LeftFight("Ctrl-D")
            elif key.isprintable():
                self.typed += key
        return None


# -- the client --------------------------------------------------------------------------


@dataclass
class Asked:
    """The decision on screen."""

    frame: dict[str, Any]
    shown: Presentation
    until: float
    """``trio.current_time()`` when its deadline passes."""

    @property
    def seq(self) -> int:
        return int(self.frame["seq"])


@dataclass(frozen=True)
class Live:
    """What the live line says."""

    text: str
    changes: float | None = None
    """When it next changes by itself (a countdown's next second); ``None``: not by itself."""
    key: object = None
    """What it is about, when that outlives its text (a decision, whose countdown ticks)."""
    quiet: bool = False
    """Only what the fight is waiting for: not worth a line off a terminal."""


@dataclass(eq=False)
class Grace:
    """A dropped seat's time to come back, as the server announced it."""

    name: str
    until: float


class Client:
    """One ``join``: the connection, the screen, and what is being decided."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        screen: Screen,
        *,
        copy: BinaryIO | None = None,
        review_out: Path | None = None,
    ) -> None:
        self.stream = stream
        self.screen = screen
        self.copy = copy
        self.review_out = review_out
        """Where ``gm review`` saves the report (``None``: :func:`report_file`)."""
        self.address = ""
        self.tls: ssl.SSLContext | None = None
        self.token: str | None = None
        """Where the server is, and this connection's token (to fetch the review with)."""
        self.role: str | None = None
        self.encounter = ""
        self.stays = False
        """The GM stays after the end, to ask for the review (its hello said ``review``)."""
        self.done = False
        """Nothing more to hear: the end (or, for a GM who stayed, the review saved)."""
        self.aside = GmAside(
            say=lambda text: self.screen.say(text),
            order=lambda: [c.side for c in self.names.specs.values()] if self.names else [],
            name=lambda who: self.names(who) if self.names else visible(who),
        )
        """The GM's live odds and the review at the end (:mod:`._gmterm`)."""
        self.narrate = TableNarrator()
        self.names: Names | None = None
        self.table: StateTable | None = None
        self.asked: Asked | None = None
        self.grace: Grace | None = None
        self.winner: str | None = None
        self.ended = False
        self.changed = trio.Event()
        self.news = True
        """Whether the server sends this connection the log's lines (a seat of an encounter
        with hidden numbers gets only the table's words: ``reveal``)."""
        self.heard = 0
        """How many of the log's lines this client has heard of (its hello's ``since`` when it
        comes back after a lost connection)."""
        self.welcomed = False
        self.welcomed_again = False
        """Welcomed again since the connection was last lost (the back-off starts over)."""

    # -- the server's side

    async def frames(self) -> None:
        """Read and show every frame until the end; :class:`ServerLost` if it never comes."""
        buffer = b""
        while not self.done:
            try:
                chunk = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                chunk = b""
            if not chunk and self.ended:  # (a GM who stayed for the review: the server left)
                self.screen.say("the server has closed the connection (it stays up at most 10"
                                " minutes after the end)")  # fmt: skip
                return
            if not chunk:
                raise ServerLost("the server closed the connection before the end of the fight")
            buffer += chunk
            while b"\n" in buffer and not self.done:
                line, _, buffer = buffer.partition(b"\n")
                try:
                    self.on_frame(line)
                except (
                    ValueError,
                    KeyError,
                    TypeError,
                    AttributeError,
                    msgspec.ValidationError,
                ) as err:  # (a list where a map belongs: AttributeError)
                    raise InitiativeError(
                        f"the server sent a frame this client cannot read: {err}"
                    ) from None
                self._wake()
                if self.aside.state == "ready" and not (self.aside.saved or self.aside.fetching):
                    await self.save_review()

    def on_frame(self, line: bytes) -> None:
        frame = json.loads(line)
        match frame.get("type"):
            case "welcome" if self.welcomed:
                self.welcomed_again = True
                self.screen.say("back at the table")
            case "welcome" if frame.get("role") == "gm":
                self.welcomed = True
                self.role, self.encounter = "gm", str(frame["encounter"])
                self.screen.say(f"the GM of {visible(frame['encounter'])} (gm help lists commands)")
                self.narrate = TableNarrator(gm=True)  # notes and secret rolls told, to the GM
            case "gm_result":
                gm_said(self, frame)
            case "welcome" if frame["seat"] is None:
                self.welcomed = True
                self.news = bool(frame.get("news", True))
                if self.copy is not None and not self.news:
                    raise InitiativeError(
                        "--out keeps the whole log, and this server shows spectators what the"
                        " seats see (a full copy needs serve --spectators all)"
                    )
                self.screen.say(f"watching {visible(frame['encounter'])}")
            case "welcome":
                self.welcomed = True
                self.role = "seat"
                who = ", ".join(frame["combatants"])
                self.screen.say(f"seated as {visible(who)} in {visible(frame['encounter'])}")
                self.news = bool(frame.get("news", True))
                if self.copy is not None and not self.news:
                    self.screen.say("the server keeps the log from seats (reveal): no copy is kept")
            case "news":
                self.on_news(line)
            case "table":
                self.heard = max(self.heard, int(frame.get("lines", 0)))
                self.table = msgspec.convert(frame["state"], StateTable)
                if not self.news:  # the table's words are all this seat hears
                    for sentence in frame["said"]:
                        self.screen.say(visible(sentence))
            case "priority":
                self.on_priority(frame)
            case "grace" if float(frame["remaining"]) <= 0:
                self.grace = None  # the seat is back (or its grace is over)
            case "grace":
                name = frame.get("name") or (
                    self.names(frame["who"]) if self.names else visible(frame["who"])
                )
                self.grace = Grace(visible(name), trio.current_time() + float(frame["remaining"]))
            case "error" if frame.get("fatal"):
                raise InitiativeError(f"the server refused: {visible(frame['reason'])}")
            case "error":
                reason = str(frame["reason"])
                if self.asked is not None and f"seq {self.asked.seq} " in reason:
                    self.asked = None  # e.g. recorded as a timeout
                self.screen.say(f"server: {visible(reason)}")
            case "odds":
                self.aside.on_odds(frame)
            case "review_status":
                self.aside.on_review(frame)
            case "end":
                self.ended = True
                self.asked = None
                self.winner = None if frame.get("winner") is None else str(frame["winner"])
                self.done = not self.stays
                if self.stays:
                    self.screen.say(
                        f"the fight is over ({visible(self.winner or 'no one')} won): type"
                        " gm review to have the server review this fight (the report is saved"
                        " here), or q to leave"
                    )

    def on_news(self, frame: bytes) -> None:
        event_line = log_line(frame)
        if self.copy is not None:
            self.copy.write(event_line)
            self.copy.flush()
        event = decode_event(event_line)
        self.heard = max(self.heard, event.seq + 1)
        if isinstance(event, EncounterStarted):
            self.names = Names(event.encounter)
        elif self.names is not None:
            self.names.learn(event)  # (a joiner the GM brings in: gm who lists it)
        self.grace = None
        if self.asked is not None and event.seq > self.asked.seq:
            self.asked = None  # the server has moved past it
            self.screen.say("the fight has moved on: that decision is no longer asked")
        text = self.narrate(event)
        if text is not None:
            self.screen.say(text, True)

    def on_priority(self, frame: dict[str, Any]) -> None:
        shown = self._presentation(frame)
        self.grace = None
        self.asked = Asked(frame, shown, trio.current_time() + float(frame["deadline"]))
        self.screen.say("\n" + _shown(shown))

    def _presentation(self, frame: dict[str, Any]) -> Presentation:
        if frame.get("screen") is not None:
            return msgspec.convert(frame["screen"], Presentation)
        if self.names is None:
            raise InitiativeError("the server sent a priority before the encounter")
        return present(msgspec.convert(frame["view"], View), self.names)

    # -- the live line

    def _wake(self) -> None:
        """Something changed: the live line now, and the countdown task told."""
        self._draw_live_line()
        self.changed.set()
        self.changed = trio.Event()

    def live_line(self, now: float) -> Live:
        """The live line at ``now``."""
        if self.asked is not None:
            left = self.asked.until - now
            count = len(self.asked.shown.offers)
            if left <= 0:
                return Live(f"time is up; waiting for the server (1-{count}): ")
            text = f"choose 1-{count} ({math.ceil(left)} s left): "
            return Live(text, _tick(left, now), key=("asked", self.asked.seq))
        if self.grace is not None:
            left = self.grace.until - now
            if left > 0:
                text = f"waiting for {self.grace.name} to reconnect: {math.ceil(left)} s"
                return Live(text, _tick(left, now), key=("grace", self.grace))
        if self.ended:
            progress = self.aside.progress()
            if progress is not None:
                return Live(progress, key="review")
            return Live("gm review, or q to leave: " if self.stays else "", quiet=True)
        if self.table is None:
            return Live("waiting for the fight to start", quiet=True)
        turn = f", {self.table.turn}'s turn" if self.table.turn else ""
        return Live(f"round {self.table.round}{turn}: waiting", quiet=True)

    def _draw_live_line(self) -> float | None:
        live = self.live_line(trio.current_time())
        self.screen.status(live.text, quiet=live.quiet, key=live.key)
        return live.changes

    async def keep_live_line(self) -> None:
        """Redraw the live line whenever it changes: a frame, or a second of a countdown."""
        while True:
            changed = self.changed
            at = self._draw_live_line()
            with trio.move_on_at(math.inf if at is None else at):
                await changed.wait()

    # -- the person's side

    async def keys(self, keyboard: Keyboard) -> None:
        """Answer the decision on screen with the lines typed."""
        while True:
            text = (await keyboard.line()).strip()
            if self.ended and text.lower() in ("q", "quit", "leave"):
                raise LeftFight(text)
            if is_gm(text):
                await self.gm(text)
            elif text in ("?", "help", "h"):
                self.screen.say(HELP)
            elif text in ("s", "situation") and self.asked is not None:
                self.screen.say(_shown(self.asked.shown))
            elif self.asked is None:
                if text:
                    self.screen.say("nothing to decide right now")
            elif text.isdigit() and 1 <= int(text) <= len(self.asked.shown.offers):
                asked, self.asked = self.asked, None
                self.screen.say(f"> {asked.shown.offers[int(text) - 1].text}")
                await self.send(
                    {"type": "decision", "who": asked.frame["who"], "seq": asked.seq,
                     "offer": int(text) - 1}
                )  # fmt: skip
            elif self.asked.shown.move is not None and looks_like_move(text):
                await self.move(text, self.asked)
            else:
                also = ", or a point to move to" if self.asked.shown.move is not None else ""
                self.screen.say(f"Type a number from 1 to {len(self.asked.shown.offers)}{also}.")
            self._wake()

    async def move(self, text: str, asked: Asked) -> None:
        """Send the move to the point ``text`` names (see :mod:`initiative.actors`) as
        the ruleset's move action; the rules check it, and a refusal comes back as an error
        with their reason, then the decision again."""
        move = asked.shown.move
        assert move is not None
        view = asked.frame["view"]
        # Only who stands where: a seat's view hides enemies' numbers (null).
        me = msgspec.convert(view["me"], Spot)
        others = [msgspec.convert(c, Spot) for c in (*view["enemies"], *view["allies"])]
        # The names on the screen (a seat hears no raw news, so it may know no encounter).
        shown = {c.id: c.name for c in asked.shown.combatants}
        known = Known(shown, msgspec.convert(view["spec"], CombatantSpec))
        try:
            to = typed_point(text, me, others, known, move)
        except NotAMove as err:
            self.screen.say(str(err))
            return
        self.asked = None
        self.screen.say(f"> Move to {to}")
        await self.send(
            {"type": "decision", "who": asked.frame["who"], "seq": asked.seq,
             "action": move_frame(move, to)}
        )  # fmt: skip

    async def gm(self, text: str) -> None:
        """A ``gm ...`` line: the table's own (``gm odds``, ``gm review``) answered here, the
        others sent as overrides (:func:`gm_typed`)."""
        words = text.lower().split()
        table = words[1] if len(words) == 2 and words[1] in ("odds", "review") else None
        if table is not None and self.role != "gm":
            self.screen.say(f"gm {table} is not a command of a seat: only the GM's terminal"
                            " (join --gm) has it")  # fmt: skip
        elif table == "odds":
            self.screen.say(self.aside.odds_now(started=self.table is not None))
        elif table == "review":
            await self.ask_review()
        elif self.role == "gm" and words[1:] in ([], ["help"], ["?"]):
            await gm_typed(self, text)
            self.screen.say(TABLE_HELP)
        else:
            await gm_typed(self, text)

    async def ask_review(self) -> None:
        """``gm review``: the ``review`` frame sent once the fight is over (the report fetched
        again when it is ready but could not be fetched)."""
        state = self.aside.state
        if not self.ended:
            self.screen.say(NOT_OVER)
        elif self.aside.saved is not None:
            self.screen.say(f"the review is saved in {self.aside.saved}")
        elif state == "running":
            self.screen.say("the review is under way")
        elif state == "ready":
            await self.save_review()
        else:
            self.screen.say("asked the server to review this fight (a minute or two)")
            self.aside.review = {"state": "running", "done": 0, "total": 0}
            await self.send({"type": "review"})

    async def save_review(self) -> None:
        """The report, fetched from the server with the GM token as the page fetches it, saved
        here; the GM's terminal is then done (a failure is said, and ``gm review`` tries
        again)."""
        assert self.aside.review is not None and self.token is not None
        self.aside.fetching = True
        self._wake()
        path = str(self.aside.review.get("path") or "/review")
        try:
            stream = await _connect(self.address, self.tls)
            async with stream:
                with trio.fail_after(60):
                    body = await fetch_report(stream, parse_address(self.address)[0], path,
                                              self.token)  # fmt: skip
            target = self.review_out or report_file(self.encounter)
            part = target.with_name(target.name + ".part")  # (a Ctrl-C leaves no half report)
            part.write_bytes(body)
            part.replace(target)
        except (InitiativeError, ReportRefused, OSError, trio.BrokenResourceError,
                trio.TooSlowError, h11.ProtocolError) as err:  # fmt: skip
            problem = getattr(err, "strerror", None) or str(err) or type(err).__name__
            self.screen.say(f"the review is ready, but it could not be saved: {problem}"
                            " (gm review tries again)")  # fmt: skip
            return
        finally:
            self.aside.fetching = False
        self.aside.saved = target
        self.screen.say(f"the review of this fight is saved in {target} (open it in a browser)")
        self.done = True

    async def leave(self) -> None:
        """Tell the server this GM, who stayed after the end, is gone for good: it need not
        wait for a return, as for a reloaded page (at most a second; a server gone is fine)."""
        with trio.move_on_after(1), contextlib.suppress(ServerLost):
            await self.send({"type": "leave"})

    async def send(self, frame: dict[str, Any]) -> None:
        try:
            await self.stream.send_all(json.dumps(frame).encode() + b"\n")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise ServerLost(
                "the server has gone (it stays up at most 10 minutes after the end)"
                if self.ended
                else "the server closed the connection before the end of the fight"
            ) from None


def _shown(shown: Presentation) -> str:
    """The decision as text, with what may be typed to move when a move is offered."""
    text = render(shown)
    return text if shown.move is None else text + "\n" + move_hint(shown.move)


def _tick(left: float, now: float) -> float:
    """When a countdown showing ``ceil(left)`` seconds next shows one less."""
    return now + (left - math.floor(left - 1e-9) if left > 1 else left)


#: Seconds between tries to reach a server that went away: doubling from the first, at most
#: the last.
BACKOFF = (0.5, 5.0)


async def join_fight(
    address: str,
    seat: str | None,
    token: str | None,
    *,
    screen: Screen,
    keyboard: Keyboard | None = None,
    copy: BinaryIO | None = None,
    tls: ssl.SSLContext | None = None,
    role: str = "spectator",
    reconnect: float = 0.0,
    review_out: Path | None = None,
) -> str | None:
    """Play ``seat`` until the end (or watch, without a seat); returns the winner. With
    ``tls`` (see :func:`client_context`), over TLS, the server's certificate checked first.

    When the connection is lost before the end, it is tried again for ``reconnect`` seconds
    (backing off from half a second to five): a restarted server (``serve --resume``) keeps
    the tokens, so the seat comes back, is told only what it has not heard yet, and is asked
    its pending decision again.

    The GM at a keyboard stays after the end, to ask for the review with ``gm review``: the
    report is saved in ``review_out`` (by default, named after the encounter, here).

    Raises :class:`ServerLost` when the connection ends first (and does not come back),
    :class:`LeftFight` when the keyboard's input ends,
    :class:`~initiative.events.InitiativeError` when refused."""
    client: Client | None = None
    lost: float | None = None
    wait = BACKOFF[0]
    try:
        while True:
            try:
                stream = await _connect(address, tls)
            except InitiativeError:
                if lost is None:
                    raise
            else:
                if client is None:
                    client = Client(stream, screen, copy=copy, review_out=review_out)
                    client.address, client.tls, client.token = address, tls, token
                try:
                    return await play(
                        stream, seat, token, screen=screen, keyboard=keyboard, copy=copy,
                        role=role, client=client,
                    )  # fmt: skip
                except ServerLost:
                    if reconnect <= 0 or client.ended:
                        raise
                    if lost is None or client.welcomed_again:
                        lost, wait = trio.current_time(), BACKOFF[0]
                        screen.say(
                            f"the server is gone; trying again for {reconnect:g} s (Ctrl-C leaves)"
                        )
            assert lost is not None
            if trio.current_time() - lost > reconnect:
                raise ServerLost(f"the server did not come back within {reconnect:g} s")
            await trio.sleep(wait)
            wait = min(wait * 2, BACKOFF[1])
    except BaseException as problem:
        if client is not None and client.ended and _only_interrupts(problem):
            screen.close()
            return client.winner  # (Ctrl-C once the fight is over: nothing is lost, as with q)
        raise


def _only_interrupts(problem: BaseException) -> bool:
    """Whether ``problem`` is Ctrl-C, alone or in a group of nothing else."""
    if isinstance(problem, BaseExceptionGroup):
        return all(_only_interrupts(p) for p in problem.exceptions)
    return isinstance(problem, KeyboardInterrupt)


async def _connect(address: str, tls: ssl.SSLContext | None) -> trio.abc.Stream:
    """A connection to ``address`` (over TLS with ``tls``), or one line saying why not."""
    host, port = parse_address(address)
    stream: trio.abc.Stream
    try:
        with trio.fail_after(10):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as err:
        reason = getattr(err, "strerror", None) or err or "no answer in 10 s"
        raise InitiativeError(f"cannot connect to {address}: {reason}") from None
    if tls is not None:
        stream = trio.SSLStream(stream, tls, server_hostname=host, https_compatible=True)
        try:
            with trio.fail_after(10):
                await stream.do_handshake()
        except (trio.BrokenResourceError, trio.TooSlowError) as err:
            await trio.aclose_forcefully(stream)
            reason = "no answer in 10 s" if isinstance(err, trio.TooSlowError) else None
            raise InitiativeError(
                f"cannot connect to {address} with TLS: {reason or _handshake_failure(err)}"
            ) from None
    return stream


async def play(
    stream: trio.abc.Stream,
    seat: str | None,
    token: str | None,
    *,
    screen: Screen,
    keyboard: Keyboard | None = None,
    copy: BinaryIO | None = None,
    role: str = "spectator",
    client: Client | None = None,
) -> str | None:
    """:func:`join_fight` on a connected ``stream``; without a seat, in ``role`` (``gm`` or
    ``spectator``) with that role's ``token``. ``client``: the one that lost its connection
    (what it heard is not told again)."""
    if client is None:
        client = Client(stream, screen, copy=copy)
    client.stream = stream
    client.asked = None
    client.welcomed_again = False
    outcome: list[BaseException] = []
    async with stream:
        hello: dict[str, Any] = {"type": "hello", "version": PROTOCOL_VERSION}
        if seat is not None:
            hello.update(seat=seat, token=token)
        else:
            hello.update(role=role, token=token)
        if role == "gm" and seat is None and keyboard is not None:
            # Stay after the end for gm review (unless the GM's input has already ended).
            client.stays = client.stays or not client.welcomed
            hello["review"] = client.stays
        if client.heard:
            hello["since"] = client.heard
        await client.send(hello)
        gone = False  # (q, the review saved, or Ctrl-C once the fight is over)
        try:
            async with trio.open_nursery() as nursery:

                async def until_done(task: Callable[[], Any]) -> None:
                    try:
                        await task()
                    except (InitiativeError, LeftFight) as err:
                        outcome.append(err)
                    nursery.cancel_scope.cancel()

                async def gm_typing(keyboard: Keyboard) -> None:
                    # The GM's typed commands. Input that is not a terminal and ends (a GM started
                    # with no keyboard) leaves the GM watching; Ctrl-D or a closed terminal leaves.
                    try:
                        await client.keys(keyboard)
                    except LeftFight as left:
                        if client.ended:  # (q, Ctrl-D or the input's end after it: nothing lost)
                            client.done = True
                        elif str(left) == "the input ended":
                            client.stays = False  # (no one to type gm review)
                            return
                        else:
                            outcome.append(left)
                    except InitiativeError as err:
                        outcome.append(err)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(until_done, client.frames)
                nursery.start_soon(client.keep_live_line)
                if keyboard is not None and seat is not None:
                    nursery.start_soon(until_done, lambda: client.keys(keyboard))
                elif keyboard is not None and role == "gm":
                    nursery.start_soon(gm_typing, keyboard)
            gone = not outcome
        except BaseException as problem:
            gone = _only_interrupts(problem)
            raise
        finally:
            if gone and client.ended and hello.get("review"):
                await client.leave()
    screen.close()
    if outcome:
        raise outcome[0]
    if client.table is not None:
        screen.say(standings(client.table))
    return client.winner
