"""The ``gm`` frame over a real ``serve`` on a loopback port, with clients made of ``socket`` and
``json`` alone: every override kind recorded, a refusal with its reason, only the GM may, a
spectator hears of it, and the finished log verifies."""

from __future__ import annotations

import re
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
            "reason": "the openings ruleset has no condition 'stunned'",
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
