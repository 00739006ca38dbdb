"""``--report FILE.html`` of ``batch``, ``duel``, ``league`` and ``sweep``: each command, run
once (in this process) with ``--json`` and ``--report``, and its page opened in Debian's
chromium: every figure on the page is the JSON's, formatted as the page says; nothing sticks
out of its card or overlaps another label; user text is shown literally. The screenshots in
docs/images/report-*.png (shown in docs/batch.md) are taken here."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cli_support
import pytest
from browser import IMAGES

ROOT = Path(__file__).parents[1]
# Relative to ROOT, where the commands run: the pages (and screenshots) show them as given.
DUEL = Path("examples/openings-duel.toml")
SKIRMISH = Path("examples/openings-skirmish.toml")


# --- the checks, in the browser -----------------------------------------------------------------


def shown(kind: str, value: Any) -> str:
    """How the page writes a JSON value of each kind (written again here, not imported)."""
    if value is None:
        return "-"
    match kind:
        case "pct":
            return f"{100 * value:.1f}%"
        case "pct-range":
            return f"{100 * value[0]:.1f}-{100 * value[1]:.1f}%"
        case "f1":
            return f"{value:.1f}"
        case "f2":
            return f"{value:.2f}"
        case "range":
            return f"{value[0]:.1f}-{value[1]:.1f}"
        case "values":
            return f"{value[0]}-{value[1]}" if value[0] != value[1] else f"{value[0]}"
        case "signed":
            return f"{value:+.1f}"
        case "signed-range":
            return f"{value[0]:+.1f} to {value[1]:+.1f}"
        case "pts":
            return f"{100 * value:+.1f} pts"
        case "pts-range":
            return f"{100 * value[0]:+.1f} to {100 * value[1]:+.1f}"
        case "p":
            return f"{value:.3g}"
        case "list":
            return ", ".join(str(v) for v in value)
    return str(value)


def field(data: Any, key: str) -> Any:
    """The JSON value at a dotted key (``sides.0.rate``; a name that holds dots taken whole)."""
    parts = key.split(".")
    while parts:
        for n in range(len(parts), 0, -1):
            word = ".".join(parts[:n])
            if isinstance(data, list) and word.isdigit():
                data, parts = data[int(word)], parts[n:]
                break
            if isinstance(data, dict) and word in data:
                data, parts = data[word], parts[n:]
                break
        else:
            raise KeyError(key)
    return data


FIGURES = """() => [...document.querySelectorAll('[data-key]')].map(e => ({
  key: e.dataset.key, kind: e.dataset.kind || null, value: JSON.parse(e.dataset.value),
  text: e.dataset.kind ? e.textContent : null}))"""

#: Boxes that leave their card (a section, the header) or their chart, and labels of a chart that
#: overlap one another, as "what: where" lines; empty when the page is laid out well.
LAYOUT = """() => {
  const bad = [], r = (e) => e.getBoundingClientRect();
  const name = (e) => e.tagName + (e.className.baseVal ?? e.className ?? '') + ' "' +
    (e.textContent || '').slice(0, 30) + '"';
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 &&
    a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  if (document.documentElement.scrollWidth > document.documentElement.clientWidth)
    bad.push('the page scrolls sideways');
  for (const card of document.querySelectorAll('main > section, main > header, main > footer'))
    for (const e of card.querySelectorAll('*'))
      if (!e.closest('svg.chart') || e.matches('svg.chart'))
        if (e.getClientRects().length && !inside(r(e), r(card))) bad.push('out of its card: ' + name(e));
  for (const box of document.querySelectorAll('.table-box'))
    if (box.scrollWidth > box.clientWidth) bad.push('a table wider than its card');
  for (const chart of document.querySelectorAll('svg.chart')) {
    const texts = [...chart.querySelectorAll('text')].filter(t => t.textContent.trim());
    for (const t of texts) if (!inside(r(t), r(chart))) bad.push('out of its chart: ' + name(t));
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = r(texts[i]), b = r(texts[j]);
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
        bad.push('overlapping: ' + name(texts[i]) + ' and ' + name(texts[j]));
    }
  }
  return bad;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium for every page of this module."""
    from browser import module_page

    yield from module_page(1000, 800)


def report_of(tmp: Path, *args: object) -> tuple[dict[str, Any], Path]:
    """Run a command with ``--json --report``: its JSON and its page."""
    html = tmp / "report.html"
    done = cli_support.run(*args, "--json", "--report", html, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), html


def check_page(browser: Any, html: Path, data: dict[str, Any], image: str) -> set[str]:
    """Open the page, check each figure against ``data`` and the layout, take the screenshot;
    return the keys of the figures shown."""
    browser.open(html)
    figures = checked_figures(browser, data)
    browser.screenshot(IMAGES / image, down_to="main > section:last-of-type")
    return {f["key"] for f in figures}


def checked_figures(
    browser: Any, data: dict[str, Any], shown: Callable[[str, Any], str] = shown
) -> list[dict[str, Any]]:
    """The open page's figures, each checked against ``data`` (its text as ``shown`` writes
    it), and its layout; no errors, no dialogs."""
    figures: list[dict[str, Any]] = browser.js(FIGURES)
    for f in figures:
        assert f["value"] == field(data, f["key"]), f
        if f["kind"] is not None:
            assert f["text"] == shown(f["kind"], f["value"]), f
    assert browser.js(LAYOUT) == []
    assert browser.errors == [] and browser.dialogs == []
    return figures


def self_contained(html: Path) -> None:
    text = html.read_text()
    assert " src=" not in text and " href=" not in text and "<script" not in text
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text


# --- the four commands --------------------------------------------------------------------------


@pytest.mark.slow
def test_batch_page_shows_the_json_figures_and_the_rounds_of_every_fight(
    browser: Any, tmp_path: Path
) -> None:
    """Win rates, stalemates, undecided, rounds, and each combatant's damage dealt and taken,
    survival, kills and fall on the page equal ``--json``'s; the histogram's bars count the
    fights the results database holds, by round and by how they ended."""
    db = tmp_path / "results.sqlite"
    data, html = report_of(tmp_path, "batch", SKIRMISH, "--runs", 20, "--db", db)
    self_contained(html)
    keys = check_page(browser, html, data, "report-batch.png")
    for i, _ in enumerate(data["sides"]):
        assert {f"sides.{i}.rate", f"sides.{i}.ci95", f"sides.{i}.wins"} <= keys
    assert {"stalemates", "undecided", "rounds.mean", "rounds.ci95", "runs"} <= keys
    for i, c in enumerate(data["combatants"]):
        wanted = {"damage_dealt.mean", "damage_taken.mean", "survival", "survival_ci95", "kills"}
        wanted |= {"fell_round.mean"} if c["fell"] else set()
        assert {f"combatants.{i}.{k}" for k in wanted} <= keys
    bars = browser.js(
        "[...document.querySelectorAll('rect.hist')].map(e => [+e.dataset.bin, e.dataset.kind,"
        " +e.dataset.count])"
    )
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT rounds, winner, stalemate FROM encounters").fetchall()
    kind = {None: "undecided"} | {s["side"]: f"{s['side']} won" for s in data["sides"]}
    expected = Counter(
        (rounds, "stalemate" if stalemate else kind[winner]) for rounds, winner, stalemate in rows
    )
    assert {(b, k): n for b, k, n in bars} == dict(expected)
    assert sum(n for _, _, n in bars) == data["runs"] == 20


#: Every whisker (its line, caps and arrows) of each interval chart, as [left, right] in the
#: chart's own units, beside the chart's axis [start, end].
WHISKERS = """() => [...document.querySelectorAll('svg.chart')].flatMap(chart => {
  const axis = chart.querySelector('line.axis');
  if (!axis) return [];
  const ends = [+axis.getAttribute('x1'), +axis.getAttribute('x2')];
  return [...chart.querySelectorAll('.whisker')].map(w => {
    const box = w.getBBox();
    return {axis: ends, left: box.x, right: box.x + box.width,
            title: w.closest('g.interval')?.querySelector('title')?.textContent ?? null};
  });
})"""


@pytest.mark.slow
def test_batch_whiskers_stay_on_their_axis_and_are_labelled(browser: Any, tmp_path: Path) -> None:
    """Issue 36, reproduction 1 in the report: the shaman's round of fall (-8.7 to 16.7) drew
    a whisker out of its axis through the shaman's label. Every whisker now lies on its axis
    and carries its interval as a tooltip; the screenshot is docs/images/report-whiskers.png."""
    _, html = report_of(
        tmp_path, "batch", Path("examples/tactical-bridge.toml"), "--runs", 10,
        "--policy", "watch=tactician", "--policy", "raiders=tactician",
    )  # fmt: skip
    browser.open(html)
    whiskers = browser.js(WHISKERS)
    assert whiskers
    for w in whiskers:
        assert w["axis"][0] - 0.5 <= w["left"] and w["right"] <= w["axis"][1] + 0.5, w
        assert w["title"] is not None and w["title"].startswith("95% interval: "), w
    assert browser.js(LAYOUT) == []
    browser.screenshot(IMAGES / "report-whiskers.png", down_to="#falls")


@pytest.mark.slow
def test_duel_page_shows_the_json_figures(browser: Any, tmp_path: Path) -> None:
    """Each policy's wins and rate with its interval, the paired seeds and p, and the
    per-combatant figures on the page equal ``--json``'s; 8 seeds make 16 games."""
    data, html = report_of(
        tmp_path, "duel", DUEL, "--policies", "aggressive", "cautious", "--runs", 8
    )
    keys = check_page(browser, html, data, "report-duel.png")
    for i in (0, 1):
        assert {f"policies.{i}.rate", f"policies.{i}.ci95", f"policies.{i}.wins"} <= keys
    assert {"paired.p", "paired.a_better", "paired.b_better", "paired.even", "games"} <= keys
    assert browser.js("document.querySelectorAll('rect.hist').length") > 0
    heights = browser.js(
        "[...document.querySelectorAll('rect.hist')].reduce((n, e) => n + +e.dataset.count, 0)"
    )
    assert heights == data["games"] == 16


@pytest.mark.slow
def test_league_page_draws_the_ratings_and_every_pair(browser: Any, tmp_path: Path) -> None:
    """The ratings with their 95% intervals, scores and games, and each pair's wins, losses,
    undecided games and p (in both of its cells) equal ``--json``'s."""
    data, html = report_of(
        tmp_path, "league", DUEL, "--policies", "first", "aggressive", "cautious", "random",
        "--runs", 6,
    )  # fmt: skip
    keys = check_page(browser, html, data, "report-league.png")
    for i, _ in enumerate(data["ratings"]):
        assert {f"ratings.{i}.rating", f"ratings.{i}.ci95", f"ratings.{i}.score"} <= keys
    whiskers = browser.js("document.querySelectorAll('#ratings line.whisker').length")
    assert whiskers == 3 * len(data["ratings"])
    cells = browser.js(
        "[...document.querySelectorAll('#pairs td.pair')].map(e => [e.dataset.row,"
        " e.dataset.column, e.textContent])"
    )
    got = {(row, column): text for row, column, text in cells}
    for p in data["pairings"]:
        p_text = f"p {p['p']:.3g}"
        assert got[(p["a"], p["b"])] == f"{p['wins']}-{p['losses']}-{p['undecided']}{p_text}"
        assert got[(p["b"], p["a"])] == f"{p['losses']}-{p['wins']}-{p['undecided']}{p_text}"
    assert len(got) == 4 * 3


@pytest.mark.slow
def test_league_page_of_few_games_is_not_sure(browser: Any, tmp_path: Path) -> None:
    """Issue 36, reproduction 2 on the page: four even games drew the ratings as dots without
    whiskers (+0.0 to +0.0). Each rating now has a whisker as wide as the model allows; a
    league without a decisive game says so above its ratings and in its pair's cell."""
    data, html = report_of(
        tmp_path, "league", DUEL, "--policies", "tactician", "cautious", "--runs", 2
    )
    browser.open(html)
    for r in data["ratings"]:
        assert r["ci95"][1] - r["ci95"][0] > 250, r
    spans = browser.js(WHISKERS)
    assert len(spans) == 3 * 2 and all(w["right"] - w["left"] > 50 for w in spans[::3])
    assert browser.js(LAYOUT) == []
    browser.screenshot(IMAGES / "report-league-few.png", down_to="#pairs")
    hostile = tmp_path / "standoff.toml"
    hostile.write_text(STANDOFF.replace("<b>Rain</b>", "Rain"))
    data, html = report_of(
        tmp_path, "league", hostile, "--policies", "first", "random", "--runs", 2
    )
    browser.open(html)
    said = browser.js("document.querySelector('#unknown').textContent")
    assert said.startswith("No decisive game yet: all 4 games were undecided")
    cells = browser.js("[...document.querySelectorAll('#pairs td.pair')].map(e => e.textContent)")
    assert cells == ["0-0-4no decisive game yet"] * 2
    assert browser.js(LAYOUT) == []


@pytest.mark.slow
def test_sweep_page_marks_the_crossing_and_the_runs_it_needed(browser: Any, tmp_path: Path) -> None:
    """With --target, every probe's rates and intervals are on the page as in ``--json``, the
    crossing's bracket is shaded between its two values, and the probes and fights it took
    are said."""
    data, html = report_of(
        tmp_path, "sweep", DUEL, "--vary", "combatants.ilse.hp=5..60", "--target", "0.5",
        "--runs", 20,
    )  # fmt: skip
    keys = check_page(browser, html, data, "report-sweep.png")
    target = data["target"]
    assert target["found"] == "crossed"
    assert {"target.below", "target.above", "target.fights", "target.probes"} <= keys
    for i, p in enumerate(data["points"]):
        for k, _ in enumerate(p["sides"]):
            assert {f"points.{i}.sides.{k}.rate", f"points.{i}.sides.{k}.ci95"} <= keys
    assert browser.js("document.querySelectorAll('circle.point').length") == 2 * len(data["points"])
    assert browser.js("document.querySelectorAll('rect.bracket').length") == 1
    crossing = browser.js("document.querySelector('#crossing').textContent")
    assert crossing == (
        f"north's win rate crosses 50.0% between combatants.ilse.hp = {target['below']} and"
        f" {target['above']}; {target['closer']} is closer."
    )
    first, last = target["fair"]
    fair = browser.js("document.querySelector('#fair').textContent")
    assert fair.startswith(f"Fair range: combatants.ilse.hp = {first}-{last}, every value whose")
    assert browser.js("document.querySelectorAll('rect.fair').length") == 1


@pytest.mark.slow
def test_sweep_grid_page_is_a_heat_map_of_every_pair(browser: Any, tmp_path: Path) -> None:
    """Two ``--vary`` (issue 36, reproduction 3): a heat map with a cell per pair, its rate and
    interval the JSON's, deeper where the side wins more; every pair's figures in a table."""
    data, html = report_of(
        tmp_path, "sweep", DUEL, "--vary", "combatants.tomas.hp=10..40", "--points", 4,
        "--vary", "combatants.ilse.hp=20..40", "--points", 4, "--runs", 6,
    )  # fmt: skip
    keys = check_page(browser, html, data, "report-sweep-grid.png")
    rows, columns = data["grid"]["rows"], data["grid"]["columns"]
    assert len(rows) == len(columns) == 4
    for n, _ in enumerate(data["points"]):
        assert {f"points.{n}.sides.0.rate", f"points.{n}.sides.0.ci95"} <= keys
    cells = browser.js(
        "[...document.querySelectorAll('#heatmap td.heat')].map(e => [e.dataset.row,"
        " e.dataset.column, getComputedStyle(e).backgroundColor])"
    )
    assert [(int(r), int(c)) for r, c, _ in cells] == [(r, c) for r in rows for c in columns]

    def darkness(colour: str) -> int:
        return -sum(int(x) for x in colour[colour.index("(") + 1 : -1].split(",")[:3])

    rates = [p["sides"][0]["rate"] for p in data["points"]]
    shades = [darkness(colour) for _, _, colour in cells]
    ordered = sorted(zip(rates, shades, strict=True))
    for (a, sa), (b, sb) in itertools.pairwise(ordered):
        assert sa <= sb or a == b


@pytest.mark.slow
def test_sweep_page_without_a_target_draws_every_value(browser: Any, tmp_path: Path) -> None:
    """A plain sweep: each value's rates on the page are the JSON's, a point per side and
    value, and no target line or bracket."""
    data, html = report_of(
        tmp_path, "sweep", DUEL, "--vary", "options.reaction_move=0..3", "--points", 3,
        "--runs", 4,
    )  # fmt: skip
    browser.open(html)
    figures = browser.js(FIGURES)
    assert {f["key"] for f in figures} >= {f"points.{i}.sides.1.rate" for i in range(3)}
    for f in figures:
        assert f["value"] == field(data, f["key"]), f
        if f["kind"] is not None:
            assert f["text"] == shown(f["kind"], f["value"]), f
    assert browser.js("document.querySelectorAll('circle.point').length") == 6
    assert browser.js("document.querySelectorAll('.target, .bracket').length") == 0
    assert browser.js(LAYOUT) == []


# --- user text and errors -----------------------------------------------------------------------


#: Two fighters 50 m apart who cannot move, named like markup: every fight is a stalemate.
STANDOFF = """
ruleset = "openings"
name = "<b>Rain</b> & \\"more\\""
max_rounds = 12

[options]
idle_rounds = 0

[[combatants]]
id = "a"
name = "<img src=x onerror=alert(1)>"
side = "north"
hp = 10
stats = { agility = 3, strength = 3, defense = 3 }
speed = 0.0
weapons = [{ name = "club", damage = "1d4" }]
policy = "aggressive"

[[combatants]]
id = "b"
side = "south"
hp = 10
position = [50, 0]
stats = { agility = 3, strength = 3, defense = 3 }
speed = 0.0
weapons = [{ name = "club", damage = "1d4" }]
policy = "cautious"
"""


@pytest.mark.slow
def test_names_are_shown_literally_and_stalemates_apart(browser: Any, tmp_path: Path) -> None:
    """An encounter and a combatant named like markup are shown as they are (no element, no
    script, no dialog comes of them); three stalemates are counted and drawn as such."""
    hostile = tmp_path / "hostile.toml"
    hostile.write_text(STANDOFF)
    data, html = report_of(tmp_path, "batch", hostile, "--runs", 3)
    browser.open(html)
    assert browser.js("document.querySelector('h1').textContent") == '<b>Rain</b> & "more"'
    first = browser.js("document.querySelector('#combatant-table td').textContent")
    assert first == "<img src=x onerror=alert(1)>"
    label = browser.js("document.querySelector('#damage text.label').textContent")
    assert label == "<img src=x onerror=alert(1)><img src=x onerror=aler…"  # its title, then it
    assert browser.js("document.querySelectorAll('img, b, main script').length") == 0
    assert browser.dialogs == [] and browser.errors == []
    assert data["stalemates"] == 3
    stalemates = browser.js("document.querySelector('[data-key=stalemates]').textContent")
    bars = browser.js(
        "[...document.querySelectorAll('rect.hist')].map(e => [+e.dataset.bin, e.dataset.kind,"
        " +e.dataset.count])"
    )
    assert (stalemates, bars) == ("3", [[12, "stalemate", 3]])
    assert browser.js(LAYOUT) == []


@pytest.mark.parametrize(
    "command",
    [
        ("batch", DUEL, "--runs", 1),
        ("duel", DUEL, "--policies", "first", "first", "--runs", 1),
        ("league", DUEL, "--policies", "first", "random", "--runs", 1),
        ("sweep", DUEL, "--vary", "combatants.ilse.hp=5..6", "--runs", 1),
    ],
    ids=lambda c: c[0],
)
def test_an_unwritable_report_is_one_line_before_any_fight(
    tmp_path: Path, command: tuple[object, ...]
) -> None:
    """A report in a missing folder, or that is a folder, is refused in one line with exit 2,
    and nothing is fought (the results database is never made)."""
    db = tmp_path / "results.sqlite"
    for where, why in (
        (tmp_path / "missing" / "r.html", f"there is no folder {tmp_path / 'missing'}"),
        (tmp_path, "that is a folder; give a file name such as report.html"),
    ):
        done = cli_support.run(*command, "--db", db, "--report", where, cwd=ROOT)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr.strip().splitlines() == [f"error: --report {where}: {why}"]
        assert not db.exists()
