"""The browser pages ``serve`` hands out, built from the same parts.

Each page is one self-contained HTML file (no external resource, no network but its own
WebSocket): the template ``pages/page.html`` with the shared style ``pages/table.css`` and the
shared script ``pages/table.js`` inlined, and the parts shared with ``initiative view`` (the roll cards, where the map's names go). The script reads which page it is from the ``<body>``
(``gm``, ``watch``, ``seat``, ``home``) and draws the same parts on each: the tracker, the
battle map, the roll cards, the narration, the round and the countdown; the GM page adds the
override controls, the seat page the decision.
"""

from __future__ import annotations

import functools
from importlib import resources

#: The pages, by kind: their title.
KINDS = {
    "gm": "game master",
    "watch": "spectator",
    "seat": "seat",
    "home": "initiative",
}


def part(name: str) -> str:
    """One part (``table.css``, ``table.js``, ``page.html``) as text."""
    return resources.files(__package__).joinpath("pages", name).read_text(encoding="utf-8")


def shared(name: str) -> str:
    """A part the pages share with ``initiative view`` (``rolls.js``, ``rolls.css``: the roll
    cards; ``map.js``: where the map's names go), kept with the view's page in the replays
    package."""
    return resources.files("initiative.replays").joinpath("parts", name).read_text(encoding="utf-8")


@functools.cache
def page(kind: str) -> bytes:
    """The page of ``kind`` (one of :data:`KINDS`), whole."""
    if kind not in KINDS:
        raise ValueError(f"no page {kind!r}")
    html = part("page.html")
    return (
        html.replace("__KIND__", kind)
        .replace("__TITLE__", KINDS[kind])
        .replace("/*CSS*/", part("table.css"))
        .replace("/*ROLLS_CSS*/", shared("rolls.css"))
        .replace("/*ROLLS_JS*/", shared("rolls.js"))
        .replace("/*MAP_JS*/", shared("map.js"))
        .replace("/*JS*/", part("table.js"))
        .encode()
    )
