"""Links that survive a restart (issue 34, reproduction 5): a served fight killed with
``kill -9`` and gone on with ``serve --resume`` keeps every token, so the printed links still
work; a seat that comes back is asked its decision again, and ``join`` reconnects by itself."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, Page, answer_with_attack
from tests.serve_support import STURDY, Client, Server

pytestmark = pytest.mark.slow


def watch_join(server: Server, tmp: Path) -> subprocess.Popen[bytes]:
    """``initiative join --watch`` as a spectator types it, its output in ``watch.out``."""
    with (tmp / "watch.out").open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{server.port}", "--watch",
             "--token", server.spectator_token, "--reconnect", "60"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, "COLUMNS": "200"},
        )  # fmt: skip


def wait_until(check, timeout: float = 30) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def kill_9_and_resume(server: Server, tmp: Path, *clients: Client) -> Server:
    """``kill -9`` of ``server`` (its ``clients`` closed), then the command it printed to go on
    with the fight: the resumed server."""
    server.proc.kill()
    server.proc.wait()
    for client in clients:
        client.close()
    return Server(tmp, command=server.go_on(), name="resumed", encounter=STURDY)


def test_the_links_survive_kill_9_and_serve_resume(tmp_path: Path) -> None:
    """Reproduction 5: ``serve --resume`` changed every token, so the printed links were refused
    (``wrong or missing token``). Now the seat's original token is taken again, the seat gets
    its pending decision again, a watching ``join`` comes back by itself, and the log
    verifies."""
    server = Server(tmp_path, "--seat", "ana", encounter=STURDY)
    try:
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        watcher = watch_join(server, tmp_path)
        seat.decide(seat.next("priority"), 0)
        asked = seat.next("priority")
        wait_until(lambda: "watching Yard duel" in (tmp_path / "watch.out").read_text())
        resumed = kill_9_and_resume(server, tmp_path, seat)
    except BaseException:
        server.kill()
        raise
    with resumed:
        assert resumed.port == server.port
        assert resumed.tokens == server.tokens
        assert (resumed.gm_token, resumed.spectator_token) == (
            server.gm_token,
            server.spectator_token,
        )
        back = resumed.client()
        welcome = back.hello("ana", server.tokens["ana"])  # the printed link's token
        assert welcome["type"] == "welcome", welcome
        again = back.next("priority")
        assert (again["who"], again["seq"]) == (asked["who"], asked["seq"])
        # (the watcher back before the fight goes on: a server whose fight is over goes away)
        wait_until(lambda: "back at the table" in (tmp_path / "watch.out").read_text(), 60)
        back.decide(again, 0)
        end = back.play()
        assert end["type"] == "end"
        assert watcher.wait(60) == 0
        resumed.finish()
        resumed.verified()
    shown = (tmp_path / "watch.out").read_text()
    assert "the server is gone; trying again for 60 s (Ctrl-C leaves)" in shown
    assert "back at the table" in shown
    assert "the fight is over: " in shown and "Traceback" not in shown


def test_a_corrupt_token_file_gives_new_tokens_and_one_warning(tmp_path: Path) -> None:
    """The tokens cannot be read: new ones, a one-line warning, the old ones refused."""
    with Server(tmp_path, "--seat", "ana") as server:
        server.client().hello("ana", server.tokens["ana"])
        wait_until(lambda: server.logged() > 3)
    kept = server.log.with_name(server.log.name + ".tokens")
    kept.write_text("{not json")
    with Server(tmp_path, command=server.go_on(), name="resumed") as resumed:
        warnings = [line for line in resumed.err.splitlines() if line.startswith("warning:")]
        assert warnings == [f"warning: {kept}: not a token file; new tokens (and links) are made"]
        assert resumed.tokens["ana"] != server.tokens["ana"]
        old = resumed.client()
        assert old.hello("ana", server.tokens["ana"])["reason"] == (
            "wrong or missing token for seat 'ana'"
        )


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_a_seat_page_reconnects_by_itself_and_is_asked_again(tmp_path: Path) -> None:
    """The seat's browser page, opened from the printed link: the server killed, it says it
    tries again; the server resumed, it comes back by itself, shows the same decision, and a
    click on it plays on to the end. The narration is not told twice."""
    server = Server(tmp_path, "--seat", "ana")
    page = Page()
    try:
        page.page.goto(server.url("ana"))
        page.page.wait_for_selector("button.offer", timeout=60_000)
        asked = page.js("window.initiativePage.asked.seq")
        said = page.js("document.getElementById('story').textContent")
        server.proc.kill()  # kill -9
        server.proc.wait()
        page.page.wait_for_function(
            "document.getElementById('errors').textContent.startsWith("
            "'The connection to the server is lost; trying again')"
        )
        resumed = Server(tmp_path, command=server.go_on(), name="resumed")
        with resumed:
            page.page.wait_for_function(
                f"window.initiativePage.asked && window.initiativePage.asked.seq === {asked}",
                timeout=30_000,
            )
            assert page.js("document.getElementById('errors').hidden") is True
            assert page.js("document.getElementById('story').textContent") == said
            while not page.js("window.initiativePage.ended"):
                page.page.wait_for_function(
                    "window.initiativePage.ended || window.initiativePage.asked", timeout=60_000
                )
                if not page.js("window.initiativePage.ended"):
                    answer_with_attack(page.page)
            assert resumed.finish() == 0
            resumed.verified()
    finally:
        page.close()
        server.kill()


def test_the_gm_undoes_after_serve_resume_what_was_done_before_the_kill(tmp_path: Path) -> None:
    """Undo and a restart meet: the GM sets bo's hit points, the server is killed with
    ``kill -9`` and gone on with ``serve --resume``; ``gm undo`` then undoes that very
    override (the resumed fight knows the GM's overrides from the log), the fight goes on to
    its end, and the log verifies and tells the undo."""
    server = Server(tmp_path, "--seat", "ana", encounter=STURDY)
    try:
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        asked = seat.next("priority")
        gm = server.client()
        assert gm.hello(None, server.gm_token, role="gm")["type"] == "welcome"
        gm.send({"type": "gm", "id": 1, "override": {"type": "SetHp", "who": "Bo", "hp": 7}})
        set_hp = gm.next("gm_result")
        assert set_hp["ok"], set_hp
        asked = seat.next("priority")  # asked again in the new state
        resumed = kill_9_and_resume(server, tmp_path, seat, gm)
    except BaseException:
        server.kill()
        raise
    with resumed:
        back = resumed.client()
        assert back.hello("ana", server.tokens["ana"])["type"] == "welcome"
        again = back.next("priority")
        assert (again["who"], again["seq"]) == (asked["who"], asked["seq"])
        gm = resumed.client()
        assert gm.hello(None, server.gm_token, role="gm")["type"] == "welcome"
        gm.send({"type": "gm", "id": 2, "override": {"type": "Undo"}})
        undone = gm.next("gm_result")
        assert undone["ok"], undone
        gm.send({"type": "gm", "id": 3, "override": {"type": "Undo"}})
        nothing = gm.next("gm_result")
        assert (nothing["ok"], nothing["reason"]) == (False, "nothing to undo")
        end = back.play()
        assert end["type"] == "end"
        resumed.finish()
        events = resumed.verified()
    overrides = [e for e in events if e["type"] == "GmOverride"]
    assert [o["override"]["type"] for o in overrides] == ["SetHp", "Undo"]
    assert overrides[1]["override"]["seq"] == overrides[0]["seq"]
    healed = [e for e in events if e["type"] == "Healed" and e["cause"] == overrides[1]["seq"]]
    assert [(h["who"], h["hp"]) for h in healed] == [("bo", 60)]
    told = subprocess.run(
        [sys.executable, "-m", "initiative", "replay", str(resumed.log)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert f"The GM undoes #{overrides[0]['seq']}: sets bo's hit points to 7." in told
