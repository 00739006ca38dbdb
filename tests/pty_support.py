"""A program on a real pseudo-terminal: read what it shows, type into it, press Ctrl-C, close
its terminal, kill it."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import time
from collections.abc import Callable, Sequence

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


class PtyProgram:
    """``argv`` running with a pseudo-terminal as its controlling terminal."""

    def __init__(self, argv: Sequence[str], cwd: str, env: dict[str, str] | None = None) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: becomes the program
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], list(argv), env or dict(os.environ))
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.screen = ""
        """Everything shown so far, escape sequences removed."""
        self._read = 0
        self.status: int | None = None

    def _pump(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the program closed the terminal
            chunk = b""
        if not chunk:
            return False
        self.screen += ANSI.sub(b"", chunk).decode("utf-8", errors="replace").replace("\r", "")
        return True

    def prompt(self, timeout: float = 60) -> str | None:
        """Wait for the program to ask something (a line ending in ``> ``); that line, or
        ``None`` when the program ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            fresh = self.screen[self._read :]
            if fresh.endswith("> "):
                self._read = len(self.screen)
                return fresh.rsplit("\n", 1)[-1]
            if not self._pump(0.5):
                return None
        raise TimeoutError(f"no prompt within {timeout} s; the screen ends:\n{self.screen[-2000:]}")

    def since_last(self) -> str:
        return self.screen[self._read :]

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode() + b"\n")

    def end_input(self) -> None:
        os.write(self.fd, b"\x04")  # Ctrl-D at the start of a line: the program reads no more

    def interrupt(self) -> None:
        os.write(self.fd, b"\x03")  # the terminal turns it into SIGINT for the program

    def hang_up(self, timeout: float = 60) -> int:
        """Close the terminal, as closing its window does (the program gets ``SIGHUP`` and its
        terminal reads and writes fail); the exit status."""
        os.close(self.fd)
        return self._reap(timeout)

    def kill(self, timeout: float = 60) -> int:
        """``SIGKILL`` the program; the exit status (137)."""
        os.kill(self.pid, signal.SIGKILL)
        status = self._reap(timeout)
        os.close(self.fd)
        return status

    def _reap(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status if self.status >= 0 else 128 - self.status
            time.sleep(0.01)
        os.kill(self.pid, signal.SIGKILL)
        raise TimeoutError(f"still running after {timeout} s")

    def wait(self, timeout: float = 60) -> int:
        """The exit status (128 + signal when killed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._pump(0.2)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self._pump(0.05) and select.select([self.fd], [], [], 0)[0]:
                    pass
                os.close(self.fd)
                self.status = os.waitstatus_to_exitcode(status)
                return self.status if self.status >= 0 else 128 - self.status
        os.kill(self.pid, signal.SIGKILL)
        raise TimeoutError(f"still running after {timeout} s:\n{self.screen[-2000:]}")


#: A decision at ``join``: its numbered offers, then the prompt with its countdown.
ASKED = re.compile(
    r"\n((?:\d+\. [^\n]+\n)+)(?:Or type a point[^\n]*\n)?[^\n]*?choose 1-\d+ \(\d+ s left\): "
    r"|the fight is over"
)


def kill_the_living(*programs: PtyProgram) -> None:
    """``SIGKILL`` those of ``programs`` still running (a test's ``finally``)."""
    for program in programs:
        if program.status is None:
            program.kill()


def wait_for(program: PtyProgram, text: str, timeout: float = 60) -> None:
    """Until ``program`` has shown ``text``."""
    deadline = time.monotonic() + timeout
    while text not in program.screen:
        assert time.monotonic() < deadline, f"no {text!r} in:\n{program.screen[-3000:]}"
        assert program._pump(0.2), f"ended before {text!r}:\n{program.screen[-3000:]}"


def play_at_the_terminal(
    join: PtyProgram,
    answered: list[str],
    failed: list[BaseException],
    pace: Callable[[], None] | None = None,
) -> None:
    """Answer every decision ``join`` shows (an attack when there is one, else the last offer)
    until the fight is over; what was chosen goes to ``answered``. ``pace`` is called before
    each answer (to wait for something elsewhere first)."""
    try:
        at = 0
        while True:
            deadline = time.monotonic() + 120
            while not (found := ASKED.search(join.screen, at)):
                assert time.monotonic() < deadline, join.screen[-3000:]
                assert join._pump(0.2), f"join ended:\n{join.screen[-3000:]}"
            at = found.end()
            if found.group(0) == "the fight is over":
                return
            offers = re.findall(r"^(\d+)\. (.+)$", found.group(1), re.M)
            chosen = next((o for o in offers if o[1].startswith("Attack")), offers[-1])
            answered.append(chosen[1])
            if pace is not None:
                pace()
            join.type(chosen[0])
    except BaseException as problem:  # told to the test's own thread
        failed.append(problem)
