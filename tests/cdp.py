"""A minimal Chrome DevTools Protocol client for tests: headless Chromium, one page.

Debian's ``chromium`` is driven directly (playwright would download browsers of its own). The
browser picks a free port and writes it to ``DevToolsActivePort`` in its profile directory; the
page's websocket carries commands, answers and events as JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """One headless Chromium with one page; ``errors`` collects console errors and exceptions."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                f"--user-data-dir={profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._stack = ExitStack()
        try:
            port = self._port(profile / "DevToolsActivePort")
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                targets = json.load(r)
            page = next(t for t in targets if t["type"] == "page")
            self.ws = self._stack.enter_context(
                connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
            )
        except BaseException:
            self._stop()
            raise
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")

    def _port(self, path: Path) -> int:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if path.exists():
                first = path.read_text().splitlines()[:1]
                if first and first[0].isdigit():
                    return int(first[0])
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.proc.returncode}")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its DevTools port")

    def _note(self, msg: dict[str, Any]) -> None:
        self.events.append(msg)
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params["exceptionDetails"])[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(json.dumps(params.get("args"))[:500])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append(params["entry"].get("text", "")[:500])
        elif method == "Page.javascriptDialogOpening":
            self.dialogs.append(params.get("message", ""))
            self.send("Page.handleJavaScriptDialog", accept=True)

    def send(self, method: str, **params: Any) -> int:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        wanted = self.send(method, **params)
        while True:
            msg = json.loads(self.ws.recv(timeout=30))
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self._note(msg)

    def wait_for(self, method: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for msg in self.events:
            if msg.get("method") == method:
                return msg
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv(timeout=deadline - time.monotonic()))
            if "method" in msg:
                self._note(msg)
                if msg["method"] == method:
                    return msg
        raise TimeoutError(method)

    def open(self, path: Path) -> None:
        self.events.clear()
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element ``selector``."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                type=kind,
                x=box[0],
                y=box[1],
                button="left",
                clickCount=1,
            )

    def close(self) -> None:
        try:
            self._stack.close()
        finally:
            self._stop()

    def _stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
