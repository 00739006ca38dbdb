"""The seat server: a live fight whose seats are played over the network.

One TCP port speaks two things, told apart by the first bytes a client sends: the seat protocol
(newline-delimited JSON frames, ``docs/protocol.md``), and HTTP (read by h11, :mod:`._http`)
for the browser pages (``/gm``, ``/watch``, ``/seat/NAME``; ``/ws`` the same frames over a
WebSocket).

A connection is a seat (its hello names the seat, with the seat's token), the game master or a
spectator (its hello names the role, with that role's token). The GM and spectators get every
log line as news; a seat, unless the encounter says ``reveal = "all"``, gets no news and sees its
enemies' hit points and AP as ``null`` (the table frames' words and state are what it hears).

The fight never waits on a client. The scheduler only publishes: each log line is appended to
:attr:`SeatServer.lines` and a seat's pending request is set on the seat; every connection has
its own writer task that catches up from there, and is cut off when a send stalls. Each actor's
deadline covers the whole round trip to its seat, so a slow, silent or vanished player costs one
recorded fault and the fight goes on; a seat that drops while deciding has its grace to come
back first (see :mod:`actors._seat`), and a hello with its token takes it over.

Nothing a client does escapes its connection: every error of a connection's tasks ends in
:meth:`SeatServer.handle`, as one line in the server's log. Every event is written to the log
before any client hears of it, so a decision made over the network is on disk before the next
priority frame goes out, and :func:`resume_served` goes on from the log after the server
stopped.

Once the fight is over, the GM may ask for its review, and with ``serve --gm-odds`` the GM is
told each side's chance to win after every decision (:mod:`._reviews`: child processes that only
read the log); those frames go to the GM alone, the report (``GET /review``) to the GM token
alone, and the server stays up after the end while a GM page that asked to stay is open.

With TLS (:func:`server_context`), the same port speaks both over TLS: a connection is told to
be TLS by its first byte (a handshake record), the handshake is bounded by the hello timeout
like the hello itself, and the sniffing between the two protocols happens after it. Plain text
on a TLS port is answered in plain text (a fatal error frame, or a redirect to ``https://``)
and refused; a failed handshake is one line in the server's log, as any other connection.
"""

from __future__ import annotations

import contextlib
import math
import re
import secrets
import ssl
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

import msgspec
import structlog
import trio
import trio_websocket

from initiative.actors import PolicyRunner, Seat, make_runners, new_token, schedule
from initiative.engine import (
    Decision,
    DiceSource,
    Fight,
    LogSink,
    declared_conditions,
    find_ruleset,
    recorded_dice,
)
from initiative.events import (
    EncounterSpec,
    Event,
    InitiativeError,
)
from initiative.replays import (
    live_policies,
    read_to_resume,
    recorded_decisions,
    reseeds,
)

from . import _http as http, _pages as pages, _wire as wire
from ._gm import ONLY_THE_GM, GmDesk, gm_frame
from ._reviews import OddsDesk, ReviewDesk, ReviewOptions
from ._sight import EVERYTHING, THE_GM, Sight, Told
from ._talk import TableTalk
from ._tokens import read_tokens, write_tokens

log = structlog.get_logger("initiative.serve")


@dataclass(frozen=True)
class Limits:
    """How much the server puts up with from one client."""

    hello_timeout: float = 10.0
    """Seconds from connecting to a complete hello (or HTTP request head)."""
    frame_timeout: float = 10.0
    """Seconds a frame may take from its first byte to its newline."""
    send_timeout: float = 10.0
    """Seconds a send to a client may stall before the client is cut off."""
    max_frame: int = 64 * 1024
    """Bytes in one frame, newline included."""
    max_connections: int = 64
    """Connections open at once; more are refused at once."""
    max_refusals: int = 8
    """Refused frames on one connection before it is cut off."""


class Cut(Exception):
    """Close this connection, with the reason (a control-flow signal). ``tell``: whether to
    send the client an error frame first (not after a stalled send: the client reads nothing);
    ``lost``: the client went away (reset, broken pipe), so there is no one to tell."""

    def __init__(self, reason: str, *, tell: bool = True, lost: bool = False) -> None:
        super().__init__(reason)
        self.tell = tell and not lost
        self.lost = lost


#: What a client that vanishes makes a send or a receive raise.
LOST = (
    trio.BrokenResourceError,
    trio.ClosedResourceError,
    trio_websocket.ConnectionClosed,
    OSError,
)


def _reason(exc: BaseException) -> str:
    """One readable line for why a connection ended (the first error of a group)."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    cause = exc.__cause__ or exc.__context__
    text = str(exc) or type(exc).__name__
    if isinstance(exc, trio.BrokenResourceError):
        text = (cause.strerror if isinstance(cause, OSError) else None) or "the connection broke"
    elif isinstance(exc, trio_websocket.ConnectionClosed):
        text = "the WebSocket closed"
    return " ".join(text.split())[:200]


class LineTransport:
    """Newline-delimited frames on a byte stream, with the size and pace limits applied."""

    def __init__(self, stream: trio.abc.Stream, buffer: bytes, limits: Limits) -> None:
        self.stream = stream
        self.buffer = bytearray(buffer)
        self.limits = limits
        self.started = trio.current_time() if buffer else None

    async def receive(self) -> bytes | None:
        """The next frame (without its newline), or ``None`` at the end of the stream."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                if end + 1 > self.limits.max_frame:
                    raise Cut(f"frame longer than {self.limits.max_frame} bytes")
                frame = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                self.started = trio.current_time() if self.buffer else None
                return frame
            if len(self.buffer) >= self.limits.max_frame:
                raise Cut(f"frame longer than {self.limits.max_frame} bytes")
            if self.started is None:
                data = await self.stream.receive_some(4096)
                self.started = trio.current_time()
            else:
                with trio.move_on_at(self.started + self.limits.frame_timeout) as scope:
                    data = await self.stream.receive_some(4096)
                if scope.cancelled_caught:
                    raise Cut(f"a frame took longer than {self.limits.frame_timeout:g} s")
            if not data:
                return None
            self.buffer += data

    async def send(self, data: bytes) -> None:
        await self.stream.send_all(data)


class WebSocketTransport:
    """The same frames, one per WebSocket text message."""

    def __init__(self, ws: trio_websocket.WebSocketConnection, limits: Limits) -> None:
        self.ws = ws
        self.limits = limits

    async def receive(self) -> bytes | None:
        try:
            message = await self.ws.get_message()
        except trio_websocket.ConnectionClosed:
            return None
        data = message.encode() if isinstance(message, str) else message
        if len(data) > self.limits.max_frame:
            raise Cut(f"frame longer than {self.limits.max_frame} bytes")
        return data

    async def send(self, data: bytes) -> None:
        try:
            await self.ws.send_message(data.rstrip(b"\n").decode())
        except trio_websocket.ConnectionClosed:
            raise trio.BrokenResourceError from None


class PrefixedStream(trio.abc.Stream):
    """A stream that first gives back bytes already read from it (to hand it on)."""

    def __init__(self, stream: trio.abc.Stream, prefix: bytes) -> None:
        self.stream = stream
        self.prefix = prefix

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.prefix:
            data, self.prefix = self.prefix, b""
            return data
        return bytes(await self.stream.receive_some(max_bytes))

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self.stream.send_eof()  # type: ignore[attr-defined]

    async def aclose(self) -> None:
        await self.stream.aclose()


#: What a connection is, by its hello: a player's seat, the game master, or a spectator.
Role = Literal["seat", "gm", "spectator"]


@dataclass(eq=False)
class Connection:
    """One client: what it has been sent, and what it is owed."""

    transport: Any
    peer: str
    role: Role = "seat"
    """``seat``, ``gm`` or ``spectator`` (from its hello)."""
    seat: Seat | None = None
    cursor: int = 0
    sent: object | None = None
    errors: list[bytes] = field(default_factory=list)
    refusals: int = 0
    graces: dict[str, float | None] = field(default_factory=dict)
    """For each seat, the end of the last grace this connection was told of."""
    clocks: dict[str, object] = field(default_factory=dict)
    """For each seat, the pending decision this connection (GM, spectator) was told of."""
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    """Around its play: cancelled when a new connection takes its seat over."""
    taken_over: bool = False
    sight: Sight = EVERYTHING
    """Whose numbers it may see (set from its hello): every frame it is sent goes through it."""
    stays: bool = False
    """The GM's connection that stays after the end, to ask for the review (hello ``review``)."""
    aside: dict[str, object] = field(default_factory=dict)
    """The ``odds`` and ``review_status`` frames it was last sent (by type)."""


#: What spectators see: what the seated players see together (``seats``), or everything.
Spectators = Literal["seats", "all"]


class SeatServer:
    """The seats, the log lines so far, and the connections that follow them."""

    def __init__(
        self,
        spec: EncounterSpec,
        seats: Mapping[str, Seat],
        limits: Limits | None = None,
        *,
        tls: ssl.SSLContext | None = None,
        gm_token: str | None = None,
        spectators: Spectators = "seats",
        tokens: Mapping[str, str] | None = None,
        log: Path | None = None,
        review: ReviewOptions | None = None,
    ) -> None:
        self.gm_token = gm_token or secrets.token_urlsafe(16)
        """The game master's secret (``hello`` with ``role: gm``), never in the log."""
        self.desk = GmDesk(tell=self.notify)
        self.spec = spec
        self.seats = dict(seats)
        self.limits = limits or Limits()
        self.tls = tls
        """Serve over TLS with this context (see :func:`server_context`); plain text if None."""
        kept = tokens or {}
        self.gm_token = kept.get("gm") or gm_token or new_token()
        """The game master's secret (never in the event log)."""
        self.spectator_token = kept.get("spectators") or new_token()
        """The spectators' secret (one for all of them)."""
        self.spectators: Spectators = spectators
        """What spectators see: ``seats`` (what the seated players see together) or ``all``."""
        self.reveal: Literal["words", "all"] = (
            "words" if isinstance(spec.reveal, msgspec.UnsetType) else spec.reveal
        )
        """What a seat sees of its enemies: ``words`` or ``all`` (the encounter's ``reveal``)."""
        self.conditions = declared_conditions(find_ruleset(spec.ruleset))
        """The conditions the ruleset declares (every welcome carries them)."""
        self.talk = TableTalk(spec)
        self.lines: list[bytes] = []
        self.ended = False
        self.winner: str | None = None
        self.connections = 0
        where = log or Path("served.jsonl")
        self.review_options = review or ReviewOptions()
        self.review = ReviewDesk(where, self.review_options, tell=self.notify)
        """The fight's review, once the GM asks for it at the end (:mod:`._reviews`)."""
        self.odds = OddsDesk(where, self.review_options, tell=self.notify) if (
            self.review_options.odds
        ) else None  # fmt: skip
        """The GM's live odds (``serve --gm-odds``), or ``None``."""
        self._stayers: set[Connection] = set()
        """The GM connections that stay after the end (hello ``review``)."""
        self._left_for_good = False
        """The last GM connection that stayed said it leaves for good (a ``leave`` frame)."""
        self._changed = trio.Event()
        self._all_seated = trio.Event()
        for seat in self.seats.values():
            seat.on_change = self.notify

    # -- what the fight publishes (synchronous: the fight never waits on a client) --------

    def notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
        if all(seat.holder is not None for seat in self.seats.values()):
            self._all_seated.set()

    def publish(self, lines: list[bytes]) -> None:
        """The log's lines, once written (the fight's sink calls it after each write)."""
        self.lines += [line.rstrip(b"\n") for line in lines]
        if self.odds is not None and not self.ended:
            self.odds.want(len(self.lines))
        self.notify()

    def finish(self, winner: str | None) -> None:
        self.ended = True
        self.winner = winner
        if self.odds is not None:
            sides = list(dict.fromkeys(c.side for c in self.spec.combatants))
            self.odds.finish(len(self.lines) - 1, sides, winner)
        self.notify()

    def staying(self) -> bool:
        """Whether the server should stay up after the end: a GM page waits to ask for the
        review or to read it, or a review runs."""
        return self.review.running or any(self._stayers)

    async def after_the_end(self, linger: float) -> None:
        """Stay while :meth:`staying` (at most :attr:`ReviewOptions.stay` seconds, and
        ``linger`` more after the last GM page leaves, so that a reloaded page finds it), then
        give the other connections ``linger`` seconds to hear the end."""
        on_stay = self.review_options.on_stay
        if on_stay is not None and self.staying():
            on_stay()
        with trio.move_on_after(self.review_options.stay):
            while self.staying():
                while self.staying():
                    await self._change(0.5)
                if self._left_for_good:  # (q at the GM's terminal: no one comes back)
                    break
                with trio.move_on_after(linger):  # (a reloaded GM page comes back)
                    while not self.staying():
                        await self._change(0.5)
        with trio.move_on_after(linger):
            while self.connections:
                await trio.sleep(0.05)

    async def _change(self, most: float) -> None:
        """Until the next :meth:`notify`, or ``most`` seconds."""
        with trio.move_on_after(most):
            await self._changed.wait()

    async def wait_all_seated(self) -> None:
        await self._all_seated.wait()

    # -- connections ------------------------------------------------------------------

    async def handle(self, stream: trio.abc.Stream) -> None:
        """One accepted connection, from its first byte to its close.

        Whatever the client does (a reset, a half-close, a broken pipe, vanishing mid-frame or
        mid-write), it ends here: a seat's departure is the seat's business (its grace, then a
        recorded fault), and anything else is one line in the server's log."""
        peer = _peer(stream)
        try:
            if self.connections >= self.limits.max_connections:
                log.warning("connection refused", peer=peer, reason="too many connections")
                if self.tls is None:  # a TLS client could not read it before its handshake
                    await _fatal(stream, "too many connections")
                return
            self.connections += 1
            try:
                await self._connection(stream, peer)
            finally:
                self.connections -= 1
        except* Exception as group:
            log.warning("connection lost", peer=peer, reason=_reason(group))
        finally:
            await trio.aclose_forcefully(stream)

    async def _connection(self, stream: trio.abc.Stream, peer: str) -> None:
        plain = b""  # the first bytes of a plain-text client on a TLS port
        handshaking = False
        with trio.move_on_after(self.limits.hello_timeout) as scope:
            first = bytes(await stream.receive_some(4096))
            if self.tls is not None and first.startswith(TLS_HANDSHAKE):
                # The handshake and the first bytes it protects, within the same time.
                stream = trio.SSLStream(
                    PrefixedStream(stream, first), self.tls, server_side=True,
                    https_compatible=True,  # the frames say where they end: no close_notify
                )  # fmt: skip
                handshaking = True
                try:
                    await stream.do_handshake()
                except trio.BrokenResourceError as err:
                    log.warning("connection refused", peer=peer, reason=tls_failure(err))
                    return
                handshaking = False
                first = bytes(await stream.receive_some(4096))
            elif self.tls is not None:
                plain, first = first, b""
        if scope.cancelled_caught:
            reason = "no TLS handshake in time" if handshaking else "no hello in time"
            log.warning("connection cut", peer=peer, reason=reason)
            if not handshaking:
                await _fatal(stream, reason)
            return
        if plain:
            reason = await _plain_on_tls(stream, plain, self.limits)
            log.warning("connection refused", peer=peer, reason=reason)
            return
        if self.tls is None and first.startswith(TLS_HANDSHAKE + b"\x03"):
            log.warning(
                "connection refused",
                peer=peer,
                reason="a TLS handshake, but this server speaks plain text (no --tls)",
            )
            return
        if _HTTP.match(first):
            await self._http(stream, first, peer)
        elif first:
            await self._session(LineTransport(stream, first, self.limits), peer)

    async def _session(self, transport: Any, peer: str) -> None:
        conn = Connection(transport=transport, peer=peer)
        try:
            with trio.move_on_after(self.limits.hello_timeout) as scope:
                data = await transport.receive()
            if scope.cancelled_caught:
                raise Cut("no hello in time")
            if data is None:
                return
            try:
                hello = wire.decode_client(data)
            except wire.FrameError as err:
                raise Cut(str(err)) from None
            if not isinstance(hello, wire.Hello):
                raise Cut("the first frame must be a hello")
            if hello.version != wire.PROTOCOL_VERSION:
                raise Cut(
                    f"protocol version {hello.version} is not spoken here"
                    f" (this server speaks {wire.PROTOCOL_VERSION})"
                )
            if hello.seat is None:
                conn.role = self._role(hello)
            elif hello.role not in (None, "seat"):
                raise Cut(f"a hello names a seat or the {hello.role} role, not both")
            else:
                seat = self.seats.get(hello.seat)
                if seat is None:
                    raise Cut(f"no seat {hello.seat!r}")
                if not seat.token_matches(hello.token):
                    raise Cut(f"wrong or missing token for seat {hello.seat!r}")
                displaced = seat.attach(conn)
                conn.seat = seat
                seat.missed.clear()
                if isinstance(displaced, Connection):
                    displaced.taken_over = True
                    displaced.scope.cancel()
            conn.cursor = max(0, hello.since)  # (what it heard before it lost the connection)
            conn.stays = hello.review and conn.role == "gm"
            log.info("connected", peer=peer, seat=hello.seat or f"({conn.role})")
            stopping = False  # the server is (Ctrl-C): the seat does not leave
            if conn.stays:
                self._stayers.add(conn)
                self._left_for_good = False
            try:
                with conn.scope:
                    await self._play(conn)
            except (trio.Cancelled, KeyboardInterrupt, BaseExceptionGroup):
                stopping = True
                raise
            finally:
                self._stayers.discard(conn)
                if conn.seat is not None:
                    conn.seat.detach(conn)
                    stopping = stopping or trio.current_effective_deadline() == -math.inf
                    if not (self.ended or stopping or conn.taken_over):
                        log.warning("seat left", peer=peer, seat=conn.seat.name)
            if conn.taken_over:
                assert conn.seat is not None
                raise Cut(f"seat {conn.seat.name!r} was taken over by a new connection")
        except Cut as cut:
            if cut.lost:
                log.warning(
                    "connection lost",
                    peer=peer,
                    seat=conn.seat.name if conn.seat else f"({conn.role})",
                    reason=str(cut),
                )
                return
            log.warning("connection cut", peer=peer, reason=str(cut))
            if not cut.tell:
                return
            with trio.move_on_after(1):
                with contextlib.suppress(*LOST):
                    await transport.send(wire.encode(wire.Error(reason=str(cut), fatal=True)))

    def _role(self, hello: wire.Hello) -> Role:
        """The role a hello without a seat asks for, its token checked (else a :class:`Cut`)."""
        if hello.role == "gm":
            if not _same(hello.token, self.gm_token):
                raise Cut("the GM needs the GM token (printed by serve)")
            return "gm"
        if hello.role == "spectator":
            if not _same(hello.token, self.spectator_token):
                raise Cut("spectators need the spectator token (printed by serve)")
            return "spectator"
        raise Cut(
            "a hello names a seat (with its token) or a role, gm or spectator (with its token);"
            " spectators need the spectator token (printed by serve)"
        )

    def sight_of(self, conn: Connection) -> Sight:
        """Whose numbers ``conn`` may see (see :mod:`._sight`): the GM everyone's; a seat its
        own side's (``reveal = "all"``: everyone's); a spectator those of every side that has
        a seat (``spectators = "all"``, ``reveal = "all"``, or a seat for every side:
        everyone's, and the news)."""
        if conn.role == "gm":
            return THE_GM
        if self.reveal == "all":
            return EVERYTHING
        if conn.role == "spectator" and self.spectators == "all":
            return EVERYTHING
        seated = conn.seat.combatants if conn.seat is not None else [
            who for seat in self.seats.values() for who in seat.combatants
        ]  # fmt: skip
        sides = {c.side for c in self.spec.combatants if c.id in seated}
        if conn.seat is None and sides >= {c.side for c in self.spec.combatants}:
            return EVERYTHING  # (every side has a seat: together they see every number)
        return Sight(full=False, sides=frozenset(sides), side_of=self.talk.side_of)

    async def _out(self, conn: Connection, frame: msgspec.Struct | Told) -> None:
        """Send ``frame`` to ``conn`` as its sight lets it (every frame of the writer goes
        through here, and so through :meth:`Sight.out`)."""
        data = conn.sight.out(frame)
        if data is not None:
            await self._send(conn, data)

    async def _play(self, conn: Connection) -> None:
        seat = conn.seat
        conn.sight = self.sight_of(conn)
        try:
            await self._out(
                conn,
                wire.Welcome(
                    version=wire.PROTOCOL_VERSION,
                    seat=seat.name if seat else None,
                    combatants=seat.combatants if seat else (),
                    deadline=seat.deadline if seat else 0.0,
                    encounter=self.spec.name,
                    ruleset=self.spec.ruleset,
                    role=conn.role,
                    news=conn.sight.full,
                    reveal=self.reveal,
                    conditions=self.conditions,
                ),
            )
        except LOST as err:
            raise Cut(_reason(err), lost=True) from None
        outcome: list[Cut] = []
        async with trio.open_nursery() as nursery:

            async def writing() -> None:
                try:
                    await self._writer(conn)
                except Cut as cut:
                    outcome.append(cut)
                except LOST as err:
                    outcome.append(Cut(_reason(err), lost=True))
                nursery.cancel_scope.cancel()

            async def reading() -> None:
                try:
                    await self._reader(conn)
                except Cut as cut:
                    outcome.append(cut)
                except LOST as err:
                    outcome.append(Cut(_reason(err), lost=True))
                # A seat that hangs up has left, and so has a GM page that stayed for the
                # review; a spectator may close its sending half and still read to the end.
                if outcome or conn.seat is not None or conn.stays:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(writing)
            nursery.start_soon(reading)
        if outcome:
            raise outcome[0]

    async def _send(self, conn: Connection, data: bytes) -> None:
        with trio.move_on_after(self.limits.send_timeout) as scope:
            await conn.transport.send(data)
        if scope.cancelled_caught:
            raise Cut(f"the client read nothing for {self.limits.send_timeout:g} s", tell=False)

    async def _writer(self, conn: Connection) -> None:
        """Catch ``conn`` up: refusals, missed deadlines, news, its seat's pending token."""
        while True:
            changed = self._changed
            while conn.errors:
                await self._send(conn, conn.errors.pop(0))
            seat = conn.seat
            while seat is not None and seat.missed:
                seq = seat.missed.pop(0)
                reason = (
                    f"no decision for seq {seq} within {seat.deadline:g} s: recorded as a timeout"
                )
                await self._out(conn, wire.Error(reason=reason))
            start = conn.cursor
            while conn.cursor < len(self.lines):
                line = self.lines[conn.cursor]
                conn.cursor += 1
                await self._out(conn, wire.News(event=msgspec.Raw(line)))
                if seat is not None and (refused := _refused(line, seat.combatants)):
                    await self._out(conn, wire.Error(reason=refused))
            if conn.cursor > start:
                seated = seat.combatants if seat is not None else ()
                await self._out(conn, self.talk.frame(self.lines, start, conn.cursor, seated))
            for other in self.seats.values():
                waiting = other.in_grace()
                told = conn.graces.get(other.name)
                if waiting is not None and told != waiting.grace_ends:
                    conn.graces[other.name] = waiting.grace_ends
                    grace = wire.Grace(
                        seat=other.name, who=waiting.who, remaining=_seconds(waiting.grace_left()),
                        name=self.talk.names(waiting.who),
                    )  # fmt: skip
                    await self._out(conn, grace)
                elif waiting is None and told is not None:
                    # Back (or the grace is over): the banner goes, on every page and terminal.
                    conn.graces[other.name] = None
                    await self._out(conn, wire.Grace(seat=other.name, who="", remaining=0.0))
            if conn.role != "seat":
                for other in self.seats.values():
                    asked = other.pending
                    if (
                        asked is not None
                        and not asked.answered.is_set()
                        and conn.clocks.get(other.name) is not asked
                    ):
                        conn.clocks[other.name] = asked
                        clock = wire.Clock(
                            seat=other.name, who=asked.who, left=_seconds(asked.left())
                        )
                        await self._out(conn, clock)
            request = seat.pending if seat is not None else None
            if (
                seat is not None
                and request is not None
                and conn.sent is not request
                and not request.answered.is_set()
            ):
                conn.sent = request
                await self._out(
                    conn,
                    wire.priority_frame(request.view, _seconds(request.left()), self.talk.names),
                )
            await self._aside(conn)
            if self.ended and conn.cursor == len(self.lines) and not conn.errors:
                # (a GM's result left while the last news went out is sent first)
                if not conn.aside.get("end"):
                    conn.aside["end"] = True
                    await self._out(conn, wire.End(winner=self.winner, events=len(self.lines)))
                if not conn.stays:
                    return
            await changed.wait()

    async def _aside(self, conn: Connection) -> None:
        """The live odds and the review's progress, when they changed since ``conn`` was last
        told (every connection's writer asks; the sight lets them through to the GM alone)."""
        odds = self.odds.latest if self.odds else None
        for kind, frame in (("odds", odds), ("review_status", self.review.status)):
            if frame is not None and conn.aside.get(kind) is not frame:
                conn.aside[kind] = frame
                await self._out(conn, frame)

    def _refuse(self, conn: Connection, reason: str) -> None:
        conn.refusals += 1
        log.warning(
            "frame refused",
            peer=conn.peer,
            seat=conn.seat.name if conn.seat else None,
            reason=reason,
        )
        if conn.refusals > self.limits.max_refusals:
            raise Cut(f"more than {self.limits.max_refusals} refused frames")
        conn.errors.append(wire.encode(wire.Error(reason=reason)))
        self.notify()

    async def _reader(self, conn: Connection) -> None:
        while True:
            data = await conn.transport.receive()
            if data is None:
                return
            if not data.strip():
                continue
            try:
                frame = wire.decode_client(data)
            except wire.FrameError as err:
                self._refuse(conn, str(err))
                continue
            seat = conn.seat
            if isinstance(frame, wire.Gm):
                gm_frame(self, conn, frame)
            elif isinstance(frame, wire.ReviewAsk):
                self._review_asked(conn)
            elif isinstance(frame, wire.Leave):
                if conn.stays:  # (from anyone else it changes nothing: they do not stay)
                    self._stayers.discard(conn)
                    self._left_for_good = not self._stayers
                    self.notify()
                return
            elif not isinstance(frame, wire.Decide):
                self._refuse(conn, "already greeted: a second hello is refused")
            elif conn.role == "spectator":
                self._refuse(conn, "spectators are read-only")
            elif seat is None:
                self._refuse(conn, "the GM plays no seat: decisions come from the seats")
            elif frame.who not in seat.combatants:
                self._refuse(conn, f"{frame.who!r} is not played from seat {seat.name!r}")
            else:
                request = seat.pending
                if request is None or (request.who, request.seq) != (frame.who, frame.seq):
                    self._refuse(
                        conn, f"no decision is awaited from {frame.who!r} at seq {frame.seq}"
                    )
                    continue
                try:
                    action = wire.chosen_action(frame, request.view.legal)
                except wire.FrameError as err:
                    self._refuse(conn, str(err))
                    continue
                reason = seat.answer(frame.who, frame.seq, action)
                if reason is not None:
                    self._refuse(conn, reason)

    def _review_asked(self, conn: Connection) -> None:
        """A ``review`` frame: the GM's, once the fight is over, starts the review."""
        if conn.role != "gm":
            self._refuse(conn, ONLY_THE_GM)
        elif not self.ended:
            self._refuse(conn, "the review is of a finished fight: ask once it has ended")
        else:
            self.review.ask()

    async def _http(self, stream: trio.abc.Stream, first: bytes, peer: str) -> None:
        """One HTTP request (read by h11): a page, an HTTP error, or the WebSocket at ``/ws``."""
        limits = self.limits
        request = await http.read_request(stream, first, limits.hello_timeout)
        if isinstance(request, http.Refused):
            log.warning("request refused", peer=peer, status=request.status, reason=request.reason)
            await http.send(stream, http.error(request.status, request.reason), limits.send_timeout)
            return
        head = request.method == "HEAD"
        if request.method not in ("GET", "HEAD"):
            reason = f"{request.method} is not served here: pages are read with GET"
            answer = http.error(405, reason, allow="GET, HEAD")
        elif request.path == "/ws" and request.upgrade and not head:
            await self._websocket(stream, request, peer)
            return
        elif request.path == "/ws":
            reason = "the seat protocol over a WebSocket: connect with a WebSocket client"
            answer = http.error(426, reason, head_only=head, headers=[("Upgrade", "websocket")])
        elif request.path == "/favicon.ico":  # browsers ask; the pages have no icon
            answer = http.answer(204, b"", head_only=head)
        elif request.path == "/review":
            answer = self.review_answer(request.headers.get("authorization", ""), head)
            status = int(answer[9:12])  # ("HTTP/1.1 200 OK")
            if status != 200:
                log.warning("request refused", peer=peer, path="/review", status=status)
        else:
            body = self.page_at(request.path)
            if body is None:
                answer = http.error(404, f"no page at {request.path}", head_only=head)
            else:
                answer = http.answer(200, body, "text/html; charset=utf-8", head_only=head)
        await http.send(stream, answer, limits.send_timeout)

    def review_answer(self, authorization: str, head: bool = False) -> bytes:
        """``GET /review``: the review's report to the GM's token (``Authorization: Bearer
        T``); 401 without a token or with one nobody has, 403 with a seat's or the spectators',
        404 before the report exists."""
        scheme, _, offered = authorization.strip().partition(" ")
        offered = offered.strip() if scheme.lower() == "bearer" else ""
        others = [self.spectator_token, *(seat.token for seat in self.seats.values())]
        if offered and _same(offered, self.gm_token):
            report = self.review.ready()
            if report is None:
                reason = "no review yet: ask for it on the GM page once the fight has ended"
                return http.error(404, reason, head_only=head)
            try:
                body = report.read_bytes()
            except OSError:
                return http.error(404, "the review's report is gone", head_only=head)
            return http.answer(200, body, "text/html; charset=utf-8", head_only=head,
                               headers=[("Content-Security-Policy", REPORT_POLICY)])  # fmt: skip
        if offered and any(_same(offered, token) for token in others):
            return http.error(
                403, "the review is for the GM's eyes: use the GM token", head_only=head
            )
        reason = "the review needs the GM token (Authorization: Bearer TOKEN)"
        return http.error(401, reason, head_only=head, headers=[("WWW-Authenticate", "Bearer")])

    def page_at(self, path: str) -> bytes | None:
        """The page at ``path``: ``/gm``, ``/watch``, ``/seat/NAME`` (a seat of this fight), or
        ``/`` (where to go); ``None`` for any other."""
        if path in ("/", "/gm", "/watch"):
            return pages.page(path.strip("/") or "home")
        if path.startswith("/seat/") and unquote(path[len("/seat/") :]) in self.seats:
            return pages.page("seat")
        return None

    async def _websocket(self, stream: trio.abc.Stream, request: http.Request, peer: str) -> None:
        """The seat protocol over a WebSocket (trio-websocket reads the upgrade again)."""
        async with trio.open_nursery() as nursery:
            upgrade = await trio_websocket.wrap_server_stream(
                nursery,
                PrefixedStream(stream, request.raw),
                max_message_size=self.limits.max_frame,
            )
            ws = await upgrade.accept()
            await self._session(WebSocketTransport(ws, self.limits), peer)
            with trio.move_on_after(1):
                await ws.aclose()
            nursery.cancel_scope.cancel()


#: What the review's report may load: nothing but its own inline style and pictures.
REPORT_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _same(offered: str | None, token: str) -> bool:
    """Whether ``offered`` is ``token``, compared in constant time."""
    return offered is not None and secrets.compare_digest(offered.encode(), token.encode())


class _Rejected(msgspec.Struct):
    who: str
    reason: str


_REJECTED = b'{"type":"ActionRejected",'


def _refused(line: bytes, combatants: Sequence[str]) -> str | None:
    """The rules' reason, when ``line`` records an action of ``combatants`` refused (the seat
    is told it as a non-fatal error, then asked again)."""
    if not line.startswith(_REJECTED):
        return None
    rejected = msgspec.json.decode(line, type=_Rejected)
    return rejected.reason if rejected.who in combatants else None


def _seconds(value: float) -> float:
    """Seconds as sent in a frame: to a tenth (a countdown shows no more)."""
    return round(value, 1)


def _peer(stream: trio.abc.Stream) -> str:
    try:
        host, port, *_ = stream.socket.getpeername()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return "?"
    return f"{host}:{port}"


async def _fatal(stream: trio.abc.Stream, reason: str) -> None:
    with trio.move_on_after(1):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await stream.send_all(wire.encode(wire.Error(reason=reason, fatal=True)))


# -- TLS ----------------------------------------------------------------------------------

#: The first byte of every TLS connection: the record type of the client's hello.
TLS_HANDSHAKE = b"\x16"

#: What a plain-text client on a TLS port is told, in plain text.
SPEAKS_TLS = "this server speaks TLS: connect with TLS (initiative join --tls; docs/protocol.md)"


def server_context(cert: str | Path, key: str | Path) -> ssl.SSLContext:
    """A server's TLS context for ``cert`` (PEM, the certificate first, then any chain) and its
    private ``key`` (PEM, not encrypted). Each way the files can be wrong is one
    :class:`~initiative.events.InitiativeError` naming the file."""
    for path in (cert, key):
        try:
            Path(path).read_bytes()
        except OSError as err:
            raise InitiativeError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=str(cert))
    except ssl.SSLError:
        raise InitiativeError(f"{cert}: not a certificate in PEM format") from None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)

    def no_password() -> str:
        raise InitiativeError(
            f"{key}: the private key is encrypted; give one without a passphrase"
            " (openssl pkey -in KEY -out KEY.plain)"
        )

    try:
        context.load_cert_chain(str(cert), str(key), password=no_password)
    except ssl.SSLError as err:
        if err.reason == "KEY_VALUES_MISMATCH":
            raise InitiativeError(f"{key}: not the private key of {cert}") from None
        raise InitiativeError(f"{key}: not a private key in PEM format") from None
    return context


def self_signed(cert: str | Path) -> bool:
    """Whether ``cert`` signed itself (a client must be given it to trust it: ``--ca``)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(cafile=str(cert))
    return any(c.get("subject") == c.get("issuer") for c in context.get_ca_certs())


def tls_failure(exc: BaseException) -> str:
    """Why a client's TLS handshake failed, in words (from the error it raised, or its cause)."""
    cause = exc.__cause__ if isinstance(exc, trio.BrokenResourceError) else exc
    if isinstance(cause, (ssl.SSLEOFError, ssl.SSLZeroReturnError, ConnectionError)):
        return "the connection closed during the TLS handshake"
    if isinstance(cause, ssl.SSLError) and cause.reason:
        words = cause.reason.lower().replace("_", " ")
        if cause.reason in {"TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE",
                            "SSLV3_ALERT_CERTIFICATE_UNKNOWN"}:  # fmt: skip
            return f"the other side does not trust the certificate ({words})"
        if cause.reason in {"WRONG_VERSION_NUMBER", "HTTP_REQUEST", "UNEXPECTED_EOF_WHILE_READING"}:
            return f"the other side does not speak TLS ({words})"
        return words
    return _reason(exc)


async def _plain_on_tls(stream: trio.abc.Stream, first: bytes, limits: Limits) -> str:
    """Answer a plain-text client on a TLS port in plain text, and say why it was refused: a
    browser is sent to the same page over ``https://`` (the token, in the URL's fragment, goes
    along and never to the server), anything else gets a fatal error frame."""
    if not _HTTP.match(first):
        await _fatal(stream, SPEAKS_TLS)
        return "plain text on the TLS port"
    request = await http.read_request(stream, first, limits.hello_timeout)
    host = (
        _HOST.fullmatch(request.headers.get("host", ""))
        if isinstance(request, http.Request)
        else None
    )
    if host is None or not isinstance(request, http.Request):
        answer = http.error(400, "this server speaks https")
        sent = "plain HTTP on the TLS port"
    else:
        sent = "plain HTTP on the TLS port: sent to https://"
        url = f"https://{host.group(0)}{request.path}"
        answer = http.answer(307, url.encode() + b"\n", headers=[("Location", url)])
    await http.send(stream, answer, limits.send_timeout)
    return sent


#: How an HTTP request starts (a method, then a space); a frame of the line protocol starts
#: with ``{``.
_HTTP = re.compile(rb"[A-Z]{3,10} ")

#: A Host header's value worth redirecting to: a name or an address, and a port.
_HOST = re.compile(r"([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])(:\d+)?")


def seats_for(
    spec: EncounterSpec,
    names: Sequence[str],
    deadline: float,
    grace: float = 30.0,
    tokens: Mapping[str, str] | None = None,
) -> dict[str, Seat]:
    """One seat per name, a combatant id or a side; a combatant sits in one seat at most.
    ``tokens``: the tokens kept for the fight (``seat:NAME``), a new one for a seat without."""
    seats: dict[str, Seat] = {}
    taken: dict[str, str] = {}
    for name in names:
        members = tuple(c.id for c in spec.combatants if c.id == name) or tuple(
            c.id for c in spec.combatants if c.side == name
        )
        if not members:
            raise InitiativeError(f"--seat {name}: no combatant or side {name!r} in the encounter")
        if name in seats:
            raise InitiativeError(f"--seat {name}: named twice")
        for who in members:
            if who in taken:
                raise InitiativeError(f"--seat {name}: {who!r} already sits in seat {taken[who]!r}")
            taken[who] = name
        token = (tokens or {}).get(f"seat:{name}")
        seats[name] = Seat(name, members, token=token, deadline=deadline, grace=grace)
    return seats


@dataclass
class Served:
    """What ``serve`` tells the game master once it listens."""

    host: str
    port: int
    seats: dict[str, Seat]
    resumed: int = 0
    """Events of the log that were there before (a resumed fight), else 0."""
    tls: bool = False
    """Whether it speaks TLS (``https://`` links)."""
    gm_token: str = ""
    """The game master's token (``/gm#token=...``, ``join --gm``)."""
    spectator_token: str = ""
    """The spectators' token (``/watch#token=...``, ``join --watch``)."""
    warning: str | None = None
    """What went wrong with the tokens kept for a resumed fight (new ones were made)."""


class _ServedSink(LogSink):
    """The served fight's sink: a Ctrl-C waits for a flush to finish (whole lines written and
    published), so a decision made over the network is never dropped half-way there."""

    __slots__ = ()

    @trio.lowlevel.enable_ki_protection
    def flush(self) -> None:
        super().flush()


@dataclass
class _Prefix:
    """What a resumed fight carries over from its log."""

    lines: int
    """How many lines the log held (the sink checks them: :meth:`engine.LogSink.resume`)."""
    decisions: list[Decision]
    reseed: dict[int, int]
    dice: DiceSource | None
    parent: str | None


async def serve_fight(
    spec: EncounterSpec,
    seed: int,
    seat_names: Sequence[str],
    *,
    out: str | Path,
    host: str = "127.0.0.1",
    port: int = 0,
    deadline: float = 60.0,
    grace: float = 30.0,
    policies: Mapping[str, str] | None = None,
    timeout: float | None = None,
    limits: Limits | None = None,
    tls: ssl.SSLContext | None = None,
    wait: bool = True,
    linger: float = 5.0,
    on_event: Callable[[Event], None] | None = None,
    spectators: Spectators = "seats",
    review: ReviewOptions | None = None,
    task_status: trio.TaskStatus[Served] = trio.TASK_STATUS_IGNORED,
) -> Fight:
    """Listen, wait for every seat (with ``wait``), fight, and let clients hear the end.

    ``deadline`` is each seat's time per decision, ``grace`` the time a seat that dropped while
    holding priority has to come back; ``timeout`` the other policies'; ``tls`` a context from
    :func:`server_context` to speak only TLS; ``spectators`` what spectators see (``seats``:
    what the seated players see together; ``all``); ``review`` what the review at the end and
    the GM's live odds may spend (:mod:`._reviews`; no odds by default). The tokens are kept
    beside the log (:mod:`._tokens`) for :func:`resume_served`.
    """
    return await _serve(
        spec, seed, seat_names, lambda: _ServedSink(out), None, host=host, port=port, deadline=deadline,
        grace=grace, policies=policies, timeout=timeout, limits=limits, tls=tls, wait=wait,
        linger=linger, on_event=on_event, spectators=spectators, log=Path(out), tokens={},
        review=review, task_status=task_status,
    )  # fmt: skip


async def resume_served(
    path: str | Path,
    seat_names: Sequence[str],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    deadline: float = 60.0,
    grace: float = 30.0,
    policies: Mapping[str, str] | None = None,
    trust_log_policies: bool = False,
    timeout: float | None = None,
    limits: Limits | None = None,
    tls: ssl.SSLContext | None = None,
    wait: bool = True,
    linger: float = 5.0,
    on_event: Callable[[Event], None] | None = None,
    spectators: Spectators = "seats",
    review: ReviewOptions | None = None,
    task_status: trio.TaskStatus[Served] = trio.TASK_STATUS_IGNORED,
) -> Fight:
    """Go on with a served fight from its log (after a Ctrl-C or a killed server), appending
    to it: the same seats with the same tokens (kept beside the log; new ones, with
    :attr:`Served.warning`, when they cannot be read), the log's policies for the others.

    Like ``resume``: the log's lock is taken first, a finished log raises
    :class:`~initiative.replays.NothingToResume`, a torn last line is cut off, the recorded
    decisions are replayed and must give the log byte for byte; clients that join get the whole
    log as news. Nobody at a seat is asked again what the log holds.
    """
    p = Path(path)
    sink = _ServedSink(p, append=True)  # the log's lock, taken before the log is read
    try:
        contents = read_to_resume(p)
        header = contents.header
        chosen = live_policies(contents, policies, trust_log_policies=trust_log_policies)
        sink.resume(contents)  # cuts a torn last line; the fight must give the rest again
        prefix = _Prefix(
            lines=len(contents.lines),
            decisions=[r.decision for r in recorded_decisions(contents.events)],
            reseed=reseeds(contents.events),
            dice=recorded_dice(contents.events),
            parent=header.parent,
        )
    except BaseException:
        sink.close()
        raise
    tokens, warning = read_tokens(p)
    try:
        return await _serve(
            header.encounter, header.seed, seat_names, lambda: sink, prefix, host=host,
            port=port, deadline=deadline, grace=grace, policies=chosen, timeout=timeout,
            limits=limits, tls=tls, wait=wait, linger=linger, on_event=on_event,
            spectators=spectators, log=p, tokens=tokens, warning=warning, review=review,
            task_status=task_status,
        )  # fmt: skip
    finally:
        sink.close()


async def _serve(
    spec: EncounterSpec,
    seed: int,
    seat_names: Sequence[str],
    open_log: Callable[[], LogSink],
    prefix: _Prefix | None,
    *,
    host: str,
    port: int,
    deadline: float,
    grace: float,
    policies: Mapping[str, str] | None,
    timeout: float | None,
    limits: Limits | None,
    tls: ssl.SSLContext | None,
    wait: bool,
    linger: float,
    on_event: Callable[[Event], None] | None,
    spectators: Spectators,
    log: Path,
    tokens: Mapping[str, str],
    task_status: trio.TaskStatus[Served],
    warning: str | None = None,
    review: ReviewOptions | None = None,
) -> Fight:
    _check_times(deadline, grace)
    seats = seats_for(spec, seat_names, deadline, grace, tokens)
    runners: dict[str, PolicyRunner] = make_runners(spec, seed, policies, timeout=timeout)
    runners |= {who: seat.runner(who) for seat in seats.values() for who in seat.combatants}
    server = SeatServer(
        spec, seats, limits, tls=tls, spectators=spectators, tokens=tokens, log=log, review=review
    )
    server.review.played = _who_played(spec, runners)
    listeners = await trio.open_tcp_listeners(port, host=host)
    sink = await _open_the_log(open_log, log, server, listeners)
    bound = listeners[0].socket.getsockname()[1]
    # The sink writes the lines so far before anyone is asked, and clients hear them only once
    # written: so every event is on disk, whatever becomes of this process, before any client
    # hears of it and before the next priority frame goes out (a decision made over the
    # network is never lost). A resumed log's lines are checked, not written again.
    sink.written = server.publish
    sink.on_event = on_event
    fight = Fight(
        spec,
        seed,
        sink=sink,
        parent=prefix.parent if prefix else None,
        reseed=prefix.reseed if prefix else None,
        dice=prefix.dice if prefix else None,
    )
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, server.handle, listeners)
            nursery.start_soon(server.review.serve)
            if server.odds is not None:
                nursery.start_soon(server.odds.serve)
            task_status.started(
                Served(
                    host=host,
                    port=bound,
                    seats=seats,
                    resumed=prefix.lines if prefix is not None else 0,
                    tls=tls is not None,
                    gm_token=server.gm_token,
                    spectator_token=server.spectator_token,
                    warning=warning,
                )
            )
            if wait and seats:
                await server.wait_all_seated()
            await schedule(
                fight, runners, decisions=prefix.decisions if prefix else (),
                interrupts=server.desk,
            )  # fmt: skip
            server.finish(fight.state.winner)
            await server.after_the_end(linger)
            nursery.cancel_scope.cancel()
    finally:
        sink.close()
    return fight


def _who_played(spec: EncounterSpec, runners: Mapping[str, PolicyRunner]) -> dict[str, str]:
    """Who plays in place of the encounter file's policy (``seat NAME``, or a policy ``serve
    --policy`` chose), by combatant: the log names the file's, so the review is told."""
    files = {c.id: c.policy for c in spec.combatants}
    return {who: r.name for who, r in runners.items() if r.name != files.get(who)}


async def _open_the_log(
    open_log: Callable[[], LogSink],
    log: Path,
    server: SeatServer,
    listeners: Sequence[trio.SocketListener],
) -> LogSink:
    """The fight's log opened and every token kept beside it (``LOG.tokens``); if either
    fails, the listeners are closed and the log is left as it was."""
    try:
        sink = open_log()  # a fresh log is emptied only now: a refused start leaves it alone
    except BaseException:
        for listener in listeners:
            await trio.aclose_forcefully(listener)
        raise
    kept = {"gm": server.gm_token, "spectators": server.spectator_token}
    kept |= {f"seat:{seat.name}": seat.token for seat in server.seats.values()}
    try:
        write_tokens(log, kept)
    except OSError as err:
        sink.close()
        for listener in listeners:
            await trio.aclose_forcefully(listener)
        raise InitiativeError(
            f"{log}.tokens: cannot keep the tokens beside the log: {err.strerror or err}"
        ) from None
    return sink


def _check_times(deadline: float, grace: float) -> None:
    if not deadline > 0:
        raise InitiativeError(
            f"the seat deadline must be a positive number of seconds, got {deadline:g}"
        )
    if not grace >= 0:
        raise InitiativeError(
            f"the grace must be zero or a positive number of seconds, got {grace:g}"
        )
