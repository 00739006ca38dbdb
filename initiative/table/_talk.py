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

from initiative.actors import Names, StateTable, health, table_of
from initiative.engine import LiveState
from initiative.events import (
    ConditionAdded,
    ConditionRemoved,
    DamageDealt,
    DiceGiven,
    DiceRolled,
    EncounterSpec,
    Event,
    GmOverride,
    Healed,
    InitiativeRolled,
    Moved,
    SetHp,
    Undo,
    decode_event,
)
from initiative.replays import TableNarrator, gm_words

from . import _wire as wire
from ._sight import Said, Told, Veiled

#: Dice cards sent in one table frame, at most (a page joining late gets the latest).
ROLLS = 24


class TableTalk:
    """The narration, the state and the board of one served fight, folded from its log lines."""

    def __init__(self, encounter: EncounterSpec) -> None:
        self.encounter = encounter
        self.names = Names(encounter)
        self._narrate = TableNarrator()
        self._state = LiveState()
        self._said: list[tuple[Said, ...]] = []
        """The sentences told on reading each line, by line (those that say a hidden number
        veiled: :mod:`._sight` tells each connection the words it may know)."""
        self._set_hp: dict[int, SetHp] = {}
        """The GM's hit-point overrides, by the seq of their ``GmOverride`` (their damage or
        healing is veiled as they are)."""
        self._rolls: list[wire.Roll | None] = []
        """The die roll of each line (``None``: not a roll)."""
        self._until: dict[tuple[str, str], str] = {}
        """How long each (combatant, condition) lasts, in words."""
        self._moved: tuple[str, tuple[float, float], tuple[float, float]] | None = None

    def _fold(self, lines: Sequence[bytes]) -> None:
        for line in lines[len(self._said) :]:
            event = decode_event(line)
            self.names.learn(event)
            veil = self._veil(event)  # (before the event is folded: the wounds it changes)
            self._state.apply(event)
            told = self._narrate(event)
            said: list[Said] = (
                [Text.from_markup(t).plain for t in told.splitlines()] if told else []
            )
            if veil is not None and said:
                # The event's own sentence comes last (sentences it completed come first).
                last = said[-1]
                assert isinstance(last, str)
                said[-1] = msgspec.structs.replace(veil, full=last)
            self._said.append(tuple(said))
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
                case InitiativeRolled():
                    self._initiative(event)
                case ConditionAdded():
                    self._until[(event.who, event.condition)] = event.until
                case ConditionRemoved():
                    self._until.pop((event.who, event.condition), None)
            self._rolls.append(roll)

    def _initiative(self, event: InitiativeRolled) -> None:
        """The initiative die's card gets what the rules added to it (the die alone is rolled:
        ``14 + 3 = 17``, as the narration says)."""
        name = self.names(event.who[0])
        for i in range(len(self._rolls) - 1, max(-1, len(self._rolls) - 8), -1):
            roll = self._rolls[i]
            if roll is not None and roll.purpose == "initiative" and roll.who == name:
                if roll.total == event.die and roll.modifier == 0:
                    self._rolls[i] = msgspec.structs.replace(
                        roll, modifier=event.modifier, total=event.total
                    )
                return

    def _veil(self, event: Event) -> Veiled | None:
        """How the sentence of ``event`` is veiled, when it says a hidden number: a GM's
        hit-point override (told as the wounds it leaves), and the damage or healing it made
        (not told)."""
        if isinstance(event, GmOverride) and isinstance(event.override, SetHp):
            o = event.override
            self._set_hp[event.seq] = o
            c = self._state.combatants.get(o.who)
            if c is None:
                return None
            after = health(msgspec.structs.replace(c, hp=min(o.hp, c.max_hp)))
            words = Text.from_markup(gm_words(o, self.names, wounds=after)).plain
            return Veiled("", o.who, words, quiet=o.quiet)
        if (
            isinstance(event, GmOverride)
            and isinstance(event.override, Undo)
            and event.override.seq in self._set_hp
        ):
            # An undone hit-point override: its number is as hidden as the override's was, and
            # so are the damage or healing that put it back (caused by the undo).
            o = self._set_hp[event.override.seq]
            self._set_hp[event.seq] = o
            words = (
                f"The GM undoes #{event.override.seq}: a change to {self.names(o.who)}'s wounds."
            )
            return Veiled("", o.who, words, quiet=o.quiet)
        if isinstance(event, (DamageDealt, Healed)) and event.cause in self._set_hp:
            return Veiled("", event.who, None, quiet=self._set_hp[event.cause].quiet)
        return None

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
                    left=c.left,
                    initiative=c.initiative,
                    conditions=tuple(
                        (x, said, self._until.get((cid, x), ""))
                        for said, x in zip(row.conditions, c.conditions, strict=False)
                    ),
                    counters=c.counters,
                    markers=c.markers,
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

    def frame(self, lines: Sequence[bytes], start: int, end: int, seat: Iterable[str]) -> Told:
        """The ``table`` frame for a client just sent ``lines[start:end]`` as news, playing the
        combatants ``seat`` (none for a spectator), with every sentence and every number: each
        connection's :class:`~._sight.Sight` takes out what it may not know. The state is the
        latest (its ``seq`` says which event): never behind the news sent, at most a few events
        ahead of it."""
        self._fold(lines)
        said = tuple(s for told in self._said[start:end] for s in told)
        frozen = self._state.freeze()
        state = table_of(frozen, self.names, seat)
        state = msgspec.structs.replace(state, combatants=tuple(
            msgspec.structs.replace(row, hp=c.hp, max_hp=c.max_hp, ap=c.ap)
            if (c := frozen.combatants.get(row.id)) is not None else row
            for row in state.combatants
        ))  # fmt: skip
        return Told(said=said, state=state, board=self.board(state, start, end), lines=end)

    def side_of(self, who: str) -> str | None:
        """The side of ``who`` (as the lines folded so far know it)."""
        c = self._state.combatants.get(who)
        return c.side if c is not None else None
