"""What a connection may see: the one rule for hidden information, applied to every frame.

The rules hide a combatant's hit points (current and most) and AP from those who do not play
its side, unless the encounter says ``reveal = "all"``. A connection's :class:`Sight` says whose
numbers it may see; :meth:`Sight.out` is the one door every frame the server writes to a
seat, the GM or a spectator goes through (``_serve.SeatServer._out``), whatever the frame:

- ``odds`` and ``review_status`` only to the GM's connections (:data:`GM_ONLY`), never to a
  seat or a spectator, even one that sees every number;
- ``news`` (a log line holds every number) only to a sight that sees everything; an event for
  the GM's eyes only (``events.gm_only``: a GM note, a secret roll) only to the GM, every
  other sight getting in its place a ``GmOverride`` of a ``GmNote`` that says it was withheld,
  with the same ``seq`` and ``cause``, so that a spectator's copy of the log (``join --watch
  --out``) still reads whole in ``view`` and ``replay``;
- anything else (a ``priority`` frame's view and screen, a ``table`` frame's state, the
  ``grace`` and ``clock`` frames, the end) with the hidden combatants' ``hp``, ``max_hp`` and
  ``ap`` made ``null``, wherever an object names a combatant by its ``id``;
- a combatant that is hidden from it (the ``hidden`` condition) off its map, and its distance
  ``null``: its place is a number the rules hide;
- the table's sentences (:class:`Told`) in the words the sight may know: a GM's hit-point
  override on a hidden combatant is told as the change in its wounds ("The GM changes Tomas's
  wounds: bloodied."), the damage or healing it makes not at all, and a quiet override
  (``SetHp.quiet``) is told only to those who see everything. What the map shows (a moved
  token, a fall) is told to all.

Who sees what: the GM everything; a seat its own side's numbers (``reveal = "all"``:
everything); a spectator what the seated players see together, the numbers of every side that
has a seat and words for the rest (``serve --spectators all``: everything).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from initiative.actors import StateTable
from initiative.events import GmNote, GmOverride, decode_event, encode_event, gm_only

from . import _wire as wire

#: Frames for the GM's connections alone, whatever else a sight may see: the live odds and
#: the review (a chance to win says how a fight stands, which is the GM's to know).
GM_ONLY = (wire.Odds, wire.ReviewStatus)

#: What a combatant's object loses for a sight that may not see its numbers.
HIDDEN = ("hp", "max_hp", "ap")

#: The condition of a combatant its enemies cannot see (the engine's ``Hidden``, which
#: ``Ruleset.can_see`` reads): its place is hidden too, as the rules hide it from their views.
UNSEEN = "hidden"

_encoder = msgspec.json.Encoder()


class Veiled(msgspec.Struct, frozen=True):
    """A sentence that says a hidden number of ``who``: told whole to a sight that sees its
    numbers, else as ``words`` (``None``: not told)."""

    full: str
    who: str
    words: str | None = None
    quiet: bool = False
    """A quiet override: told only to a sight that sees everything."""


#: One sentence of the table's narration, as the server keeps it before anyone is told.
Said = str | Veiled


@dataclass(frozen=True)
class Told:
    """A ``table`` frame before it is filtered: every sentence and every number."""

    said: tuple[Said, ...]
    state: StateTable
    board: wire.Board | None
    lines: int = 0


@dataclass(frozen=True)
class Sight:
    """Whose numbers a connection may see: everyone's (``full``), or those on ``sides``."""

    full: bool
    sides: frozenset[str] = frozenset()
    gm: bool = False
    """The GM's own connection: the only one told the GM's notes and secret rolls."""
    side_of: Callable[[str], str | None] = lambda _who: None
    """A combatant's side, by id (the fight's current state: the GM's joiners too)."""

    def sees(self, who: str) -> bool:
        """Whether this sight may see ``who``'s numbers."""
        return self.full or self.side_of(who) in self.sides

    def out(self, frame: msgspec.Struct | Told) -> bytes | None:
        """``frame`` as this sight may receive it (a line, with its newline), or ``None`` when
        it may receive nothing of it."""
        if isinstance(frame, GM_ONLY):
            return wire.encode(frame) if self.gm else None
        if isinstance(frame, wire.News):
            if not self.full:
                return None
            if not self.gm and _for_the_gm(frame.event):
                frame = wire.News(event=msgspec.Raw(withheld(frame.event)))
            return wire.encode(frame)
        unseen: set[str] = set()
        if isinstance(frame, Told):
            board = frame.board
            if board is not None and not self.full:
                unseen = {
                    t.id
                    for t in board.tokens
                    if any(c[0] == UNSEEN for c in t.conditions) and not self.sees(t.id)
                }
                moved = board.last_move
                board = msgspec.structs.replace(
                    board,
                    tokens=tuple(t for t in board.tokens if t.id not in unseen),
                    last_move=None if moved is not None and moved[0] in unseen else moved,
                )
            frame = wire.TableFrame(
                said=self.said(frame.said), state=frame.state, board=board, lines=frame.lines
            )
        if self.full:
            return wire.encode(frame)
        data = msgspec.to_builtins(frame)
        self._hide(data, unseen)
        return _encoder.encode(data) + b"\n"

    def said(self, sentences: Iterable[Said]) -> tuple[str, ...]:
        """The sentences this sight hears, in the words it may know."""
        heard = []
        for s in sentences:
            if isinstance(s, str):
                heard.append(s)
            elif self.full or (self.sees(s.who) and not s.quiet):
                heard.append(s.full)
            elif s.words is not None and not s.quiet:
                heard.append(s.words)
        return tuple(heard)

    def _hide(self, data: Any, unseen: set[str]) -> None:
        """Null the hidden numbers of every combatant object in ``data`` (in place), and the
        distance to those ``unseen``."""
        if isinstance(data, dict):
            who = data.get("id")
            if isinstance(who, str) and not self.sees(who):
                for key in HIDDEN:
                    if key in data:
                        data[key] = None
                if who in unseen and "distance" in data:
                    data["distance"] = None
            for value in data.values():
                self._hide(value, unseen)
        elif isinstance(data, (list, tuple)):  # (to_builtins keeps tuples)
            for value in data:
                self._hide(value, unseen)


#: Every number (a seat's with ``reveal = "all"``, a spectator's with ``--spectators all``).
EVERYTHING = Sight(full=True)

#: The GM's sight: every number, and the GM's own notes and secret rolls.
THE_GM = Sight(full=True, gm=True)

#: What a connection other than the GM's reads in place of a note or a secret roll.
WITHHELD = "(for the GM's eyes only: withheld)"


def _for_the_gm(raw: msgspec.Raw) -> bool:
    """Whether the log line ``raw`` is for the GM's eyes only (decoded only when it may be)."""
    line = bytes(memoryview(raw))
    return b'"Gm' in line and gm_only(decode_event(line))


def withheld(raw: msgspec.Raw) -> bytes:
    """The line a connection other than the GM's gets for a GM-only event: a GM note saying it
    was withheld, with the event's ``seq`` and ``cause`` (none of its words or dice)."""
    event = decode_event(bytes(memoryview(raw)))
    placeholder = GmOverride(seq=event.seq, cause=event.cause, override=GmNote(text=WITHHELD))
    return encode_event(placeholder).rstrip(b"\n")
