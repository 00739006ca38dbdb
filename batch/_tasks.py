"""Fighting a batch's tasks in this process: what worker processes and cluster workers share.

Kept below both executors (:mod:`batch._workers`, :mod:`batch._cluster`), so that the driver
that picks one of them imports each and neither imports the other back.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import structlog
from initiative.engine import load_encounter
from initiative.events import EncounterSpec

from ._fight import Summary, Task, fight_one, log_name

_ENCOUNTERS: dict[str, EncounterSpec] = {}


def _encounter(path: str) -> EncounterSpec:
    if path not in _ENCOUNTERS:
        _ENCOUNTERS[path] = load_encounter(Path(path))
    return _ENCOUNTERS[path]


def quiet_logging(level: int = logging.ERROR) -> None:
    """Configure structlog for a worker: key=value lines on stderr at ``level`` and above."""
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def run_tasks(
    path: str,
    tasks: Sequence[Task],
    keep_logs: str | None = None,
    timeout: float | None = None,
    encounter: EncounterSpec | None = None,
) -> list[Summary]:
    """Fight ``tasks`` of the encounter at ``path`` one after another (in this process).

    ``encounter`` is the loaded file, when the caller has it (a cluster worker may not see the
    file itself); ``path`` then only names the kept logs.
    """
    spec = encounter if encounter is not None else _encounter(path)
    out = []
    for task in tasks:
        target = str(Path(keep_logs) / log_name(path, task.seed, task.label)) if keep_logs else None
        out.append(fight_one(spec, task.seed, dict(task.policies), out=target, timeout=timeout))
    return out


def chunks(indices: Sequence[int], jobs: int, most: int = 8) -> list[list[int]]:
    """Split the work into chunks, largest first: big enough early that handing them out
    costs little, shrinking to single encounters at the end so that every worker stays busy
    until the batch is done (no worker is left alone with a long last chunk)."""
    out = []
    start = 0
    while start < len(indices):
        size = max(1, min(most, (len(indices) - start) // (jobs * 4)))
        out.append(list(indices[start : start + size]))
        start += size
    return out


PRELOAD = ("initiative.batch", "initiative.actors", "initiative.engine", "initiative.events")
"""What the workers' fork server imports once, before it forks them."""
