"""The tracker agrees with the log (issue 34, item 7): the initiative roll's card carries what
the rules added, the board carries each combatant's initiative and whether it left rather than
fell, and the end summary tells who left apart from who is down."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from initiative.actors import Seen, StateTable
from initiative.events import InitiativeRolled, read_log

import initiative
from initiative.table._join import standings
from initiative.table._sight import EVERYTHING
from initiative.table._talk import TableTalk
from tests.browser import CHROMIUM, Page
from tests.serve_support import Server

ROOT = Path(__file__).resolve().parents[1]


def frame_of(log: Path) -> dict[str, object]:
    lines = log.read_bytes().splitlines()
    told = TableTalk(read_log(log).header.encounter).frame(lines, 0, len(lines), ())
    return json.loads(EVERYTHING.out(told) or b"")  # type: ignore[no-any-return]


def test_initiative_cards_and_tokens_give_the_total_the_narration_gives(tmp_path: Path) -> None:
    """Reproduction 8: the initiative card showed ``11 → 11`` while the narration said
    ``11 + 4 = 15``; now the card adds the modifier, and each token has its total."""
    log = tmp_path / "ambush.jsonl"
    initiative.run(ROOT / "examples" / "thriller-ambush.toml", seed=7, out=log)
    rolled = [e for e in read_log(log).events if isinstance(e, InitiativeRolled)]
    frame = frame_of(log)
    board = frame["board"]
    assert isinstance(board, dict)
    names = {t["id"]: t["name"] for t in board["tokens"]}
    cards = {c["who"]: c for c in board["rolls"] if c["purpose"] == "initiative"}
    for event in rolled:
        card = cards.get(names[event.who[0]])
        if card is not None:  # (the frame keeps the latest 24 cards)
            assert (card["dice"], card["modifier"], card["total"]) == (
                [event.die],
                event.modifier,
                event.total,
            )
    assert any(e.modifier for e in rolled)
    totals = {t["id"]: t["initiative"] for t in board["tokens"]}
    assert totals == {w: e.total for e in rolled for w in e.who}


def test_the_end_summary_tells_who_left_from_who_is_down() -> None:
    """Reproduction 8: goblins that fled were listed under "down"."""

    def seen(who: str, standing: bool, health: str) -> Seen:
        return Seen(id=who, name=who.title(), side="x", role="", health=health, hp=None,
                    max_hp=None, ap=None, conditions=(), distance=None, standing=standing,
                    acting=False)  # fmt: skip

    table = StateTable(seq=1, round=3, combatants=(
        seen("ana", True, "hurt"), seen("gob", False, "down"), seen("rat", False, "gone"),
    ))  # fmt: skip
    assert standings(table) == "standing: Ana (hurt); down: Gob; left the fight: Rat"


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_tracker_greys_who_left_gives_totals_and_counters_in_words(tmp_path: Path) -> None:
    """Reproduction 8 on the page: one who left kept a full green bar, there were no
    initiative totals, tactical showed ``moved cm: 1200``, roll-card titles were cut."""
    frame = {
        "type": "table", "said": [], "lines": 3,
        "state": {"seq": 2, "round": 1, "turn": "Ana", "winner": None, "ended": False,
                  "combatants": [
                      {"id": "ana", "name": "Ana", "side": "north", "role": "", "health": "hurt",
                       "hp": 7, "max_hp": 10, "ap": 2, "conditions": [], "distance": None,
                       "standing": True, "acting": True},
                      {"id": "gob", "name": "Gob", "side": "south", "role": "", "health": "gone",
                       "hp": 6, "max_hp": 6, "ap": 2, "conditions": [], "distance": None,
                       "standing": False, "acting": False}]},
        "board": {"tokens": [
            {"id": "ana", "name": "Ana", "side": "north", "at": [0, 0], "size": 2, "reach": 1.5,
             "standing": True, "initiative": 15, "conditions": [],
             "counters": [["moved_cm", 1200]]},
            {"id": "gob", "name": "Gob", "side": "south", "at": [3, 0], "size": 2, "reach": 1.5,
             "standing": False, "left": True, "initiative": 9, "conditions": [],
             "counters": []}],
            "sides": ["north", "south"], "priority": "ana", "window": "turn",
            "last_move": None, "rolls": [
                {"seq": 1, "who": "Ana", "purpose": "attack on Sergeant Bartholomew Wainwright",
                 "expr": "1d20+4", "dice": [11], "modifier": 4, "total": 15, "given": False}]},
    }  # fmt: skip
    with Server(tmp_path, "--seat", "ana") as server:
        page = Page()
        try:
            page.page.goto(f"http://127.0.0.1:{server.port}/watch#token=none")
            page.page.wait_for_function(
                "document.getElementById('status').textContent === 'refused'"
            )
            page.js(f"receive({json.dumps(frame)})")
            rows = page.js(
                """[...document.querySelectorAll('#tracker tr.row')].map((tr) => ({
                    id: tr.dataset.id, cls: tr.className, bar: !!tr.querySelector('.bar'),
                    cells: [...tr.querySelectorAll('td')].map((td) => td.textContent)}))"""
            )
            title = page.js(
                """(() => { const w = document.querySelector('#rolls .roll .what');
                    return [w.textContent, w.scrollWidth <= w.clientWidth,
                            w.getBoundingClientRect().right
                              <= w.closest('.roll').getBoundingClientRect().right]; })()"""
            )
            crossed = page.js("[...document.querySelectorAll('#map .token .cross')].length")
        finally:
            page.close()
    ana, gob = rows
    assert ana["bar"] and ana["cells"][2] == "15" and "moved: 12 m" in ana["cells"][1]
    assert not gob["bar"] and "gone" in gob["cls"].split()
    assert gob["cells"][2:4] == ["9", "gone"]
    assert crossed == 0  # who left is greyed, not crossed out as the fallen are
    # A roll card's title fits (it wraps), never cut (``attack on Sergean…``).
    assert title == ["Ana · attack on Sergeant Bartholomew Wainwright", True, True]
