"""The ``gm`` frame over a real ``serve`` on a loopback port, with clients made of ``socket`` and
``json`` alone: every override kind recorded, a refusal with its reason, only the GM may, a
spectator hears of it, and the finished log verifies."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.serve_support import STURDY, Client, Server, events_of

pytestmark = pytest.mark.slow


def gm_token(server: Server) -> str:
    found = re.search(r"^gm: token (\S+)$", server.out, re.M)
    assert found, server.out
    return found.group(1)


def step_in(gm: Client, ident: int, override: dict[str, Any]) -> dict[str, Any]:
    """Send one override; the ``gm_result`` that answers it."""
    gm.send({"type": "gm", "id": ident, "override": override})
    result = gm.next("gm_result")
    assert result["id"] == ident
    return result


def test_the_gm_steps_in_over_the_wire_and_the_log_verifies(tmp_path: Path) -> None:
    """Every kind accepted (each answered with the seq of its GmOverride), the undeclared
    condition refused in words, a seat's gm frame and a wrong GM token refused, a spectator
    hears each as news."""
    with Server(tmp_path, "--seat", "ana", "--spectators", "all", encounter=STURDY) as server:
        guess = server.client()
        guess.send({"type": "hello", "version": 1, "role": "gm", "token": "guess"})
        assert guess.next("error") == {
            "type": "error",
            "reason": "the GM needs the GM token (printed by serve)",
            "fatal": True,
        }
        gm = server.client()
        gm.send({"type": "hello", "version": 1, "role": "gm", "token": gm_token(server)})
        welcome = gm.next("welcome")
        assert welcome["role"] == "gm"
        watcher = server.client()
        watcher.hello(None, server.spectator_token, "spectator")
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        asked = seat.next("priority")  # ana decides: the fight waits at a decision point

        seat.send({"type": "gm", "id": 1, "override": {"type": "SetHp", "who": "bo", "hp": 1}})
        assert seat.next("error")["reason"] == "only the GM may do that"

        refused = step_in(gm, 2, {"type": "AddCondition", "who": "bo", "condition": "stunned"})
        assert refused == {
            "type": "gm_result",
            "id": 2,
            "ok": False,
            "reason": (
                "the openings ruleset declares no conditions;"
                " a GM marker (gm mark) says 'stunned' instead"
            ),
        }
        overrides = [
            {"type": "SetHp", "who": "bo", "hp": 7},
            {"type": "AddCombatant", "id": "dax", "name": "Dax", "like": "cur", "at": [3.0, 3.0]},
            {"type": "MoveToken", "who": "cur", "to": [2.0, 2.5]},
            {"type": "Reorder", "who": "bo", "before": "ana"},
            {"type": "RemoveCombatant", "who": "dax", "reason": "fled"},
            {"type": "SetHp", "who": "cur", "hp": 0},
        ]
        seqs = []
        for ident, override in enumerate(overrides, start=10):
            result = step_in(gm, ident, override)
            assert result["ok"] is True, result
            seqs.append(result["seq"])

        heard = []
        while len(heard) < len(overrides):
            frame = watcher.next("news")
            if frame["event"]["type"] == "GmOverride":
                heard.append(frame["event"])
        assert [e["seq"] for e in heard] == seqs
        assert [e["override"] for e in heard] == overrides

        # ana is asked again in the new state: a fresh priority frame, on the last grant. While
        # the GM's joiner is in the fight, ana's screen calls it by the name the GM gave.
        fresh = seat.next("priority")
        joined: list[str] = []
        while fresh["seq"] < seqs[-1]:
            if seqs[1] < fresh["seq"] < seqs[4]:
                joined += [c["name"] for c in fresh["screen"]["combatants"] if c["id"] == "dax"]
            fresh = seat.next("priority")
        assert joined and set(joined) == {"Dax"}
        assert fresh["who"] == "ana" and fresh["seq"] > asked["seq"]
        seat.decide(asked, 0)  # the old frame is no longer asked
        assert (
            seat.next("error")["reason"]
            == f"no decision is awaited from 'ana' at seq {asked['seq']}"
        )
        seat.decide(fresh, len(fresh["offers"]) - 1)
        step_in(gm, 20, {"type": "SetHp", "who": "bo", "hp": 0})
        end = watcher.next("end")
        assert end["winner"] == "north"
        for client in server.clients:  # gone: the server need not linger for them
            client.close()
        assert server.finish() == 0
        events = server.verified()
    recorded = events_of(events, "GmOverride")
    assert [e["seq"] for e in recorded][: len(seqs)] == seqs
    assert all(events[e["seq"] - 1]["type"] == "PriorityGranted" for e in recorded)
    assert events_of(events, "CombatantLeft")[0]["who"] == "dax"


def test_the_gm_undoes_over_the_wire(tmp_path: Path) -> None:
    """Issue 34: ``{"type": "Undo"}`` in a ``gm`` frame reverts the last override (its result
    the seq of the undo's GmOverride, which names the one undone); with nothing left to undo it
    is refused in one line; names work as ids do; the log verifies."""
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        gm = server.client()
        gm.send({"type": "hello", "version": 1, "role": "gm", "token": gm_token(server)})
        gm.next("welcome")
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        seat.next("priority")
        nothing = step_in(gm, 1, {"type": "Undo"})
        assert nothing == {"type": "gm_result", "id": 1, "ok": False, "reason": "nothing to undo"}
        marked = step_in(gm, 2, {"type": "AddMarker", "who": "BO", "text": "blessed"})
        assert marked["ok"] is True, marked
        undone = step_in(gm, 3, {"type": "Undo"})
        assert undone["ok"] is True, undone
        again = step_in(gm, 4, {"type": "Undo"})
        assert again["reason"] == "nothing to undo"
        step_in(gm, 5, {"type": "SetHp", "who": "bo", "hp": 0})
        step_in(gm, 6, {"type": "SetHp", "who": "cur", "hp": 0})
        for client in server.clients:
            client.close()
        assert server.finish() == 0
        events = server.verified()
    recorded = events_of(events, "GmOverride")
    assert recorded[0]["override"] == {"type": "AddMarker", "who": "bo", "text": "blessed"}
    assert recorded[1]["seq"] == undone["seq"]
    assert recorded[1]["override"] == {"type": "Undo", "seq": marked["seq"]}
    assert next(e["type"] for e in events if e.get("cause") == undone["seq"]) == "MarkerRemoved"


#: STURDY with a second combatant on the seat's side, so the seat's one can go down alone.
PAIR = STURDY.replace(
    '[[combatants]]\nid = "bo"',
    '[[combatants]]\nid = "dax"\nside = "north"\nhp = 40\nposition = [0, 2]\n'
    "stats = { agility = 1, strength = 3, defense = 2 }\n"
    'weapons = [{ name = "club", damage = "1d4", reach = 1.5 }]\npolicy = "aggressive"\n\n'
    '[[combatants]]\nid = "bo"',
)


def test_a_seat_downed_and_brought_back_by_an_undo_is_asked_again(tmp_path: Path) -> None:
    """Where the GM's undo meets the scheduler: the GM downs the seat's combatant while it
    holds priority (its call is cut and priority passes on), then undoes it. The served fight
    crashed with ``EndOfChannel`` when she was next asked (her task had ended with the cut
    call and was never started again); now she is asked, the fight goes on and verifies."""
    assert "dax" in PAIR
    with Server(tmp_path, "--seat", "ana", "--seat", "dax", encounter=PAIR) as server:
        gm = server.client()
        gm.send({"type": "hello", "version": 1, "role": "gm", "token": gm_token(server)})
        gm.next("welcome")
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        other = server.client()  # dax's seat: the fight waits for it (it answers later)
        other.hello("dax", server.tokens["dax"])
        held = seat.next("priority")
        assert step_in(gm, 1, {"type": "SetHp", "who": "ana", "hp": 0})["ok"] is True
        assert step_in(gm, 2, {"type": "Undo"})["ok"] is True
        playing = threading.Thread(target=other.play, daemon=True)
        playing.start()
        again = seat.next("priority")  # asked again: in this round or the next
        assert again["who"] == "ana" and again["seq"] > held["seq"]
        seat.decide(again, 0)
        step_in(gm, 3, {"type": "SetHp", "who": "bo", "hp": 0})
        step_in(gm, 4, {"type": "SetHp", "who": "cur", "hp": 0})
        playing.join(timeout=60)  # dax's seat reads to the end frame before anyone closes
        assert not playing.is_alive()
        for client in server.clients:
            client.close()
        assert server.finish() == 0
        events = server.verified()
    assert events[-1]["type"] == "EncounterEnded" and events[-1]["winner"] == "north"


def test_the_gm_page_undoes_rolls_and_notes(tmp_path: Path) -> None:
    """The GM page's tools that need no combatant: undo (refused in one line when there is
    nothing to undo), a roll, a secret roll and a note, each a gm frame recorded in the log;
    the secret roll's dice are shown on the GM's page, and a seat's narration tells neither it
    nor the note."""
    pytest.importorskip("playwright.sync_api")
    from browser import CHROMIUM, chromium

    if CHROMIUM is None:
        pytest.skip("no chromium")
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        seat.next("priority")  # ana decides: the fight waits at a decision point
        token = gm_token(server)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.goto(f"http://127.0.0.1:{server.port}/gm#token={token}")
            page.wait_for_function("window.initiativePage && window.initiativePage.state")
            said = "document.getElementById('gm-result').textContent"

            def answered(start: str) -> str:
                page.wait_for_function(f"{said}.startsWith({start!r}) && !{said}.endsWith('…')")
                return str(page.evaluate(said))

            page.click("#undo")
            assert answered("Undo") == "Undo refused: nothing to undo"
            page.fill("#dice", "2d0")
            page.click("#f-roll button")
            assert answered("Roll 2d0") == (
                "Roll 2d0 refused: dice out of range: '2d0' (1-100 dice of 1-1000 sides)"
            )
            page.fill("#dice", "2d6+1")
            page.click("#f-roll button")
            assert re.fullmatch(
                r"2d6\+1 comes up (\d) \+ (\d) \+ 1 = \d+\.", answered("2d6+1 comes up")
            )
            page.check("#secret")
            page.fill("#dice", "1d20")
            page.click("#f-roll button")
            # the result comes to the GM's page alone (after the gm_result that it was done)
            shown = answered("1d20 comes up")
            assert re.fullmatch(r"1d20 comes up (\d+) = \1 \(secret\)\.", shown)
            page.fill("#note", "Bo flees at 5 hp")
            page.click("#f-note button")
            assert answered("Note").startswith("Note: recorded")
            page.screenshot(path=str(tmp_path / "gm-tools.png"), full_page=True)
            assert problems == []
        gm = server.client()
        gm.send({"type": "hello", "version": 1, "role": "gm", "token": token})
        gm.next("welcome")
        step_in(gm, 1, {"type": "SetHp", "who": "bo", "hp": 0})
        step_in(gm, 2, {"type": "SetHp", "who": "cur", "hp": 0})
        heard: list[str] = []  # every sentence the seat was told
        while (frame := seat.next("table", "end"))["type"] == "table":
            heard += frame["said"]
        for client in server.clients:
            client.close()
        assert server.finish() == 0
        events = server.verified()
    recorded = [e["override"] for e in events_of(events, "GmOverride")]
    assert recorded[:3] == [
        {"type": "GmRoll", "expr": "2d6+1"},
        {"type": "GmRoll", "expr": "1d20", "secret": True},
        {"type": "GmNote", "text": "Bo flees at 5 hp"},
    ]
    assert [e["gm_only"] for e in events_of(events, "GmRolled")] == [False, True]
    # The seat hears of the open roll, not of the secret one nor of the note.
    assert "The GM rolls 2d6+1." in heard
    assert not [s for s in heard if "1d20" in s or "secret" in s or "flees" in s], heard
