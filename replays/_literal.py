"""Untrusted text, printed literally: no Rich markup read from it, control characters shown.

Names, sides, reasons, paths and error messages come from files and logs that anyone may have
written. Printed as they are, ``[link=...]`` would become a hyperlink, ``[/x]`` would crash Rich,
and an escape sequence (``\\x1b[2J``, an OSC title) would drive the terminal. Every command
renders such text through these helpers: :func:`visible` spells out control characters the way
Python does (``\\x1b``, ``\\n``, ``\\u202e``), :func:`literal` also escapes Rich markup for text
that goes into a markup string, and :func:`plain` makes a Rich :class:`~rich.text.Text` (never
parsed as markup) for table cells.
"""

from __future__ import annotations

from initiative.events import visible
from rich.markup import escape
from rich.style import Style
from rich.text import Text


def literal(text: object) -> str:
    """``text`` ready to sit inside a Rich markup string: shown as it is, never as markup."""
    return escape(visible(text))


def plain(text: object, style: str | Style = "") -> Text:
    """A Rich ``Text`` of ``text`` (a table cell, a line): printed as it is, never as markup."""
    return Text(visible(text), style=style)
