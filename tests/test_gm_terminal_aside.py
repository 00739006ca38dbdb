"""``join --gm`` in a real pseudo-terminal beside a real ``serve``: the live odds (``serve
--gm-odds``) as lines with the sides' names, never on a seat's terminal; at the end, ``gm
review`` has the server review the fight and saves the report it serves to the GM token; the
refusals in one line."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from pathlib import Path

import pytest

from tests.pty_support import PtyProgram, kill_the_living, play_at_the_terminal, wait_for
from tests.serve_support import ENCOUNTER, Server

pytestmark = pytest.mark.slow  # a server, its helpers and terminals, each a real process

#: The yard duel, long enough for the odds to move a few times.
LONGER = (
    ENCOUNTER.replace("hp = 14", "hp = 36")
    .replace("hp = 10", "hp = 24")
    .replace("hp = 4", "hp = 8")
)

#: An odds line as the GM's terminal prints it.
ODDS = re.compile(r"odds \(GM only\): north (\d+)%, south (\d+)%.*\((.+)\)$", re.M)


def join(server: Server, tmp: Path, *args: str) -> PtyProgram:
    """``initiative join`` to ``server`` on a pseudo-terminal, in ``tmp``."""
    return PtyProgram(
        [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{server.port}", *args],
        cwd=str(tmp),
        env={**os.environ, "COLUMNS": "200", "TERM": "dumb"},
    )


def gm_join(server: Server, tmp: Path, *args: str) -> PtyProgram:
    return join(server, tmp, "--gm", "--token", server.gm_token, *args)


def test_the_gm_terminal_shows_the_odds_by_side_and_a_seat_never(tmp_path: Path) -> None:
    """With ``--gm-odds`` the GM's terminal prints a line of odds with the sides' names when
    they move, ``gm odds`` gives the newest with their intervals, and the result comes last;
    the seat's terminal, playing the same fight, shows no odds."""
    with Server(tmp_path, "--seat", "north", "--gm-odds", encounter=LONGER) as server:
        gm = gm_join(server, tmp_path)
        seat = join(server, tmp_path, "--seat", "north", "--token", server.tokens["north"])

        def pace() -> None:
            """The seat answers once the GM's terminal has said new odds (or after 1.5 s: odds
            that moved by less than a whole percent are not said again)."""
            told = len(ODDS.findall(gm.screen))
            deadline = time.monotonic() + 1.5
            while len(ODDS.findall(gm.screen)) == told and time.monotonic() < deadline:
                gm._pump(0.1)

        answered: list[str] = []
        failed: list[BaseException] = []
        try:
            wait_for(gm, "the GM of Yard duel")
            wait_for(gm, "odds (GM only): north ")
            gm.type("gm odds")
            wait_for(gm, "fights played out)")
            play_at_the_terminal(seat, answered, failed, pace)
            assert failed == []
            wait_for(gm, "gm review to have the server review this fight")
            gm.type("q")
            assert gm.wait(30) == 0
            assert seat.wait(30) == 0
        finally:
            kill_the_living(gm, seat)
        assert server.finish(30) == 0
    lines = ODDS.findall(gm.screen)
    assert len(lines) >= 3 and len(answered) >= 2
    assert all(0 <= int(n) + int(s) <= 100 for n, s, _ in lines)
    assert all(re.fullmatch(r"round \d+, before \w+ decides", w) for _, _, w in lines[:-1])
    winner = "north" if "the fight is over: north won" in gm.screen else "south"
    assert lines[-1] == (("100", "0") if winner == "north" else ("0", "100")) + ("the result",)
    asked = re.search(r"odds \(GM only\): north \d+% \(95%: \d+% to \d+%\), south .*, \d+ fights"
                      r" played out\)$", gm.screen, re.M)  # fmt: skip
    assert asked, gm.screen[-3000:]
    assert "odds" not in seat.screen
    assert "the fight is over: " in seat.screen


def test_gm_review_at_the_terminal_saves_the_report_the_server_serves(tmp_path: Path) -> None:
    """Once the fight is over the GM's terminal offers the review; ``gm review`` asks the
    server, shows its progress, saves the report fetched with the GM token (the very page kept
    beside the log) and leaves; the server then goes."""
    with Server(tmp_path, "--seat", "north") as server:
        gm = gm_join(server, tmp_path, "--review-out", "yard.html")
        try:
            wait_for(gm, "the GM of Yard duel")
            seat = server.client()
            seat.hello("north", server.tokens["north"])
            assert seat.play()["type"] == "end"
            wait_for(gm, "type gm review to have the server review this fight")
            gm.type("gm review")
            wait_for(gm, "the review of this fight is saved in yard.html", timeout=120)
            assert gm.wait(30) == 0
        finally:
            if gm.status is None:
                gm.kill()
        seat.close()
        assert server.finish(30) == 0
    report = (tmp_path / "yard.html").read_bytes()
    assert report == (tmp_path / "served.review.html").read_bytes()
    assert report.startswith(b"<!DOCTYPE html>") and b"<title>Yard duel" in report
    assert "reviewing: " in gm.screen
    assert "the fight is over: " in gm.screen


def test_the_review_at_the_terminal_refused_and_failed_in_one_line(tmp_path: Path) -> None:
    """``gm review`` before the end, and from a seat's terminal, is refused in one line; a
    review that fails says the server's reason, and ``gm review`` tries again (the report
    then saved under the encounter's name); ``gm odds`` says the odds are off."""
    with Server(tmp_path, "--seat", "north", encounter=ENCOUNTER) as server:
        gm = gm_join(server, tmp_path)
        seat = join(server, tmp_path, "--seat", "north", "--token", server.tokens["north"])
        try:
            wait_for(gm, "the GM of Yard duel")
            gm.type("gm review")
            wait_for(gm, "the review is offered once the fight is over")
            wait_for(seat, "choose 1-")  # (the fight has started; the GM may hear it later)
            for _ in range(30):  # until the GM's terminal has heard the start
                gm.type("gm odds")
                with contextlib.suppress(AssertionError):
                    wait_for(gm, "the live odds are off: start the server with --gm-odds", 1)
                    break
            wait_for(gm, "the live odds are off: start the server with --gm-odds")
            seat.type("gm review")
            wait_for(seat, "gm review is not a command of a seat")
            answered: list[str] = []
            failed: list[BaseException] = []
            play_at_the_terminal(seat, answered, failed)
            assert failed == [] and seat.wait(30) == 0
            wait_for(gm, "type gm review")
            hidden = server.log.rename(tmp_path / "elsewhere.jsonl")  # the review cannot read it
            gm.type("gm review")
            wait_for(gm, "(gm review tries again)")
            hidden.rename(server.log)
            gm.type("gm review")
            wait_for(gm, "the review of this fight is saved in Yard-duel.review.html", 120)
            assert gm.wait(30) == 0
        finally:
            kill_the_living(gm, seat)
        assert server.finish(30) == 0
    failure = re.search(r"the review exited with status \d+: .* \(gm review tries again\)$",
                        gm.screen, re.M)  # fmt: skip
    assert failure, gm.screen[-3000:]
    assert (tmp_path / "Yard-duel.review.html").read_bytes() == (
        tmp_path / "served.review.html"
    ).read_bytes()


@pytest.mark.parametrize("leave", ["q", "ctrl-c"])
def test_a_gm_who_leaves_without_the_review_lets_the_server_go(tmp_path: Path, leave: str) -> None:
    """The GM's terminal stays after the end for ``gm review``; ``q`` or Ctrl-C leaves (exit 0,
    the winner said: nothing is lost once the fight is over), and the server does not stay up
    for nothing: told so (a ``leave`` frame), it does not wait the 5 s it gives a reloaded GM
    page to come back."""
    with Server(tmp_path, "--seat", "north") as server:
        gm = gm_join(server, tmp_path)
        try:
            wait_for(gm, "the GM of Yard duel")
            seat = server.client()
            seat.hello("north", server.tokens["north"])
            assert seat.play()["type"] == "end"
            wait_for(gm, "type gm review")
            time.sleep(1)
            assert gm.status is None and server.proc.poll() is None  # both stay for the review
            if leave == "q":
                gm.type("q")
            else:
                gm.interrupt()
            assert gm.wait(30) == 0
        finally:
            if gm.status is None:
                gm.kill()
        seat.close()
        left = time.monotonic()
        assert server.finish(30) == 0
        assert time.monotonic() - left < 4.5  # (not the 5 s for a reloaded page)
    assert re.search(r"the fight is over: (north|south) won", gm.screen)
    assert not list(tmp_path.glob("*.review.html"))
