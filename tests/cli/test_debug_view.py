"""``initiative view``: a self-contained page, checked in a real headless Chromium."""

from __future__ import annotations

import colorsys
import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import IMAGES
from debug_support import EXAMPLES, cli, examples, record
from initiative.engine import fold
from initiative.events import CombatantDefeated, DiceRolled, read_log


# Every bundled example, not one per ruleset: how readable the page is depends on the fight (how
# many combatants, how close), not only on the rules' code.
@pytest.fixture(scope="module", params=sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def page_of(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("view")
    log = record(request.param, tmp / "fight.jsonl")
    html = tmp / "fight.html"
    cli("view", log, "-o", html, check=0)
    return log, html


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One chromium for every page of this module."""
    from browser import module_page

    yield from module_page()


def test_page_is_self_contained(page_of: tuple[Path, Path]) -> None:
    """No external resource: no src/href to anything but fragments, no http(s) URL at all."""
    html = page_of[1].read_text()
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", html)
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html
    assert "default-src 'none'" in html


def test_page_loads_with_lanes_and_cause_chain(page_of: tuple[Path, Path], browser: object) -> None:
    """In Chromium: no console errors, one lane per combatant, and clicking an event shows its
    cause chain and highlights its causes."""
    log, html = page_of
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    contents = read_log(log)
    events = contents.events
    ids = [c.id for c in contents.header.encounter.combatants]
    assert page.js("[...document.querySelectorAll('.lane')].map(l => l.dataset.who)") == ids  # type: ignore[attr-defined]
    assert page.js("document.querySelectorAll('#hp-chart polyline').length") == len(ids)  # type: ignore[attr-defined]
    assert page.js("document.querySelectorAll('#event-list tbody tr').length") == len(events)  # type: ignore[attr-defined]
    defeat = next(e for e in events if isinstance(e, CombatantDefeated))
    chain = []
    seq = defeat.seq
    while seq is not None:
        chain.append(seq)
        seq = events[seq].cause
    chain.reverse()
    page.click(f'#event-list tr[data-seq="{defeat.seq}"]')  # type: ignore[attr-defined]
    assert (
        page.js("[...document.querySelectorAll('#chain li')].map(li => +li.dataset.seq)") == chain
    )  # type: ignore[attr-defined]
    assert (
        page.js("[...document.querySelectorAll('#event-list tr.cause')].map(r => +r.dataset.seq)")
        == chain[:-1]
    )  # type: ignore[attr-defined]
    assert page.js("+document.querySelector('#event-list tr.selected').dataset.seq") == defeat.seq  # type: ignore[attr-defined]
    # The slider followed the selection: the state shown is the fold's after that event.
    st = fold(events, defeat.seq)
    shown = page.js(  # type: ignore[attr-defined]
        "Object.fromEntries([...document.querySelectorAll('#state-table tbody tr')]"
        ".map(r => [r.dataset.who, r.children[2].textContent]))"
    )
    assert shown == {cid: f"{c.hp}/{c.max_hp}" for cid, c in st.combatants.items()}
    assert page.errors == []  # type: ignore[attr-defined]


def test_slider_shows_state_at_any_event(page_of: tuple[Path, Path], browser: object) -> None:
    """Moving the slider to event k shows round and hit points as the fold has them at k."""
    log, html = page_of
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    events = read_log(log).events
    k = len(events) // 2
    page.js(  # type: ignore[attr-defined]
        f"(() => {{ const s = document.getElementById('slider'); s.value = '{k}';"
        " s.dispatchEvent(new Event('input')); })()"
    )
    st = fold(events, k)
    assert page.js("document.getElementById('state-seq').textContent") == str(k)  # type: ignore[attr-defined]
    assert page.js("document.getElementById('state-line').textContent").startswith(
        f"round {st.round},"
    )  # type: ignore[attr-defined]
    hp = page.js(  # type: ignore[attr-defined]
        "Object.fromEntries([...document.querySelectorAll('#state-table tbody tr')]"
        ".map(r => [r.dataset.who, r.children[2].textContent]))"
    )
    assert hp == {cid: f"{c.hp}/{c.max_hp}" for cid, c in st.combatants.items()}
    # The roll cards (the part the served pages share): the last 12 dice up to k, newest first.
    dice = [e for e in events[: k + 1] if isinstance(e, DiceRolled)][-12:][::-1]
    shown = page.js(  # type: ignore[attr-defined]
        "[...document.querySelectorAll('#rolls .roll')]"
        ".map(c => [Number(c.dataset.seq), c.querySelector('.total').textContent])"
    )
    assert shown == [[e.seq, str(e.total)] for e in dice]
    assert page.errors == []  # type: ignore[attr-defined]


HOSTILE = """
ruleset = "openings"
name = "</script><script>alert('title')</script>"
seed = 5

[[combatants]]
id = "a"
name = "<img src=x onerror=alert(1)>"
side = "x"
hp = 6
position = [0, 0]
weapons = [{ name = "</script>", damage = "1d6" }]
policy = "aggressive"

[[combatants]]
id = "b"
name = "B & <b>bold</b>"
side = "y"
hp = 6
position = [1, 0]
weapons = [{ name = "club", damage = "1d6" }]
policy = "aggressive"
"""


def test_hostile_names_are_text_not_markup(tmp_path: Path, browser: object) -> None:
    """Names made of markup stay text: no dialog, no injected element, labels read verbatim."""
    enc = tmp_path / "hostile.toml"
    enc.write_text(HOSTILE)
    log = record(enc, tmp_path / "hostile.jsonl")
    html = tmp_path / "hostile.html"
    cli("view", log, "-o", html, check=0)
    text = html.read_text()
    assert text.count("</script>") == 2  # the page's own two script elements, nothing more
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    labels = page.js("[...document.querySelectorAll('.lane-label')].map(l => l.textContent)")  # type: ignore[attr-defined]
    assert labels == ["<img src=x onerror=alert(1)>", "B & <b>bold</b>"]
    assert (
        page.js("document.getElementById('title').textContent")
        == "</script><script>alert('title')</script>"
    )  # type: ignore[attr-defined]
    assert page.js("document.querySelectorAll('img, b').length") == 0  # type: ignore[attr-defined]
    assert page.dialogs == []  # type: ignore[attr-defined]
    assert page.errors == []  # type: ignore[attr-defined]


def test_view_missing_log_exits_2(tmp_path: Path) -> None:
    """No log: one line on stderr, exit 2, no page."""
    proc = cli("view", tmp_path / "none.jsonl", "-o", tmp_path / "x.html", check=2)
    assert "cannot read" in proc.stderr
    assert not (tmp_path / "x.html").exists()


def test_battle_map_follows_the_slider_with_legend_and_round_ticks(
    page_of: tuple[Path, Path], browser: object
) -> None:
    """At any event the map puts every combatant where the fold has it, marks the defeated and
    whose turn it is, and the slider has one tick per round."""
    log, html = page_of
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    events = read_log(log).events
    k = (2 * len(events)) // 3
    page.js(  # type: ignore[attr-defined]
        f"(() => {{ const s = document.getElementById('slider'); s.value = '{k}';"
        " s.dispatchEvent(new Event('input')); })()"
    )
    st = fold(events, k)
    shown = page.js(  # type: ignore[attr-defined]
        "Object.fromEntries([...document.querySelectorAll('#map g[data-who]')]"
        ".map(g => [g.dataset.who, [+g.dataset.x, +g.dataset.y,"
        " g.querySelector('circle').classList.contains('defeated')]]))"
    )
    assert shown == {
        cid: [c.position.x, c.position.y, c.defeated] for cid, c in st.combatants.items()
    }
    active = page.js(
        "[...document.querySelectorAll('#map circle.active')].map(c => c.parentNode.dataset.who)"
    )  # type: ignore[attr-defined]
    assert active == ([st.active] if st.active else [])
    sides = page.js("[...document.querySelectorAll('#side-legend span')].map(s => s.textContent)")  # type: ignore[attr-defined]
    assert sides == list(read_log(log).header.encounter.sides)
    assert "defeated" in page.js("document.getElementById('map-legend').textContent")  # type: ignore[attr-defined]
    rounds = [e.seq for e in events if type(e).__name__ == "RoundStarted"]
    assert (
        page.js("[...document.querySelectorAll('#ticks .round-tick')].map(t => +t.dataset.seq)")
        == rounds
    )  # type: ignore[attr-defined]
    assert page.js("document.getElementById('fork-marker')") is None  # type: ignore[attr-defined]
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_fork_marks_where_it_left_its_parent(tmp_path: Path, browser: object) -> None:
    """The page of a fork has a marker at the fork point under the slider and in the lanes."""
    log = record(examples()[0], tmp_path / "parent.jsonl")
    fork = tmp_path / "fork.jsonl"
    cli("fork", log, "--at", 40, "-q", "--out", fork, check=0)
    html = tmp_path / "fork.html"
    cli("view", fork, "-o", html, check=0)
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    assert page.js("+document.getElementById('fork-marker').dataset.seq") == 40  # type: ignore[attr-defined]
    assert page.js("document.querySelectorAll('.fork-line').length") == len(  # type: ignore[attr-defined]
        read_log(fork).header.encounter.combatants
    )
    assert page.errors == []  # type: ignore[attr-defined]


def show(page: object, seq: int) -> None:
    """Move the state slider to ``seq`` as a user dragging it does."""
    page.js(  # type: ignore[attr-defined]
        f"(() => {{ const s = document.getElementById('slider'); s.value = '{seq}';"
        " s.dispatchEvent(new Event('input')); })()"
    )


def three_points(log: Path) -> list[int]:
    """The start of the fight (its first round), its middle and its end."""
    events = read_log(log).events
    first = next(e.seq for e in events if type(e).__name__ == "RoundStarted")
    return [first, len(events) // 2, len(events) - 1]


# Boxes on the screen of the map, its names and its tokens, as the browser laid them out.
MAP_BOXES = """(() => {
  const box = (n) => { const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  const map = document.getElementById('map');
  return {
    map: box(map),
    unit: map.getBoundingClientRect().width / map.viewBox.baseVal.width,
    leaders: [...document.querySelectorAll('#map .leader')].map(l => l.dataset.who),
    labels: [...document.querySelectorAll('#map .map-label')]
      .map(t => [t.dataset.who, t.textContent, box(t)]),
    tokens: [...document.querySelectorAll('#map g[data-who] circle')]
      .map(c => [c.parentNode.dataset.who, box(c)]),
  };
})()"""


def overlap(a: list[float], b: list[float]) -> float:
    """The area two boxes (left, top, right, bottom) share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def test_map_names_never_overlap_a_name_or_a_token_and_stay_inside(
    page_of: tuple[Path, Path], browser: object
) -> None:
    """At the start, middle and end of the fight every token on the map has its name, and no
    name overlaps another name or any token, or reaches past the map's edge; a name set apart
    from its token has a line leading to it."""
    log, html = page_of
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    names = {c.id: c.display for c in read_log(log).header.encounter.combatants}
    for seq in three_points(log):
        show(page, seq)
        boxes = page.js(MAP_BOXES)  # type: ignore[attr-defined]
        labels = boxes["labels"]
        on_map = sorted((who, names[who]) for who, _ in boxes["tokens"])
        assert sorted((who, text) for who, text, _ in labels) == on_map, seq
        left, top, right, bottom = boxes["map"]
        for i, (who, _, a) in enumerate(labels):
            assert left <= a[0] and a[2] <= right and top <= a[1] and a[3] <= bottom, (seq, who)
            for other, _, b in labels[i + 1 :]:
                assert overlap(a, b) == 0, (seq, who, other)
            for token, b in boxes["tokens"]:
                assert overlap(a, b) == 0, (seq, who, token)
            # A name not right beside its token has a line leading to it.
            own = next(b for token, b in boxes["tokens"] if token == who)
            x, y, r = (own[0] + own[2]) / 2, (own[1] + own[3]) / 2, (own[2] - own[0]) / 2
            gap = math.hypot(x - min(max(x, a[0]), a[2]), y - min(max(y, a[1]), a[3])) - r
            assert gap <= 6 * boxes["unit"] or who in boxes["leaders"], (seq, who, gap)
    assert page.js("document.getElementById('unplaced').textContent") == ""  # type: ignore[attr-defined]
    assert page.errors == []  # type: ignore[attr-defined]


# Which glyphs are drawn (every shape of the lanes and the map belongs to one) and which the
# legends name.
GLYPHS = """(() => {
  const shapes = (root) => [...document.querySelectorAll(
    root + ' circle, ' + root + ' rect, ' + root + ' line, ' + root + ' path, ' + root + ' polygon')]
    .map(n => (n.closest('[data-glyph]') || {dataset: {glyph: '(none)'}}).dataset.glyph);
  const named = (box) => [...document.querySelectorAll(box + ' [data-glyph]')]
    .map(n => n.dataset.glyph);
  return { lanes: shapes('#lanes'), laneLegend: named('#lane-legend'),
           map: shapes('#map'), mapLegend: named('#map-legend') };
})()"""


def test_legends_name_every_glyph_drawn(page_of: tuple[Path, Path], browser: object) -> None:
    """Every kind of mark in the lanes and on the map (at start, middle and end) is in its
    legend, and every hit-point line is in the chart's legend under its combatant's name."""
    log, html = page_of
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    for seq in three_points(log):
        show(page, seq)
        glyphs = page.js(GLYPHS)  # type: ignore[attr-defined]
        assert set(glyphs["lanes"]) <= set(glyphs["laneLegend"]), seq
        assert set(glyphs["map"]) <= set(glyphs["mapLegend"]), seq
    # The marks the examples' fights make: the lane legend is no list of unused words.
    assert {"turn", "action", "hit", "defeated", "round", "cursor"} <= set(glyphs["lanes"])
    assert {"standing", "defeated", "grid"} <= set(glyphs["map"])
    lines = page.js("[...document.querySelectorAll('#hp-chart polyline')].map(p => p.dataset.who)")  # type: ignore[attr-defined]
    legend = page.js(  # type: ignore[attr-defined]
        "[...document.querySelectorAll('#hp-legend [data-who]')].map(s => [s.dataset.who, s.textContent])"
    )
    names = {c.id: c.display for c in read_log(log).header.encounter.combatants}
    assert legend == [[who, names[who]] for who in lines]
    assert page.errors == []  # type: ignore[attr-defined]


AXES = """(() => {
  const mid = (n) => { const r = n.getBoundingClientRect(); return (r.left + r.right) / 2; };
  const ticks = (id) => [...document.querySelectorAll('#' + id + ' .round-tick')].map(t =>
    [+t.dataset.seq, t.textContent, t.classList.contains('quiet'), mid(t)]);
  const shown = (id) => [...document.querySelectorAll('#' + id + ' .round-tick:not(.quiet)')]
    .map(t => { const r = t.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; });
  return {
    yTitle: document.querySelector('#hp-y-axis .axis-title').textContent,
    yTicks: [...document.querySelectorAll('#hp-y-axis .y-tick')].map(t =>
      [+t.textContent, t.getBoundingClientRect().top]),
    xTitles: [...document.querySelectorAll('.tl-row > .axis-title')].map(t => t.textContent),
    lane: ticks('lane-axis'), hp: ticks('hp-x-axis'),
    laneShown: shown('lane-axis'), hpShown: shown('hp-x-axis'),
    roundLines: [...document.querySelector('.lane svg').querySelectorAll('.round-line')].map(mid),
  };
})()"""


def test_chart_and_lanes_have_labelled_axes_on_one_scale(
    page_of: tuple[Path, Path], browser: object
) -> None:
    """The hit-point chart has a y-axis titled "hit points" with rising values from 0 to about
    the largest hit points, and lanes and chart a round axis whose ticks stand where each round
    starts in the lanes; the round numbers shown do not run into each other."""
    log, html = page_of
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    contents = read_log(log)
    axes = page.js(AXES)  # type: ignore[attr-defined]
    assert axes["yTitle"] == "hit points"
    values = [v for v, _ in axes["yTicks"]]
    tops = [top for _, top in axes["yTicks"]]
    top_hp = max(c.hp for c in contents.header.encounter.combatants)
    assert values[0] == 0 and values == sorted(values) and tops == sorted(tops, reverse=True)
    assert top_hp / 2 < values[-1] <= top_hp
    assert axes["xTitles"] == ["round", "round"]
    rounds = [(e.seq, str(e.round)) for e in contents.events if type(e).__name__ == "RoundStarted"]
    for axis in ("lane", "hp"):
        assert [(seq, text) for seq, text, _, _ in axes[axis]] == rounds
        assert not axes[axis][0][2]  # the first round's number is always shown
        for (_, _, _, x), line in zip(axes[axis], axes["roundLines"], strict=True):
            assert abs(x - line) < 1.0
        shown = axes[axis + "Shown"]
        assert all(overlap(a, b) == 0 for i, a in enumerate(shown) for b in shown[i + 1 :])
    assert page.errors == []  # type: ignore[attr-defined]


COLOURS = """(() => {
  const probe = document.createElement('i'); document.body.appendChild(probe);
  const rgb = (c) => { probe.style.color = ''; probe.style.color = c; return getComputedStyle(probe).color; };
  const style = (n) => getComputedStyle(n);
  const out = {
    sides: Object.fromEntries([...document.querySelectorAll('#side-legend span')]
      .map(s => [s.dataset.side, rgb(s.dataset.colour)])),
    swatches: [...document.querySelectorAll('#side-legend span')]
      .map(s => style(s.querySelector('.swatch')).backgroundColor),
    lines: [...document.querySelectorAll('#hp-chart polyline')]
      .map(p => [p.dataset.who, style(p).stroke, style(p).strokeDasharray]),
    tokens: [...document.querySelectorAll('#map g[data-who] circle')]
      .map(c => [c.parentNode.dataset.who, style(c).fill]),
    glyphs: [...document.querySelectorAll('#lanes [data-glyph] , #lanes [data-glyph] *')]
      .flatMap(n => [style(n).fill, style(n).stroke]),
  };
  probe.remove();
  return out;
})()"""


def hue(rgb: str) -> float | None:
    """The hue in degrees of a computed colour (``rgb(r, g, b)``); ``None`` for a grey."""
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    return None if s < 0.05 or max(r, g, b) - min(r, g, b) < 0.05 else h * 360


def apart(a: float, b: float) -> float:
    return min(abs(a - b), 360 - abs(a - b))


NOW = "rgb(242, 169, 0)"  # the amber of the cursor, whose turn it is and the selected mark


def test_a_hue_means_a_side_and_nothing_else(page_of: tuple[Path, Path], browser: object) -> None:
    """Sides have hues at least 30 degrees apart, and from the amber of "now"; tokens have their
    side's colour and hit-point lines its hue (combatants of a side told apart by shade and
    dash); every lane glyph is grey but the amber cursor."""
    log, html = page_of
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    enc = read_log(log).header.encounter
    side_of = {c.id: c.side for c in enc.combatants}
    colours = page.js(COLOURS)  # type: ignore[attr-defined]
    sides = colours["sides"]
    assert list(sides) == list(enc.sides)
    assert colours["swatches"] == list(sides.values())
    hues = [hue(c) for c in [*sides.values(), NOW]]
    assert all(apart(a, b) >= 30 for i, a in enumerate(hues) for b in hues[i + 1 :])  # type: ignore[arg-type]
    for who, stroke, _ in colours["lines"]:
        assert apart(hue(stroke), hue(sides[side_of[who]])) < 4, who  # type: ignore[arg-type]
    for side in enc.sides:
        lines = [(stroke, dash) for who, stroke, dash in colours["lines"] if side_of[who] == side]
        assert len({s for s, _ in lines}) == len({d for _, d in lines}) == len(lines), side
    assert {who: fill for who, fill in colours["tokens"]} == {
        who: sides[side_of[who]] for who, _ in colours["tokens"]
    }
    assert {c for c in colours["glyphs"] if c != "none" and hue(c) is not None} == {NOW}
    assert page.errors == []  # type: ignore[attr-defined]


SIZES = """
ruleset = "openings"
name = "sizes"
seed = 3

[[combatants]]
id = "giant"
side = "x"
hp = 30
size = 3
position = [0, 0]
weapons = [{ name = "club", damage = "1d6", reach = 3.0 }, { name = "rock", range = 12.0 }]
policy = "aggressive"

[[combatants]]
id = "imp"
side = "y"
hp = 4
size = 1
position = [8, 0]
weapons = [{ name = "claw", damage = "1d4" }]
policy = "aggressive"

[[combatants]]
id = "man"
side = "y"
hp = 6
position = [8, 4]
weapons = [{ name = "knife", damage = "1d4" }]
policy = "aggressive"
"""


def test_tokens_sized_by_size_with_reach_and_range_on_hover(
    tmp_path: Path, browser: object
) -> None:
    """A large token is drawn bigger than a medium one, and a medium bigger than a small; the
    pointer on a token shows circles of its melee reach and its longest range, to the map's
    scale, gone when the pointer leaves."""
    enc = tmp_path / "sizes.toml"
    enc.write_text(SIZES)
    log = record(enc, tmp_path / "sizes.jsonl")
    html = tmp_path / "sizes.html"
    cli("view", log, "-o", html, check=0)
    page = browser
    page.open(html)  # type: ignore[attr-defined]
    show(page, 1 + len(read_log(log).header.encounter.combatants))  # all joined, none moved
    r = page.js(  # type: ignore[attr-defined]
        "Object.fromEntries([...document.querySelectorAll('#map g[data-who] circle')]"
        ".map(c => [c.parentNode.dataset.who, +c.getAttribute('r')]))"
    )
    assert r["giant"] > r["man"] > r["imp"]
    assert "token size: small < medium < large" in page.js(  # type: ignore[attr-defined]
        "document.getElementById('map-legend').textContent"
    )
    assert page.js("document.querySelectorAll('#map .reach, #map .range').length") == 0  # type: ignore[attr-defined]
    page.hover('#map g[data-who="giant"] circle')  # type: ignore[attr-defined]
    metre = page.js(  # type: ignore[attr-defined]
        '(() => { const c = (w) => document.querySelector(`#map g[data-who="${w}"] circle`);'
        " return (+c('imp').getAttribute('cx') - +c('giant').getAttribute('cx')) / 8; })()"
    )
    circles = page.js(  # type: ignore[attr-defined]
        "[...document.querySelectorAll('#map .reach, #map .range')]"
        ".map(c => [c.dataset.glyph, c.dataset.who, +c.getAttribute('r')])"
    )
    assert [(kind, who) for kind, who, _ in circles] == [("reach", "giant"), ("range", "giant")]
    assert abs(circles[0][2] - 3.0 * metre) < 0.01 and abs(circles[1][2] - 12.0 * metre) < 0.01
    page.hover("#title")  # type: ignore[attr-defined]
    assert page.js("document.querySelectorAll('#map .reach, #map .range').length") == 0  # type: ignore[attr-defined]
    assert page.errors == []  # type: ignore[attr-defined]


def test_three_screenshots_of_the_view_for_the_docs(tmp_path: Path, browser: object) -> None:
    """The pictures docs/table.md and docs/debugging.md show: the view of
    examples/thriller-ambush.toml 1000 pixels wide at its first turn, at a turn in the middle
    (the pointer on the token whose turn it is, to show its reach) and at its end, each from the
    top of the page down to the state table. The page has no clock in it, so the same log gives
    the same pictures byte for byte (taken twice here to hold it to that)."""
    log = record(EXAMPLES / "thriller-ambush.toml", tmp_path / "fight.jsonl")
    html = tmp_path / "fight.html"
    cli("view", log, "-o", html, check=0)
    events = read_log(log).events
    turns = [e.seq for e in events if type(e).__name__ == "TurnStarted"]
    middle = next(seq for seq in turns if seq >= len(events) // 2)
    points = {"start": turns[0], "middle": middle, "end": len(events) - 1}
    page = browser
    page.resize(1000, 900)  # type: ignore[attr-defined]
    try:
        page.open(html)  # type: ignore[attr-defined]
        for name, seq in points.items():
            show(page, seq)
            if name == "middle":
                page.hover("#map circle.active")  # type: ignore[attr-defined]
                assert page.js("document.querySelectorAll('#map .reach').length") == 1  # type: ignore[attr-defined]
            else:
                page.hover("#title")  # type: ignore[attr-defined]
            shot = tmp_path / f"view-{name}.png"
            page.screenshot(shot, down_to="#state-table")  # type: ignore[attr-defined]
            if name == "start":
                again = tmp_path / "again.png"
                page.screenshot(again, down_to="#state-table")  # type: ignore[attr-defined]
                assert again.read_bytes() == shot.read_bytes()
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            IMAGES.mkdir(exist_ok=True)
            (IMAGES / shot.name).write_bytes(shot.read_bytes())
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.resize(1280, 720)  # type: ignore[attr-defined]
