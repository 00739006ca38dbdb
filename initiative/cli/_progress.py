"""The progress bar of ``batch``, ``duel``, ``league`` and ``sweep``, and :func:`whole`, which
holds Ctrl-C back while a row is stored (imported when they start fighting: the rest of the
command line never needs ``rich.progress``)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

if TYPE_CHECKING:
    from ._cmd_batch import Clock


class RateColumn(ProgressColumn):
    """Encounters per second so far: those finished over the time to the last of them."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def render(self, task: Task) -> Text:
        return Text("" if not self.clock.done else self.clock.rate_text(), style="cyan")


def progress_bar(clock: Clock, console: Console) -> Progress:
    """A bar with the count done, the rate, the time spent and the time left."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(clock),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )


@contextmanager
def whole() -> Iterator[None]:
    """Ctrl-C during the block takes effect at its end: a fight's row is written and counted
    whole, or not at all, and a database is closed whole (the count said on Ctrl-C is the
    database's)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    before = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before if before is not None else signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt
