"""The seat server over TLS, in process: the handshake first (bounded by the hello timeout), the
two protocols told apart after it; plain text on a TLS port answered in plain text; a failed
handshake one line in the server's log; bad certificate files one clear error each."""

from __future__ import annotations

import functools
import json
import ssl
import subprocess
from pathlib import Path

import pytest
import trio
import trio.testing
from helpers import encounter
from initiative.engine import Fight, LogSink, Stepper
from initiative.events import InitiativeError
from serve_support import ENCOUNTER, OPENSSL, certificate
from structlog.testing import capture_logs

from initiative.table._join import Screen, client_context, join_fight
from initiative.table._serve import Limits, SeatServer, server_context

pytestmark = pytest.mark.skipif(OPENSSL is None, reason="no openssl command to make a certificate")

LIMITS = Limits(hello_timeout=10, frame_timeout=10, send_timeout=5)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return certificate(tmp_path_factory.mktemp("tls"))


def serving(files: tuple[Path, Path]) -> SeatServer:
    return SeatServer(
        encounter(ENCOUNTER), {}, LIMITS, tls=server_context(*files), spectators="all"
    )


async def read_all(stream: trio.abc.ReceiveStream) -> bytes:
    data = b""
    while chunk := await stream.receive_some():
        data += chunk
    return data


async def test_a_spectator_and_a_page_are_served_over_tls(
    files: tuple[Path, Path], autojump_clock: trio.abc.Clock
) -> None:
    """After the handshake, a hello is the line protocol and a GET is HTTP, as in plain text."""
    server = serving(files)
    context = client_context(files[0])
    async with trio.open_nursery() as nursery:
        plain, end = trio.testing.memory_stream_pair()
        nursery.start_soon(server.handle, end)
        client = trio.SSLStream(plain, context, server_hostname="localhost", https_compatible=True)
        hello = {
            "type": "hello",
            "version": 1,
            "role": "spectator",
            "token": server.spectator_token,
        }
        await client.send_all(json.dumps(hello).encode() + b"\n")
        spec = server.spec
        fight = Fight(spec, spec.seed, sink=LogSink(written=server.publish))
        assert Stepper(fight).token is not None  # the events up to the first decision
        server.finish(None)
        frames = [json.loads(line) for line in (await read_all(client)).splitlines()]
        news = [f["event"] for f in frames if f["type"] == "news"]
        assert [f["type"] for f in frames if f["type"] != "news"] == ["welcome", "table", "end"]
        assert [json.dumps(e, separators=(",", ":")).encode() for e in news] == server.lines

        plain, end = trio.testing.memory_stream_pair()
        nursery.start_soon(server.handle, end)
        client = trio.SSLStream(plain, context, server_hostname="localhost", https_compatible=True)
        await client.send_all(b"GET /watch HTTP/1.1\r\nHost: localhost\r\n\r\n")
        page = await read_all(client)
    assert page.startswith(b"HTTP/1.1 200 OK\r\n") and b"<html" in page
    assert server.connections == 0


async def test_a_handshake_that_never_ends_is_cut_at_the_hello_timeout(
    files: tuple[Path, Path], autojump_clock: trio.abc.Clock
) -> None:
    """A client that starts a TLS handshake and stalls, or says nothing at all, is cut after
    the hello timeout (10 s here), one line each (the silent one is told in plain text, as a
    TLS client would have spoken first)."""
    server = serving(files)
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            stalled, end = trio.testing.memory_stream_pair()
            nursery.start_soon(server.handle, end)
            silent, end = trio.testing.memory_stream_pair()
            nursery.start_soon(server.handle, end)
            started = trio.current_time()
            await stalled.send_all(b"\x16\x03\x01\x02\x00")  # a record header, then nothing
            assert await read_all(stalled) == b""
            told = await read_all(silent)
            assert trio.current_time() - started == 10
    assert json.loads(told) == {"type": "error", "reason": "no hello in time", "fatal": True}
    assert sorted(entry["reason"] for entry in logs) == ["no TLS handshake in time",
                                                         "no hello in time"]  # fmt: skip
    assert server.connections == 0


async def test_plain_text_on_a_tls_port_is_answered_in_plain_text(
    files: tuple[Path, Path], autojump_clock: trio.abc.Clock
) -> None:
    """A hello in plain text gets a fatal error frame saying to use TLS; a browser's plain GET
    is sent to the same page over https (the token's fragment goes along by itself)."""
    server = serving(files)
    requests = [
        b'{"type": "hello", "version": 1}\n',
        b"GET /seat/ana HTTP/1.1\r\nHost: gm-laptop:7000\r\nAccept: */*\r\n\r\n",
        b"GET /seat/ana HTTP/1.0\r\n\r\n",
    ]
    answers = []
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            for request in requests:
                client, end = trio.testing.memory_stream_pair()
                nursery.start_soon(server.handle, end)
                await client.send_all(request)
                answers.append(await read_all(client))
    assert json.loads(answers[0]) == {
        "type": "error",
        "reason": "this server speaks TLS: connect with TLS (initiative join --tls;"
        " docs/protocol.md)",
        "fatal": True,
    }
    assert answers[1].startswith(b"HTTP/1.1 307 Temporary Redirect\r\n")
    assert b"\r\nLocation: https://gm-laptop:7000/seat/ana\r\n" in answers[1]
    assert answers[2].startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert [(e["event"], e["reason"]) for e in logs] == [
        ("connection refused", "plain text on the TLS port"),
        ("connection refused", "plain HTTP on the TLS port: sent to https://"),
        ("connection refused", "plain HTTP on the TLS port"),
    ]


async def test_a_client_that_distrusts_the_certificate_is_one_line(
    files: tuple[Path, Path], autojump_clock: trio.abc.Clock
) -> None:
    """A client checking against the system's authorities refuses a self-signed certificate:
    its handshake fails, and the server logs one line and serves on (Trio's client closes
    without an alert; the standard library's sends one, logged as "does not trust")."""
    server = serving(files)
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            plain, end = trio.testing.memory_stream_pair()
            nursery.start_soon(server.handle, end)
            client = trio.SSLStream(
                plain, ssl.create_default_context(), server_hostname="localhost"
            )
            with pytest.raises(trio.BrokenResourceError) as refused:
                await client.do_handshake()
            assert isinstance(refused.value.__cause__, ssl.SSLCertVerificationError)
            await plain.aclose()
    assert [(e["event"], e["reason"]) for e in logs] == [
        ("connection refused", "the connection closed during the TLS handshake")
    ]
    assert server.connections == 0


async def test_a_tls_client_on_a_plain_port_is_one_line(autojump_clock: trio.abc.Clock) -> None:
    """A server without --tls that is sent a TLS handshake says so and closes."""
    server = SeatServer(encounter(ENCOUNTER), {}, LIMITS)
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            plain, end = trio.testing.memory_stream_pair()
            nursery.start_soon(server.handle, end)
            client = trio.SSLStream(plain, ssl.create_default_context(), server_hostname="x")
            with pytest.raises(trio.BrokenResourceError):
                await client.do_handshake()
    assert [(e["event"], e["reason"]) for e in logs] == [
        ("connection refused", "a TLS handshake, but this server speaks plain text (no --tls)")
    ]


def test_bad_certificate_files_are_one_clear_error_each(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    """A missing file, a key given as the certificate, a certificate as the key, the key of
    another certificate, an encrypted key: each is one line naming the file."""
    cert, key = files
    other_cert, other_key = certificate(tmp_path, "other")
    locked = tmp_path / "locked.key"
    subprocess.run(
        [OPENSSL, "pkey", "-in", str(key), "-aes128", "-passout", "pass:secret", "-out",
         str(locked)], check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    cases = [
        (tmp_path / "none.crt", key, f"{tmp_path / 'none.crt'}: cannot read: No such file or"
                                     " directory"),
        (key, key, f"{key}: not a certificate in PEM format"),
        (cert, cert, f"{cert}: not a private key in PEM format"),
        (cert, other_key, f"{other_key}: not the private key of {cert}"),
        (cert, locked, f"{locked}: the private key is encrypted; give one without a passphrase"
                       " (openssl pkey -in KEY -out KEY.plain)"),
    ]  # fmt: skip
    for given_cert, given_key, message in cases:
        with pytest.raises(InitiativeError) as bad:
            server_context(given_cert, given_key)
        assert str(bad.value) == message
    assert server_context(other_cert, other_key) is not None
    with pytest.raises(InitiativeError, match=r": not a certificate in PEM format$"):
        client_context(key)


async def test_join_says_why_a_tls_connection_failed(files: tuple[Path, Path]) -> None:
    """``join`` over loopback: a self-signed certificate not given with --ca, a server without
    --tls, and plain text to a TLS server each end in one line saying what to do."""
    tls_server = serving(files)
    plain_server = SeatServer(encounter(ENCOUNTER), {}, LIMITS)
    screen = Screen(lambda text, markup: None, live=False)
    failures = []
    async with trio.open_nursery() as nursery:
        ports = []
        for server in (tls_server, plain_server):
            serve = functools.partial(trio.serve_tcp, server.handle, 0, host="127.0.0.1")
            listeners = await nursery.start(serve)
            ports.append(listeners[0].socket.getsockname()[1])
        for port, context in [(ports[0], client_context()), (ports[1], client_context()),
                              (ports[0], None)]:  # fmt: skip
            with pytest.raises(InitiativeError) as failed:
                await join_fight(f"127.0.0.1:{port}", None, None, screen=screen, tls=context)
            failures.append(str(failed.value).replace(str(port), "PORT"))
        nursery.cancel_scope.cancel()
    assert failures == [
        "cannot connect to 127.0.0.1:PORT with TLS: its certificate is not trusted (self-signed"
        " certificate); for a self-signed certificate, give a copy of it with --ca FILE",
        "cannot connect to 127.0.0.1:PORT with TLS: the connection closed during the TLS"
        " handshake (was it started with serve --tls?)",
        "the server refused: this server speaks TLS: connect with TLS (initiative join --tls;"
        " docs/protocol.md)",
    ]
