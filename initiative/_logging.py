"""structlog set-up for the engine's own workings, kept apart from the event log.

Three ways, chosen once at the entry point:

- **A person at the command line** (the default): each warning is one plain line on standard
  error, ``warning: the dice file ran out; the fight rolls the rest (rolls.txt)``; nothing
  below warnings; nothing at all under ``--quiet`` (:func:`quiet`).
- **Structured**, asked for with ``--log-level LEVEL`` or ``--log-json``: every entry at that
  level and above, with its fields, as JSON lines (or readable key=value lines when standard
  error is a terminal and ``--log-json`` was not given).
- **A library** (:func:`ensure_configured`, when ``initiative.run`` or an environment is used
  from a program that never configured structlog): entries go to the standard :mod:`logging`
  module under the ``initiative.*`` logger names, as a plain message with the fields as the
  record's attributes, so the program's own handlers decide where they go. Never raw JSON on
  standard error.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO, cast

import structlog

LEVELS = ("debug", "info", "warning", "error")

#: Whether the log was asked for (``--log-level``, ``--log-json``): then ``--quiet`` keeps it.
_asked = False


class _Stderr:
    """Standard error as it is when a line is written (a test, or a command run in process,
    may swap ``sys.stderr`` after the set-up)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


_STDERR = cast(TextIO, _Stderr())


def _shown(value: object) -> str:
    """A field's value on one line, control characters made visible."""
    text = str(value)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def sentence(event: MutableMapping[str, Any]) -> str:
    """``event (field)`` or ``event (key=value, key=value)``: one readable line."""
    text = _shown(event.get("event", ""))
    fields = [
        (key, value)
        for key, value in event.items()
        if key not in ("event", "level", "timestamp", "exc_info") and value is not None
    ]
    if len(fields) == 1:
        return f"{text} ({_shown(fields[0][1])})"
    if fields:
        return f"{text} ({', '.join(f'{key}={_shown(value)}' for key, value in fields)})"
    return text


class _PlainLines:
    """``warning: ...``; a line already shown is not shown again (a policy that fails at every
    decision warns once, not once a decision)."""

    def __init__(self) -> None:
        self.shown: set[str] = set()

    def __call__(self, _: object, method: str, event: MutableMapping[str, Any]) -> str:
        line = f"{method}: {sentence(event)}"
        if line in self.shown:
            raise structlog.DropEvent
        self.shown.add(line)
        return line


def configure(level: str = "warning", *, json: bool = False) -> None:
    """The structured log (``--log-level``/``--log-json``): entries at ``level`` and above, as
    JSON lines (readable key=value lines on a terminal unless ``json``)."""
    global _asked
    _asked = True
    renderer: structlog.typing.Processor
    if sys.stderr.isatty() and not json:
        renderer = structlog.dev.ConsoleRenderer(colors=True)
    else:
        renderer = structlog.processors.JSONRenderer(sort_keys=True)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            getattr(logging, level.upper(), logging.WARNING)
        ),
        logger_factory=structlog.PrintLoggerFactory(file=_STDERR),
        cache_logger_on_first_use=False,
    )


def plain(level: int = logging.WARNING) -> None:
    """What a person sees by default: each warning as one plain line on standard error."""
    global _asked
    _asked = False
    structlog.configure(
        processors=[_PlainLines()],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=_STDERR),
        cache_logger_on_first_use=False,
    )


def quiet() -> None:
    """``--quiet``: no warnings either, unless the structured log was asked for."""
    if not _asked:
        structlog.configure(  # (nothing is logged at critical: nothing is shown)
            processors=[_PlainLines()],
            wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL),
            logger_factory=structlog.ReturnLoggerFactory(),
            cache_logger_on_first_use=False,
        )


#: Attributes a ``LogRecord`` has of its own (a field of the same name is left out of it).
_RECORD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def _to_logging(_: object, __: str, event: MutableMapping[str, Any]) -> dict[str, Any]:
    """The message says what happened (without the bound context: the encounter, the
    combatant); every field, the context's too, is an attribute of the record."""
    bound = structlog.contextvars.get_contextvars()
    own = {k: v for k, v in event.items() if k not in bound}
    fields = {k: v for k, v in event.items() if k != "event" and k not in _RECORD}
    return {"msg": sentence(own), "extra": fields}


def to_logging() -> None:
    """Route the entries to the standard :mod:`logging` module (see the module's docstring)."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            _to_logging,
        ],
        wrapper_class=structlog.stdlib.BoundLogger,
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=False,
    )


def ensure_configured() -> None:
    """For library use (the facade, the environments): entries go to :mod:`logging`, unless
    the program configured structlog itself."""
    if not structlog.is_configured():
        to_logging()
