"""What the server tells every client besides the log: the table's words and its state.

The seat server publishes log lines; a browser cannot fold events or narrate them, so after
each run of news a connection also gets a ``table`` frame: the table narration's sentences
for those lines (:class:`~initiative.replays.TableNarrator`, as plain text) and the state as
its seat sees it (:func:`~initiative.actors.table_of`). Both are folded once per line, for
every connection alike, in order, whatever the clients do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text

from initiative.actors import Names, table_of
from initiative.engine import LiveState
from initiative.events import EncounterSpec, decode_event
from initiative.replays import TableNarrator

from . import _wire as wire
from ._gm import learn_names


class TableTalk:
    """The narration and the state of one served fight, folded from its log lines."""

    def __init__(self, encounter: EncounterSpec) -> None:
        self.names = Names(encounter)
        self._narrate = TableNarrator()
        self._state = LiveState()
        self._said: list[tuple[str, ...]] = []
        """The sentences told on reading each line, by line."""

    def _fold(self, lines: Sequence[bytes]) -> None:
        for line in lines[len(self._said) :]:
            event = decode_event(line)
            learn_names(self.names, event)
            self._state.apply(event)
            told = self._narrate(event)
            self._said.append(
                tuple(Text.from_markup(t).plain for t in told.splitlines()) if told else ()
            )

    def frame(self, lines: Sequence[bytes], start: int, end: int, seat: Iterable[str]) -> bytes:
        """The ``table`` frame for a client just sent ``lines[start:end]`` as news, playing the
        combatants ``seat`` (none for a spectator). The state is the latest (its ``seq`` says
        which event): never behind the news sent, at most a few events ahead of it."""
        self._fold(lines)
        said = tuple(s for told in self._said[start:end] for s in told)
        state = table_of(self._state.freeze(), self.names, seat)
        return wire.encode(wire.TableFrame(said=said, state=state))
