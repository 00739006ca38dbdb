"""The log: JSON Lines codec, append-only writer, reader with torn-line recovery, upcasting.

A log is untrusted input. Reading one decodes data into Structs and never runs code from it.
The writer appends one whole line per event with a single unbuffered write, so a crash costs at
most the line being written; the reader drops such a torn last line and reports it, and treats
any other damage as an error that names the line.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from ._errors import LogBusyError, LogFormatError, LogNeverStartedError
from ._events import (
    ActionDeclared,
    ActionRejected,
    AnyEvent,
    APChanged,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    EncounterStarted,
    Event,
    GmOverride,
    Healed,
    Moved,
)
from ._overrides import AddCombatant
from ._upcast import STEPS, rechain, upcaster_for
from ._vocabulary import (
    as_declared,
    event_decoder,
    event_type,
    foreign_action,
    has_own_actions,
    load_ruleset_actions,
    stand_in_types,
)

#: Version of the log format this code writes. Bump it (and add an upcaster to
#: ``_upcast.STEPS``) when a field's meaning changes; new fields with defaults need no bump.
#: Format 2: a ruleset's own actions are tagged ``"<ruleset>.<Name>"``.
LOG_FORMAT = 2

_encoder = msgspec.json.Encoder()
_dict_decoder = msgspec.json.Decoder(dict[str, Any])


@cache
def _core_decoder() -> msgspec.json.Decoder[Any]:
    """The decoder of the events of a log whose ruleset has no actions of its own, made on
    first use (making it costs as much as importing a module)."""
    return msgspec.json.Decoder(AnyEvent)


def encode_event(event: Event) -> bytes:
    """One log line for ``event``, newline included."""
    return _encoder.encode(event) + b"\n"


def decode_event(line: bytes) -> Event:
    """Decode one log line (without or with its newline).

    A header registers the actions of an installed ruleset it names, for the lines after it.
    """
    event: Event = as_declared(event_decoder().decode(line))
    if isinstance(event, EncounterStarted):
        load_ruleset_actions(event.ruleset)
    return event


class LogWriter:
    """Append events to a log file, one whole line per write, flushed as it goes.

    The writer holds an exclusive lock (``flock``) on the file from opening to closing, so one
    process writes a log at a time: a second writer (another ``resume``, a ``run --force`` onto
    the same file) is refused with :class:`LogBusyError` instead of interleaving its lines. The
    file is always opened for append; a fresh log is emptied only once the lock is held, and
    ``append=True`` never creates or empties anything.
    """

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False) -> None:
        self.path = Path(path)
        flags = os.O_WRONLY | os.O_APPEND | (0 if append else os.O_CREAT)
        try:
            self._fd: int | None = os.open(self.path, flags, 0o644)
        except OSError as err:
            raise LogFormatError(f"{self.path}: cannot open for writing: {err.strerror}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.close()
            raise LogBusyError(
                f"{self.path}: another process is writing this log (it holds the log's lock);"
                " wait until it has finished, or stop it first"
            ) from None
        except OSError as err:
            self.close()
            raise LogFormatError(f"{self.path}: cannot lock for writing: {err.strerror}") from None
        if not append and os.fstat(self._fd).st_size:  # (truncating costs more than asking)
            os.ftruncate(self._fd, 0)

    def truncate(self, size: int) -> None:
        """Cut the file to ``size`` bytes (a torn last line), under the writer's lock."""
        if self._fd is None:
            raise ValueError("log writer is closed")
        os.ftruncate(self._fd, size)

    def write_line(self, line: bytes) -> None:
        """Write one encoded line (it must end with a newline)."""
        if self._fd is None:
            raise ValueError("log writer is closed")
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def append(self, event: Event) -> None:
        self.write_line(encode_event(event))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LogContents:
    """What a log file holds: its events, their lines, and whether a torn tail was dropped."""

    __slots__ = ("_body", "_lines", "events", "path", "torn", "upcast_from", "warnings")

    def __init__(
        self,
        events: list[Event],
        lines: list[bytes] | None = None,
        torn: int = 0,
        path: str = "",
        warnings: list[str] | None = None,
        *,
        body: bytes = b"",
        upcast_from: int = 0,
    ) -> None:
        self.events = events
        self._lines = lines
        self._body = body
        self.torn = torn
        """Bytes of a torn last line that were dropped (0 when the log ends cleanly)."""
        self.path = path
        self.warnings: list[str] = [] if warnings is None else warnings
        self.upcast_from = upcast_from
        """The log format the file was written in, when older than :data:`LOG_FORMAT`: its
        events were upcast, and ``lines`` are their current encoding (0 for a current log,
        whose ``lines`` are the file's own bytes)."""

    @property
    def lines(self) -> list[bytes]:
        """The raw lines, newline included, one per event (split from the log's bytes when
        first asked for: reading a log to fold it never needs them)."""
        if self._lines is None:
            parts = self._body.split(b"\n")
            parts.pop()  # the body ends with a newline: nothing after it
            self._lines = [line + b"\n" for line in parts]
        return self._lines

    @property
    def header(self) -> EncounterStarted:
        head = self.events[0]
        assert isinstance(head, EncounterStarted)
        return head

    @property
    def complete(self) -> bool:
        """The log ends with ``EncounterEnded``."""
        return bool(self.events) and type(self.events[-1]).__name__ == "EncounterEnded"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LogContents):
            return NotImplemented
        return (self.events, self.torn, self.path, self.warnings, self.upcast_from) == (
            other.events,
            other.torn,
            other.path,
            other.warnings,
            other.upcast_from,
        ) and self.lines == other.lines

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"LogContents(events=<{len(self.events)} events>, torn={self.torn},"
            f" path={self.path!r}, warnings={self.warnings!r})"
        )


def parse_log(data: bytes, *, name: str = "<log>") -> LogContents:
    """Decode a whole log held in memory; see :func:`read_log`."""
    end = data.rfind(b"\n") + 1
    body, tail = data[:end], data[end:]
    warnings = []
    if tail and end:
        warnings.append(
            f"{name}: dropped a torn last line ({len(tail)} bytes without a newline), probably"
            " from a crash or a killed process; the events before it are complete"
        )
    elif tail:
        raise LogNeverStartedError(
            f"{name}: the fight never started: the log's first line (its header) is cut short"
            f" ({len(tail)} bytes without a newline); run the encounter again"
        )
    fast = _parse_current(body, name)
    if fast is not None:
        return LogContents(events=fast, torn=len(tail), path=name, warnings=warnings, body=body)
    lines = body.split(b"\n")
    lines.pop()  # the body ends with a newline: nothing after it
    events: list[Event] = []
    raw: list[bytes] = []
    upcast = upcaster_for(lines[0], LOG_FORMAT) if lines else None
    ruleset = ""
    joined: set[str] = set()
    for number, line in enumerate(lines, start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise LogFormatError(
                f"{name}: line {number}: not UTF-8 text (byte {err.start + 1})"
            ) from None
        try:
            if upcast is not None:
                event = upcast.decode(line)
            else:
                event = as_declared(event_decoder().decode(line))
        except msgspec.DecodeError as err:
            raise LogFormatError(f"{name}: line {number}: not a valid event: {err}") from None
        except msgspec.ValidationError as err:
            raise LogFormatError(f"{name}: line {number}: not a valid event: {err}") from None
        if number == 1:
            _check_header(event, name)
            assert isinstance(event, EncounterStarted)
            load_ruleset_actions(event.ruleset)
            ruleset = event.ruleset
        elif isinstance(event, EncounterStarted):
            raise LogFormatError(f"{name}: line {number}: a second EncounterStarted header")
        foreign = foreign_action(event, ruleset)
        if foreign is not None:
            raise LogFormatError(f"{name}: line {number}: {foreign}")
        if event.seq != number - 1:
            raise LogFormatError(
                f"{name}: line {number}: seq is {event.seq}, expected {number - 1}"
                " (lines were removed, reordered or edited)"
            )
        if event.cause is not None and not 0 <= event.cause < event.seq:
            raise LogFormatError(
                f"{name}: line {number}: cause {event.cause} does not name an earlier event"
            )
        _check_names(event, events[0] if events else event, joined, name, number)
        events.append(event)
        raw.append(line + b"\n")
    if not events:
        raise LogNeverStartedError(
            f"{name}: empty log (no EncounterStarted header): the fight never started;"
            " run the encounter again"
        )
    if upcast is not None:
        original, raw = raw, [encode_event(e) for e in events]
        rechain(original, events, raw)
    return LogContents(
        events=events,
        lines=raw,
        torn=len(tail),
        path=name,
        warnings=warnings,
        upcast_from=upcast.source if upcast is not None else 0,
    )


def _parse_current(body: bytes, name: str) -> list[Event] | None:
    """The events of a log in the current format with nothing wrong in it, decoded in one
    call over the whole body (``decode_lines``); ``None`` when anything needs the line-by-line
    reader (an older format to upcast, or a bad line, which that reader names). The checks
    are the line-by-line reader's."""
    if not body.startswith(b'{"type":"EncounterStarted"'):
        return None
    if not body.isascii():
        # The line-by-line reader names a line that is not UTF-8 (msgspec does not look at
        # every byte it skips, and the commands print the lines as text).
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return None
    # The number of lines (bytes.count tests every byte in a plain loop; a replace finds them
    # with memchr, and costs a third of that).
    count = len(body) - len(body.replace(b"\n", b""))
    try:
        # Only the ruleset's name is needed before the whole decode (which checks the
        # header in full): its registered actions must be known to decode the lines after.
        ruleset = _peek_header.decode(body[: body.index(b"\n")]).ruleset
        load_ruleset_actions(ruleset)
        # A ruleset without actions of its own decodes with the core vocabulary alone: no
        # stand-ins to turn back, and another ruleset's action fails to decode here (the
        # line-by-line reader names it).
        own = has_own_actions(ruleset)
        union = event_type() if own else AnyEvent
        decoder = event_decoder() if own else _core_decoder()
        decoded: list[Any] = decoder.decode_lines(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    # msgspec splits the values at any whitespace: a line split in two (or two lines in one)
    # may still decode. One event per line, or the line-by-line reader decides.
    if len(decoded) != count:
        return None
    events: list[Event]
    if union is AnyEvent:
        events = decoded
    else:
        stand_ins = stand_in_types()
        events = [as_declared(e) if type(e) in stand_ins else e for e in decoded]
    header = events[0]
    if not isinstance(header, EncounterStarted) or header.format != LOG_FORMAT:
        return None
    # The line-by-line reader's checks, in one plain loop (cheaper than a pass per check).
    ids = {c.id for c in header.encounter.combatants}
    ruleset = header.ruleset
    joined: set[str] = set()
    kinds = _KINDS
    for seq, event in enumerate(events):
        cause = event.cause
        if event.seq != seq or (cause is not None and not 0 <= cause < seq):
            return None
        kind = kinds.get(type(event))
        if not kind:
            if kind is None:
                kind = _kind(type(event))
            if not kind:
                continue
        if kind == _ACTS:
            if own and foreign_action(event, ruleset) is not None:
                return None  # the line-by-line reader names the line and both rulesets
            continue
        if kind == _HEADER:
            if seq or foreign_action(event, ruleset) is not None:
                return None  # a second header, or a script of another ruleset's actions
            continue
        if kind == _GM:
            if isinstance(event.override, AddCombatant):  # type: ignore[attr-defined]
                ids.add(event.override.id)  # type: ignore[attr-defined]
            continue
        who = getattr(event, "who", None)
        if not isinstance(who, str):
            continue
        if kind == _JOINED:
            if who not in ids:
                return None  # the line-by-line reader names the line
            joined.add(who)
        elif who not in joined:
            return None
    return events


class _HeaderPeek(msgspec.Struct):
    """The one field of a header read before the rest of the log is decoded."""

    ruleset: str


_peek_header = msgspec.json.Decoder(_HeaderPeek)

_HEADER, _JOINED, _ABOUT, _ACTS, _GM = 1, 2, 3, 4, 5
_KINDS: dict[type, int] = {}
"""What :func:`_check_names` (or the one-header rule) checks on each event type, by type."""


def _kind(cls: type) -> int:
    kind = 0
    if issubclass(cls, EncounterStarted):
        kind = _HEADER
    elif issubclass(cls, CombatantJoined):
        kind = _JOINED
    elif issubclass(cls, _ABOUT_A_COMBATANT):
        kind = _ABOUT
    elif issubclass(cls, ActionDeclared | ActionRejected):
        kind = _ACTS
    elif issubclass(cls, GmOverride):
        kind = _GM
    _KINDS[cls] = kind
    return kind


#: Events that change a combatant's state: the one they name must have joined the fight.
_ABOUT_A_COMBATANT = (
    APChanged,
    CombatantDefeated,
    CombatantLeft,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    Healed,
    Moved,
)


def _check_names(event: Event, header: Event, joined: set[str], name: str, number: int) -> None:
    """An event about a combatant names one that has joined (and ``CombatantJoined`` one that
    the header describes), so that folding a crafted log never looks up a stranger."""
    if isinstance(event, GmOverride) and isinstance(event.override, AddCombatant):
        joined.add("\0" + event.override.id)  # the GM's joiner may join now
        return
    who = getattr(event, "who", None)
    if not isinstance(who, str):
        return
    if isinstance(event, CombatantJoined):
        assert isinstance(header, EncounterStarted)
        if who not in {c.id for c in header.encounter.combatants} and "\0" + who not in joined:
            raise LogFormatError(
                f"{name}: line {number}: CombatantJoined names {who!r}, who is not in the header"
            )
        joined.add(who)
    elif isinstance(event, _ABOUT_A_COMBATANT) and who not in joined:
        raise LogFormatError(
            f"{name}: line {number}: {type(event).__name__} names {who!r}, who has not joined"
            " the fight"
        )


def _check_header(event: Event, name: str) -> None:
    if not isinstance(event, EncounterStarted):
        raise LogFormatError(f"{name}: line 1: the first event must be EncounterStarted")
    if event.format > LOG_FORMAT:
        raise LogFormatError(
            f"{name}: log format {event.format} is newer than this initiative reads"
            f" ({LOG_FORMAT}); upgrade initiative"
        )
    if event.format < 1 or any(v not in STEPS for v in range(event.format, LOG_FORMAT)):
        raise LogFormatError(
            f"{name}: line 1: log format {event.format} is not one this initiative knows"
            f" (1 to {LOG_FORMAT})"
        )


def read_log(path: str | os.PathLike[str]) -> LogContents:
    """Read a log file.

    Returns every complete event. A torn last line (bytes after the last newline) is dropped and
    reported in ``warnings``; any other malformed line raises :class:`LogFormatError` naming it.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as err:
        raise LogFormatError(f"{p}: cannot read: {err.strerror}") from None
    return parse_log(data, name=str(p))


def encode_lines(events: Iterable[Event]) -> bytes:
    """The bytes of a log holding ``events``."""
    return b"".join(encode_event(e) for e in events)
