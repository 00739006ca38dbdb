"""The log: JSON Lines codec, append-only writer, reader with torn-line recovery, upcasting.

A log is untrusted input. Reading one decodes data into Structs and never runs code from it.
The writer appends one whole line per event with a single unbuffered write, so a crash costs at
most the line being written; the reader drops such a torn last line and reports it, and treats
any other damage as an error that names the line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec

from ._errors import LogFormatError
from ._events import AnyEvent, EncounterStarted, Event

#: Version of the log format this code writes. Bump it (and add an upcaster) when a field's
#: meaning changes; new fields with defaults need no bump.
LOG_FORMAT = 1

#: Upcasters from an older format to the next one, applied to each decoded line (a dict).
#: ``UPCASTERS[n]`` turns a format-``n`` line into a format-``n + 1`` line.
UPCASTERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(AnyEvent)
_dict_decoder = msgspec.json.Decoder(dict[str, Any])
_list_decoder = msgspec.json.Decoder(list[AnyEvent])


def encode_event(event: Event) -> bytes:
    """One log line for ``event``, newline included."""
    return _encoder.encode(event) + b"\n"


def decode_event(line: bytes) -> Event:
    """Decode one log line (without or with its newline)."""
    return _decoder.decode(line)


class LogWriter:
    """Append events to a log file, one whole line per write, flushed as it goes."""

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False) -> None:
        self.path = Path(path)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        try:
            self._fd: int | None = os.open(self.path, flags, 0o644)
        except OSError as err:
            raise LogFormatError(f"{self.path}: cannot open for writing: {err.strerror}") from None

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

    __slots__ = ("_body", "_lines", "events", "path", "torn", "warnings")

    def __init__(
        self,
        events: list[Event],
        lines: list[bytes] | None = None,
        torn: int = 0,
        path: str = "",
        warnings: list[str] | None = None,
        *,
        body: bytes = b"",
    ) -> None:
        self.events = events
        self._lines = lines
        self._body = body
        self.torn = torn
        """Bytes of a torn last line that were dropped (0 when the log ends cleanly)."""
        self.path = path
        self.warnings = [] if warnings is None else warnings

    @property
    def lines(self) -> list[bytes]:
        """The raw lines, newline included, one per event (split from the log on first use)."""
        if self._lines is None:
            self._lines = [line + b"\n" for line in self._body.split(b"\n")[:-1]]
            self._body = b""
        return self._lines

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LogContents):
            return NotImplemented
        return (self.events, self.lines, self.torn, self.path, self.warnings) == (
            other.events,
            other.lines,
            other.torn,
            other.path,
            other.warnings,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"LogContents(events={self.events!r}, lines={self.lines!r}, torn={self.torn!r},"
            f" path={self.path!r}, warnings={self.warnings!r})"
        )

    @property
    def header(self) -> EncounterStarted:
        head = self.events[0]
        assert isinstance(head, EncounterStarted)
        return head

    @property
    def complete(self) -> bool:
        """The log ends with ``EncounterEnded``."""
        return bool(self.events) and type(self.events[-1]).__name__ == "EncounterEnded"


def parse_log(data: bytes, *, name: str = "<log>") -> LogContents:
    """Decode a whole log held in memory; see :func:`read_log`."""
    body = data[: data.rfind(b"\n") + 1]
    tail = data[len(body) :]
    warnings = []
    if tail:
        warnings.append(
            f"{name}: dropped a torn last line ({len(tail)} bytes without a newline);"
            " the events before it are complete"
        )
    fast = _parse_current(body, name)
    if fast is not None:
        return LogContents(events=fast, torn=len(tail), path=name, warnings=warnings, body=body)
    lines = body.split(b"\n")[:-1]
    events: list[Event] = []
    raw: list[bytes] = []
    upcast: list[Callable[[dict[str, Any]], dict[str, Any]]] = []
    for number, line in enumerate(lines, start=1):
        try:
            if upcast:
                obj = _dict_decoder.decode(line)
                for step in upcast:
                    obj = step(obj)
                event = msgspec.convert(obj, AnyEvent)
            else:
                event = _decoder.decode(line)
        except msgspec.DecodeError as err:
            raise LogFormatError(f"{name}: line {number}: not a valid event: {err}") from None
        except msgspec.ValidationError as err:
            raise LogFormatError(f"{name}: line {number}: not a valid event: {err}") from None
        if number == 1:
            upcast = _check_header(event, name)
        elif isinstance(event, EncounterStarted):
            raise LogFormatError(f"{name}: line {number}: a second EncounterStarted header")
        if event.seq != number - 1:
            raise LogFormatError(
                f"{name}: line {number}: seq is {event.seq}, expected {number - 1}"
                " (lines were removed, reordered or edited)"
            )
        if event.cause is not None and not 0 <= event.cause < event.seq:
            raise LogFormatError(
                f"{name}: line {number}: cause {event.cause} does not name an earlier event"
            )
        events.append(event)
        raw.append(line + b"\n")
    if not events:
        raise LogFormatError(f"{name}: empty log (no EncounterStarted header)")
    return LogContents(events=events, lines=raw, torn=len(tail), path=name, warnings=warnings)


def _parse_current(body: bytes, name: str) -> list[Event] | None:
    """The events of a log in the current format with nothing wrong in it, decoded in one
    call; ``None`` when anything needs the line-by-line reader (an older format to upcast, or
    a bad line, which that reader names)."""
    if not body.startswith(b'{"type":"EncounterStarted"'):
        return None
    try:
        events = _list_decoder.decode(b"[" + body[:-1].replace(b"\n", b",") + b"]")
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    header = events[0]
    if not isinstance(header, EncounterStarted) or header.format != LOG_FORMAT:
        return None
    # The same checks as the line-by-line reader, a list at a time: seq counts up from 0,
    # every cause names an earlier event, and only the first event is a header.
    if list(map(_seq_of, events)) != list(range(len(events))):
        return None
    causes = list(map(_cause_of, events))
    if [c for i, c in enumerate(causes) if c is not None and not 0 <= c < i]:
        return None
    if list(map(type, events)).count(EncounterStarted) != 1:
        return None
    return events


_seq_of = attrgetter("seq")
_cause_of = attrgetter("cause")


def _check_header(event: Event, name: str) -> list[Callable[[dict[str, Any]], dict[str, Any]]]:
    if not isinstance(event, EncounterStarted):
        raise LogFormatError(f"{name}: line 1: the first event must be EncounterStarted")
    if event.format > LOG_FORMAT:
        raise LogFormatError(
            f"{name}: log format {event.format} is newer than this initiative reads"
            f" ({LOG_FORMAT}); upgrade initiative"
        )
    return [UPCASTERS[v] for v in range(event.format, LOG_FORMAT)]


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
