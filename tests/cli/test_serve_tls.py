"""A real ``serve --tls`` with a self-signed certificate: a browser seat over https and wss, the
documented bot over TLS, a ``join --tls --ca`` spectator to the end, and plain-text clients
refused in the middle of the fight without stopping it (one server for all of them)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from browser import seat_decisions
from serve_support import OPENSSL, Server, certificate, events_of

pytestmark = [
    pytest.mark.slow,  # a server, a browser, a bot and a spectator, each a real process
    pytest.mark.skipif(OPENSSL is None, reason="no openssl command to make a certificate"),
]

CHROMIUM = "/usr/bin/chromium"


def tls_bot(folder: Path) -> Path:
    """The bot of docs/protocol.md with its TLS lines in place of its ``sock = ...`` line."""
    doc = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    bot, tls = blocks[0], blocks[1]
    connect = "sock = socket.create_connection((host, port))\n"
    assert bot.count(connect) == 1 and "ssl.create_default_context(cafile=" in tls
    path = folder / "tls_bot.py"
    path.write_text(bot.replace(connect, tls))
    return path


def plain(port: int, request: bytes) -> bytes:
    """What the server answers a plain-text ``request`` with, until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_a_fight_over_tls_with_every_kind_of_client(tmp_path: Path) -> None:
    """The browser plays ana over https (its WebSocket over wss), the documented bot plays south
    over TLS trusting the certificate's file, ``join --tls --ca`` watches to the end and keeps a
    byte-identical copy; plain text sent mid-fight is refused in one line each."""
    playwright = pytest.importorskip("playwright.sync_api")
    cert, key = certificate(tmp_path)
    copy = tmp_path / "copy.jsonl"
    with Server(
        tmp_path, "--seat", "ana", "--seat", "south", "--tls", str(cert), str(key)
    ) as server, playwright.sync_playwright() as p:  # fmt: skip
        port = server.port
        assert f"listening on 127.0.0.1:{port} (TLS)\n" in server.out
        assert f"  browser:  {server.https_url('ana')}\n" in server.out
        assert (
            f"  terminal: initiative join 127.0.0.1:{port} --tls --ca localhost.crt" in server.out
        )
        go_on = server.go_on()
        assert go_on[go_on.index("--tls") :][:3] == ["--tls", str(cert), str(key)]
        watcher = subprocess.Popen(
            [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{port}", "--watch",
             "--token", server.spectator_token, "--ca", str(cert), "--out", str(copy)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        bot = subprocess.Popen(
            [sys.executable, str(tls_bot(tmp_path)), "127.0.0.1", str(port), "south",
             server.tokens["south"], str(cert)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                  "--disable-default-apps", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        try:
            assert watcher.stdout.readline() == "watching Yard duel\n"
            page = browser.new_page(ignore_https_errors=True)  # the self-signed certificate
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.goto(server.https_url("ana"))
            clicks = 0
            for _ in seat_decisions(page):
                if clicks == 0:  # the fight is on, waiting for ana: plain text knocks
                    refused = plain(port, b'{"type": "hello", "version": 1}\n')
                    moved = plain(
                        port, f"GET /seat/ana HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
                    )
                clicks += 1
            final = page.locator("#status").text_content()
            assert problems == []
            watched, unwatched = watcher.communicate(timeout=60)
            told, bot_errors = bot.communicate(timeout=60)
        finally:
            browser.close()
            for child in (watcher, bot):
                if child.poll() is None:
                    child.kill()
                    child.communicate()
        assert watcher.returncode == 0, unwatched
        assert bot.returncode == 0, bot_errors
        assert server.finish() == 0
    events = server.verified()
    winner = events[-1]["winner"]
    assert final == f"the fight is over: {winner or 'no one'} won"
    assert told == f"winner: {winner}\n"
    assert watched.endswith(f"the fight is over: {winner or 'no one'} won\n")
    assert copy.read_bytes() == server.log.read_bytes()
    assert clicks >= 1 and events_of(events, "DecisionFailed") == []
    assert json.loads(refused)["reason"].startswith("this server speaks TLS")
    assert moved.startswith(b"HTTP/1.1 307 Temporary Redirect\r\n")
    assert f"\r\nLocation: https://127.0.0.1:{port}/seat/ana\r\n".encode() in moved
    logged = [json.loads(line) for line in server.err.splitlines() if line.startswith("{")]
    warned = [(w["event"], w["reason"]) for w in logged if w["level"] == "warning"]
    assert [w for w in warned if "plain" in w[1]] == [
        ("connection refused", "plain text on the TLS port"),
        ("connection refused", "plain HTTP on the TLS port: sent to https://"),
    ]
    # Chromium tries the certificate before it is told to ignore the error: a refusal each.
    assert {w[1] for w in warned if "plain" not in w[1]} <= {
        "the other side does not trust the certificate (sslv3 alert certificate unknown)",
        "the connection closed during the TLS handshake",
    }
    assert all(event == "connection refused" for event, _ in warned)


def test_a_bad_key_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """``serve --tls`` with the certificate given as its own key: one line, exit 2, no log."""
    cert, _ = certificate(tmp_path)
    duel = Path(__file__).parents[2] / "examples" / "openings-duel.toml"
    done = subprocess.run(
        [sys.executable, "-m", "initiative", "serve", str(duel), "--seat", "ilse",
         "--tls", str(cert), str(cert), "--out", str(tmp_path / "x.jsonl")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"error: {cert}: not a private key in PEM format\n"
    assert not (tmp_path / "x.jsonl").exists()
