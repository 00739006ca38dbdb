"""Debian's chromium driven by Playwright (``executable_path``: it downloads no browser)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _images() -> Path:
    """Where the tests put the screenshots of the pages they drive: the docs' own pictures
    (``docs/images``) when ``INITIATIVE_DOC_IMAGES=1`` asks to remake them, else a folder of
    their own in the temporary folder (a test run does not change the checkout: Chromium's
    builds draw a pixel here and there differently, and the live odds differ run to run)."""
    if os.environ.get("INITIATIVE_DOC_IMAGES") == "1":
        return Path(__file__).parents[1] / "docs" / "images"
    folder = Path(tempfile.gettempdir()) / "initiative-screenshots"
    folder.mkdir(exist_ok=True)
    return folder


IMAGES = _images()
"""The folder the screenshots go to (see :func:`_images`)."""


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

    def hover(self, selector: str) -> None:
        """Rest the pointer on the first element ``selector`` matches."""
        self.page.hover(selector)

    def resize(self, width: int, height: int) -> None:
        self.page.set_viewport_size({"width": width, "height": height})

    def screenshot(self, path: Path, *, down_to: str | None = None) -> None:
        """A PNG of the page as wide as the viewport, from its top down to the bottom of the
        element ``down_to`` matches (the whole page without it)."""
        if down_to is None:
            self.page.screenshot(path=str(path), full_page=True)
            return
        bottom = self.js(
            f"document.querySelector({down_to!r}).getBoundingClientRect().bottom + scrollY + 12"
        )
        width = self.js("document.documentElement.clientWidth")
        clip = {"x": 0, "y": 0, "width": width, "height": bottom}
        self.page.screenshot(path=str(path), full_page=True, clip=clip)


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's chromium through Playwright (a ``Browser`` a test opens its own pages in),
    closed after."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def module_page(width: int | None = None, height: int | None = None) -> Iterator[Page]:
    """A module's one page (``yield from`` it in a module-scoped fixture), ``width`` by
    ``height`` when given, closed after the module; its tests are skipped without chromium."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium package)")
    page = Page()
    if width is not None and height is not None:
        page.resize(width, height)
    yield page
    page.close()


def answer_with_attack(page: Any) -> None:
    """On a seat page (a Playwright page) that shows a decision: click the first offer that
    attacks (else the last, ending the turn or passing) and wait until it is answered: the next
    question (which may come at once, the buttons never gone) or the end."""
    labels = page.locator("button.offer .text").all_text_contents()
    attack = [i for i, label in enumerate(labels) if label.startswith("Attack")]
    asked = page.evaluate("window.initiativePage.asked.seq")
    page.locator("button.offer").nth(attack[0] if attack else len(labels) - 1).click()
    page.wait_for_function(
        "([seq]) => { const p = window.initiativePage;"
        " return p.ended || !p.asked || p.asked.seq !== seq; }",
        arg=[asked],
    )


def seat_decisions(page: Any) -> Iterator[None]:
    """On a seat page (a Playwright page), each decision it shows until the fight is over: the
    loop's body runs while the question is on the page, then it is answered
    (:func:`answer_with_attack`)."""
    status = page.locator("#status")
    while True:
        page.wait_for_function(
            "document.querySelector('button.offer')"
            " || document.getElementById('status').textContent.startsWith('the fight is over:')",
            timeout=60_000,
        )
        if status.text_content().startswith("the fight is over:"):
            return
        yield
        answer_with_attack(page)
