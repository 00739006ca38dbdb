"""What the server tells every client besides the log: the table's words, its state, its map.

The seat server publishes log lines; a browser cannot fold events or narrate them, so after
each run of news a connection also gets a ``table`` frame: the table narration's sentences
for those lines (:class:`~initiative.replays.TableNarrator`, as plain text), the state as
its seat sees it (:func:`~initiative.actors.table_of`) and the board (tokens on the map, who
holds priority, the last move, the dice rolled). All are folded once per line, for every
connection alike, in order, whatever the clients do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec
from rich.text import Text

from initiative.actors import Names, StateTable, table_of
from initiative.engine import LiveState
from initiative.events import (
    ConditionAdded,
    ConditionRemoved,
    DiceGiven,
    DiceRolled,
    EncounterSpec,
    Moved,
    decode_event,
)
from initiative.replays import TableNarrator

from . import _wire as wire

#: Dice cards sent in one table frame, at most (a page joining late gets the latest).
ROLLS = 24


class TableTalk:
    """The narration, the state and the board of one served fight, folded from its log lines."""

    def __init__(self, encounter: EncounterSpec) -> None:
        self.encounter = encounter
        self.names = Names(encounter)
        self._narrate = TableNarrator()
        self._state = LiveState()
        self._said: list[tuple[str, ...]] = []
        """The sentences told on reading each line, by line."""
        self._rolls: list[wire.Roll | None] = []
        """The die roll of each line (``None``: not a roll)."""
        self._until: dict[tuple[str, str], str] = {}
        """How long each (combatant, condition) lasts, in words."""
        self._moved: tuple[str, tuple[float, float], tuple[float, float]] | None = None

    def _fold(self, lines: Sequence[bytes]) -> None:
        for line in lines[len(self._said) :]:
            event = decode_event(line)
            self.names.learn(event)
            self._state.apply(event)
            told = self._narrate(event)
            self._said.append(
                tuple(Text.from_markup(t).plain for t in told.splitlines()) if told else ()
            )
            roll = None
            match event:
                case DiceRolled():
                    roll = wire.Roll(
                        seq=event.seq,
                        who=self.names(event.who) if event.who else None,
                        purpose=event.purpose,
                        expr=event.expr,
                        dice=event.dice,
                        modifier=event.modifier,
                        total=event.total,
                        given=isinstance(event, DiceGiven),
                    )
                case Moved():
                    self._moved = (
                        event.who,
                        (event.start.x, event.start.y),
                        (event.to.x, event.to.y),
                    )
                case ConditionAdded():
                    self._until[(event.who, event.condition)] = event.until
                case ConditionRemoved():
                    self._until.pop((event.who, event.condition), None)
            self._rolls.append(roll)

    def board(self, table: StateTable, start: int, end: int) -> wire.Board:
        """The board after the lines folded (``table``: the state table, for the conditions in
        words), with the dice of ``lines[start:end]``."""
        state = self._state.freeze()
        tokens = []
        for row in table.combatants:
            cid = row.id
            c = state.combatants[cid]
            spec = self.names.specs.get(cid)
            tokens.append(
                wire.Token(
                    id=cid,
                    name=self.names(cid),
                    side=c.side,
                    at=(c.position.x, c.position.y),
                    size=spec.size if spec is not None else 2,
                    reach=self.names.reach(cid),
                    standing=c.standing,
                    conditions=tuple(
                        (x, said, self._until.get((cid, x), ""))
                        for said, x in zip(row.conditions, c.conditions, strict=False)
                    ),
                    counters=c.counters,
                )
            )
        sides = list(self.encounter.sides)
        sides += sorted({c.side for c in self.encounter.combatants} - set(sides))
        rolls = [r for r in self._rolls[start:end] if r is not None][-ROLLS:]
        return wire.Board(
            tokens=tuple(tokens),
            sides=tuple(sides),
            priority=state.priority if not state.ended else None,
            window=("opening" if state.depth else "turn") if state.priority else None,
            last_move=self._moved,
            rolls=tuple(rolls),
        )

    def frame(
        self,
        lines: Sequence[bytes],
        start: int,
        end: int,
        seat: Iterable[str],
        *,
        reveal: bool = False,
    ) -> bytes:
        """The ``table`` frame for a client just sent ``lines[start:end]`` as news, playing the
        combatants ``seat`` (none for a spectator). The state is the latest (its ``seq`` says
        which event): never behind the news sent, at most a few events ahead of it. With
        ``reveal``, enemies' numbers are shown too (``reveal = "all"``)."""
        self._fold(lines)
        said = tuple(s for told in self._said[start:end] for s in told)
        frozen = self._state.freeze()
        state = table_of(frozen, self.names, seat)
        if reveal:
            state = msgspec.structs.replace(state, combatants=tuple(
                msgspec.structs.replace(
                    row, hp=c.hp, max_hp=c.max_hp, ap=c.ap
                ) if row.role == "enemy" and (c := frozen.combatants[row.id]) else row
                for row in state.combatants
            ))  # fmt: skip
        board = self.board(state, start, end)
        return wire.encode(wire.TableFrame(said=said, state=state, board=board))
