"""The terminal a person at the table types into: whole lines, an optional deadline.

Reads its own line buffer straight from the file descriptor (no Python-level buffering), so a
line typed for one question is never swallowed by another, and a deadline (``select``) never
leaves a thread behind waiting for keystrokes. Ctrl-C arrives as ``KeyboardInterrupt`` as
usual; the end of input (``Ctrl-D``) or a terminal that is gone (reading or writing it fails)
as :class:`TerminalClosed`, which stops a fight the same way.

A terminal that hangs up (its window closed, the connection dropped: ``SIGHUP``) does not kill
the process at once: what it would print goes nowhere from then on, and the fight stops at its
next question to the terminal (at once, if it is waiting for an answer). A fight's log is on
disk up to each question before it is asked (see :class:`engine.LogSink`), so what was typed is
never lost with the terminal; a fight that asks nothing more finishes.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from contextlib import suppress
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
        self.closed = False
        """Whether the terminal hung up: every question from then on ends the fight."""
        self._waiting = False

    def hang_up(self) -> None:
        """The terminal is gone: stop at the next question, or now if one is waiting (this is
        called from a signal handler, and then raises in the waiting ``ask``)."""
        self.closed = True
        if self._waiting:
            raise TerminalClosed("the terminal hung up")

    def say(self, text: str) -> None:
        self._show(text + "\n")

    def _show(self, text: str) -> None:
        out = self.out or sys.stdout
        try:
            out.write(text)
            out.flush()
        except OSError as err:  # a closed terminal (EIO), or its reader gone (EPIPE)
            raise TerminalClosed(f"the terminal is gone: {err.strerror}") from None

    def ask(self, prompt: str, timeout: float | None = None) -> str:
        """Show ``prompt`` and return the next line typed (without its newline)."""
        if self.closed:
            raise TerminalClosed("the terminal hung up")
        self._show(prompt)
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            self._waiting = True
            try:
                if deadline is not None:
                    left = deadline - time.monotonic()
                    ready, _, _ = select.select([self.fd], [], [], max(left, 0))
                    if not ready:
                        self._show("\n")
                        raise TimedOut
                chunk = os.read(self.fd, 4096)
            except OSError as err:  # a hung-up terminal reads as EIO
                raise TerminalClosed(f"the terminal is gone: {err.strerror}") from None
            finally:
                self._waiting = False
            if not chunk:
                raise TerminalClosed("the terminal's input ended")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").rstrip("\r")


_shared: Terminal | None = None


def terminal() -> Terminal:
    """The process's terminal (standard input and output), shared by everyone who asks; when
    it hangs up, the fight stops at its next question (see the module's docstring)."""
    global _shared
    if _shared is None:
        _shared = Terminal()
        hup = getattr(signal, "SIGHUP", None)
        if hup is not None and threading.current_thread() is threading.main_thread():
            signal.signal(hup, _hung_up)
    return _shared


def _hung_up(signum: int, frame: object) -> None:
    """``SIGHUP``: standard output and error go to the null device (the terminal they wrote to
    is gone), and the shared terminal stops the fight at its next question."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        with suppress(OSError):
            os.dup2(devnull, fd)
    os.close(devnull)
    if _shared is not None:
        _shared.hang_up()
