"""The seat server's limits on one client, in virtual time: the fight never waits on a client."""

from __future__ import annotations

import trio
import trio.testing
from helpers import encounter
from serve_support import ENCOUNTER
from structlog.testing import capture_logs

from initiative._serve import Limits, SeatServer

LIMITS = Limits(hello_timeout=10, frame_timeout=10, send_timeout=5)


def server() -> SeatServer:
    return SeatServer(encounter(ENCOUNTER), {}, LIMITS)


async def test_a_client_that_never_reads_is_cut_and_publishing_never_waits(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A spectator that reads nothing: publishing goes on at once; the client is cut off."""
    serving = server()
    client, end = trio.testing.lockstep_stream_pair()  # a send waits for the reader
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serving.handle, end)
            await client.send_all(b'{"type": "hello", "version": 1}\n')
            started = trio.current_time()
            for n in range(1000):
                serving.publish(b'{"type":"Filler","seq":%d}\n' % n)
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
