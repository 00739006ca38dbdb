"""Untrusted text made safe to show: control and invisible ordering characters spelled out.

Names, sides, reasons and paths come from files, logs and network clients that anyone may have
written. Printed as they are, an escape sequence (``\\x1b[2J``, an OSC title) would drive the
terminal and a bidirectional override would reorder what is shown. :func:`visible` spells such
characters out the way Python does (``\\x1b``, ``\\n``, ``\\u202e``); the command line
(``replays.literal``), the human policy's screen and the network client all use it.
"""

from __future__ import annotations

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
