"""Debian's chromium driven by Playwright (``executable_path``: it downloads no browser)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """One headless Chromium with one page; ``errors`` collects console errors and uncaught
    exceptions, ``dialogs`` the messages of any alert/confirm/prompt (dismissed)."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        assert CHROMIUM is not None
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"]
        )
        self.page = self._browser.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None
        )
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri())

    def js(self, expression: str) -> Any:
        return self.page.evaluate(expression)

    def click(self, selector: str) -> None:
        self.page.click(selector)

    def close(self) -> None:
        self._browser.close()
        self._playwright.stop()
