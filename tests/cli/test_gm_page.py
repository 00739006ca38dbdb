"""The pages of ``serve`` in Debian's chromium, against a real server: the GM page, a spectator
page and a seat page of ``examples/thriller-ambush.toml`` show the tracker, the battle map, the
roll cards and the narration and follow the fight within a second; the map's labels never
overlap (on every bundled example, at three points of each fight); the screenshots that
docs/table.md shows are written by this run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMIUM, IMAGES, chromium
from initiative.events import read_log
from serve_support import Served, events_of

import initiative
from initiative.table._sight import EVERYTHING
from initiative.table._talk import TableTalk

pytestmark = [
    pytest.mark.slow,  # a server and a browser, each a real process
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium"),
]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))

#: Stops a page's clock 3 s into every countdown it shows, so that its screenshot is the same
#: from one run to the next (the pages are not used after their screenshots).
STILL = """() => {
  const p = window.initiativePage, t = performance.now();
  performance.now = () => t;
  if (p.asked) p.shownAt = t - 3000;
  for (const c of Object.values(p.clocks)) {  // (a clock frame's time left, rounded up)
    c.total = Math.ceil(c.total);
    c.until = t + 1000 * (c.total - 3);
  }
  tick();
}"""

#: The pairs of map labels whose boxes overlap, and the labels that leave the map, as the page
#: itself measures them.
OVERLAPS = """() => {
  const map = document.getElementById("map").getBoundingClientRect();
  const boxes = [...document.querySelectorAll("#map .label")].map((g) => {
    const r = g.querySelector("rect").getBoundingClientRect();
    return {id: g.dataset.id, x: r.left, y: r.top, w: r.width, h: r.height};
  });
  const pairs = [], out = [];
  boxes.forEach((a, i) => {
    if (a.x < map.left || a.y < map.top || a.x + a.w > map.right || a.y + a.h > map.bottom) out.push(a.id);
    for (const b of boxes.slice(i + 1)) {
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) pairs.push([a.id, b.id]);
    }
  });
  return {labels: boxes.length, pairs: pairs, out: out};
}"""


def frames_of(example: Path, tmp: Path) -> list[str]:
    """Table frames (as a spectator gets them) at three points of the example's fight: after
    the first turn's start, in the middle and at the end."""
    log = tmp / f"{example.stem}.jsonl"
    initiative.run(example, out=log)
    lines = log.read_bytes().splitlines()
    events = read_log(log).events
    starts = [e.seq for e in events if type(e).__name__ == "TurnStarted"]
    points = [starts[0] + 1, starts[len(starts) // 2] + 1, len(lines)]
    talk = TableTalk(read_log(log).header.encounter)
    return [EVERYTHING.out(talk.frame(lines[:n], 0, n, ())).decode() for n in points]


def test_gm_spectator_and_seat_pages_follow_the_fight(tmp_path: Path) -> None:
    """Before the seat is taken the GM page waits, designed; then every page shows the tracker,
    the map, the dice and the narration, and each decision reaches the GM's and the spectator's
    pages within a second. The seat and the spectator see the enemies' health in words only."""
    pytest.importorskip("playwright.sync_api")
    example = ROOT / "examples" / "thriller-ambush.toml"
    served = Served(tmp_path, example, "marlowe")  # starting while the rest gets ready
    problems: list[str] = []
    try:
        frames = {e.stem: frames_of(e, tmp_path) for e in EXAMPLES}
        with chromium() as browser:
            served.wait()
            pages: dict[str, Any] = {}
            for kind in ("gm", "watch", "seat/marlowe"):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.on("pageerror", lambda exc: problems.append(str(exc)))
                page.on(
                    "console",
                    lambda m: problems.append(m.text) if m.type == "error" else None,
                )
                page.goto(served.links[kind])
                if kind == "gm":  # nobody seated yet: the waiting state, never an empty page
                    page.wait_for_function(
                        "document.getElementById('waiting-title').textContent"
                        ".startsWith('Waiting for the fight')"
                    )
                    assert page.locator("#waiting").is_visible()
                    assert not page.locator("#live").is_visible()
                pages[kind] = page
            gm, watch, seat = pages["gm"], pages["watch"], pages["seat/marlowe"]
            seq = "window.initiativePage.state ? window.initiativePage.state.seq : -1"
            lags = []
            for _turn in range(3):
                seat.wait_for_selector("button.offer", timeout=30_000)
                before = {page: page.evaluate(seq) for page in (gm, watch)}
                labels = seat.locator("button.offer .text").all_text_contents()
                choice = next(
                    (i for i, text in enumerate(labels) if text.startswith("Attack")),
                    len(labels) - 1,
                )
                seat.locator("button.offer").nth(choice).click()
                sent = seat.evaluate("window.initiativePage.sent")
                for page in (gm, watch):
                    page.wait_for_function(f"({seq}) > {before[page]}", timeout=10_000)
                    lags.append(page.evaluate("window.initiativePage.heard") - sent)
            # The GM's and the spectators' countdown names the seat being waited for.
            seat.wait_for_selector("button.offer", timeout=30_000)
            for page in (gm, watch):
                page.wait_for_function(
                    "document.getElementById('left').textContent"
                    ".startsWith('Detective Marlowe decides (seat marlowe): ')"
                )
                assert page.locator("#clock").is_visible()
            # From the seat's click (its frame sent) to the news drawn on the other pages.
            assert max(lags) < 1000, lags
            for page in (gm, watch, seat):
                assert page.locator("#tracker tr.row").count() == 7
                assert page.locator("#map .token").count() == 7
                assert page.locator("#rolls .roll").count() > 0
                assert page.locator("#story li").count() > 10
                assert page.locator("#round").text_content().startswith("Round ")
                found = page.evaluate(OVERLAPS)
                assert (found["labels"], found["pairs"], found["out"]) == (7, [], [])
            # Roll cards say whose die, for what, the expression, the faces and the total.
            card = watch.locator("#rolls .roll").first.text_content()
            assert re.search(r"\dd\d+", card) and ("rolled" in card or "given" in card)
            # The GM sees every number; the seat its enemies' health in words, and so does
            # the spectator page (what the seats see: issue 34, reproduction 3), while both
            # see the seated side's numbers.
            row = "#tracker tr.row[data-id='priest'] td"
            assert re.search(r"\d+ / 12", gm.locator(row).nth(3).text_content())
            for page in (seat, watch):
                assert page.locator(row).nth(3).text_content() in {
                    "unhurt", "hurt", "bloodied", "down"
                }  # fmt: skip
                assert page.locator(row).nth(4).text_content() == ""  # (no AP)
                own = "#tracker tr.row[data-id='marlowe'] td"
                assert re.search(r"\d+ / 14", page.locator(own).nth(3).text_content())
            # The GM chooses a token (the controls wake up), rests the pointer on it (its
            # reach shows); then the three screenshots docs/table.md shows.
            seat.wait_for_selector("button.offer", timeout=30_000)  # the fight waits
            gm.click("#map .token[data-id='acolyte-1'] circle.body")
            assert gm.locator("#gm-target").text_content() == "Acolyte 1"
            assert not gm.locator("#gm").evaluate("e => e.classList.contains('idle')")
            gm.hover("#map .token[data-id='priest'] circle.body")
            assert gm.locator("#map .token[data-id='priest'] .reach").is_visible()
            IMAGES.mkdir(exist_ok=True)
            for page, name in ((gm, "page-gm"), (watch, "page-watch"), (seat, "page-seat")):
                page.evaluate(STILL)  # the countdowns read the same in every run
                page.screenshot(
                    path=str(IMAGES / f"{name}.png"), full_page=True, animations="disabled"
                )
            # Labels never overlap on any bundled example, at three points of each fight:
            # the spectator page, told those table frames.
            checked = browser.new_page(viewport={"width": 1280, "height": 900})
            checked.goto(served.links["watch"].split("#")[0] + "#token=none")
            checked.wait_for_function("document.getElementById('status').textContent === 'refused'")
            for stem, told in frames.items():
                for frame in told:
                    checked.evaluate(f"receive({frame})")
                    found = checked.evaluate(OVERLAPS)
                    assert found["labels"] > 1, stem
                    assert (found["pairs"], found["out"]) == ([], []), stem
    finally:
        served.close()
    assert problems == []
    events = read_log(served.log).events
    assert len(events_of([{"type": type(e).__name__} for e in events], "ActionDeclared")) >= 3
