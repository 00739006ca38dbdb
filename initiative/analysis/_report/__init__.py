"""Reports people look at: ``--report FILE.html`` of ``batch``, ``duel``, ``compare``, ``league``,
``sweep`` and ``review`` writes one self-contained page (inline SVG and CSS; no script, no
network) drawn from the same dictionary the command prints with ``--json``, so the page and the
JSON never differ.
"""

from __future__ import annotations

from pathlib import Path

from .._csv import check_output
from ._batch import batch_page as batch_page, duel_page as duel_page
from ._compare import compare_page as compare_page
from ._league import league_page as league_page, sweep_page as sweep_page
from ._review import review_page as review_page


def check_report(path: Path) -> None:
    """Make sure ``path`` can be written, before the runs start (see
    :func:`~initiative.analysis._csv.check_output`)."""
    check_output(path, "--report", "report.html")


def write_report(path: Path, html: str) -> None:
    """Write the page, in UTF-8."""
    path.write_text(html, encoding="utf-8")
