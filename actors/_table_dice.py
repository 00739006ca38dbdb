"""Dice rolled at the table: asked of a person at the terminal, or read from a file.

Both are dice sources for :class:`engine.Fight` (see :mod:`engine._given`): every die they give
is recorded as ``DiceGiven`` and comes back from the log on replay, verification, fork and
resume. A face the die cannot show is refused.

- ``--dice ask``: every die is asked for, with what it is for ("Osric, attack on Goblin 3: roll
  1d20"); ``--dice ask=ID_OR_SIDE[,...]`` asks only for those combatants' dice and rolls the rest.
- ``--dice FILE``: faces in order, whitespace-separated (``#`` starts a comment), for entering a
  fight played earlier; when the file runs out, the rest is rolled. A resumed or forked fight
  goes on from the first face its log has not used (see :meth:`FileDice.continue_after`).

What the rules add to a die beyond its expression (a combatant's initiative modifier) is said
in the question, never typed. A bad value is quoted in an error only by a short prefix.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path

import structlog
from initiative.engine import Dice, Fight
from initiative.events import DiceGiven, EncounterFileError, EncounterSpec, InitiativeError

from ._screen import Names
from ._terminal import Terminal, terminal

log = structlog.get_logger("initiative.actors")


def _named(purpose: str, names: Names) -> str:
    """``attack on ada`` -> ``attack on Dr. Ada Vance`` (ids in the text become names)."""
    return re.sub(
        r"[\w.-]+",
        lambda m: names(m.group(0)) if m.group(0) in names.specs else m.group(0),
        purpose,
    )


QUOTED = 20
"""At most this many characters of a bad value are quoted in a message."""


def clipped(value: object) -> str:
    """``value`` as text, cut to :data:`QUOTED` characters with an ellipsis (a 5,000-digit face
    must not make a one-line error 5,000 characters long)."""
    text = str(value)
    return text if len(text) <= QUOTED else text[:QUOTED] + "…"


def check_faces(values: list[int], dice: Dice) -> str | None:
    """Why ``values`` cannot be what ``dice`` showed, or ``None`` if they can."""
    if len(values) != dice.count:
        return f"{dice} is {dice.count} {'die' if dice.count == 1 else 'dice'}: give {dice.count} face(s)"
    bad = [v for v in values if not 1 <= v <= dice.sides]
    if bad:
        return f"a d{dice.sides} shows 1 to {dice.sides}, not {clipped(bad[0])}"
    return None


def added(fight: object, who: str | None, purpose: str) -> int:
    """What the rules add to the die rolled for ``purpose`` beyond its expression: the
    combatant's initiative modifier (every ruleset's initiative adds it to the die's total),
    else nothing."""
    if purpose != "initiative" or who is None or not isinstance(fight, Fight):
        return 0
    return fight.ruleset.initiative_modifier(fight.rules.spec(who))


class AskDice:
    """Asks a person at the terminal for each die (of ``only``'s combatants, if given)."""

    def __init__(
        self,
        encounter: EncounterSpec,
        only: Collection[str] | None = None,
        term: Terminal | None = None,
    ) -> None:
        self.names = Names(encounter)
        self.only = set(only) if only is not None else None
        self.term = term

    def faces(
        self, fight: object, who: str | None, purpose: str, dice: Dice
    ) -> tuple[int, ...] | None:
        if self.only is not None and who not in self.only:
            return None
        term = self.term or terminal()
        asker = f"{self.names(who)}, " if who else ""
        notes = [f"{dice.count} faces"] if dice.count > 1 else []
        bonus = added(fight, who, purpose)
        notes += [f"{bonus:+d} will be added"] if bonus else []
        said = f" ({'; '.join(notes)})" if notes else ""
        prompt = f"{asker}{_named(purpose, self.names)}: roll {dice}{said}> "
        while True:
            text = term.ask(prompt)
            try:
                values = [int(t) for t in text.replace(",", " ").split()]
            except ValueError:
                term.say(f"Type the face{'s' if dice.count > 1 else ''} the dice show, as numbers.")
                continue
            problem = check_faces(values, dice)
            if problem is None:
                return tuple(values)
            term.say(f"Refused: {problem}.")


class FileDice:
    """Faces read from a file in order; when it runs out, the fight rolls."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError as err:
            raise EncounterFileError(
                f"--dice {clipped(self.path)}: cannot read it: {err.strerror}"
            ) from None
        except UnicodeDecodeError as err:
            raise EncounterFileError(
                f"--dice {clipped(self.path)}: cannot read it: {err}"
            ) from None
        self.faces_left: list[tuple[int, int]] = []
        for number, line in enumerate(text.splitlines(), 1):
            for token in line.split("#", 1)[0].replace(",", " ").split():
                try:
                    self.faces_left.append((int(token), number))
                except ValueError:
                    raise EncounterFileError(
                        f"{self.path}, line {number}: {clipped(token)!r} is not a die's face"
                    ) from None
        self.used = 0
        """How many of the file's faces the fight has taken (a resumed one: its log too)."""
        self.warned = False

    def continue_after(self, given: Iterable[DiceGiven], log: str = "the log") -> None:
        """Skip the faces a log already used: the faces of its ``DiceGiven`` events, in order,
        which must be the file's first faces (the file entered that fight). A face that
        differs is refused, naming the file's line and the log's event."""
        logged = [(face, e) for e in given for face in e.dice]
        for (face, number), (used, event) in zip(self.faces_left, logged, strict=False):
            if face != used:
                raise EncounterFileError(
                    f"{self.path}, line {number}: the face {clipped(face)} differs from the"
                    f" {clipped(used)} that {log} gave at seq {event.seq} ({event.purpose}); this file"
                    " did not enter that fight"
                )
        taken = min(len(logged), len(self.faces_left))
        self.faces_left = self.faces_left[taken:]
        self.used += taken

    def faces(
        self, fight: object, who: str | None, purpose: str, dice: Dice
    ) -> tuple[int, ...] | None:
        if len(self.faces_left) < dice.count:
            if not self.warned:
                log.warning(
                    f"the dice file {self.path} ran out after {self.used} faces;"
                    " the fight rolls the rest"
                )
                self.warned = True
            return None
        taken, self.faces_left = self.faces_left[: dice.count], self.faces_left[dice.count :]
        self.used += dice.count
        problem = check_faces([v for v, _ in taken], dice)
        if problem is not None:
            raise EncounterFileError(f"{self.path}, line {taken[0][1]}: {purpose}: {problem}")
        return tuple(v for v, _ in taken)


def table_dice(option: str, encounter: EncounterSpec) -> AskDice | FileDice:
    """The source a ``--dice`` value names: ``ask``, ``ask=ID_OR_SIDE[,...]`` or a file."""
    if option == "ask":
        return AskDice(encounter)
    if option.startswith("ask="):
        wanted = {w.strip() for w in option[4:].split(",") if w.strip()}
        ids = {c.id for c in encounter.combatants}
        unknown = sorted(wanted - ids - set(encounter.sides))
        if not wanted or unknown:
            raise InitiativeError(
                f"--dice {clipped(option)}: no combatant or side"
                f" {', '.join(repr(clipped(u)) for u in unknown) or 'named'}"
            )
        only = {c.id for c in encounter.combatants if c.id in wanted or c.side in wanted}
        return AskDice(encounter, only)
    return FileDice(option)
