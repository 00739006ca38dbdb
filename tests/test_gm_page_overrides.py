"""The GM steps in from the GM page (issue 23's "done when"), in Debian's chromium against a real
``serve`` of ``examples/thriller-ambush.toml``: every override kind applied from the page's own
controls, each shown on a spectator page and on the seat page within a second, a refusal shown
with its reason, the player moving by clicking the map, and the finished log verifying. The GM
runs the whole fight from the GM page alone, with one player in a browser (Marlowe) and one at a
terminal (Sully: ``initiative join`` in a pseudo-terminal)."""

from __future__ import annotations

import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMIUM, answer_with_attack, chromium
from initiative.engine import declared_conditions, find_ruleset
from initiative.events import read_log
from initiative.replays import verify_log
from pty_support import PtyProgram, play_at_the_terminal
from serve_support import Served

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "thriller-ambush.toml"
BRIDGE = ROOT / "examples" / "tactical-bridge.toml"


pytestmark = [
    pytest.mark.slow,  # a server and a browser, each a real process
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium"),
]

#: What a page's tracker says of one combatant (its row's text, or "" when it has none).
ROW = """(id) => {
  const row = document.querySelector(`#tracker tr.row[data-id="${id}"]`);
  return row ? row.textContent : "";
}"""

#: A point of the map (page coordinates) where no token, label or reach ring is: the nearest to
#: the given point on a grid of 8-pixel steps, at least 30 pixels from it.
EMPTY_SPOT = """([x0, y0]) => {
  const box = document.getElementById("map").getBoundingClientRect();
  let best = null;
  for (let x = box.left + 4; x < box.right - 4; x += 8) {
    for (let y = box.top + 4; y < box.bottom - 4; y += 8) {
      const hit = document.elementFromPoint(x, y);
      if (!hit || hit.closest(".token") || !hit.closest("#map")) continue;
      const d = Math.hypot(x - x0, y - y0);
      if (d > 30 && (!best || d < best[2])) best = [x, y, d];
    }
  }
  return [best[0], best[1]];
}"""


def test_the_gm_page_steps_in_and_the_log_records_it(tmp_path: Path) -> None:
    pytest.importorskip("playwright.sync_api")
    served = Served(tmp_path, EXAMPLE, "marlowe", "sully", deadline=120)
    join: PtyProgram | None = None
    try:
        served.wait()
        links = served.links
        # Sully at a terminal, answering each decision as it comes, while the browser plays.
        (sully,) = re.findall(r"terminal: initiative join (\S+) --seat sully --token (\S+)",
                              served.output.read_text())  # fmt: skip
        join = PtyProgram(
            [sys.executable, "-m", "initiative", "join", sully[0], "--seat", "sully",
             "--token", sully[1]],
            cwd=str(tmp_path), env={**os.environ, "COLUMNS": "200", "TERM": "dumb"},
        )  # fmt: skip
        answered: list[str] = []
        failed: list[BaseException] = []
        terminal = threading.Thread(
            target=play_at_the_terminal, args=(join, answered, failed), daemon=True
        )
        terminal.start()
        problems: list[str] = []
        with chromium() as browser:
            pages = {}
            for kind in ("gm", "watch", "seat/marlowe"):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.on("pageerror", lambda exc: problems.append(str(exc)))
                page.goto(links[kind])
                pages[kind] = page
            gm, watch, seat = pages["gm"], pages["watch"], pages["seat/marlowe"]
            seat.wait_for_selector("button.offer", timeout=30_000)
            gm.wait_for_selector("#map .token")

            def choose(who: str) -> None:
                if gm.evaluate("window.initiativePage.chosen") != who:
                    gm.click(f"#tracker tr.row[data-id='{who}'] td.name")
                assert gm.evaluate("window.initiativePage.chosen") == who

            def shown(check: str, *args: Any) -> None:
                """``check`` (a JS function of the args) holds on the spectator's and the
                seat's pages within a second."""
                for page in (watch, seat):
                    page.wait_for_function(check, arg=list(args), timeout=1000)

            def recorded() -> None:
                gm.wait_for_function(
                    "document.getElementById('gm-result').textContent.includes('recorded')",
                    timeout=5000,
                )

            # Hit points: the seat sees its own side's numbers.
            choose("ada")
            gm.fill("#hp", "3")
            gm.click("#f-hp button")
            recorded()
            shown(f"([id]) => ({ROW})(id).includes('3 / 10')", "ada")
            # A condition the ruleset declares, with its duration; then ended.
            choose("acolyte-2")
            gm.select_option("#cond", "in_cover")  # (the picker: issue 34, item 6)
            gm.fill("#rounds", "2")
            gm.click("#f-cond button")
            recorded()
            shown(f"([id]) => ({ROW})(id).includes('in cover')", "acolyte-2")
            gm.click("#end-conds button.end")
            recorded()
            shown(f"([id]) => !({ROW})(id).includes('in cover')", "acolyte-2")
            # A GM marker: a chip in every tracker, a badge on the token (issue 34, item 6).
            gm.fill("#marker", "blessed by the GM")
            gm.click("#f-mark button")
            recorded()
            shown(f"([id]) => ({ROW})(id).includes('blessed by the GM')", "acolyte-2")
            for page in (watch, seat):
                badge = page.locator("#map .token[data-id='acolyte-2'] circle.badge")
                assert badge.count() == 1
                title = page.locator("#map .token[data-id='acolyte-2'] title").text_content()
                assert "blessed by the GM" in title
                assert "conditions or GM markers" in page.locator("#legend").text_content()
            # Thriller takes any condition's name (a special condition), so a refusal here
            # is hit points past the most a combatant has: refused, with the reason shown.
            choose("ada")
            gm.fill("#hp", "999")
            gm.click("#f-hp button")
            gm.wait_for_function(
                "document.getElementById('gm-result').textContent.includes('refused')"
            )
            assert "999" in gm.locator("#gm-result").text_content()
            # A late arrival like an acolyte, then one who flees.
            gm.fill("#new-id", "acolyte-4")
            gm.fill("#new-name", "Acolyte 4")
            gm.click("#f-add button")
            recorded()
            shown(f"([id]) => ({ROW})(id) !== ''", "acolyte-4")
            choose("acolyte-3")
            gm.fill("#why", "fled")
            sent = gm.evaluate("window.initiativePage.nextId")
            gm.click("#f-remove button")  # (issue 34: a removal asks to be confirmed)
            assert gm.evaluate("window.initiativePage.nextId") == sent  # nothing sent yet
            assert gm.locator("#f-remove button").text_content().startswith("Confirm: remove")
            gm.click("#f-remove button")
            recorded()
            shown(f"([id]) => !({ROW})(id) || ({ROW})(id).includes('gone')", "acolyte-3")
            # The order: the priest moves before Marlowe.
            choose("priest")
            gm.select_option("#before", "marlowe")
            gm.click("#f-order button")
            recorded()
            shown(
                "() => { const ids = [...document.querySelectorAll('#tracker tr.row')]"
                ".map((r) => r.dataset.id); return ids.indexOf('priest') < ids.indexOf('marlowe'); }"
            )
            # A token dragged on the map.
            token = gm.locator("#map .token[data-id='acolyte-1'] circle.body").bounding_box()
            assert token is not None
            x, y = token["x"] + token["width"] / 2, token["y"] + token["height"] / 2
            before = watch.evaluate(
                "window.initiativePage.board.tokens.find((t) => t.id === 'acolyte-1').at"
            )
            gm.mouse.move(x, y)
            gm.mouse.down()
            gm.mouse.move(x + 60, y + 40, steps=5)
            gm.mouse.up()
            recorded()
            shown(
                "([was]) => { const t = window.initiativePage.board.tokens"
                ".find((t) => t.id === 'acolyte-1'); return t.at[0] !== was[0] || t.at[1] !== was[1]; }",
                before,
            )
            # A click on the map alone moves no one (issue 34: Wren moved for good by a
            # stray click); it proposes the move, and "Move here" makes it.
            choose("acolyte-2")
            other = gm.locator("#map .token[data-id='acolyte-2'] circle.body").bounding_box()
            assert other is not None
            was = watch.evaluate(
                "window.initiativePage.board.tokens.find((t) => t.id === 'acolyte-2').at"
            )
            sent = gm.evaluate("window.initiativePage.nextId")
            empty = gm.evaluate(EMPTY_SPOT, [other["x"], other["y"]])  # (no token there)
            gm.mouse.click(*empty)
            gm.wait_for_timeout(300)
            assert gm.evaluate("window.initiativePage.nextId") == sent
            assert gm.locator("#move-here").is_visible()
            gm.screenshot(path=str(tmp_path / "move-here.png"))
            gm.click("#move-here")
            recorded()
            shown(
                "([was]) => { const t = window.initiativePage.board.tokens"
                ".find((t) => t.id === 'acolyte-2'); return t.at[0] !== was[0] || t.at[1] !== was[1]; }",
                was,
            )
            assert not gm.locator("#move-here").is_visible()
            # The player moves by clicking the map, a metre from where Marlowe stands.
            # Asked again after the GM's last override (the grant it interrupted is gone).
            last = int(re.findall(r"event (\d+)", gm.locator("#gm-result").text_content())[-1])
            seat.wait_for_function(
                "([last]) => { const a = window.initiativePage.asked;"
                " return a && a.seq > last && a.screen.move; }",
                arg=[last],
            )
            me = seat.locator("#map .token[data-id='marlowe'] circle.body").bounding_box()
            assert me is not None
            scale = seat.evaluate("geometry.S")
            seat.mouse.click(me["x"] + me["width"] / 2 + scale, me["y"] + me["height"] / 2)
            watch.wait_for_function(
                "window.initiativePage.board.last_move && window.initiativePage.board.last_move[0] === 'marlowe'",
                timeout=5000,
            )
            # Then the seat plays on until the end.
            while True:
                seat.wait_for_function(
                    "document.querySelector('button.offer') || window.initiativePage.ended",
                    timeout=60_000,
                )
                if seat.evaluate("window.initiativePage.ended"):
                    break
                answer_with_attack(seat)
        terminal.join(60)
        assert not terminal.is_alive() and failed == [], failed
        assert join.wait(30) == 0
        assert served.proc.wait(60) == 0
    finally:
        if join is not None and join.status is None:
            join.kill()
        served.close()
    assert problems == []
    contents = read_log(served.log)
    assert verify_log(contents).ok
    kinds = {type(e).__name__ for e in contents.events}
    assert "Moved" in kinds
    # Sully was asked at the terminal each time the log says, and answered each (the GM steps
    # in while the fight waits on Marlowe, so no grant of Sully's is cut short).
    asked = [
        e for e in contents.events if type(e).__name__ == "PriorityGranted" and e.who == "sully"
    ]
    assert answered and len(answered) == len(asked)
    assert join is not None and "Traceback" not in join.screen
    assert re.search(r"the fight is over: [^\n]+ won", join.screen)


def test_the_condition_picker_on_the_bridge(tmp_path: Path) -> None:
    """Issue 34, item 6: the GM page offers the conditions tactical declares (the welcome's
    ``conditions``), a rounds field and a box for what a condition names; a condition picked
    with its rounds is recorded in the log with them and shows on the token and in the tracker
    of the seat's page; the form forgets what was typed when the GM chooses another."""
    pytest.importorskip("playwright.sync_api")
    served = Served(tmp_path, BRIDGE, "sergeant", deadline=120)
    problems: list[str] = []
    try:
        served.wait()
        links = served.links
        with chromium() as browser:
            gm = browser.new_page(viewport={"width": 1280, "height": 900})
            seat = browser.new_page(viewport={"width": 1280, "height": 900})
            for page in (gm, seat):
                page.on("pageerror", lambda exc: problems.append(str(exc)))
            gm.goto(links["gm"])
            seat.goto(links["seat/sergeant"])
            seat.wait_for_selector("button.offer", timeout=60_000)  # the fight waits
            gm.wait_for_selector("#map .token[data-id='raider-2']")
            offered = gm.locator("#cond option").evaluate_all("os => os.map((o) => o.value)")
            assert offered == list(declared_conditions(find_ruleset("tactical")))
            assert "prone" in offered and "disarmed:WEAPON" in offered
            assert gm.locator("#cond").is_enabled()
            # Typed for one, then another chosen: the form starts empty for the other.
            gm.click("#tracker tr.row[data-id='raider-1'] td.name")
            gm.fill("#rounds", "5")
            gm.fill("#marker", "half asleep")
            gm.select_option("#cond", "disarmed:WEAPON")
            assert gm.locator("#cond-arg").is_visible()
            assert gm.locator("#cond-arg").get_attribute("placeholder") == "weapon"
            gm.click("#tracker tr.row[data-id='raider-2'] td.name")
            assert gm.evaluate("window.initiativePage.chosen") == "raider-2"
            assert (gm.input_value("#rounds"), gm.input_value("#marker")) == ("", "")
            assert gm.input_value("#cond") == offered[0]
            assert not gm.locator("#cond-arg").is_visible()
            # Prone for two rounds, from the picker.
            gm.select_option("#cond", "prone")
            gm.fill("#rounds", "2")
            gm.click("#f-cond button")
            gm.wait_for_function(
                "document.getElementById('gm-result').textContent.includes('recorded')"
            )
            said = gm.locator("#gm-result").text_content()
            assert said.startswith("Add prone to raider 2 for 2 rounds: recorded as event ")
            seq = int(re.findall(r"event (\d+)", said)[-1])
            # The seat's page: a chip in the tracker, a badge on the token naming it.
            row = "#tracker tr.row[data-id='raider-2']"
            for page in (gm, seat):
                page.wait_for_function(f"({ROW})('raider-2').includes('prone')", timeout=5000)
                chip = page.locator(f"{row} .chip").first.text_content()
                assert re.fullmatch(r"prone · until end of round \d+", chip), chip
                badge = page.locator("#map .token[data-id='raider-2'] circle.badge")
                assert badge.count() == 1
                title = page.locator("#map .token[data-id='raider-2'] title").text_content()
                assert "prone" in title
            # A condition that names something: the weapon in its own box.
            gm.select_option("#cond", "disarmed:WEAPON")
            sent = gm.evaluate("window.initiativePage.nextId")
            gm.click("#f-cond button")  # (no weapon named: asked which, nothing sent)
            assert gm.locator("#gm-result").text_content() == "disarmed: which weapon?"
            assert gm.evaluate("window.initiativePage.nextId") == sent
            gm.fill("#cond-arg", "axe")
            gm.fill("#rounds", "")  # (until it is ended)
            gm.click("#f-cond button")
            gm.wait_for_function(
                "document.getElementById('gm-result').textContent.startsWith('Add disarmed')"
                " && !document.getElementById('gm-result').textContent.endsWith('sent…')"
            )
            said = gm.locator("#gm-result").text_content()
            assert said.startswith("Add disarmed (axe) to raider 2: recorded as event "), said
            seat.wait_for_function(f"({ROW})('raider-2').includes('disarmed')", timeout=5000)
            gm.click("#tracker tr.row[data-id='raider-2'] td.name")  # (chosen: the chips)
            gm.click("#tracker tr.row[data-id='raider-2'] td.name")
            gm.screenshot(path=str(tmp_path / "picker-gm.png"), full_page=True)
            seat.screenshot(path=str(tmp_path / "picker-seat.png"), full_page=True)
    finally:
        served.close()
    assert problems == []
    events = read_log(served.log).events
    override = next(e for e in events if e.seq == seq)
    assert type(override).__name__ == "GmOverride"
    assert (override.override.who, override.override.condition, override.override.rounds) == (
        "raider-2",
        "prone",
        2,
    )
    added = [e for e in events if type(e).__name__ == "ConditionAdded" and e.cause == seq]
    assert [(e.who, e.condition) for e in added] == [("raider-2", "prone")]
    assert added[0].until.startswith("end of round ")
