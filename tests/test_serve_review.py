"""The review at the end of a served fight and the GM's live odds (issue 35, item 4), on a real
loopback server: the GM asks for the review over the wire once the fight is over, hears its
progress, and reads the report at ``GET /review`` with the GM token (401 without a token, 403
with a seat's or the spectators', 404 before it exists); ``--gm-odds`` tells the GM each side's
chance before every decision and never tells a seat or a spectator; the log is the same bytes
with and without it; a helper that dies or hangs is one line for the GM, and the fight goes
on."""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from initiative.engine import load_encounter
from initiative.events import read_log
from initiative.replays import verify_log
from serve_support import ENCOUNTER, STURDY, Client, Server, first_attack

from initiative.table._reviews import ReviewOptions
from initiative.table._serve import serve_fight

pytestmark = pytest.mark.slow  # real servers and their child processes


def get_review(port: int, token: str | None) -> tuple[int, bytes]:
    """``GET /review`` with ``token`` as a Bearer token (none: no Authorization header)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    conn.request("GET", "/review", headers=headers)
    answer = conn.getresponse()
    body = answer.read()
    conn.close()
    return answer.status, body


def staying_gm(server: Server) -> Client:
    """The GM connected as the GM page connects: staying after the end for the review."""
    gm = server.client()
    gm.send({"type": "hello", "version": 1, "role": "gm", "token": server.gm_token,
             "review": True})  # fmt: skip
    return gm


def read_all(client: Client, into: list[dict[str, Any]]) -> threading.Thread:
    """Keep every frame ``client`` receives until its connection ends (in a thread)."""

    def run() -> None:
        try:
            while True:
                into.append(client.receive())
        except (EOFError, OSError, ValueError):
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_the_gm_reads_the_review_of_the_fight_with_the_gm_token(tmp_path: Path) -> None:
    """Asked before the end, the review is refused (and from a seat, always); asked by the GM
    once the fight is over, it reports its progress to the GM alone, then the report (the page
    ``review --report`` writes, kept beside the log) is served to the GM token only; the
    server goes once the GM page leaves."""
    with Server(tmp_path, "--seat", "north") as server:
        gm = staying_gm(server)
        assert gm.receive()["type"] == "welcome"
        seat = server.client()
        seat.hello("north", server.tokens["north"])
        asked = seat.next("priority")
        gm.send({"type": "review"})
        refused = gm.next("error")
        assert refused == {
            "type": "error",
            "reason": "the review is of a finished fight: ask once it has ended",
            "fatal": False,
        }
        seat.send({"type": "review"})
        assert seat.next("error")["reason"] == "only the GM may do that"
        assert get_review(server.port, server.gm_token)[0] == 404
        seat.decide(asked, first_attack(asked))
        seat_frames: list[dict[str, Any]] = []
        while (frame := seat.receive())["type"] != "end":
            seat_frames.append(frame)
            if frame["type"] == "priority":
                seat.decide(frame, first_attack(frame))
        gm.next("end")
        status, body = get_review(server.port, server.gm_token)
        assert (status, body) == (
            404,
            b"no review yet: ask for it on the GM page once the fight has ended\n",
        )
        gm.send({"type": "review"})
        statuses = []
        while (frame := gm.next("review_status"))["state"] == "running":
            statuses.append((frame["done"], frame["total"]))
        assert frame["state"] == "ready", frame
        assert frame["path"] == "/review"
        total = statuses[-1][1]
        assert statuses[0] == (0, 0) and statuses[-1] == (total, total) and total > 0
        done = [d for d, _ in statuses]  # (the newest is sent: two at once are told as one)
        assert done == sorted(done) and {t for _, t in statuses[1:]} == {total}
        report = (tmp_path / "served.review.html").read_bytes()
        assert b"<title>Yard duel" in report
        assert b"seat north" in report  # (who played: the log names the file's policy)
        assert get_review(server.port, server.gm_token) == (200, report)
        assert get_review(server.port, None)[0] == 401
        assert get_review(server.port, "not-a-token")[0] == 401
        assert get_review(server.port, server.tokens["north"]) == (
            403, b"the review is for the GM's eyes: use the GM token\n"
        )  # fmt: skip
        assert get_review(server.port, server.spectator_token)[0] == 403
        assert not [f for f in seat_frames if f["type"] in ("review_status", "odds")]
        gm.close()
        assert server.finish(30) == 0
    server.verified()


def test_odds_reach_the_gm_before_each_decision_and_never_a_seat(tmp_path: Path) -> None:
    """With ``--gm-odds`` the GM hears each side's chance before each of the seat's decisions
    (the odds for that very decision), and the result at the end; the seat and a spectator hear
    no odds; the log is the same bytes as the same fight served without ``--gm-odds``."""
    logs = []
    for odds in (True, False):
        folder = tmp_path / ("with" if odds else "without")
        folder.mkdir()
        flag = ["--gm-odds"] if odds else []
        with Server(folder, "--seat", "north", *flag, encounter=STURDY) as server:
            gm_frames: list[dict[str, Any]] = []
            watched: list[dict[str, Any]] = []
            gm = server.client()
            assert gm.hello(None, server.gm_token, role="gm")["type"] == "welcome"
            watcher = server.client()
            assert watcher.hello(None, server.spectator_token, role="spectator")["role"] == (
                "spectator"
            )
            watching = read_all(watcher, watched)
            seat = server.client()
            seat.hello("north", server.tokens["north"])
            seat_frames: list[dict[str, Any]] = []
            asked = []
            while (frame := seat.receive())["type"] != "end":
                seat_frames.append(frame)
                if frame["type"] != "priority":
                    continue
                asked.append(frame["seq"])
                if odds:  # the GM is told the odds of this very decision before it is made
                    while (told := gm.receive())["type"] != "odds" or told["seq"] != frame["seq"]:
                        gm_frames.append(told)
                    gm_frames.append(told)
                    assert told["who"] == frame["who"] and told["rollouts"] == 32
                    assert set(told["win"]) == {"north", "south"}
                    assert 0 <= sum(told["win"].values()) <= 1
                seat.decide(frame, first_attack(frame))
            while (told := gm.receive())["type"] != "end":
                gm_frames.append(told)
            watching.join(30)
            assert server.finish(30) == 0
            logs.append(server.log.read_bytes())
            heard = [f for f in seat_frames + watched if f["type"] in ("odds", "review_status")]
            assert heard == []
            said = [f for f in gm_frames if f["type"] == "odds"]
            if odds:
                assert {f["seq"] for f in said} >= set(asked) and len(asked) >= 2
                winner = json.loads(logs[-1].splitlines()[-1])["winner"]
                assert said[-1]["ended"] and said[-1]["win"][winner] == 1.0
            else:
                assert said == []
    assert logs[0] == logs[1]


async def played(options: ReviewOptions, tmp: Path, until: str) -> list[dict[str, Any]]:
    """A served fight of the sturdy duel with ``options``; its seat waits, before its first
    decision, until the GM has been told a frame of type ``until``. The GM's frames, from its
    hello to the end of the review it asks for."""
    encounter = tmp / "duel.toml"
    encounter.write_text(STURDY if until == "odds" else ENCOUNTER)
    spec = load_encounter(encounter)
    from tests.test_serve_hidden_numbers import connect

    gm_frames: list[dict[str, Any]] = []
    async with trio.open_nursery() as nursery:
        served = await nursery.start(
            lambda task_status: serve_fight(
                spec,
                5,
                ["north"],
                out=tmp / "served.jsonl",
                review=options,
                task_status=task_status,
            )
        )
        reviewing = until == "review_status"  # (the GM then stays after the end to ask)
        hello = {"role": "gm", "token": served.gm_token, "review": reviewing}
        gm = await connect(served.port, hello)
        seat = await connect(served.port, {"seat": "north", "token": served.seats["north"].token})
        told = trio.Event()

        async def listen() -> None:
            while (frame := await gm.receive()) is not None:
                gm_frames.append(frame)
                if frame["type"] == until:
                    told.set()
                if frame["type"] == "end" and reviewing:
                    await gm.send({"type": "review"})
                if frame["type"] == "review_status" and frame["state"] != "running":
                    break
            await gm.stream.aclose()

        nursery.start_soon(listen)
        first = True
        while (frame := await seat.receive()) is not None and frame["type"] != "end":
            if frame["type"] == "priority":
                if first and until == "odds":
                    with trio.fail_after(30):
                        await told.wait()
                first = False
                offer = first_attack(frame)
                await seat.send({"type": "decision", "who": frame["who"], "seq": frame["seq"],
                                 "offer": offer})  # fmt: skip
        await seat.stream.aclose()
    assert verify_log(read_log(tmp / "served.jsonl")).ok
    return gm_frames


DIES = (sys.executable, "-c", "import sys; print('the helper broke', file=sys.stderr); sys.exit(3)")
HANGS = (sys.executable, "-c", "import time; time.sleep(120)")


@pytest.mark.parametrize(
    ("helper", "reason"),
    [
        (DIES, "the live odds stopped: its process exited with status 3: the helper broke"),
        (HANGS, "the live odds stopped: no answer in 1 s (its process was stopped)"),
    ],
)
def test_an_odds_helper_that_dies_or_hangs_is_one_line_and_the_fight_goes_on(
    helper: tuple[str, ...], reason: str, tmp_path: Path
) -> None:
    """The GM is told why the odds stopped, in one line, and the fight ends as it would."""
    options = ReviewOptions(odds=True, helper=helper, silence=1.0)
    frames = trio.run(played, options, tmp_path, "odds")
    stopped = [f for f in frames if f["type"] == "odds"]
    assert [f["stopped"] for f in stopped] == [reason]
    assert frames[-1]["type"] == "end"


def test_a_review_helper_that_dies_is_one_line_for_the_gm(tmp_path: Path) -> None:
    """The review's failure is said to the GM, with the helper's last words."""
    frames = trio.run(played, ReviewOptions(helper=DIES), tmp_path, "review_status")
    statuses = [f for f in frames if f["type"] == "review_status"]
    assert statuses[-1] == {
        "type": "review_status",
        "state": "failed",
        "done": 0,
        "total": 0,
        "reason": "the review exited with status 3: the helper broke",
        "path": None,
    }


def test_ctrl_c_while_the_server_stays_for_the_review_loses_nothing(tmp_path: Path) -> None:
    """After the end, with a GM page staying, Ctrl-C stops the server at once, says the log is
    whole, and exits 0 (there is nothing to go on with)."""
    with Server(tmp_path, "--seat", "north") as server:
        gm = staying_gm(server)
        seat = server.client()
        seat.hello("north", server.tokens["north"])
        assert seat.play()["type"] == "end"
        gm.next("end")
        time.sleep(6)
        assert server.proc.poll() is None  # (it stays for the GM page, past the 5 s linger)
        assert server.interrupt(30) == 0
        said = " ".join(server.err.split())
        assert f"stopped after the end of the fight; the log {server.log} is whole" in said
    server.verified()


def test_a_gm_that_says_leave_is_not_waited_for(tmp_path: Path) -> None:
    """A GM staying after the end who sends ``leave`` (``join --gm``'s ``q``) has its connection
    closed by the server, which then goes without the 5 s it gives a reloaded GM page; the
    same frame from a seat before the end is that seat hanging up."""
    with Server(tmp_path, "--seat", "north") as server:
        gm = staying_gm(server)
        assert gm.receive()["type"] == "welcome"
        seat = server.client()
        seat.hello("north", server.tokens["north"])
        seat.next("priority")
        seat.send({"type": "leave"})
        with pytest.raises(EOFError):
            seat.next("priority")
        again = server.client()
        again.hello("north", server.tokens["north"])
        assert again.play()["type"] == "end"
        gm.next("end")
        time.sleep(0.5)
        assert server.proc.poll() is None  # (it stays for the GM)
        gm.send({"type": "leave"})
        left = time.monotonic()
        with pytest.raises(EOFError):
            gm.next("priority")
        assert server.finish(30) == 0
        assert time.monotonic() - left < 4.5  # (not the 5 s for a reloaded page)
    server.verified()
