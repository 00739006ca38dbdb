"""The helpers of a served fight, each in a child process of ``serve`` (:mod:`._reviews` starts
them): the review of the fight once it has ended, and the GM's live odds while it goes on.

In a child, so that neither can stop or slow the fight: it runs at a lower priority (``nice``),
and whatever becomes of it (it dies, it hangs) is one line on the GM's page. Each reads the log
the fight writes (every line is on disk before anyone hears of it), never anything else:

``python -m initiative.table._reviewer review LOG REPORT [--rollouts N] [--width N] [--seconds S]``
    reviews LOG (``replays.review``) and writes the report ``review --report`` writes to REPORT;
    on standard output one JSON line per decision reviewed, ``{"done": 3, "total": 38}``, then
    ``{"ready": true}``.

``python -m initiative.table._reviewer odds LOG [--rollouts N]``
    reads on standard input, one a line, how many of LOG's lines a position is after, and
    answers each with one JSON line: the odds (``replays.odds``: ``{"lines": n, "seq": ...,
    "round": ..., "win": {...}, "interval": {...}, "rollouts": 32, "ended": false}``), or
    ``{"lines": n, "dropped": true}`` when a newer position came first (stale work is dropped:
    only the newest position is worked on).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import sys
from functools import partial
from pathlib import Path
from typing import Any

from initiative.events import InitiativeError, parse_log
from initiative.replays import Budget, odds, review

from ..analysis._report import review_page


def _say(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def reviewed(log: Path, report: Path, budget: Budget) -> None:
    """Review ``log`` and write its page to ``report`` (whole, or not at all), saying how far
    it got as it goes."""
    data = log.read_bytes()
    contents = parse_log(data, name=log.name)
    result = review(
        contents,
        budget,
        data=data,
        progress=lambda done, total: _say({"done": done, "total": total}),
    )
    part = report.with_name(report.name + ".part")
    part.write_text(review_page(result), encoding="utf-8")
    part.replace(report)
    _say({"ready": True})


class _Asked:
    """The positions asked on standard input: read without blocking, the newest kept."""

    def __init__(self) -> None:
        self.fd = sys.stdin.fileno()
        self.buffer = b""
        self.closed = False

    def newest(self, wait: bool) -> int | None:
        """The newest position asked (``None``: none since the last); ``wait``: until one is
        asked or the input closes."""
        found: int | None = None
        while not self.closed:
            ready, _, _ = select.select([self.fd], [], [], None if wait and found is None else 0)
            if not ready:
                break
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.closed = True
                break
            self.buffer += chunk
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                if line.strip():
                    found = int(line)
        return found


def odds_loop(log: Path, budget: Budget) -> None:
    """Answer the positions asked, the newest only, until standard input closes."""
    asked = _Asked()
    pending = asked.newest(wait=True)
    while pending is not None:
        lines = pending
        newer: list[int] = []
        data = b"".join(log.read_bytes().splitlines(keepends=True)[:lines])
        found = odds(parse_log(data, name=log.name), budget, stop=partial(_stale, asked, newer))
        if found is None and newer:
            _say({"lines": lines, "dropped": True})
        elif found is not None:
            _say({"lines": lines, **_plain(found)})
        pending = newer[-1] if newer else asked.newest(wait=True)


def _stale(asked: _Asked, newer: list[int]) -> bool:
    """Whether a newer position has been asked (kept in ``newer``): the work is dropped."""
    n = asked.newest(wait=False)
    if n is not None:
        newer.append(n)
    return bool(newer)


def _plain(found: Any) -> dict[str, Any]:
    return {
        "seq": found.seq,
        "round": found.round,
        "win": found.win,
        "interval": {s: list(i) for s, i in found.interval.items()},
        "rollouts": found.rollouts,
        "ended": found.ended,
        "who": found.who,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m initiative.table._reviewer")
    parser.add_argument("mode", choices=["review", "odds"])
    parser.add_argument("log", type=Path)
    parser.add_argument("report", type=Path, nargs="?")
    parser.add_argument("--rollouts", type=int, default=None)
    parser.add_argument("--width", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--policy", action="append", default=[], help="ID=NAME: who played")
    args = parser.parse_args(argv)
    with contextlib.suppress(OSError):
        os.nice(10)  # the fight, and the people at it, come first
    try:
        if args.mode == "review":
            if args.report is None:
                parser.error("review needs the REPORT file")
            played = tuple((who, name) for who, _, name in (p.partition("=") for p in args.policy))
            budget = Budget(
                rollouts=args.rollouts or 8, width=args.width, seconds=args.seconds, played=played
            )
            reviewed(args.log, args.report, budget)
        else:
            odds_loop(args.log, Budget(rollouts=args.rollouts or 32))
    except (InitiativeError, OSError, ValueError) as problem:
        print(" ".join(str(problem).split())[:300], file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
