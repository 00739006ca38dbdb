"""View: one self-contained HTML page for a log (no network, no code from the log run).

The page holds the log's events as JSON inside a ``<script type="application/json">`` block,
with ``<``, ``>`` and ``&`` escaped as ``\\u003c`` and friends, so no text in a log can close
the block or open a tag. The page's script reads that data and inserts every name and summary
with ``textContent``, never as markup. Lanes per combatant (turns, with nested openings and
reactions) over a round axis, hit points over time with labelled axes, a battle map whose names
are placed so that none overlaps another or a token, the event list with causes and effects
linked, a slider to see the state after any event, and (``view --review``) each side's chance
to win before every decision, the graded decisions marked.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from typing import Any

import msgspec
from initiative.events import (
    AddCombatant,
    CombatantSpec,
    EncounterStarted,
    GmOverride,
    LogContents,
    Override,
)

from ._gm_words import told
from ._narrate import summary, who_of
from ._query import with_rounds

_SUMMARY_WIDTH = 160


def view_data(contents: LogContents, review: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the page needs: title, combatants, and per event its fields plus a summary (and,
    with ``review``, what :func:`replays.review` found: the page draws its curve)."""
    header = contents.header
    enc = header.encounter
    events = []
    names = {c.id: c.display for c in enc.combatants}
    done: dict[int, Override] = {}
    for row, line in zip(with_rounds(contents.events), contents.lines, strict=True):
        e = row.event
        raw = msgspec.json.decode(line)
        if isinstance(e, EncounterStarted):
            raw.pop("encounter", None)
        if isinstance(e, GmOverride):  # the GM's words, with names (a joiner's as given)
            o = e.override
            if isinstance(o, AddCombatant):
                names[o.id] = o.name or (o.combatant.display if o.combatant else o.id)
            text = told(e, done, lambda who: names.get(who or "", who or "-"))
        else:
            text = summary(e)
        if len(text) > _SUMMARY_WIDTH:
            text = text[: _SUMMARY_WIDTH - 1] + "…"
        events.append(
            {
                "seq": e.seq,
                "cause": e.cause,
                "type": type(e).__name__,
                "who": who_of(e),
                "round": row.round,
                "summary": text,
                "data": raw,
            }
        )
    return {
        "title": enc.name or f"{header.ruleset} encounter",
        "ruleset": header.ruleset,
        "seed": header.seed,
        "parent": header.parent,
        "fork_at": _fork_point(header.parent),
        "complete": contents.complete,
        "combatants": [_combatant(c) for c in enc.combatants],
        "events": events,
        "review": review,
    }


def _combatant(c: CombatantSpec) -> dict[str, Any]:
    """One combatant as the page draws it: its token's size, and the circles shown when the
    pointer rests on it (melee reach, longest weapon range; ``None`` when it has none)."""
    reach = max((w.reach for w in c.weapons if not w.ranged), default=None)
    reach_range = max((w.range or 0.0 for w in c.weapons if w.ranged), default=None)
    return {
        "id": c.id,
        "name": c.display,
        "side": c.side,
        "hp": c.hp,
        "size": c.size,
        "reach": reach,
        "range": reach_range,
    }


def _fork_point(parent: str | None) -> int | None:
    """The seq where a fork left its parent, from the header's description of it."""
    found = re.findall(r" at seq (\d+)(?:,|$)", parent or "")
    return int(found[-1]) if found else None


def embed_json(data: object) -> str:
    """JSON safe inside a ``<script>`` element: nothing in it can end the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def shared_part(name: str) -> str:
    """A part of the page shared with the served pages (``rolls.js``, ``rolls.css``: the roll
    cards; ``map.js``: where the map's names go), as text."""
    return files(__package__).joinpath("parts", name).read_text(encoding="utf-8")


def render_html(contents: LogContents, review: dict[str, Any] | None = None) -> str:
    """The whole page for ``contents``: one string, inline CSS and JS, no external resource
    (with ``review``, the data :func:`replays.review` returned, it draws each side's chance to
    win under the hit points, the graded decisions marked)."""
    template = files(__package__).joinpath("view.html").read_text(encoding="utf-8")
    page = template.replace("/*@ROLLS_CSS@*/", shared_part("rolls.css"), 1)
    page = page.replace("/*@ROLLS_JS@*/", shared_part("rolls.js"), 1)
    page = page.replace("/*@MAP_JS@*/", shared_part("map.js"), 1)
    return page.replace("/*@DATA@*/null", embed_json(view_data(contents, review)), 1)
