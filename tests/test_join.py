"""``join``'s client in virtual time: the clock runs while nobody types, a prompt the server
has moved past goes, a grace period counts down, a lost server is noticed at once."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import msgspec
import pytest
import trio
import trio.testing
from helpers import encounter
from initiative.engine import Fight, Stepper
from initiative.events import DecisionFailed
from serve_support import ENCOUNTER

from initiative.table import _wire as wire
from initiative.table._join import Keyboard, Screen, ServerLost, play
from initiative.table._sight import Sight
from initiative.table._talk import TableTalk

SPEC = encounter(ENCOUNTER.replace('id = "ana"\n', 'id = "ana"\nname = "Ana"\n'))


def opening_frames() -> tuple[list[bytes], bytes, int]:
    """The frames a seat for ``ana`` gets up to her first decision (the others answered with
    their first offer), and the seq of that decision."""
    lines: list[bytes] = []
    fight = Fight(SPEC, SPEC.seed, sink=lambda event: lines.append(fight.sink.last_line))
    stepper = Stepper(fight)
    while stepper.view is not None and stepper.view.me.id != "ana":
        stepper.apply(stepper.legal[0].action)
    view = stepper.view
    assert view is not None
    welcome = wire.Welcome(version=1, seat="ana", combatants=("ana",), deadline=60.0,
                           encounter="Yard duel", ruleset="openings")  # fmt: skip
    frames = [wire.encode(welcome)]
    frames += [wire.encode(wire.News(event=msgspec.Raw(line.rstrip(b"\n")))) for line in lines]
    talk = [line.rstrip(b"\n") for line in lines]
    table = TableTalk(SPEC)
    told = table.frame(talk, 0, len(talk), ["ana"])
    seat = Sight(full=False, sides=frozenset({"north"}), side_of=table.side_of)
    frames.append(seat.out(told))
    return frames, wire.priority(view, 60.0, SPEC), view.seq


def news(event: DecisionFailed) -> bytes:
    return b'{"type":"news","event":' + msgspec.json.encode(event) + b"}\n"


class Shown:
    """What a terminal would show: the lines said, and the live line as last drawn."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.out = io.StringIO()
        self.screen = Screen(lambda text, markup: self.lines.append(text), self.out, live=True)

    @property
    def live(self) -> str:
        return self.out.getvalue().rsplit("\r", 1)[-1]


@asynccontextmanager
async def joined(
    shown: Shown, keyboard: Keyboard | None = None
) -> AsyncIterator[tuple[trio.abc.Stream, list[BaseException | str | None]]]:
    """``join``'s client on one end of a memory stream; the test is the server."""
    client, server = trio.testing.memory_stream_pair()
    result: list[BaseException | str | None] = []

    async def run() -> None:
        try:
            result.append(await play(client, "ana", "t", screen=shown.screen, keyboard=keyboard))
        except ServerLost as lost:
            result.append(lost)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        yield server, result


@contextmanager
def typed() -> Iterator[tuple[Keyboard, int]]:
    read, write = os.pipe()
    try:
        yield Keyboard(Screen(lambda *_: None, io.StringIO(), live=False), fd=read), write
    finally:
        os.close(read)
        os.close(write)


async def test_the_deadline_counts_down_and_a_timeout_replaces_the_prompt(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Nobody types: the prompt counts the seconds down; the server's timeout replaces it."""
    frames, priority, seq = opening_frames()
    shown = Shown()
    async with joined(shown) as (server, result):
        await server.send_all(b"".join(frames) + priority)
        await trio.sleep(0.5)
        assert shown.live == "choose 1-2 (60 s left): "
        assert "Round 1: Ana, a chance to react: cur leaves your reach." in shown.lines[-1]
        await trio.sleep(58.6)
        assert shown.live == "choose 1-2 (1 s left): "
        await trio.sleep(1)
        assert shown.live == "time is up; waiting for the server (1-2): "
        reason = f"no decision for seq {seq} within 60 s: recorded as a timeout"
        await server.send_all(wire.encode(wire.Error(reason=reason)))
        failed = DecisionFailed(seq=seq + 1, cause=seq, who="ana", kind="timeout")
        await server.send_all(news(failed))
        await trio.sleep(0.1)
        assert shown.lines[-2] == f"server: {reason}"
        assert shown.lines[-1].startswith("Ana ")  # the table's narration of the timeout
        assert shown.live == "round 1, cur's turn: waiting"
        await server.aclose()
    assert isinstance(result[0], ServerLost)


async def test_news_past_the_decision_replaces_the_prompt(autojump_clock: trio.abc.Clock) -> None:
    """News after the decision's seq: the server has moved on, the prompt goes."""
    frames, priority, seq = opening_frames()
    shown = Shown()
    async with joined(shown) as (server, _):
        await server.send_all(b"".join(frames) + priority)
        await trio.sleep(5)
        failed = DecisionFailed(seq=seq + 1, cause=seq, who="ana", kind="error")
        await server.send_all(news(failed))
        await trio.sleep(0.1)
        assert "the fight has moved on: that decision is no longer asked" in shown.lines
        assert shown.live == "round 1, cur's turn: waiting"
        await server.aclose()


async def test_a_grace_period_counts_down_until_news(autojump_clock: trio.abc.Clock) -> None:
    """A grace frame: "waiting for NAME to reconnect", counting down; news ends it."""
    frames, _, seq = opening_frames()
    shown = Shown()
    async with joined(shown) as (server, _):
        await server.send_all(b"".join(frames))
        grace = {"type": "grace", "seat": "ana", "who": "ana", "remaining": 12.5}
        await server.send_all(json.dumps(grace).encode() + b"\n")
        await trio.sleep(0.1)
        assert shown.live == "waiting for Ana to reconnect: 13 s"
        await trio.sleep(10)
        assert shown.live == "waiting for Ana to reconnect: 3 s"
        await server.send_all(news(DecisionFailed(seq=seq + 1, who="ana", kind="error")))
        await trio.sleep(0.1)
        assert shown.live == "round 1, cur's turn: waiting"
        await server.aclose()


async def test_a_seat_without_news_names_whom_it_waits_for_and_drops_the_banner(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Issue 34, reproduction 9: a seat that hears no news showed "waiting for osric to
    reconnect" (an id) and kept it after Osric came back. The grace frame's name is shown,
    counting down, and a grace frame with nothing left takes the banner away."""
    welcome = wire.Welcome(version=1, seat="ana", combatants=("ana",), deadline=60.0,
                           encounter="Yard duel", ruleset="openings", news=False)  # fmt: skip
    frames, _, _ = opening_frames()
    table = [f for f in frames if f.startswith(b'{"type":"table"')]
    shown = Shown()
    async with joined(shown) as (server, _):
        await server.send_all(wire.encode(welcome) + b"".join(table))
        grace = wire.Grace(seat="south", who="cur", remaining=12.5, name="The Yard Dog")
        await server.send_all(wire.encode(grace))
        await trio.sleep(0.1)
        assert shown.live == "waiting for The Yard Dog to reconnect: 13 s"
        await trio.sleep(5)
        assert shown.live == "waiting for The Yard Dog to reconnect: 8 s"
        await server.send_all(wire.encode(wire.Grace(seat="south", who="", remaining=0.0)))
        await trio.sleep(0.1)
        assert shown.live == "round 1, cur's turn: waiting"
        await server.aclose()


async def test_a_lost_server_is_noticed_at_once(autojump_clock: trio.abc.Clock) -> None:
    """The connection ends mid-decision: ``join`` stops with ServerLost, no time passing."""
    frames, priority, _ = opening_frames()
    shown = Shown()
    async with joined(shown) as (server, result):
        await server.send_all(b"".join(frames) + priority)
        await trio.sleep(1)
        before = trio.current_time()
        await server.aclose()
    assert isinstance(result[0], ServerLost)
    assert trio.current_time() == before
    assert str(result[0]) == "the server closed the connection before the end of the fight"


async def test_the_number_typed_is_sent_for_the_decision_on_screen() -> None:
    """A line typed (here through a pipe) answers the decision shown, by its offer index."""
    frames, priority, seq = opening_frames()
    shown = Shown()
    with typed() as (keyboard, keys):
        async with joined(shown, keyboard) as (server, result):
            await server.send_all(b"".join(frames) + priority)
            hello = await server.receive_some()
            assert json.loads(hello) == {"type": "hello", "version": 1, "seat": "ana", "token": "t"}
            while not shown.live.startswith("choose"):  # the decision is on screen
                await trio.sleep(0.01)
            os.write(keys, b"7\n1\n")
            answer = await server.receive_some()
            assert json.loads(answer) == {"type": "decision", "who": "ana", "seq": seq, "offer": 0}
            assert shown.lines[-2:] == ["Type a number from 1 to 2.", "> Attack cur with the sword"]
            await server.send_all(wire.encode(wire.End(winner="south", events=seq + 1)))
    assert result == ["south"]
    assert re.fullmatch(r"standing: .*", shown.lines[-1])


async def test_lines_typed_at_once_at_a_terminal_are_each_read() -> None:
    """At a terminal (key by key), several lines arriving in one read (pasted, or typed ahead
    of a busy program) are each a line; none is lost after the first."""
    main, other = os.openpty()
    try:
        screen = Screen(lambda *_: None, io.StringIO(), live=True)
        with Keyboard(screen, fd=other) as keyboard, trio.fail_after(5):
            os.write(main, b"gm hp goblin-1 0\ngm hp goblin-2 0\ngm hp bo")
            assert await keyboard.line() == "gm hp goblin-1 0"
            assert await keyboard.line() == "gm hp goblin-2 0"  # (lost: waited for ever)
            os.write(main, b"ss 0\n")
            assert await keyboard.line() == "gm hp boss 0"
    finally:
        os.close(main)
        os.close(other)


@pytest.mark.parametrize("eof", [b"", b"\x04"])
async def test_the_input_ending_leaves_the_fight(eof: bytes) -> None:
    """The keyboard's input ends (a closed pipe): the person has left."""
    from initiative.table._join import LeftFight

    frames, priority, _ = opening_frames()
    read, write = os.pipe()
    keyboard = Keyboard(Screen(lambda *_: None, io.StringIO(), live=False), fd=read)
    os.write(write, eof)
    os.close(write)
    client, server = trio.testing.memory_stream_pair()
    await server.send_all(b"".join(frames) + priority)
    with pytest.raises(LeftFight):
        await play(client, "ana", "t", screen=Shown().screen, keyboard=keyboard)
    os.close(read)


@pytest.mark.slow  # a real join process against a server that misbehaves
@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ({"type": "odds", "win": [1, 2]}, "'list' object has no attribute 'items'"),
        (["not", "a", "map"], "'list' object has no attribute 'get'"),
        ({"type": "odds", "win": {"north": "x"}}, "could not convert string to float"),
    ],
)
def test_a_server_that_sends_nonsense_to_the_gm_is_one_line(bad: object, said: str) -> None:
    """A frame ``join --gm`` cannot read (a list where a map belongs, a chance that is no
    number) ends it with one line and exit 2, never a traceback (a list was an AttributeError,
    which escaped)."""
    import socket
    import subprocess
    import sys
    import threading

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    welcome = {"type": "welcome", "role": "gm", "encounter": "Yard", "version": 1}

    def serve() -> None:
        conn, _ = sock.accept()
        with conn:
            conn.recv(65536)  # the hello
            for frame in (welcome, bad):
                conn.sendall(json.dumps(frame).encode() + b"\n")
            conn.recv(65536)  # until the client goes

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    address = f"127.0.0.1:{sock.getsockname()[1]}"
    command = [sys.executable, "-m", "initiative", "join", address, "--gm", "--token", "t"]
    done = subprocess.run(
        command, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    server.join(10)
    sock.close()
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "the server sent a frame this client cannot read" in done.stderr and said in done.stderr
