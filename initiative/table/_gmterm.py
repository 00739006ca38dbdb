"""What ``join --gm`` shows beside the fight: the live odds and the review at the end.

The GM page's odds card and review card, in a terminal. The server's ``odds`` frames (``serve
--gm-odds``) become one line each time a side's chance moves by a whole percent, never a line
per frame; ``gm odds`` shows the newest. Once the fight is over the terminal stays (its hello
said ``review``, as the page's does) and offers ``gm review``: the ``review`` frame is sent,
the ``review_status`` frames show on the live line, and the report is fetched from ``GET
/review`` with the GM token as the page fetches it (:func:`fetch_report`), so that a GM at
another machine gets the file too. ``docs/table.md`` describes what the GM sees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h11
import trio

from initiative.events import visible

#: What ``gm odds`` says when no ``odds`` frame came.
ODDS_OFF = "the live odds are off: start the server with --gm-odds"

#: What ``gm review`` says before the end.
NOT_OVER = "the review is offered once the fight is over"

#: The table's own gm commands (the GM's terminal at ``join --gm``), after the prompt's.
TABLE_HELP = """\
At the table (join --gm):
  gm odds                           each side's chance to win now (serve --gm-odds)
  gm review                         once the fight is over: the server reviews it, and the
                                    report is saved here (join --review-out FILE)"""


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


def _sides(win: dict[str, Any], order: Iterable[str]) -> list[str]:
    """The sides of ``win``, those of the encounter first in its order (as the page's bar)."""
    known = [s for s in dict.fromkeys(order) if s in win]
    return known + [s for s in win if s not in known]


def odds_text(
    frame: dict[str, Any], order: Iterable[str], name: Callable[[str], str], full: bool = False
) -> str:
    """An ``odds`` frame in one line: each side's chance (with its 95% interval when ``full``),
    what is left to no winner, and where the fight stands (before whom, the result)."""
    win = {str(k): float(v) for k, v in frame.get("win", {}).items()}
    interval = frame.get("interval", {})
    parts = []
    for side in _sides(win, order):
        part = f"{visible(side)} {_pct(win[side])}"
        if full and side in interval and not frame.get("ended"):
            low, high = interval[side]
            part += f" (95%: {_pct(low)} to {_pct(high)})"
        parts.append(part)
    rest = 1 - sum(win.values())
    if rest > 0.005:
        parts.append(f"no winner {_pct(rest)}")
    if frame.get("ended"):
        where = "the result"
    else:
        where = f"round {frame.get('round', 0)}"
        if frame.get("who"):
            where += f", before {name(str(frame['who']))} decides"
        if full and frame.get("rollouts"):
            where += f", {frame['rollouts']} fights played out"
    return f"odds (GM only): {', '.join(parts) or 'none yet'} ({where})"


MAX_REPORT = 64 << 20
"""The largest report saved (a served page is a few hundred kB; a server sending more is not
believed)."""


def report_file(encounter: str, folder: Path | None = None) -> Path:
    """Where the review of ``encounter`` is saved by default: its name as the page's download
    names it (``Duel-in-the-rain.review.html``) in ``folder`` (the current one), never over a
    file already there (``-2``, ``-3``, ... before the suffix)."""
    stem = re.sub(r"[^\w.-]+", "-", encounter).strip("-.") or "fight"
    where = folder or Path()
    path = where / f"{stem}.review.html"
    n = 2
    while path.exists():
        path, n = where / f"{stem}-{n}.review.html", n + 1
    return path


async def fetch_report(stream: trio.abc.Stream, host: str, path: str, token: str) -> bytes:
    """``GET path`` over ``stream`` with ``token`` as a Bearer token (as the GM page fetches
    the report); the body, or :class:`ReportRefused` with the server's reason."""
    conn = h11.Connection(h11.CLIENT)
    request = h11.Request(method="GET", target=path, headers=[
        ("Host", host), ("Authorization", f"Bearer {token}"), ("Connection", "close"),
    ])  # fmt: skip
    await stream.send_all(conn.send(request) + (conn.send(h11.EndOfMessage()) or b""))
    status = 0
    body = bytearray()
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(bytes(await stream.receive_some(65536)))
        elif isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_REPORT:
                raise ReportRefused(f"the report is over {MAX_REPORT >> 20} MB: not saved")
        elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
            break
    if status != 200:
        said = " ".join(body.decode("utf-8", "replace").split())[:200]
        raise ReportRefused(f"HTTP {status}" + (f": {said}" if said else ""))
    return bytes(body)


class ReportRefused(Exception):
    """The server did not give the report (its status and reason in the message)."""


@dataclass
class GmAside:
    """The odds and the review as the GM's terminal hears of them, and what it has said."""

    say: Callable[[str], None]
    order: Callable[[], Iterable[str]] = lambda: ()
    """The encounter's sides in its order (once known)."""
    name: Callable[[str], str] = str
    """A combatant's name from its id."""
    odds: dict[str, Any] | None = None
    """The newest odds frame that was not a notice that they stopped."""
    shown: tuple[tuple[str, int], ...] | None = None
    """The chances (whole percents) the last odds line said."""
    stopped: str | None = None
    """Why the odds stopped, once told."""
    review: dict[str, Any] | None = None
    """The newest ``review_status`` frame."""
    saved: Path | None = None
    """Where the report was saved."""
    result_said: bool = False
    fetching: bool = False
    """The report is being fetched."""

    def on_odds(self, frame: dict[str, Any]) -> None:
        """An ``odds`` frame: a line when a chance moved by a whole percent (or the result
        came), the reason once when they stopped."""
        stopped = frame.get("stopped")
        if stopped:
            if self.stopped is None:
                self.stopped = str(stopped)
                self.say(visible(self.stopped))
            return
        self.odds = frame
        win = frame.get("win", {})
        shown = tuple((str(s), round(100 * float(p))) for s, p in sorted(win.items()))
        ended = bool(frame.get("ended"))
        if shown != self.shown or (ended and not self.result_said):
            self.shown = shown
            self.result_said = self.result_said or ended
            self.say(odds_text(frame, self.order(), self.name))

    def odds_now(self, started: bool) -> str:
        """``gm odds``: the newest odds in full, or why there are none."""
        if self.odds is None:
            if self.stopped is not None:
                return visible(self.stopped)
            if not started:
                return "no odds yet: the fight has not started (they need serve --gm-odds)"
            return ODDS_OFF
        text = odds_text(self.odds, self.order(), self.name, full=True)
        return text + (f"\n{visible(self.stopped)}" if self.stopped else "")

    def on_review(self, frame: dict[str, Any]) -> None:
        """A ``review_status`` frame: a failure said in one line (the progress is the live
        line's; the report is fetched by the client)."""
        self.review = frame
        if frame.get("state") == "failed":
            reason = visible(str(frame.get("reason") or "the review failed"))
            self.say(f"{reason} (gm review tries again)")

    @property
    def state(self) -> str | None:
        return None if self.review is None else str(self.review.get("state"))

    def progress(self) -> str | None:
        """The live line while the review runs."""
        if self.state != "running" and not self.fetching:
            return None
        if self.fetching:
            return "the review is ready: fetching it"
        assert self.review is not None
        done, total = int(self.review.get("done", 0)), int(self.review.get("total", 0))
        return f"reviewing: {done} of {total} decisions" if total else "reviewing: starting"
