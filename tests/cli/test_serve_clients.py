"""The seat clients people use: ``initiative join`` in a pseudo-terminal, and the browser page in
headless Chromium, each playing a whole served fight."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import cli_support
import pytest
from browser import seat_decisions
from initiative.events import read_log
from initiative.replays import TableNarrator
from rich.text import Text
from serve_support import Server, events_of

pytestmark = pytest.mark.slow  # a server, a browser and terminal clients, each a real process

CHROMIUM = "/usr/bin/chromium"


class Terminal:
    """What a pseudo-terminal's child printed, read up to one pattern at a time.

    Text read past a match is kept for the next read: a loaded machine can hand over the rest
    of a fight in the same chunk as the line a test waited for.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.seen: list[str] = []  # everything matched so far, for the failure messages
        self.pending = ""  # read but not yet matched

    def read_until(self, pattern: re.Pattern[str], timeout: float = 60) -> str:
        """Read until ``pattern`` matches what came since the last match; the match and the
        text before it."""
        deadline = time.monotonic() + timeout
        while not (found := pattern.search(self.pending)):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern.pattern!r} in:\n{self.text}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096).decode(errors="replace")
                except OSError:  # the child closed the terminal
                    chunk = ""
                assert chunk, f"terminal closed before {pattern.pattern!r}:\n{self.text}"
                self.pending += chunk
        screen, self.pending = self.pending[: found.end()], self.pending[found.end() :]
        self.seen.append(screen)
        return found.group(0) + screen[: found.start()]

    @property
    def text(self) -> str:
        return "".join(self.seen) + self.pending


def test_join_plays_a_whole_fight_in_a_terminal(tmp_path: Path) -> None:
    """``join`` shows each priority as numbered offers and sends the number typed."""
    with Server(tmp_path, "--seat", "ana") as server:
        master, slave = pty.openpty()
        child = subprocess.Popen(
            [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{server.port}",
             "--seat", "ana", "--token", server.tokens["ana"]],
            stdin=slave, stdout=slave, stderr=slave, close_fds=True,
            env={**os.environ, "COLUMNS": "120", "TERM": "dumb"},
        )  # fmt: skip
        os.close(slave)
        terminal = Terminal(master)
        prompts = 0
        try:
            # A decision: its numbered offers, then the prompt with the deadline counting down.
            turn = re.compile(
                r"\n((?:\d+\. [^\n]+\n)+)[^\n]*?choose 1-(\d+) \(\d+ s left\): "
                r"|the fight is over: .* won"
            )
            while True:
                screen = terminal.read_until(turn)
                if screen.startswith("the fight is over"):
                    break
                prompts += 1
                offers = re.findall(r"^(\d+)\. (\w+)", screen, re.M)
                assert [int(n) for n, _ in offers] == list(range(1, len(offers) + 1))
                attack = [n for n, kind in offers if kind == "Attack"]
                if prompts == 1:
                    os.write(master, b"zero\n")  # not a number: asked again
                    terminal.read_until(re.compile(r"Type a number from 1 to \d+\."))
                os.write(master, (attack[0] if attack else offers[-1][0]).encode() + b"\n")
                terminal.read_until(re.compile(r"> (Attack|End|Let) [^\n]*\n"))  # chosen
            assert child.wait(30) == 0
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            os.close(master)
        assert server.finish() == 0
    events = server.verified()
    text = terminal.text
    winner = events[-1]["winner"] or "no one"
    assert f"the fight is over: {winner} won" in text
    assert "seated as ana in Yard duel" in text
    assert prompts == len([e for e in events_of(events, "PriorityGranted") if e["who"] == "ana"])
    assert events_of(events, "DecisionFailed") == []


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_browser_seat_plays_a_whole_fight_by_clicking(tmp_path: Path) -> None:
    """The page served per seat shows the state and the offers; a fight is won by clicks."""
    playwright = pytest.importorskip("playwright.sync_api")
    with Server(tmp_path, "--seat", "ana") as server, playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-default-apps",
                "--disable-sync",
                "--no-first-run",
                "--metrics-recording-only",
            ],
        )
        try:
            page = browser.new_page()
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.goto(server.url("ana"))
            clicks = 0
            for _ in seat_decisions(page):
                assert page.locator("#tracker td.name .who", has_text="ana").count() == 1
                clicks += 1
            final = page.locator("#status").text_content()
            down = page.locator("#tracker tr.down td.name .who").all_text_contents()
            news = page.locator("#story li").all_text_contents()
            assert problems == []
        finally:
            browser.close()
        assert server.finish() == 0
    events = server.verified()
    assert final == f"the fight is over: {events[-1]['winner'] or 'no one'} won"
    assert sorted(down) == sorted(e["who"] for e in events_of(events, "CombatantDefeated"))
    assert news == narration(server.log)
    assert clicks == len([e for e in events_of(events, "PriorityGranted") if e["who"] == "ana"])
    assert events_of(events, "DecisionFailed") == []


def narration(log: Path) -> list[str]:
    """The table narration's sentences for a log, as plain text."""
    narrate = TableNarrator()
    told = [narrate(event) for event in read_log(log).events]
    return [Text.from_markup(line).plain for t in told if t for line in t.splitlines()]


def test_the_pages_are_self_contained(tmp_path: Path) -> None:
    """The GM, spectator and seat pages load nothing from elsewhere and never send the token to
    the server."""
    with Server(tmp_path, "--seat", "ana", "--no-wait") as server:
        for path in ("/gm", "/watch", "/seat/ana"):
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}") as response:
                html = response.read().decode()
                assert response.headers["Content-Type"] == "text/html; charset=utf-8"
            assert not re.search(r"(src|href)=", html)
            assert "location.hash" in html


def test_join_watch_narrates_and_keeps_a_byte_identical_copy(tmp_path: Path) -> None:
    """``join --watch -o`` spectates: narration, and a copy of the log that verifies."""
    copy = tmp_path / "copy.jsonl"
    with Server(tmp_path, "--seat", "ana", "--spectators", "all") as server:
        watcher = subprocess.Popen(
            [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{server.port}", "--watch",
             "--token", server.spectator_token,
             "--out", str(copy)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            first = watcher.stdout.readline()  # connected before the fight starts
            player = server.client()
            player.hello("ana", server.tokens["ana"])
            player.play()
            output, errors = watcher.communicate(timeout=60)
            output = first + output
        finally:
            if watcher.poll() is None:
                watcher.kill()
                watcher.communicate()
        assert watcher.returncode == 0, errors
        assert server.finish() == 0
    events = server.verified()
    assert copy.read_bytes() == server.log.read_bytes()
    assert output.startswith("watching Yard duel\n")
    down = re.search(r"^standing: .*; down: (.*)$", output, re.M).group(1).split(", ")
    assert sorted(down) == sorted(e["who"] for e in events_of(events, "CombatantDefeated"))
    assert output.endswith(f"the fight is over: {events[-1]['winner'] or 'no one'} won\n")


def test_join_usage_errors_are_one_line_and_exit_2() -> None:
    """Neither a seat nor --watch, a seat or a spectator without its token, two roles at once,
    a bad address: exit 2."""
    for args, message in [
        (["127.0.0.1:9"], "give either --seat and --token, or --watch or --gm with --token"),
        (["127.0.0.1:9", "--seat", "ana"], "--seat ana: the seat's --token is needed too"),
        (["127.0.0.1:9", "--watch"], "--watch: the spectators' --token is needed too"),
        (["127.0.0.1:9", "--gm", "--watch", "--token", "t"], "give either --seat and --token"),
        (["nowhere", "--watch", "--token", "t"], "'nowhere': expected HOST:PORT"),
    ]:
        done = cli_support.run("join", *args)  # refused before it connects: in this process
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr
