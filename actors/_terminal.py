"""The terminal a person at the table types into: whole lines, an optional deadline.

Reads its own line buffer straight from the file descriptor (no Python-level buffering), so a
line typed for one question is never swallowed by another, and a deadline (``select``) never
leaves a thread behind waiting for keystrokes. Ctrl-C arrives as ``KeyboardInterrupt`` as
usual; the end of input (a closed terminal) as :class:`TerminalClosed`, which stops a fight the
same way.
"""

from __future__ import annotations

import os
import select
import sys
import time
from typing import TextIO


class TerminalClosed(KeyboardInterrupt):
    """The terminal's input ended (closed window, ``Ctrl-D``): the fight stops, to be resumed."""


class TimedOut(Exception):
    """No whole line arrived before the deadline."""


class Terminal:
    """Questions and answers on one terminal."""

    def __init__(self, fd: int = 0, out: TextIO | None = None) -> None:
        self.fd = fd
        self.out = out
        self._buffer = b""

    def say(self, text: str) -> None:
        out = self.out or sys.stdout
        out.write(text + "\n")
        out.flush()

    def ask(self, prompt: str, timeout: float | None = None) -> str:
        """Show ``prompt`` and return the next line typed (without its newline)."""
        out = self.out or sys.stdout
        out.write(prompt)
        out.flush()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            if deadline is not None:
                left = deadline - time.monotonic()
                ready, _, _ = select.select([self.fd], [], [], max(left, 0))
                if not ready:
                    out.write("\n")
                    raise TimedOut
            chunk = os.read(self.fd, 4096)
            if not chunk:
                raise TerminalClosed("the terminal's input ended")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").rstrip("\r")


_shared: Terminal | None = None


def terminal() -> Terminal:
    """The process's terminal (standard input and output), shared by everyone who asks."""
    global _shared
    if _shared is None:
        _shared = Terminal()
    return _shared
