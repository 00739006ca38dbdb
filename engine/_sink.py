"""The log sink: what a fight records its events through, and the one place a log is written.

Every :class:`~engine.Fight` owns one :class:`LogSink`. For each event the fight records, the
sink encodes its log line and chains it (the tamper-evidence chain ``EncounterEnded`` carries),
once; then the sink's ``on_event`` hook sees the event (a batch's tallies, narration, checks).
The lines are written whole and flushed by one rule, which the fight applies in one place
(:meth:`LogSink.flush`): **before anything is asked**, at each grant of priority and before a
die is asked at the table, and **at the end**. So the header is on disk before the first
question, what a person typed (a decision, a die) is on disk before the next prompt, and a
fight writes once per question, not once per event. Only then does the ``written`` hook hear the
lines: the seat server publishes them to its clients there, so no client hears of an event
before it is on disk.

A sink that keeps no log (``encode=False``: a batch that keeps no logs, a look-ahead's fork)
encodes and chains nothing; its ``on_event`` hook still sees every event. The fight's state
digests and its end's chain are then left empty (there is no log to check them in).

No other module opens a log for writing: ``run``, ``serve``, ``batch``, a stepped fight, a fork
and the environments all write through a sink (a test holds them to it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import msgspec
from initiative.events import Event, LogContents, LogWriter, ReplayDivergedError

from ._state import CHAIN

_encode = msgspec.json.Encoder().encode


class LogSink:
    """Where a fight's events go: their lines (encoded and chained once), a log file written by
    the one flushing rule, and the hooks that see them.

    ``out``: the log file to write (its lock, ``flock``, is held until :meth:`close`; with
    ``append``, an existing log is continued, see :meth:`resume`). ``keep_lines``: keep every
    line in :attr:`lines`. ``encode=False``: no lines at all (nothing to write or keep).
    ``on_event(event)``: called with every event as it is recorded. ``written(lines)``: called
    with the lines of each flush, once they are written (see the module's docstring).
    """

    __slots__ = (
        "_flushed",
        "_keep",
        "_kept",
        "_resumed",
        "_writer",
        "_written",
        "chain",
        "encoding",
        "last_line",
        "lines",
        "on_event",
        "path",
        "pending",
    )

    def __init__(
        self,
        out: str | os.PathLike[str] | None = None,
        *,
        append: bool = False,
        encode: bool = True,
        keep_lines: bool = False,
        on_event: Callable[[Event], None] | None = None,
        written: Callable[[list[bytes]], None] | None = None,
    ) -> None:
        if not encode and (out is not None or keep_lines or written is not None):
            raise ValueError("a sink that encodes no lines has none to write or keep")
        self.encoding = encode
        """Whether events are encoded and chained as log lines (see the module's docstring)."""
        self.chain = b""
        """The tamper-evidence chain over every line recorded so far."""
        self.last_line = b""
        """The line of the last event recorded (newline included)."""
        self.lines: list[bytes] = []
        """With ``keep_lines``, every line recorded, in order (the bytes of the whole log)."""
        self._keep = keep_lines
        self.on_event = on_event
        writer = LogWriter(out, append=append) if out is not None else None
        self._writer = writer
        self.path = None if writer is None else str(writer.path)
        """The log file written, if any."""
        self._written = written
        self.pending: list[bytes] | None = (
            [] if self._writer is not None or written is not None else None
        )
        """The lines recorded since the last flush, to be written (``None``: this sink writes
        nothing and nobody hears its lines)."""
        self._flushed = 0
        """How many lines earlier flushes took (the seq of ``pending[0]``)."""
        self._kept: Sequence[bytes] = ()
        """A resumed log's lines, until the fight has given them all again (:meth:`resume`)."""
        self._resumed = 0
        """How many lines the resumed log held (they are not written again)."""

    @property
    def written(self) -> Callable[[list[bytes]], None] | None:
        """Called with the lines of each flush once they are written (set it before the fight
        records its first event: it hears every line)."""
        return self._written

    @written.setter
    def written(self, hook: Callable[[list[bytes]], None] | None) -> None:
        self._written = hook
        if hook is not None and self.pending is None:
            self.pending = []

    def resume(self, contents: LogContents) -> None:
        """Go on with the log this sink appends to, as read under its lock: a torn last line is
        cut off, and the fight's first events must give the log's lines byte for byte (else
        :class:`ReplayDivergedError` names the first that does not); they are not written
        again, but ``written`` hears them as it hears new ones."""
        if self._writer is None:
            raise ValueError("only a sink that writes a log can resume one")
        if contents.torn:
            self._writer.truncate(sum(len(line) for line in contents.lines))
        self._kept = contents.lines
        self._resumed = len(contents.lines)

    def record(self, event: Event) -> None:
        """Encode ``event`` (stamped with its seq and cause) as its line and chain it; the fight
        calls it for every event while :attr:`encoding` holds."""
        self.last_line = line = _encode(event) + b"\n"  # encode_event, in line
        h = CHAIN.copy()  # chain_step, in line
        h.update(self.chain)
        h.update(line)
        self.chain = h.digest()
        if self._kept:
            self._match(event.seq, line)
        if self._keep:
            self.lines.append(line)
        if self.pending is not None:
            self.pending.append(line)

    def _match(self, seq: int, line: bytes) -> None:
        kept = self._kept
        if seq < len(kept) and line != kept[seq]:
            raise ReplayDivergedError(
                f"{self.path}: re-simulating the log differs from it at seq {seq};"
                " run `initiative verify` on it"
            )
        if seq >= len(kept) - 1:
            self._kept = ()  # the whole resumed log matched

    def flush(self) -> None:
        """Write the lines recorded since the last flush, whole, in one write; then ``written``
        hears them. The fight calls it before anything is asked, and at the end."""
        pending = self.pending
        if not pending:
            return
        self.pending = []  # before writing: an interrupted write is never written twice
        first = self._flushed
        self._flushed = first + len(pending)
        if self._writer is not None:
            new = pending[self._resumed - first :] if first < self._resumed else pending
            if new:
                self._writer.write_line(b"".join(new))
        if self._written is not None:
            self._written(pending)

    def close(self) -> None:
        """Flush what is left (a fight stopped by an error or a Ctrl-C keeps every whole
        event it recorded) and release the log file; nothing is written after."""
        try:
            self.flush()
        finally:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
                if self._written is None:
                    self.pending = None

    def __enter__(self) -> LogSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
