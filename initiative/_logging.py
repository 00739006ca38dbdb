"""structlog set-up for the engine's own workings, kept apart from the event log.

Off (warnings only) by default; ``--log-level debug`` shows rounds, decisions and failures.
Readable key=value lines on a terminal, JSON lines otherwise; always on standard error.
"""

from __future__ import annotations

import logging
import sys

import structlog

LEVELS = ("debug", "info", "warning", "error")


def configure(level: str = "warning") -> None:
    """Configure structlog once, at the entry point."""
    renderer: structlog.typing.Processor
    if sys.stderr.isatty():
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
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def ensure_configured() -> None:
    """Quiet defaults for library use (the facade), unless the program configured structlog."""
    if not structlog.is_configured():
        configure("warning")
