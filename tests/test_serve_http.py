"""The server's HTTP layer (h11), in process and in virtual time: the pages, and each way a
request can be wrong answered with an HTTP error that says why, never a traceback."""

from __future__ import annotations

import trio
import trio.testing
from helpers import encounter
from initiative.actors import Seat
from serve_support import ENCOUNTER
from structlog.testing import capture_logs

from initiative.table._serve import Limits, SeatServer

LIMITS = Limits(hello_timeout=10, frame_timeout=10, send_timeout=5)


async def ask(server: SeatServer, *chunks: bytes) -> bytes:
    """Send ``chunks`` (a minute apart: none if one) and read the whole answer."""
    client, end = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(server.handle, end)
        for i, chunk in enumerate(chunks):
            if i:
                await trio.sleep(60)
            try:
                await client.send_all(chunk)
            except trio.BrokenResourceError:
                break
        answer = b""
        while data := await client.receive_some():
            answer += data
    return answer


def head(answer: bytes) -> tuple[str, dict[str, str], bytes]:
    """The status line, the headers (lower-cased names) and the body."""
    top, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = top.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines)
    return status, {k.lower(): v for k, v in fields.items()}, body


async def test_pages_and_http_errors(autojump_clock: trio.abc.Clock) -> None:
    """Each page is HTML; a wrong method, path, seat, upgrade or head is an HTTP error naming
    it, logged in one line; a HEAD has the GET's headers without the body."""
    seats = {"ana": Seat("ana", ("ana",), deadline=10)}
    server = SeatServer(encounter(ENCOUNTER), seats, LIMITS)
    for path in ("/gm", "/watch", "/seat/ana", "/"):
        status, fields, body = head(
            await ask(server, f"GET {path} HTTP/1.1\r\nHost: h\r\n\r\n".encode())
        )
        assert status == "HTTP/1.1 200 OK", path
        assert fields["content-type"] == "text/html; charset=utf-8"
        assert int(fields["content-length"]) == len(body) and b"<html" in body
        assert fields["cache-control"] == "no-store" and fields["connection"] == "close"
    status, fields, body = head(await ask(server, b"HEAD /gm HTTP/1.1\r\nHost: h\r\n\r\n"))
    assert (status, body) == ("HTTP/1.1 200 OK", b"") and int(fields["content-length"]) > 1000
    wrong = {
        b"GET /seat/zed HTTP/1.1\r\nHost: h\r\n\r\n": ("404 Not Found", "no page at /seat/zed"),
        b"GET /admin HTTP/1.1\r\nHost: h\r\n\r\n": ("404 Not Found", "no page at /admin"),
        b"POST /gm HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n": (
            "405 Method Not Allowed", "POST is not served here: pages are read with GET"
        ),
        b"GET /ws HTTP/1.1\r\nHost: h\r\n\r\n": (
            "426 Upgrade Required",
            "the seat protocol over a WebSocket: connect with a WebSocket client",
        ),
        b"GET /\x00 HTTP/1.1\r\n\r\n": (
            "400 Bad Request", "not an HTTP request this server reads (illegal request line)"
        ),
        b"GET / HTTP/1.1\r\nHost: h\r\nX: " + b"a" * 9000: (
            "431 Request Header Fields Too Large", "request head over 8 KiB"
        ),
    }  # fmt: skip
    with capture_logs() as logs:
        for request, (status, reason) in wrong.items():
            got, fields, body = head(await ask(server, request))
            assert (got, body) == (f"HTTP/1.1 {status}", reason.encode() + b"\n"), request[:30]
            assert fields["content-type"] == "text/plain; charset=utf-8"
            assert fields.get("allow") == ("GET, HEAD" if status.startswith("405") else None)
        got, _, body = head(await ask(server, b"GET /gm HTTP/1.1\r\n", b"Host: h\r\n"))
    assert (got, body) == ("HTTP/1.1 408 Request Timeout", b"no request in time\n")
    refusals = [e["reason"] for e in logs if e["event"] == "request refused"]
    assert refusals == [
        "not an HTTP request this server reads (illegal request line)",
        "request head over 8 KiB",
        "no request in time",
    ]
    assert server.connections == 0
