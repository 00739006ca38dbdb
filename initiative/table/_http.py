"""HTTP/1.1 for the browser pages of ``serve``, parsed by h11 (which trio-websocket brings).

A connection whose first bytes are an HTTP request gets one answer and is closed: a page, an
HTTP error with its reason in words, or (at ``/ws``) the WebSocket that carries the seat
protocol. Nothing here knows the fight: :mod:`initiative._serve` says what each path is.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from http import HTTPStatus

import h11
import trio

#: Bytes a request's head may take (request line and headers).
MAX_HEAD = 8 * 1024

#: Headers every answer carries: nothing is cached, no address leaks, no type is guessed.
COMMON = [
    ("Cache-Control", "no-store"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
    ("Connection", "close"),
]


@dataclass(frozen=True)
class Request:
    """One request's head, as h11 read it."""

    method: str
    path: str
    """The target without its query."""
    headers: dict[str, str] = field(default_factory=dict)
    """Lower-cased names; a repeated header's values joined by commas."""
    raw: bytes = b""
    """Every byte read from the connection so far (for the WebSocket handshake to read again)."""

    @property
    def upgrade(self) -> bool:
        """Whether it asks for a WebSocket."""
        return "websocket" in self.headers.get("upgrade", "").lower()


@dataclass(frozen=True)
class Refused:
    """A request that could not be read: the status to answer and why, in words."""

    status: int
    reason: str


async def read_request(stream: trio.abc.Stream, first: bytes, timeout: float) -> Request | Refused:
    """The request whose first bytes are ``first``; the rest read within ``timeout`` seconds."""
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    raw = bytearray(first)
    conn.receive_data(first)
    with trio.move_on_after(timeout):
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as err:
                status = err.error_status_hint if err.error_status_hint >= 400 else 400
                if status == 431 or len(raw) > MAX_HEAD:
                    return Refused(431, f"request head over {MAX_HEAD // 1024} KiB")
                why = str(err).split(":", 1)[0] or "malformed"
                return Refused(status, f"not an HTTP request this server reads ({why})")
            if isinstance(event, h11.Request):
                if len(raw) > MAX_HEAD and b"\r\n\r\n" not in raw[:MAX_HEAD]:
                    return Refused(431, f"request head over {MAX_HEAD // 1024} KiB")
                headers: dict[str, str] = {}
                for name, value in event.headers:
                    key = name.decode("latin-1").lower()
                    text = value.decode("latin-1")
                    headers[key] = f"{headers[key]}, {text}" if key in headers else text
                target = event.target.decode("latin-1")
                return Request(
                    method=event.method.decode("latin-1"),
                    path=target.split("?", 1)[0].split("#", 1)[0],
                    headers=headers,
                    raw=bytes(raw),
                )
            if event is h11.NEED_DATA:
                data = await stream.receive_some(4096)
                if not data:
                    return Refused(400, "the connection closed before the request was whole")
                raw += data
                conn.receive_data(bytes(data))
                continue
            return Refused(400, "not an HTTP request this server reads")
    return Refused(408, "no request in time")


def answer(
    status: int,
    body: bytes,
    content_type: str = "text/plain; charset=utf-8",
    *,
    head_only: bool = False,
    headers: list[tuple[str, str]] | None = None,
) -> bytes:
    """A whole response, written by h11 (``head_only``: for a HEAD request, without the body)."""
    conn = h11.Connection(h11.SERVER)
    # h11 writes a response only after it has read a request: give it the simplest one (a
    # HEAD's answer declares the length of a body it leaves out).
    method = b"HEAD" if head_only else b"GET"
    conn.receive_data(method + b" / HTTP/1.1\r\nHost: x\r\n\r\n")
    conn.next_event()
    conn.next_event()
    fields = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        *(headers or []),
        *COMMON,
    ]
    phrase = HTTPStatus(status).phrase.encode()
    data = conn.send(h11.Response(status_code=status, headers=fields, reason=phrase)) or b""
    if not head_only:
        data += conn.send(h11.Data(data=body)) or b""
    return data + (conn.send(h11.EndOfMessage()) or b"")


def error(
    status: int,
    reason: str,
    *,
    head_only: bool = False,
    allow: str = "",
    headers: list[tuple[str, str]] | None = None,
) -> bytes:
    """An HTTP error, its reason in words as the body."""
    extra = [("Allow", allow)] if allow else []
    return answer(
        status, reason.encode() + b"\n", head_only=head_only, headers=[*extra, *(headers or [])]
    )


async def send(stream: trio.abc.Stream, data: bytes, timeout: float) -> None:
    """Send a whole answer, giving up after ``timeout`` seconds or when the client has gone."""
    with trio.move_on_after(timeout):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await stream.send_all(data)
