"""The seat protocol's frames: newline-delimited JSON objects tagged by ``"type"``.

``docs/protocol.md`` is the reference; this module is its one implementation. A client sends a
:class:`Hello`, then :class:`Decide` frames; the server sends :class:`Welcome`, then
:class:`Priority`, :class:`News` (each a log line), :class:`Error` and finally :class:`End`.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from initiative.actors import Names, Presentation, StateTable, present
from initiative.engine import View
from initiative.events import EncounterSpec, Offer, Window, decode_action

#: The protocol's version, sent in every hello and welcome.
PROTOCOL_VERSION = 1


class Hello(msgspec.Struct, frozen=True, kw_only=True, tag="hello"):
    """Client, first frame: who is connecting."""

    version: int
    """The protocol version the client speaks."""
    seat: str | None = None
    """The seat to take (a combatant id or a side); omit it for another role."""
    role: Literal["seat", "gm", "spectator"] | None = None
    """``gm`` or ``spectator`` (with that role's token); ``seat`` or omitted with a seat."""
    token: str | None = None
    """The seat's (or the role's) secret, as the game master received it from ``serve``."""
    since: int = 0
    """How many of the log's lines this client has already heard of (a client coming back
    after a lost connection or a restarted server: a ``table`` frame's ``lines``); the news
    and the table's words start after them."""
    review: bool = False
    """The GM only: stay connected after the end, to ask for the fight's review (a
    :class:`ReviewAsk`); the server then waits for it (``docs/protocol.md``)."""


class Decide(msgspec.Struct, frozen=True, kw_only=True, tag="decision"):
    """Client: the answer to a priority frame."""

    who: str
    """The combatant the decision is for (the priority frame's ``who``)."""
    seq: int
    """The priority frame's ``seq``."""
    offer: int | None = None
    """The index of the chosen offer."""
    action: Any = None
    """Or an action object itself; one that is not among the offers goes to the rules, which
    reject it as any illegal action."""


class Welcome(msgspec.Struct, frozen=True, kw_only=True, tag="welcome"):
    """Server: the hello is accepted."""

    version: int
    seat: str | None
    """The seat taken (``None`` for the GM and a spectator)."""
    combatants: tuple[str, ...]
    """The combatants this connection plays."""
    deadline: float
    """Seconds each decision may take."""
    encounter: str
    ruleset: str
    role: Literal["seat", "gm", "spectator"] = "seat"
    """What this connection is: a seat, the game master, or a spectator."""
    news: bool = True
    """Whether this connection is sent every log line as ``news``: the GM and spectators are;
    a seat only when the encounter says ``reveal = "all"`` (the log holds hidden numbers)."""
    reveal: Literal["words", "all"] = "all"
    """What a seat sees of its enemies: their hit points in words (``words``) or everything."""
    conditions: tuple[str, ...] = ()
    """The conditions the ruleset declares, as an ``AddCondition`` names them
    (``engine.declared_conditions``; ``disarmed:WEAPON`` for one that names something): what
    the GM page's picker offers. Empty where the ruleset declares none (openings)."""


class Priority(msgspec.Struct, frozen=True, kw_only=True, tag="priority"):
    """Server: one of the seat's combatants holds priority."""

    who: str
    seq: int
    deadline: float
    window: Window
    offers: tuple[Offer, ...]
    view: View
    screen: Presentation | None = None
    """The decision in words, as every screen shows it (names, offers with their cost,
    distance and direction, what an opening reacts to, the state the seat may see)."""


class Token(msgspec.Struct, frozen=True, kw_only=True):
    """One combatant on the battle map (what anyone at the table sees of it)."""

    id: str
    name: str
    side: str
    at: tuple[float, float]
    """Where it stands, in metres."""
    size: int
    """1 small, 2 medium, 3 large, 4 huge (the token's diameter on the map)."""
    reach: float
    """Its longest melee reach, in metres (shown on hover)."""
    standing: bool = True
    left: bool = False
    """Gone from the fight without falling (fled, taken out by the GM): not down."""
    initiative: int | None = None
    """Its initiative result (the die and what the rules add), as the narration gives it."""
    conditions: tuple[tuple[str, str, str], ...] = ()
    """Each condition: its name in the log (``in_cover``), in words (``in cover``), and how long
    it lasts in words (``end of round 2``; ``""``: until ended)."""
    counters: tuple[tuple[str, int], ...] = ()
    """The ruleset's tallies kept for it, by name."""
    markers: tuple[str, ...] = ()
    """The GM's markers on it (free text, no rule effect), in the order put on."""


class Roll(msgspec.Struct, frozen=True, kw_only=True):
    """One die roll, as its card shows it."""

    seq: int
    who: str | None
    """The name of whoever rolled (``None``: the table)."""
    purpose: str
    expr: str
    dice: tuple[int, ...]
    """Each die's face."""
    modifier: int
    total: int
    given: bool = False
    """Rolled at the table and typed in (``--dice``), not drawn by the server."""


class Board(msgspec.Struct, frozen=True, kw_only=True):
    """The battle map and what the tracker shows besides the state table."""

    tokens: tuple[Token, ...] = ()
    sides: tuple[str, ...] = ()
    """The sides in the encounter's order (for their colours)."""
    priority: str | None = None
    """The id of whoever may act right now."""
    window: str | None = None
    """``turn`` or ``opening`` while someone holds priority."""
    last_move: tuple[str, tuple[float, float], tuple[float, float]] | None = None
    """The last move: who, from where, to where."""
    rolls: tuple[Roll, ...] = ()
    """The dice rolled in the news just sent (the last 24 at most)."""


class TableFrame(msgspec.Struct, frozen=True, kw_only=True, tag="table"):
    """Server: after news, what the table said about it and the state as the seat sees it."""

    said: tuple[str, ...]
    """The table narration's sentences for the news just sent, plain text."""
    state: StateTable
    """The fight after the last event folded in (``state.seq``)."""
    board: Board | None = None
    """The battle map, who holds priority, and the dice of the news just sent."""
    lines: int = 0
    """How many of the log's lines this connection has now heard of (its ``hello``'s
    ``since`` when it comes back)."""


class Clock(msgspec.Struct, frozen=True, kw_only=True, tag="clock"):
    """Server, to the GM and spectators: a seat holds priority and has ``left`` seconds."""

    seat: str
    who: str
    """The combatant deciding."""
    left: float


class News(msgspec.Struct, frozen=True, kw_only=True, tag="news"):
    """Server: one event of the log, exactly as its line in the log file."""

    event: msgspec.Raw


class Error(msgspec.Struct, frozen=True, kw_only=True, tag="error"):
    """Server: something was refused; ``fatal`` when the server closes the connection."""

    reason: str
    fatal: bool = False


class End(msgspec.Struct, frozen=True, kw_only=True, tag="end"):
    """Server: the encounter is over (every event has been sent as news)."""

    winner: str | None
    events: int


class Gm(msgspec.Struct, frozen=True, kw_only=True, tag="gm"):
    """Client (the GM only): an override to apply at the next decision point."""

    id: int
    """The client's own number for it, echoed in the :class:`GmResult`."""
    override: Any
    """The override object (``{"type": "SetHp", "who": "bo", "hp": 7}``, see
    ``docs/protocol.md``)."""


class GmResult(msgspec.Struct, frozen=True, kw_only=True, tag="gm_result", omit_defaults=True):
    """Server, to the GM connection that sent a :class:`Gm`: recorded (``seq`` of its
    ``GmOverride``), or refused with the reason."""

    id: int
    ok: bool
    seq: int | None = None
    reason: str | None = None


class ReviewAsk(msgspec.Struct, frozen=True, kw_only=True, tag="review"):
    """Client (the GM only, once the fight is over): review this fight. The answer is
    :class:`ReviewStatus` frames, then the report at ``GET /review``."""


class Leave(msgspec.Struct, frozen=True, kw_only=True, tag="leave"):
    """Client: this connection leaves for good (a GM's or a seat's is closed). From the GM that
    stayed after the end (``join --gm``'s ``q`` or Ctrl-C, or its review saved), the server then does
    not wait for it to come back, as it waits for a reloaded GM page."""


class ReviewStatus(msgspec.Struct, frozen=True, kw_only=True, tag="review_status"):
    """Server, to the GM only: how the review of the finished fight goes."""

    state: Literal["running", "ready", "failed"]
    done: int = 0
    """Decisions reviewed so far."""
    total: int = 0
    """Decisions to review (0 until the review has counted them)."""
    reason: str | None = None
    """Why it failed, in one line."""
    path: str | None = None
    """Where the report is (``/review``, with the GM token) once ``ready``."""


class Odds(msgspec.Struct, frozen=True, kw_only=True, tag="odds"):
    """Server, to the GM only (``serve --gm-odds``): each side's chance to win from the
    newest position, as the review finds it (``replays.odds``)."""

    seq: int | None = None
    """The ``PriorityGranted`` the chances are before (the last event's once it is over)."""
    round: int = 0
    win: dict[str, float] = {}
    """Each side's chance (a fight that ends undecided counts for nobody)."""
    interval: dict[str, tuple[float, float]] = {}
    """Each side's 95% interval."""
    rollouts: int = 0
    """Fights played out for it (0 once the fight is over: the result)."""
    ended: bool = False
    who: str | None = None
    """The id of who decides there (``None`` once the fight is over)."""
    stopped: str | None = None
    """Why the odds stopped (their process died or hung), in one line; no more come."""


ClientFrame = Hello | Decide | Gm | ReviewAsk | Leave

_encoder = msgspec.json.Encoder()
_client_decoder = msgspec.json.Decoder(ClientFrame)


class FrameError(Exception):
    """A frame that cannot be read; the message says why (no ``Error`` suffix for the signal)."""


def encode(frame: msgspec.Struct) -> bytes:
    """One frame as a line (with its newline)."""
    return _encoder.encode(frame) + b"\n"


def priority(view: View, deadline: float, names: EncounterSpec | Names | None = None) -> bytes:
    """The priority frame for ``view``, as a line (see :func:`priority_frame`)."""
    return encode(priority_frame(view, deadline, names))


def priority_frame(
    view: View, deadline: float, names: EncounterSpec | Names | None = None
) -> Priority:
    """The priority frame for ``view``; with the encounter's ``names`` (or the encounter) it
    carries its presentation. A served fight passes the names its table learnt from the log,
    which know the GM's joiners by name."""
    plain = msgspec.structs.replace(view, fork=None, estimate=None, known={})
    return Priority(
        who=view.me.id,
        seq=view.seq,
        deadline=deadline,
        window=view.window,
        offers=view.legal,
        view=plain,
        screen=None
        if names is None
        else present(view, names if isinstance(names, Names) else Names(names)),
    )


def decode_client(data: bytes) -> Hello | Decide | Gm | ReviewAsk | Leave:
    try:
        return _client_decoder.decode(data)
    except msgspec.DecodeError as err:
        raise FrameError(f"malformed frame: {err}") from None


def chosen_action(frame: Decide, offers: tuple[Offer, ...]) -> Any:
    """The action a decision names: an offer by index, or an action object."""
    if frame.offer is not None:
        if not 0 <= frame.offer < len(offers):
            raise FrameError(f"no offer {frame.offer} (there are {len(offers)})")
        return offers[frame.offer].action
    if frame.action is None:
        raise FrameError("a decision needs an offer index or an action")
    try:
        return decode_action(frame.action)
    except msgspec.ValidationError as err:
        raise FrameError(f"malformed action: {err}") from None


class Grace(msgspec.Struct, frozen=True, kw_only=True, tag="grace"):
    """Server, to every connection: a seat dropped while holding priority and has ``remaining``
    seconds to come back (with its token) before the drop is a recorded fault."""

    seat: str
    """The seat whose connection dropped."""
    who: str
    """The combatant that holds priority (the pending decision's ``who``)."""
    remaining: float
    """Seconds of grace left when the frame was sent (0: the seat is back, or the grace is
    over: the banner goes)."""
    name: str = ""
    """The name of ``who``, as screens show it."""


ServerFrame = (
    Welcome
    | Priority
    | TableFrame
    | News
    | Error
    | End
    | Grace
    | Clock
    | GmResult
    | Odds
    | ReviewStatus
)
