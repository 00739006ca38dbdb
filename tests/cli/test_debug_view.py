"""``initiative view``: a self-contained page, checked in a real headless Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from debug_support import cli, examples, record
from initiative.engine import fold
from initiative.events import CombatantDefeated, read_log


@pytest.fixture(scope="module", params=examples(), ids=lambda p: p.stem)
def page_of(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("view")
    log = record(request.param, tmp / "fight.jsonl")
    html = tmp / "fight.html"
    cli("view", log, "-o", html, check=0)
    return log, html


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from browser import CHROMIUM, Page

    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium package)")
    page = Page()
    yield page
    page.close()


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
