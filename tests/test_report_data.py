"""The designer's figures on the pages, in Debian's chromium: ``batch``'s hit points and damage
by round, group outcomes and hit rates per attack, and ``compare``'s variants side by side.
Every figure is the JSON's (as tests/test_report.py checks the pages), nothing leaves its card
or overlaps; the screenshots in docs/batch.md are taken here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cli_support
import pytest
from test_report import (  # the same checks, and the same browser for this module
    IMAGES,
    LAYOUT,
    ROOT,
    SKIRMISH,
    browser as browser,
    check_page,
    report_of,
    self_contained,
)

DUEL = Path("examples/openings-duel.toml")


@pytest.mark.slow
def test_batch_page_draws_rounds_groups_and_hit_rates(browser: Any, tmp_path: Path) -> None:
    """A point per side and shown round on each of the two round charts, each the JSON's mean;
    every group outcome and hit rate of ``--json`` is on the page."""
    data, html = report_of(tmp_path, "batch", SKIRMISH, "--runs", 20)
    self_contained(html)
    # (the whole page's screenshot is tests/test_report.py's; this one is thrown away)
    keys = check_page(browser, html, data, str(tmp_path / "whole.png"))
    for k, g in enumerate(data["groups"]):
        wanted = {"any_fell.rate", "any_fell.ci95", "all_fell.rate", "hp_left.mean"}
        assert {f"groups.{k}.{w}" for w in wanted} <= keys, g
    for k, _ in enumerate(data["attacks"]):
        assert {f"attacks.{k}.rate", f"attacks.{k}.ci95", f"attacks.{k}.hits"} <= keys
    points = browser.js(
        "[...document.querySelectorAll('#by-round circle.round-point')].map(e => e.dataset.key)"
    )
    shown = max(int(key.split(".")[3]) for key in points) + 1
    assert len(points) == 2 * len(data["curves"]) * shown
    assert {f"curves.{k}.rounds.0.hp.mean" for k in range(2)} <= set(points)
    for section, image in (("#by-round", "report-batch-rounds.png"), ("#attacks", None)):
        assert browser.js(f"!!document.querySelector('{section}')"), section
        if image:
            browser.page.locator(section).screenshot(path=str(IMAGES / image))
    browser.page.locator("#groups").screenshot(path=str(IMAGES / "report-batch-groups.png"))


@pytest.mark.slow
def test_compare_page_puts_the_variants_side_by_side(browser: Any, tmp_path: Path) -> None:
    """Two variants of the duel (Tomas with 22 and 34 hit points): each side's rate in each
    variant, each difference with its interval and p, and the combatants' rows are the JSON's;
    the differences' dots sit between their whiskers."""
    work = tmp_path / "work"  # the files as a designer names them (the page shows them)
    work.mkdir()
    text = (ROOT / DUEL).read_text()
    (work / "openings-duel.toml").write_text(text)
    (work / "openings-duel-tough.toml").write_text(text.replace("hp = 22", "hp = 34", 1))
    html = tmp_path / "report.html"
    done = cli_support.run(
        "compare", "openings-duel.toml", "openings-duel-tough.toml", "--runs", 20, "--json",
        "--report", html, cwd=work,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    self_contained(html)
    keys = check_page(browser, html, data, "report-compare.png")
    for i, v in enumerate(data["variants"]):
        for j, _ in enumerate(v["sides"]):
            assert {f"variants.{i}.sides.{j}.rate", f"variants.{i}.sides.{j}.ci95"} <= keys
    for k, _ in enumerate(data["pairs"][0]["sides"]):
        wanted = {"wins.difference", "wins.ci95", "wins.p", "damage.mean", "hp_left.mean"}
        assert {f"pairs.0.sides.{k}.{w}" for w in wanted} <= keys
    for k, c in enumerate(data["pairs"][0]["combatants"]):
        assert f"pairs.0.combatants.{k}.survived.difference" in keys, c
    dots = browser.js(
        "[...document.querySelectorAll('#pair-0 circle.dot')].map(e => +e.dataset.value)"
    )
    assert len(dots) == 2 * 2 + 3  # wins and any fell per side, then each combatant
    assert browser.js(LAYOUT) == []
