"""Reports people look at: ``--report FILE.html`` of ``batch``, ``duel``, ``compare``, ``league``,
``sweep`` and ``review`` writes one self-contained page (inline SVG and CSS; no script, no
network) drawn from the same dictionary the command prints with ``--json``, so the page and the
JSON never differ.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._batch import batch_page as batch_page, duel_page as duel_page
from ._compare import compare_page as compare_page
from ._league import league_page as league_page, sweep_page as sweep_page
from ._review import review_page as review_page


class ReportPathProblem(Exception):
    """The report cannot be written where asked (said in one line before any fight)."""


def check_report(path: Path) -> None:
    """Make sure ``path`` can be written, before the runs start: it is not a folder, its folder
    exists, and a file can be created there (tried, then removed unless it was there before)."""
    shown = f"--report {path}"
    if path.is_dir():
        raise ReportPathProblem(f"{shown}: that is a folder; give a file name such as report.html")
    folder = path.parent
    if not folder.is_dir():
        raise ReportPathProblem(f"{shown}: there is no folder {folder}")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as problem:
        raise ReportPathProblem(f"{shown}: cannot write it ({problem.strerror})") from None
    if not existed:
        os.unlink(path)


def write_report(path: Path, html: str) -> None:
    """Write the page, in UTF-8."""
    path.write_text(html, encoding="utf-8")
