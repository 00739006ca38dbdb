"""The screens people decide on: the terminal ``human`` policy, ``join`` in a terminal and the
browser seat show the same decision in the same words; ``join`` never stops the clock."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest
from browser import CHROMIUM, Page
from pty_support import PtyProgram
from serve_support import ENCOUNTER, Server

pytestmark = pytest.mark.slow  # servers, terminals and a browser, each a real process

#: The duel with names that are not their ids, one of them looking like Rich markup.
NAMED = (
    ENCOUNTER.replace('id = "ana"\n', 'id = "ana"\nname = "Ana"\n')
    .replace('id = "bo"\n', 'id = "bo"\nname = "Bo [axe]"\n')
    .replace('id = "cur"\n', 'id = "cur"\nname = "the yard dog"\n')
)


def initiative(*args: str) -> list[str]:
    return [sys.executable, "-m", "initiative", *args]


def join_program(server: Server, tmp: Path, *more: str) -> PtyProgram:
    return PtyProgram(
        initiative("join", f"127.0.0.1:{server.port}", "--seat", "ana",
                   "--token", server.tokens["ana"], *more),
        cwd=str(tmp),
        env={**os.environ, "COLUMNS": "120", "TERM": "dumb"},
    )  # fmt: skip


def wait_for(program: PtyProgram, pattern: str, timeout: float = 60) -> re.Match[str]:
    """The first match of ``pattern`` in what ``program`` has shown, once it is there."""
    deadline = time.monotonic() + timeout
    while not (found := re.search(pattern, program.screen, re.M | re.S)):
        assert time.monotonic() < deadline, f"no {pattern!r} in:\n{program.screen[-3000:]}"
        assert program._pump(0.2), f"ended before {pattern!r}:\n{program.screen[-3000:]}"
    return found


#: One decision's screen in text: its heading, the situation, a blank line, the offers.
DECISION = r"^(Round \d+: (?:ana|Ana)[^\n]*)\n((?:[^\n]+\n)*?)\n((?:\d+\. [^\n]+\n)+)"


def decision_in_text(screen: str) -> tuple[str, list[str], list[str]]:
    heading, notes, offers = re.search(DECISION, screen, re.M).groups()
    return heading, notes.splitlines(), offers.splitlines()


def test_join_counts_down_shows_the_timeout_without_a_key_and_notices_a_dead_server(
    tmp_path: Path,
) -> None:
    """Under a 2 s deadline and no keypress, ``join`` counts down, shows the recorded timeout
    and the next decision; the server killed, with ``--reconnect 0`` it exits 1 at once with
    one line."""
    with Server(tmp_path, "--seat", "ana", "--deadline", "2") as server:
        join = join_program(server, tmp_path, "--reconnect", "0")
        try:
            wait_for(join, r"choose 1-3 \(2 s left\): .*choose 1-3 \(1 s left\): ")
            wait_for(join, r"server: no decision for seq 31 within 2 s: recorded as a timeout")
            wait_for(join, r"recorded as a timeout\n.*\nRound 1: ana, .*choose 1-\d \(2 s left\)")
            server.proc.kill()
            killed = time.monotonic()
            status = join.wait(10)
            noticed = time.monotonic() - killed
        finally:
            if join.status is None:
                join.wait(1)
    assert status == 1
    assert noticed < 2, noticed
    assert join.screen.rstrip().endswith(
        "the server closed the connection before the end of the fight"
    )
    assert "Traceback" not in join.screen


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_terminal_join_and_the_browser_show_a_decision_in_the_same_words(
    tmp_path: Path,
) -> None:
    """Ana's first decision (the same in every fight of this encounter and seed), shown by
    the ``human`` policy in a terminal, by ``join`` in a terminal and by the browser seat:
    the same heading, situation and offers, in words, with no id that is not also a name."""
    encounter = tmp_path / "duel.toml"
    encounter.write_text(NAMED)
    local = PtyProgram(
        initiative("run", str(encounter), "--policy", "ana=human", "--out",
                   str(tmp_path / "local.jsonl")),
        cwd=str(tmp_path),
        env={**os.environ, "COLUMNS": "120", "TERM": "dumb"},
    )  # fmt: skip
    assert local.prompt() == "Ana> "
    local.interrupt()
    local.wait()
    human = decision_in_text(local.screen)

    with Server(tmp_path, "--seat", "ana", encounter=NAMED) as server:
        join = join_program(server, tmp_path)
        wait_for(join, DECISION + r"[^\n]*choose 1-\d \(\d+ s left\): ")
        joined = decision_in_text(join.screen)
        join.interrupt()
        assert join.wait() == 1

    (tmp_path / "again").mkdir()
    with Server(tmp_path / "again", "--seat", "ana", encounter=NAMED) as server:
        page = Page()
        missing: list[str] = []
        page.page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
        try:
            page.page.goto(server.url("ana"))
            page.page.wait_for_selector("button.offer", timeout=60_000)
            shown = page.js(
                """({
                heading: document.getElementById('heading').textContent,
                reacting: document.getElementById('reacting').textContent,
                notes: [...document.querySelectorAll('#notes li')].map((li) => li.textContent),
                offers: [...document.querySelectorAll('button.offer')].map((b) =>
                  [b.querySelector('.num').textContent, b.querySelector('.text').textContent,
                   b.querySelector('.cost').textContent]),
                table: [...document.querySelectorAll('#tracker td.name .who')].map((td) => td.textContent),
              })"""
            )
            # The browser asks for /favicon.ico on its own; the page loads nothing.
            assert [url.rsplit("/", 1)[1] for url in missing] == ["favicon.ico"] * len(missing)
            assert [e for e in page.errors if not e.startswith("Failed to load resource")] == []
        finally:
            page.close()
    offers = [
        f"{n}. {text}" + ("" if cost == "free" else f", {cost}")
        for n, text, cost in shown["offers"]
    ]
    heading, notes, lines = human
    assert joined == human
    assert offers == lines
    assert shown["notes"] == notes
    opening = re.fullmatch(r"(Round 1: Ana), a chance to react: (.+)\.", heading)
    assert opening is not None, heading
    assert shown["heading"] == f"{opening.group(1)}, a chance to react."
    assert shown["reacting"] == f"Reacting to: {opening.group(2)}"
    assert heading == "Round 1: Ana, a chance to react: the yard dog ends their turn."
    assert notes == [
        "You have 4 of 14 hp and 3 AP.",
        "In your reach: Bo [axe] (unhurt, 1.0 m), the yard dog (unhurt, 1.0 m).",
        "the yard dog threatens you.",
        "Bo [axe] threatens you.",
    ]
    assert lines == [
        "1. Attack the yard dog with the sword, 2 AP",
        "2. Attack Bo [axe] with the sword, 2 AP",
        "3. Let it pass",
    ]
    assert sorted(shown["table"]) == ["Ana", "Bo [axe]", "the yard dog"]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_browser_counts_down_a_dropped_seats_grace(tmp_path: Path) -> None:
    """Another seat drops while it holds priority: the page names whom it waits for and
    counts the grace down; the seat coming back clears it at once, before it plays on
    (issue 34, reproduction 9: the banner stayed, counting down)."""
    with Server(tmp_path, "--seat", "ana", "--seat", "south", encounter=NAMED) as server:
        page = Page()
        try:
            page.page.goto(server.url("ana"))
            page.page.wait_for_function(
                "document.getElementById('status').textContent.startsWith('waiting for the fight')"
            )
            south = server.client()
            south.hello("south", server.tokens["south"])
            held = south.next("priority")  # the yard dog is first in the order
            south.close()
            banner = "document.getElementById('grace').textContent"
            page.page.wait_for_function(f"{banner}.startsWith('waiting for')")
            first = page.js(banner)
            page.page.wait_for_function(f"{banner} && {banner} !== {first!r}")
            later = page.js(banner)
            back = server.client()
            back.hello("south", server.tokens["south"])
            again = back.next("priority")
            page.page.wait_for_function(f"{banner} === ''")
            back.decide(again, len(again["offers"]) - 1)
        finally:
            page.close()
    assert again["seq"] == held["seq"]  # the same decision, kept through the grace
    assert re.fullmatch(r"waiting for the yard dog to reconnect: (\d+) s", first)
    assert re.fullmatch(r"waiting for the yard dog to reconnect: (\d+) s", later)
    assert int(later.split()[-2]) < int(first.split()[-2])
