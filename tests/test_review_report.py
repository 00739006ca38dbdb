"""``review --report FILE.html``: the page opened in Debian's chromium. Every figure on it is
the one ``review --json`` gives, formatted as the page says; nothing sticks out of its card or
overlaps another label; the curve has a line per side and a mark at every decision graded
inaccuracy or worse, which links to that decision's row. The screenshot in docs/review.md
(docs/images/review-report.png) is taken here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cli_support
import pytest
from browser import IMAGES
from test_report import checked_figures

ROOT = Path(__file__).parents[1]


def shown(kind: str, value: Any) -> str:
    """How the review page writes a JSON value of each kind (written again here)."""
    match kind:
        case "pct":
            return f"{100 * value:.1f}%"
        case "loss-pts":
            return f"{100 * value:.1f}"
        case "signed-pts":
            return f"{100 * value:+.0f} pts"
        case "f1":
            return f"{value:.1f}"
    return str(value)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium for every page of this module."""
    from browser import module_page

    yield from module_page(1000, 800)


@pytest.mark.slow  # a browser
def test_review_page_shows_the_json_figures_and_marks_the_graded_decisions(
    browser: Any, tmp_path: Path
) -> None:
    log = tmp_path / "duel.seed7.jsonl"
    done = cli_support.run(
        "run", "examples/openings-duel.toml", "--seed", "7", "-o", log, "-q", cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    html = tmp_path / "review.html"
    done = cli_support.run(  # (from its folder: the page names the log as given)
        "review", log.name, "--rollouts", "12", "--json", "--report", html.name, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    text = html.read_text()
    assert "<script" not in text and " src=" not in text and "https://" not in text
    browser.open(html)
    figures = checked_figures(browser, data, shown)
    assert len(figures) > len(data["decisions"])
    sides = browser.js("[...document.querySelectorAll('polyline.curve')].map(e => e.dataset.side)")
    assert sides == data["sides"]
    graded = [d for d in data["decisions"] if d["grade"] in ("inaccuracy", "mistake", "blunder")]
    assert graded, "this fight has decisions graded inaccuracy or worse"
    marks = browser.js(
        "[...document.querySelectorAll('a.graded')].map(e => [+e.dataset.seq, e.dataset.grade])"
    )
    assert marks == [[d["seq"], d["grade"]] for d in graded]
    first = graded[0]["seq"]
    browser.click(f'a.graded[data-seq="{first}"] circle')
    assert browser.js("location.hash") == f"#d-{first}"
    assert browser.js(f"document.getElementById('d-{first}').textContent") == str(first)
    browser.screenshot(IMAGES / "review-report.png", down_to="#turning-points")


@pytest.mark.slow  # a browser
def test_view_with_review_draws_the_curve_under_the_timeline_and_a_dot_selects_its_event(
    browser: Any, tmp_path: Path
) -> None:
    """``view --review``: a line per side, a dot per decision graded inaccuracy or worse (the
    same as ``review --json`` finds with the same budget), a click on a dot selects its event."""
    log = tmp_path / "duel.seed7.jsonl"
    done = cli_support.run(
        "run", "examples/openings-duel.toml", "--seed", "7", "-o", log, "-q", cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    page = tmp_path / "duel.html"
    done = cli_support.run("view", log, "--review", "--rollouts", "6", "-o", page)
    assert done.returncode == 0, done.stderr
    data = json.loads(cli_support.run("review", log, "--rollouts", "6", "--json").stdout)
    browser.open(page)
    assert browser.errors == []
    assert browser.js("document.getElementById('review-box') !== null")
    lines = browser.js(
        "[...document.querySelectorAll('#win-chart .win-line')].map(e => e.dataset.side)"
    )
    assert lines == data["sides"]
    graded = [d for d in data["decisions"] if d["grade"] in ("inaccuracy", "mistake", "blunder")]
    dots = browser.js(
        "[...document.querySelectorAll('#win-chart .graded')].map(e => +e.dataset.seq)"
    )
    assert dots == [d["seq"] for d in graded] and dots
    browser.page.dispatch_event(f'#win-chart .graded[data-seq="{dots[0]}"]', "click")
    assert browser.js("+document.getElementById('slider').value") == dots[0]
    assert browser.js("document.querySelector('#event-list tr.selected').dataset.seq") == str(
        dots[0]
    )
    browser.screenshot(IMAGES / "view-review.png", down_to="#review-box")
    plain = tmp_path / "plain.html"
    assert cli_support.run("view", log, "-o", plain).returncode == 0
    browser.open(plain)
    assert browser.js("document.getElementById('review-box') === null")
