"""A scripted game night (issue 34's "done when"): ``initiative serve`` of
``examples/openings-skirmish.toml`` as a real process; the GM page, Osric's seat page and a
spectator page in Debian's chromium; Brenna's seat at ``initiative join`` and the GM's
``join --gm`` in two pseudo-terminals. The GM walks through the issue's items 1 to 9 as a game
master would, the server is killed with ``kill -9`` and gone on with ``serve --resume``, every
page and terminal comes back by itself on the original links, the fight is finished, and the
log verifies and replays with every override told.

The GM steps in only while Osric's page is deciding (the fight waits on it), so each override
lands at the same point of the fight from one run to the next; every wait is for a condition,
never a fixed time."""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMIUM, answer_with_attack
from cli_support import run
from pty_support import PtyProgram, play_at_the_terminal
from serve_support import Server
from test_serve_hidden_numbers import SECRET, hidden_values, leaks

pytestmark = [
    pytest.mark.slow,  # a server, a browser and two terminals, each a real process
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium"),
]

ROOT = Path(__file__).resolve().parents[1]
SKIRMISH = (ROOT / "examples" / "openings-skirmish.toml").read_text()

#: Keeps every frame a page receives (``window.framesHeard``), before the page's own code runs.
RECORD_FRAMES = """
window.framesHeard = [];
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (m) => window.framesHeard.push(m.data));
  }
};
"""

#: A tracker row's text on a page ("" when there is none).
ROW = """(id) => {
  const row = document.querySelector(`#tracker tr.row[data-id="${id}"]`);
  return row ? row.textContent : "";
}"""

#: The ids in a page's tracker, top to bottom.
ORDER = "[...document.querySelectorAll('#tracker tr.row')].map((r) => r.dataset.id)"

#: What a page shows at its top: its status, its banners and its decision.
SHOWN = """() => ({
  status: document.getElementById("status").textContent,
  banners: [...document.querySelectorAll("#banners .banner")].map((b) => b.hidden ? "" : b.textContent),
  asked: window.initiativePage.asked ? window.initiativePage.asked.seq : null,
  seq: window.initiativePage.state ? window.initiativePage.state.seq : null,
})"""

#: What a page's decision is (its priority frame's seq), or null.
ASKED = "window.initiativePage.asked ? window.initiativePage.asked.seq : null"


def wait(page: Any, check: str, arg: Any = None, timeout: float = 30_000) -> None:
    """Until ``check`` (JavaScript) holds on ``page``, polled every 50 ms (a page in the
    background may get no animation frames to poll on); if it never does, what the page
    showed is in the failure."""
    from playwright.sync_api import TimeoutError as NeverHeld

    try:
        page.wait_for_function(check, arg=arg, polling=50, timeout=timeout)
    except NeverHeld:
        shown = page.evaluate(SHOWN)
        raise AssertionError(f"{check!r} never held on {page.url}; it showed {shown}") from None


def until(check: Callable[[], object], what: str, timeout: float = 30) -> None:
    """Until ``check()`` holds (polled), or fail saying ``what`` was awaited."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.02)


class Terminal:
    """``initiative ARGS`` in a pseudo-terminal, read by a thread of its own (so it never
    blocks on a full terminal) unless ``reader`` reads it."""

    def __init__(self, tmp: Path, *args: str, reader: Any = None) -> None:
        self.program = PtyProgram(
            [sys.executable, "-m", "initiative", *args],
            cwd=str(tmp),
            env={**os.environ, "COLUMNS": "200", "TERM": "dumb"},
        )
        self.failed: list[BaseException] = []
        self.answered: list[str] = []
        target = reader or self._read
        self.thread = threading.Thread(
            target=target, args=(self.program, self.answered, self.failed), daemon=True
        )
        self.thread.start()

    @staticmethod
    def _read(program: PtyProgram, _answered: list[str], _failed: list[BaseException]) -> None:
        while program.status is None and program._pump(0.1):
            pass

    @property
    def screen(self) -> str:
        return self.program.screen

    def shows(self, text: str, since: int = 0, timeout: float = 30) -> int:
        """Until the screen shows ``text`` after ``since``; where it ends."""
        try:
            until(lambda: text in self.screen[since:], f"{text!r} at the terminal", timeout)
        except AssertionError as never:
            raise AssertionError(f"{never}; it shows:\n{self.screen[-1500:]}") from None
        return self.screen.index(text, since) + len(text)

    def type(self, text: str) -> int:
        """Type a line; where the screen stood (what it shows next comes after)."""
        at = len(self.screen)
        self.program.type(text)
        return at

    def ends(self, timeout: float = 60) -> int:
        self.thread.join(timeout)
        assert not self.thread.is_alive() and self.failed == [], self.failed
        return self.program.wait(timeout)

    def kill(self) -> None:
        if self.program.status is None:
            self.program.kill()


def test_a_game_night_on_the_skirmish(tmp_path: Path) -> None:
    """Items 1 to 9 of issue 34 in one served fight, through a kill -9 and serve --resume."""
    playwright = pytest.importorskip("playwright.sync_api")
    server = Server(tmp_path, "--seat", "brenna", "--seat", "osric", "--deadline", "120",
                    encounter=SKIRMISH)  # fmt: skip
    resumed: Server | None = None
    address = f"127.0.0.1:{server.port}"
    brenna = Terminal(tmp_path, "join", address, "--seat", "brenna", "--token",
                      server.tokens["brenna"], reader=play_at_the_terminal)  # fmt: skip
    desk = Terminal(tmp_path, "join", address, "--gm", "--token", server.gm_token)
    links = {
        "gm": f"http://{address}/gm#token={server.gm_token}",
        "watch": f"http://{address}/watch#token={server.spectator_token}",
        "osric": server.url("osric"),
    }
    problems: list[str] = []
    heard: list[str] = []  # every frame Osric's pages and the spectator's page received
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(RECORD_FRAMES)

            def open_page(kind: str) -> Any:
                page = context.new_page()
                page.on("pageerror", lambda exc: problems.append(str(exc)))
                page.goto(links[kind])
                return page

            try:
                gm, watch, osric = (open_page(k) for k in ("gm", "watch", "osric"))
                desk.shows("the GM of Skirmish at the ford")

                def asked() -> int:
                    """Until Osric's page decides (the fight waits on it); its seq."""
                    wait(osric, f"{ASKED} !== null", timeout=60_000)
                    return int(osric.evaluate(ASKED))

                def choose(who: str) -> None:
                    if gm.evaluate("window.initiativePage.chosen") != who:
                        gm.click(f"#tracker tr.row[data-id='{who}'] td.name")
                    assert gm.evaluate("window.initiativePage.chosen") == who

                def recorded(label: str) -> int:
                    """The GM page's answer to what it sent: recorded; the event's seq."""
                    wait(
                        gm,
                        "([label]) => document.getElementById('gm-result').textContent"
                        ".startsWith(label + ': recorded as event ')",
                        arg=[label],
                        timeout=10_000,
                    )
                    return int(
                        re.findall(r"event (\d+)", gm.locator("#gm-result").inner_text())[-1]
                    )

                def everywhere(check: str, *args: Any, pages: tuple[Any, ...] = ()) -> None:
                    for page in pages or (gm, watch, osric):
                        wait(page, check, arg=list(args), timeout=10_000)

                asked()
                gm.bring_to_front()
                gm.wait_for_selector("#map .token[data-id='boss']")
                # The condition picker: openings declares none, and says so (item 6).
                assert gm.locator("#cond").is_disabled()
                assert (
                    gm.locator("#cond option").text_content() == "none in openings: use a GM marker"
                )

                # Item 1: the GM's order holds when someone arrives late.
                choose("osric")
                gm.select_option("#before", "brenna")
                gm.click("#f-order button")
                recorded("Move Osric before Brenna")
                at = desk.type('gm join goblin7 like goblin-5 at 20,5 as "Goblin 7"')
                desk.shows("The GM brings in Goblin 7, like Goblin 5.", at)
                everywhere(f"({ROW})('goblin7').includes('Goblin 7')")
                for page in (gm, watch, osric):
                    order = page.evaluate(ORDER)
                    assert order.index("osric") < order.index("brenna"), order
                at = desk.type("gm who")  # (a late arrival is listed: issue 34, item 5)
                desk.shows("Combatants (name, id, side):", at)
                desk.shows("Goblin 7  goblin7", at)
                # Two rounds played (Osric at his page, Brenna at her terminal, the goblins by
                # their policies): the turns follow the order the tracker shows (the log says).
                osric.bring_to_front()  # (a page behind the others is slow to click)
                while osric.evaluate("window.initiativePage.state.round") < 3:
                    asked()
                    answer_with_attack(osric)
                gm.bring_to_front()

                # Items 2 and 3: a quiet override of an enemy's hit points: the GM sees it,
                # the seat and the spectator never see the number (their frames are scanned
                # below); then undone.
                asked()
                choose("boss")
                gm.fill("#hp", "13")
                gm.check("#hp-quiet")
                gm.click("#f-hp button")
                quiet = recorded("Quietly set Grukk's hp to 13")
                wait(gm, f"({ROW})('boss').includes('13 / 22')")
                for page in (watch, osric):
                    wait(page, "([seq]) => window.initiativePage.state.seq >= seq", arg=[quiet])
                    row = page.evaluate(ROW, "boss")
                    assert "/ 22" not in row and re.search(r"unhurt|hurt|bloodied", row), row
                # Item 4: undo, and a removal that asks to be confirmed.
                gm.uncheck("#hp-quiet")
                gm.click("#undo")
                recorded("Undo")
                wait(gm, f"({ROW})('boss').includes('22 / 22')")
                choose("goblin-4")
                sent = gm.evaluate("window.initiativePage.nextId")
                gm.click("#f-remove button")
                assert gm.evaluate("window.initiativePage.nextId") == sent  # (nothing sent)
                assert gm.locator("#f-remove button").inner_text() == "Confirm: remove Goblin 4"
                gm.click("#f-remove button")
                recorded("Remove Goblin 4")
                everywhere(
                    "document.querySelector(\"#tracker tr.row.gone[data-id='goblin-4']\")"
                )  # (item 7: one who left is greyed, apart from one who is down)

                # Item 5: names where people use them; a typo gets "did you mean".
                at = desk.type("gm hp Grukkk 15")
                desk.shows(
                    "The GM cannot do that: no combatant 'Grukkk'; did you mean Grukk (boss)?", at
                )
                at = desk.type("gm hp grukk 15")
                desk.shows("The GM sets Grukk's hit points to 15.", at)
                everywhere(
                    "document.getElementById('story').textContent.includes(\"The GM changes Grukk's wounds\")",
                    pages=(watch, osric),
                )

                # Item 6: a marker on Wren (a chip in every tracker, a badge on her token);
                # a condition openings does not have is refused, pointing to a marker.
                asked()
                choose("wren")
                gm.fill("#marker", "blessed")
                gm.click("#f-mark button")
                recorded("Mark Wren: blessed")
                everywhere(f"({ROW})('wren').includes('blessed')")
                for page in (watch, osric):
                    assert page.locator("#map .token[data-id='wren'] circle.badge").count() == 1
                at = desk.type("gm add-condition wren stunned")
                desk.shows("The GM cannot do that: the openings ruleset declares no conditions;"
                           " a GM marker (gm mark) says 'stunned' instead", at)  # fmt: skip

                # Item 7: the tracker's initiative is the total the log rolled.
                totals = {
                    who: e["total"]
                    for line in server.log.read_bytes().splitlines()
                    if (e := json.loads(line))["type"] == "InitiativeRolled"
                    for who in e["who"]
                }
                shown = gm.evaluate(
                    "Object.fromEntries([...document.querySelectorAll('#tracker tr.row')]"
                    ".map((r) => [r.dataset.id, r.querySelector('td.init').textContent]))"
                )
                assert totals and {k: int(v) for k, v in shown.items() if v} == totals

                # Item 8: Osric's tab drops while he decides, and comes back within the grace.
                dropped = asked()
                heard += osric.evaluate("window.framesHeard")
                at = len(brenna.screen)
                osric.close()
                wait(
                    gm,
                    "/^waiting for Osric to reconnect: \\d+ s$/"
                    ".test(document.getElementById('grace').textContent)",
                )
                brenna.shows("waiting for Osric to reconnect: ", at)
                osric = open_page("osric")
                gm.bring_to_front()
                assert asked() == dropped  # asked again, the same decision
                wait(gm, "document.getElementById('grace').hidden")
                wait(watch, "document.getElementById('grace').hidden")
                back = brenna.shows("waiting for Osric to reconnect: ", at)
                brenna.shows(": waiting", back)  # (the banner gone from Brenna's terminal)

                # Item 9: a secret roll and a note, for the GM alone.
                gm.fill("#dice", "1d6+700")
                gm.check("#secret")
                gm.click("#f-roll button")
                wait(
                    gm,
                    "/^1d6\\+700 comes up \\d \\+ 700 = 70\\d \\(secret\\)\\.$/"
                    ".test(document.getElementById('gm-result').textContent)",
                )
                at = desk.type(f"gm note {SECRET}: the goblins' reserve waits at the ford")
                desk.shows(f"The GM notes: {SECRET}", at)

                # kill -9, then serve --resume with the same links: every page and terminal
                # comes back by itself, and Osric is asked his decision again.
                pending = asked()
                before = osric.evaluate("window.framesHeard.length")
                server.proc.kill()
                server.proc.wait()
                wait(
                    gm,
                    "document.getElementById('errors').textContent"
                    ".startsWith('The connection to the server is lost')",
                )
                resumed = Server(tmp_path, command=server.go_on(), name="resumed",
                                 encounter=SKIRMISH)  # fmt: skip
                assert resumed.tokens == server.tokens and resumed.port == server.port
                wait(
                    osric,  # (a priority frame from the resumed server)
                    "([before, pending]) => window.framesHeard.slice(before).map(JSON.parse)"
                    ".some((f) => f.type === 'priority' && f.seq === pending)",
                    arg=[before, pending],
                    timeout=30_000,
                )
                assert osric.evaluate(ASKED) == pending
                wait(gm, "document.getElementById('errors').hidden", timeout=30_000)
                for terminal in (brenna, desk):
                    terminal.shows("back at the table")
                assert gm.evaluate(ORDER).index("osric") < gm.evaluate(ORDER).index("brenna")

                # The GM ends the fight: every goblin still standing down, typed by id.
                standing = gm.evaluate(
                    "window.initiativePage.state.combatants"
                    ".filter((c) => c.side === 'goblins' && c.standing).map((c) => c.id)"
                )
                assert "goblin7" in standing and "goblin-4" not in standing
                for who in standing:
                    desk.type(f"gm hp {who} 0")
                desk.shows("type gm review")  # (the GM's terminal offers the review) ...
                desk.type("q")  # ... and leaves without it
                for page in (gm, watch, osric):
                    wait(page, "window.initiativePage.ended", timeout=30_000)
                heard += osric.evaluate("window.framesHeard")
                heard += watch.evaluate("window.framesHeard")
                gm.screenshot(path=str(tmp_path / "game-night-gm.png"), full_page=True)
            finally:
                browser.close()
        assert brenna.ends() == 0 and desk.ends() == 0
        assert resumed.finish() == 0
    finally:
        for terminal in (brenna, desk):
            terminal.kill()
        server.kill()
        if resumed is not None:
            resumed.kill()
    assert problems == []
    assert "the fight is over: wardens won" in brenna.screen and "Traceback" not in brenna.screen
    assert "the fight is over: wardens won" in desk.screen

    # No hidden number, note or secret roll reached Osric or the spectator, nor Brenna.
    hidden = hidden_values(server.log, "wardens")
    frames = [json.loads(text) for text in heard]
    assert {f["type"] for f in frames} >= {"welcome", "table", "priority", "end"}
    found = [leak for frame in frames for leak in leaks(frame, hidden)]
    assert found == []
    assert SECRET not in brenna.screen and not re.search(r"\+ ?70\d", brenna.screen)
    assert "13 / 22" not in brenna.screen and "hit points to 13" not in brenna.screen

    # The log: Osric before Brenna in every round after the reorder; it verifies, and the
    # replay tells every override.
    events = [json.loads(line) for line in server.log.read_bytes().splitlines()]
    reorder = next(e["seq"] for e in events if e["type"] == "GmOverride")
    rounds: dict[int, list[str]] = {}  # the turns of each round after the reorder's
    current, reordered_in = 0, None
    for e in events:
        if e["type"] == "RoundStarted":
            current = e["round"]
        elif e["seq"] == reorder:
            reordered_in = current
        elif e["type"] == "TurnStarted" and reordered_in is not None and current > reordered_in:
            rounds.setdefault(current, []).append(e["who"])
    both = [turns for turns in rounds.values() if {"osric", "brenna"} <= set(turns)]
    assert both and all(t.index("osric") < t.index("brenna") for t in both), rounds
    verified = run("verify", str(server.log))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    told = run("replay", str(server.log))
    assert told.returncode == 0, told.stderr
    for said in (
        "The GM moves Osric before Brenna in the order.",
        "The GM brings in Goblin 7, like Goblin 5.",
        "The GM quietly sets Grukk's hit points to 13.",
        "The GM undoes #",
        "The GM takes Goblin 4 out of the fight (fled).",
        "The GM sets Grukk's hit points to 15.",
        "The GM marks Wren: blessed.",
        "The GM rolls 1d6+700 in secret.",
        f"The GM notes: {SECRET}",
    ):
        assert said in told.stdout, said
