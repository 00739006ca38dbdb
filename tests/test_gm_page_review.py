"""The GM page's live odds and its review at the end (issue 35, item 4), in Debian's chromium
against a real ``serve`` of ``examples/openings-duel.toml``: with ``--gm-odds`` the GM page
shows each side's chance to win after every decision of the seat, as the server's ``odds``
frames say; at the end it offers the review, and the report it opens is the one the server
serves the GM. The screenshots docs/review.md shows are written by this run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMIUM, IMAGES, chromium
from serve_support import Server, first_attack

pytestmark = [
    pytest.mark.slow,  # a server, its helpers and a browser, each a real process
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium"),
]

ROOT = Path(__file__).resolve().parents[1]
DUEL = (ROOT / "examples" / "openings-duel.toml").read_text()

#: What the GM page's odds bar shows: each side's segment, its width in percent and its words.
BAR = """() => [...document.querySelectorAll("#odds-bar .side")].map((s) => ({
  side: s.dataset.side, width: parseFloat(s.style.flexBasis), text: s.textContent}))"""


def gm_page(browser: Any, server: Server, problems: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.goto(f"http://127.0.0.1:{server.port}/gm#token={server.gm_token}")
    page.wait_for_function("window.initiativePage.role === 'gm'")
    return page


def still(page: Any) -> None:
    """Stop the page's countdown where it is (the screenshot is the same from run to run)."""
    page.evaluate("() => { const t = performance.now(); performance.now = () => t; tick(); }")


def test_the_odds_bar_follows_the_fight_on_the_gm_page(tmp_path: Path) -> None:
    """With ``--gm-odds``, before each of the seat's decisions the GM page's bar shows the odds
    the server sent for that very decision: one segment per side, as wide as its chance."""
    pytest.importorskip("playwright.sync_api")
    problems: list[str] = []
    with (
        Server(tmp_path, "--seat", "north", "--gm-odds", encounter=DUEL) as server,
        chromium() as browser,
    ):
        gm = gm_page(browser, server, problems)
        seat = server.client()
        assert seat.hello("north", server.tokens["north"])["type"] == "welcome"
        checked = 0
        while (frame := seat.next("priority", "end"))["type"] == "priority":
            if checked < 4:
                gm.wait_for_function(
                    "([seq]) => { const o = window.initiativePage.odds;"
                    " return o && o.seq === seq; }",
                    arg=[frame["seq"]],
                    timeout=60_000,
                )
                odds = gm.evaluate("window.initiativePage.odds")
                bar = gm.evaluate(BAR)
                assert [s["side"] for s in bar] == [
                    side for side in ("north", "south") if odds["win"][side] > 0
                ]
                for s in bar:
                    assert s["width"] == pytest.approx(100 * odds["win"][s["side"]])
                    if odds["win"][s["side"]] >= 0.2:
                        assert s["text"] == f"{s['side']} {round(100 * odds['win'][s['side']])}%"
                note = gm.text_content("#odds-note")
                assert re.fullmatch(r"round \d+ · 32 fights played out · ± \d+ points", note)
                assert gm.text_content("#odds-sub") == "before Ilse decides"
                checked += 1
                if checked == 4:
                    still(gm)
                    IMAGES.mkdir(exist_ok=True)
                    gm.screenshot(path=str(IMAGES / "page-gm-odds.png"), animations="disabled")
            seat.decide(frame, first_attack(frame))
        # The end: the bar shows the result.
        gm.wait_for_function("window.initiativePage.ended")
        gm.wait_for_function("window.initiativePage.odds.ended")
        winner = frame["winner"]
        assert [(s["side"], s["width"]) for s in gm.evaluate(BAR)] == [(winner, 100)]
        assert gm.text_content("#odds-sub") == "the result"
        assert checked == 4
    assert problems == []


def test_the_gm_page_offers_the_review_at_the_end_and_opens_it(tmp_path: Path) -> None:
    """Without ``--gm-odds`` the GM page has no odds; once the fight is over it offers the
    review, shows its progress, and opens the report the server serves to the GM token."""
    pytest.importorskip("playwright.sync_api")
    problems: list[str] = []
    with (
        Server(tmp_path, "--seat", "north", encounter=DUEL) as server,
        chromium() as browser,
    ):
        gm = gm_page(browser, server, problems)
        seat = server.client()
        seat.hello("north", server.tokens["north"])
        assert seat.play()["type"] == "end"
        gm.wait_for_selector("#review-card:not([hidden])")
        assert gm.is_hidden("#odds-card")  # (off by default)
        assert gm.text_content("#review-ask") == "Review this fight"
        gm.click("#review-ask")
        gm.wait_for_selector("#review-progress:not([hidden])")
        gm.wait_for_selector("#review-ready:not([hidden])", timeout=180_000)
        assert gm.is_hidden("#review-failed")
        decisions = gm.evaluate("window.initiativePage.review.done")
        assert gm.text_content("#review-sub") == f"{decisions} decisions reviewed"
        gm.mouse.move(0, 0)
        still(gm)
        IMAGES.mkdir(exist_ok=True)
        gm.screenshot(path=str(IMAGES / "page-gm-review.png"), animations="disabled")
        with gm.context.expect_page() as opened:
            gm.click("#review-open")
        report = opened.value
        report.wait_for_load_state()
        served = (tmp_path / "served.review.html").read_text()
        assert report.title() == re.search(r"<title>(.*)</title>", served).group(1)
        assert "Duel in the rain" in report.title()
        shown = report.evaluate("document.documentElement.outerHTML")
        assert served.count("<tr") == shown.count("<tr") > decisions
    assert problems == []
