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

from rich.markup import escape
from rich.style import Style
from rich.text import Text

#: Characters that reorder or hide text on screen (bidirectional overrides and isolates,
#: line and paragraph separators), shown escaped like control characters.
_INVISIBLE = frozenset(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``text`` (made a ``str``) with every control or invisible ordering character escaped."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(
        _shown(ch) if ch in _INVISIBLE or ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else ch
        for ch in s
    )


def literal(text: object) -> str:
    """``text`` ready to sit inside a Rich markup string: shown as it is, never as markup."""
    return escape(visible(text))


def plain(text: object, style: str | Style = "") -> Text:
    """A Rich ``Text`` of ``text`` (a table cell, a line): printed as it is, never as markup."""
    return Text(visible(text), style=style)
