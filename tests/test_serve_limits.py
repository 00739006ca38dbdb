"""The seat server's limits on one client, in virtual time: the fight never waits on a client."""

from __future__ import annotations

import json

import trio
import trio.testing
from helpers import encounter
from initiative.actors import Seat
from initiative.engine import Decision, Fight, Stepper
from serve_support import ENCOUNTER
from structlog.testing import capture_logs

from initiative.table._serve import Limits, SeatServer

LIMITS = Limits(hello_timeout=10, frame_timeout=10, send_timeout=5)


def server() -> SeatServer:
    return SeatServer(encounter(ENCOUNTER), {}, LIMITS)


def watching(serving: SeatServer) -> bytes:
    """A spectator's hello, with the spectators' token."""
    frame = {"type": "hello", "version": 1, "role": "spectator", "token": serving.spectator_token}
    return json.dumps(frame).encode() + b"\n"


async def test_a_client_that_never_reads_is_cut_and_publishing_never_waits(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A spectator that reads nothing: publishing goes on at once; the client is cut off."""
    serving = server()
    client, end = trio.testing.lockstep_stream_pair()  # a send waits for the reader
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serving.handle, end)
            await client.send_all(watching(serving))
            started = trio.current_time()
            for n in range(1000):
                serving.publish([b'{"type":"Filler","seq":%d}\n' % n])
            assert trio.current_time() == started
            serving.finish(None)
    assert serving.connections == 0
    assert {"event": "connection cut", "log_level": "warning", "peer": "?",
            "reason": "the client read nothing for 5 s"} in logs  # fmt: skip


async def test_one_byte_a_minute_is_cut_at_the_hello_timeout(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A hello trickled in a byte a minute never completes: cut off after 10 s."""
    serving = server()
    client, end = trio.testing.memory_stream_pair()
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serving.handle, end)
            started = trio.current_time()
            for byte in b'{"type": "hello"':
                try:
                    await client.send_all(bytes([byte]))
                except trio.BrokenResourceError:
                    break
                await trio.sleep(60)
            answer = await client.receive_some()
    assert answer == b'{"type":"error","reason":"no hello in time","fatal":true}\n'
    assert trio.current_time() - started <= 61
    assert [entry["reason"] for entry in logs] == ["no hello in time"]


async def frames_until(stream: trio.abc.ReceiveStream, kind: str, buffer: bytearray) -> dict:
    """Read frames from ``stream`` up to the first of ``kind`` (returned)."""
    while True:
        while b"\n" in buffer:
            line, _, rest = bytes(buffer).partition(b"\n")
            buffer[:] = rest
            frame = json.loads(line)
            if frame["type"] == kind:
                return frame
        data = await stream.receive_some()
        assert data, f"closed before a {kind} frame"
        buffer += data


async def test_a_spectator_gone_mid_send_is_one_line_and_the_fight_goes_on(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A spectator whose connection breaks while the server is sending to it (a reset, a broken
    pipe) ends that connection only, logged in one line: the server goes on."""
    serving = server()
    client, end = trio.testing.lockstep_stream_pair()
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serving.handle, end)
            await client.send_all(watching(serving))
            await client.receive_some(10)  # the welcome is being sent; then vanish mid-frame
            await client.aclose()
            for n in range(100):
                serving.publish([b'{"type":"Filler","seq":%d}\n' % n])
            await trio.sleep(1)
            assert serving.connections == 0
            serving.finish(None)
    assert logs == [{"event": "connection lost", "log_level": "warning", "peer": "?",
                     "seat": "(spectator)", "reason": "the connection broke"}]  # fmt: skip


async def test_a_grace_never_outlasts_the_deadline(autojump_clock: trio.abc.Clock) -> None:
    """A seat that drops 8 s into a 10 s deadline has 2 s of grace (everyone is told), not
    its 30; reconnecting inside it gets the same priority with the time left. The deadline,
    when it comes, is a timeout."""
    spec = encounter(ENCOUNTER)
    token = Stepper(Fight(spec, spec.seed)).token
    assert token is not None
    seat = Seat("s", (token.who,), deadline=10, grace=30)
    serving = SeatServer(spec, {"s": seat}, LIMITS)
    runner = seat.runner(token.who)
    decided: list[Decision] = []

    async def connect(hello: dict) -> trio.testing.MemoryReceiveStream:
        client, end = trio.testing.memory_stream_pair()
        nursery.start_soon(serving.handle, end)
        await client.send_all(json.dumps(hello).encode() + b"\n")
        return client

    async def decide() -> None:
        decided.append(await runner.decide(token))

    player_hello = {"type": "hello", "version": 1, "seat": "s", "token": seat.token}
    async with trio.open_nursery() as nursery:
        watcher = await connect(
            {"type": "hello", "version": 1, "role": "spectator", "token": serving.spectator_token}
        )
        player = await connect(player_hello)
        nursery.start_soon(decide)
        first = await frames_until(player, "priority", bytearray())
        assert (first["seq"], first["deadline"]) == (token.view.seq, 10.0)
        await trio.sleep(8)
        await player.aclose()  # the seat hangs up holding priority
        grace = await frames_until(watcher, "grace", bytearray())
        assert grace == {"type": "grace", "seat": "s", "who": token.who, "remaining": 2.0,
                     "name": token.who}  # fmt: skip
        await trio.sleep(1)
        again = await connect(player_hello)
        same = await frames_until(again, "priority", bytearray())
        assert (same["seq"], same["deadline"]) == (first["seq"], 1.0)
        await trio.sleep(5)
        assert decided and decided[0].failure == "timeout"
        serving.finish(None)
        await watcher.aclose()
        await again.aclose()
