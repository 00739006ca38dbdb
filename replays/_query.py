"""Reading logs for people: events by round, combatant, type and seq; the state at an event."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
from initiative.engine import EncounterState, fold
from initiative.events import (
    LOG_FORMAT,
    CombatantJoined,
    EncounterEnded,
    Event,
    LogContents,
    LogFormatError,
    RoundStarted,
    UnknownNameError,
    Upcaster,
    decode_event,
    did_you_mean,
    upcaster_for,
)

from ._narrate import who_of


@dataclass(frozen=True)
class Row:
    """One event with the round it happened in."""

    event: Event
    round: int


def with_rounds(events: Iterable[Event]) -> Iterator[Row]:
    current = 0
    for event in events:
        if isinstance(event, RoundStarted):
            current = event.round
        yield Row(event, current)


def select(
    events: Iterable[Event],
    *,
    rounds: set[int] | None = None,
    who: set[str] | None = None,
    types: set[str] | None = None,
    first: int | None = None,
    last: int | None = None,
) -> list[Row]:
    """The events that pass every filter given (a combatant matches any event naming it)."""
    wanted_types = {t.lower() for t in types} if types else None
    out = []
    for row in with_rounds(events):
        e = row.event
        if first is not None and e.seq < first:
            continue
        if last is not None and e.seq > last:
            continue
        if rounds is not None and row.round not in rounds:
            continue
        if wanted_types is not None and type(e).__name__.lower() not in wanted_types:
            continue
        if who is not None and not _names_any(e, who):
            continue
        out.append(row)
    return out


def check_filters(
    contents: LogContents, *, who: set[str] | None = None, types: set[str] | None = None
) -> None:
    """Raise :class:`UnknownNameError` for a combatant or event type that names nothing in
    the log, listing the names it holds (a typo would otherwise print an empty table)."""
    ids = [c.id for c in contents.header.encounter.combatants]
    ids += [e.who for e in contents.events if isinstance(e, CombatantJoined) and e.who not in ids]
    for name in sorted(who or ()):
        if name not in ids:
            raise UnknownNameError(
                f"{contents.path}: no combatant {name!r} in this log (combatants:"
                f" {', '.join(ids)}){did_you_mean(name, ids)}"
            )
    present = list(dict.fromkeys(type(e).__name__ for e in contents.events))
    lowered = {t.lower() for t in present}
    for name in sorted(types or ()):
        if name.lower() not in lowered:
            raise UnknownNameError(
                f"{contents.path}: no event of type {name!r} in this log (types:"
                f" {', '.join(sorted(present))}){did_you_mean(name, present)}"
            )


def _names_any(event: Event, who: set[str]) -> bool:
    subject = who_of(event)
    if subject is not None and any(part in who for part in subject.split(",")):
        return True
    return any(getattr(event, f, None) in who for f in ("target", "source", "returns_to"))


def state_at(contents: LogContents, seq: int | None = None) -> EncounterState:
    """The state after event ``seq`` (the last event when ``None``), by folding events only."""
    if seq is not None and not 0 <= seq < len(contents.events):
        raise LogFormatError(
            f"{contents.path}: no event {seq}: the log holds seq 0 to {len(contents.events) - 1}"
        )
    return fold(contents.events, seq)


def follow(
    path: str | os.PathLike[str],
    *,
    poll: float = 0.1,
    idle: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[tuple[Event, bytes]]:
    """Yield a log's events (with their lines) as a running fight appends them.

    Only whole lines are read; a line still being written waits for its newline. Stops after
    ``EncounterEnded``, or after ``idle`` seconds without a new line (never, when ``None``). A
    file that does not exist yet is waited for (``idle`` seconds, or 5), then is an error.
    """
    p = Path(path)
    offset = 0
    pending = b""
    upcast: Upcaster | None = None  # an older log's lines are read as the current format
    waited = 0.0
    number = 0
    while True:
        try:
            with p.open("rb") as f:
                f.seek(offset)
                chunk = f.read()
        except FileNotFoundError:
            # The fight may not have opened its log yet: wait a little, not forever.
            if number or waited >= (5.0 if idle is None else idle):
                raise LogFormatError(f"{p}: cannot read: no such file") from None
            chunk = b""
        except OSError as err:
            raise LogFormatError(f"{p}: cannot read: {err.strerror}") from None
        offset += len(chunk)
        pending += chunk
        *whole, pending = pending.split(b"\n")
        for line in whole:
            number += 1
            try:
                line.decode("utf-8")
                if number == 1:
                    upcast = upcaster_for(line, LOG_FORMAT)
                event = decode_event(line) if upcast is None else upcast.decode(line)
            except UnicodeDecodeError:
                raise LogFormatError(f"{p}: line {number}: not UTF-8 text") from None
            except (msgspec.DecodeError, msgspec.ValidationError) as err:
                raise LogFormatError(f"{p}: line {number}: not a valid event: {err}") from None
            yield event, line + b"\n"
            if isinstance(event, EncounterEnded):
                return
        if whole:
            waited = 0.0
        elif idle is not None and waited >= idle:
            return
        sleep(poll)
        waited += poll
