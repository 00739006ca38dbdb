"""Hidden numbers stay hidden over a real ``serve`` (issue 34): a GM's hit-point override on an
enemy reaches a seat in words, a quiet one not at all; a default spectator sees what the seated
players see; ``--spectators all`` sees everything; the tokens are kept beside the log, for the
owner only."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.browser import CHROMIUM, Page
from tests.serve_support import STURDY, Client, Server

pytestmark = pytest.mark.slow


def gm_of(server: Server) -> Client:
    gm = server.client()
    gm.hello(None, server.gm_token, "gm")
    gm.heard = []  # type: ignore[attr-defined]
    return gm


def waiting_seat(server: Server) -> Client:
    """Ana seated, her first question asked: the fight waits on her."""
    seat = server.client()
    seat.hello("ana", server.tokens["ana"])
    seat.next("priority")
    return seat


def step_in(gm: Client, ident: int, override: dict[str, Any]) -> int:
    """Send one override; the seq of its ``GmOverride`` (the frames the GM got meanwhile are
    kept in ``gm.heard``)."""
    gm.send({"type": "gm", "id": ident, "override": override})
    while (result := gm.receive())["type"] != "gm_result":
        gm.heard.append(result)
    assert result["ok"] is True, result
    return int(result["seq"])


def frames_until(client: Client, seq: int) -> list[dict[str, Any]]:
    """Every frame ``client`` got until a table frame whose state is at ``seq`` or later."""
    frames = getattr(client, "heard", [])
    while not [f for f in frames if f["type"] == "table" and f["state"]["seq"] >= seq]:
        frames.append(client.receive())
    return frames


def row(frame: dict[str, Any], who: str) -> dict[str, Any]:
    return next(c for c in frame["state"]["combatants"] if c["id"] == who)


def test_a_gm_hit_point_override_on_an_enemy_reaches_a_seat_in_words(tmp_path: Path) -> None:
    """Reproduction 2: with ``reveal`` unset, a GM ``SetHp`` on an enemy reached the seat as
    "The GM sets bo's hit points to 13."; now as the wounds it leaves, and the damage it made
    is not told (the GM hears both)."""
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        gm = gm_of(server)
        seat = waiting_seat(server)
        seq = step_in(gm, 1, {"type": "SetHp", "who": "bo", "hp": 13})
        heard = frames_until(seat, seq + 1)
        said = [s for f in heard if f["type"] == "table" for s in f["said"]]
        assert "The GM changes bo's wounds: bloodied." in said
        assert not [s for s in said if "13" in s or "47" in s], said
        assert not [f for f in heard if f["type"] == "news"]
        assert row(heard[-1], "bo")["hp"] is None and row(heard[-1], "bo")["health"] == "bloodied"
        told = [s for f in frames_until(gm, seq + 1) if f["type"] == "table" for s in f["said"]]
        assert "The GM sets bo's hit points to 13." in told
        assert "bo takes 47 damage" in told


def test_an_undone_hit_point_override_stays_as_hidden_as_the_override(tmp_path: Path) -> None:
    """Where the GM's undo meets the seat's sight: undoing a ``SetHp`` on an enemy told the seat
    "The GM undoes #N: sets bo's hit points to 13." and the healing that put them back; now the
    seat hears that a change to bo's wounds was undone, and no number of bo's."""
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        gm = gm_of(server)
        seat = waiting_seat(server)
        seq = step_in(gm, 1, {"type": "SetHp", "who": "bo", "hp": 13})
        undo = step_in(gm, 2, {"type": "Undo"})
        heard = frames_until(seat, undo + 1)
        said = [s for f in heard if f["type"] == "table" for s in f["said"]]
        assert f"The GM undoes #{seq}: a change to bo's wounds." in said
        assert not [s for s in said if re.search(r"\b(13|47|60)\b", s)], said
        assert row(heard[-1], "bo")["hp"] is None and row(heard[-1], "bo")["health"] == "unhurt"


def test_the_gms_notes_and_secret_rolls_reach_the_gm_alone(tmp_path: Path) -> None:
    """Where ``--spectators all`` meets the GM's private events: a note and a secret roll reach
    the GM's connection whole, and a full-view spectator's news has, at their seq, a note that
    says it was withheld (so its copy of the log still reads), never their words or dice."""
    with Server(tmp_path, "--seat", "ana", "--spectators", "all", encounter=STURDY) as server:
        gm = gm_of(server)
        watcher = server.client()
        watcher.hello(None, server.spectator_token, "spectator")
        waiting_seat(server)  # (the server keeps its clients)
        note = step_in(gm, 1, {"type": "GmNote", "text": "the orc carries the key"})
        roll = step_in(gm, 2, {"type": "GmRoll", "expr": "3d6+100", "secret": True})
        public = step_in(gm, 3, {"type": "GmRoll", "expr": "1d4"})
        news = []
        while not [e for e in news if e["seq"] >= public]:
            frame = watcher.receive()
            if frame["type"] == "news":
                news.append(frame["event"])
        private = [e for e in news if note <= e["seq"] < public and e["type"] != "PriorityGranted"]
        assert len(private) == 3 and all(  # the note, the roll and its dice
            e["type"] == "GmOverride" and e["override"]["type"] == "GmNote" for e in private
        ), private
        assert "key" not in json.dumps(news) and "3d6" not in json.dumps(news)
        assert [e["seq"] for e in news] == list(range(news[0]["seq"], news[-1]["seq"] + 1))
        gm_news = [f["event"] for f in gm.heard if f["type"] == "news"]  # type: ignore[attr-defined]
        while not [e for e in gm_news if e["seq"] >= public]:
            frame = gm.receive()
            if frame["type"] == "news":
                gm_news.append(frame["event"])
        assert any(e.get("override", {}).get("text") == "the orc carries the key" for e in gm_news)
        assert any(e["type"] == "GmRolled" and e["expr"] == "3d6+100" for e in gm_news)
        assert roll > note


def test_a_quiet_override_is_not_told_to_the_players(tmp_path: Path) -> None:
    """``quiet``: the seat hears nothing of it (its state still changes); the GM hears it."""
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        gm = gm_of(server)
        seat = waiting_seat(server)
        quiet = {"type": "SetHp", "who": "bo", "hp": 13, "quiet": True}
        seq = step_in(gm, 1, quiet)
        mine = step_in(gm, 2, {"type": "SetHp", "who": "ana", "hp": 80})
        heard = frames_until(seat, mine + 1)
        said = [s for f in heard if f["type"] == "table" for s in f["said"]]
        assert not [s for s in said if "bo" in s.split()[0:3] or "bo's" in s], said
        assert "The GM sets ana's hit points to 80." in said  # (her own: in numbers)
        assert row(heard[-1], "bo")["health"] == "bloodied"
        told = [s for f in frames_until(gm, seq + 1) if f["type"] == "table" for s in f["said"]]
        assert "The GM quietly sets bo's hit points to 13." in told


def test_a_default_spectator_sees_what_the_seats_see(tmp_path: Path) -> None:
    """Reproduction 3: the spectator page showed every number (``Grukk 22 / 22``); now a
    spectator gets no news, the seated side's numbers and the others' health in words."""
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        watcher = server.client()
        welcome = watcher.hello(None, server.spectator_token, "spectator")
        assert welcome["news"] is False
        waiting_seat(server)
        frame = watcher.next("table", "news")
        assert frame["type"] == "table"
        assert (row(frame, "bo")["hp"], row(frame, "bo")["max_hp"]) == (None, None)
        assert row(frame, "bo")["health"] == "unhurt"
        assert (row(frame, "ana")["hp"], row(frame, "ana")["max_hp"]) == (90, 90)


def test_spectators_all_see_every_number(tmp_path: Path) -> None:
    """``serve --spectators all``: the log as news and every number, as before."""
    with Server(tmp_path, "--seat", "ana", "--spectators", "all", encounter=STURDY) as server:
        watcher = server.client()
        assert watcher.hello(None, server.spectator_token, "spectator")["news"] is True
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        assert watcher.next("news", "table")["type"] == "news"
        frame = watcher.next("table")
        assert (row(frame, "bo")["hp"], row(frame, "bo")["max_hp"]) == (60, 60)


def test_the_tokens_are_kept_beside_the_log_for_its_owner_only(tmp_path: Path) -> None:
    """``LOG.tokens``: mode 0600, every printed token, none of them in the log."""
    with Server(tmp_path, "--seat", "ana", "--seat", "south") as server:
        kept = server.log.with_name(server.log.name + ".tokens")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert json.loads(kept.read_text()) == {
            "gm": server.gm_token,
            "seat:ana": server.tokens["ana"],
            "seat:south": server.tokens["south"],
            "spectators": server.spectator_token,
        }
        server.kill()
        logged = server.log.read_text()
    for token in [server.gm_token, server.spectator_token, *server.tokens.values()]:
        assert token not in logged


def test_a_spectators_full_copy_is_refused_in_one_line(tmp_path: Path) -> None:
    """``join --watch --out`` where the spectator sees what the seats see: one line, exit 2,
    no copy left behind (a copy would not be the log)."""
    copy = tmp_path / "copy.jsonl"
    with Server(tmp_path, "--seat", "ana") as server:
        watcher = subprocess.run(
            [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{server.port}", "--watch",
             "--token", server.spectator_token, "--out", str(copy)],
            capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "300"},
        )  # fmt: skip
    assert watcher.returncode == 2
    assert watcher.stderr == (
        "error: --out keeps the whole log, and this server shows spectators what the seats see"
        " (a full copy needs serve --spectators all)\n"
    )
    assert not copy.exists()


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_gm_page_sets_hit_points_quietly(tmp_path: Path) -> None:
    """The GM page's "quietly": the override is recorded with ``quiet``, and the seat is told
    nothing of it."""
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        seat = waiting_seat(server)
        page = Page()
        try:
            page.page.goto(f"http://127.0.0.1:{server.port}/gm#token={server.gm_token}")
            page.page.wait_for_selector("#tracker tr.row[data-id='bo']")
            page.click("#tracker tr.row[data-id='bo'] td.name")
            page.page.fill("#hp", "13")
            page.page.check("#hp-quiet")
            page.click("#f-hp button")
            page.page.wait_for_function(
                "document.getElementById('gm-result').textContent.includes('recorded')"
            )
            result = page.js("document.getElementById('gm-result').textContent")
        finally:
            page.close()
        seq = int(re.search(r"event (\d+)", result).group(1))
        heard = frames_until(seat, seq + 1)
        logged = [json.loads(line) for line in server.log.read_text().splitlines()]
    assert result.startswith("Quietly set bo's hp to 13")
    assert logged[seq]["override"] == {"type": "SetHp", "who": "bo", "hp": 13, "quiet": True}
    said = [s for f in heard if f["type"] == "table" for s in f["said"]]
    assert not [s for s in said if "bo" in s.split() or "bo's" in s], said
