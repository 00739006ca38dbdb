"""Dice rolled at the table: asked of a person at the terminal, or read from a file.

Both are dice sources for :class:`engine.Fight` (see :mod:`engine._given`): every die they give
is recorded as ``DiceGiven`` and comes back from the log on replay, verification, fork and
resume. A face the die cannot show is refused.

- ``--dice ask``: every die is asked for, with what it is for ("Osric, attack on Goblin 3: roll
  1d20"); ``--dice ask=ID_OR_SIDE[,...]`` asks only for those combatants' dice and rolls the rest.
- ``--dice FILE``: faces in order, whitespace-separated (``#`` starts a comment), for entering a
  fight played earlier; when the file runs out, the rest is rolled.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

import structlog
from initiative.engine import Dice
from initiative.events import EncounterFileError, EncounterSpec, InitiativeError

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


def check_faces(values: list[int], dice: Dice) -> str | None:
    """Why ``values`` cannot be what ``dice`` showed, or ``None`` if they can."""
    if len(values) != dice.count:
        return f"{dice} is {dice.count} {'die' if dice.count == 1 else 'dice'}: give {dice.count} face(s)"
    bad = [v for v in values if not 1 <= v <= dice.sides]
    if bad:
        return f"a d{dice.sides} shows 1 to {dice.sides}, not {bad[0]}"
    return None


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
        several = f" ({dice.count} faces)" if dice.count > 1 else ""
        prompt = f"{asker}{_named(purpose, self.names)}: roll {dice}{several}> "
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
        except (OSError, UnicodeDecodeError) as err:
            raise EncounterFileError(f"--dice {self.path}: cannot read it: {err}") from None
        self.faces_left: list[tuple[int, int]] = []
        for number, line in enumerate(text.splitlines(), 1):
            for token in line.split("#", 1)[0].replace(",", " ").split():
                try:
                    self.faces_left.append((int(token), number))
                except ValueError:
                    raise EncounterFileError(
                        f"{self.path}, line {number}: {token!r} is not a die's face"
                    ) from None
        self.warned = False

    def faces(
        self, fight: object, who: str | None, purpose: str, dice: Dice
    ) -> tuple[int, ...] | None:
        if len(self.faces_left) < dice.count:
            if not self.warned:
                log.warning("the dice file ran out; the fight rolls the rest", file=str(self.path))
                self.warned = True
            return None
        taken, self.faces_left = self.faces_left[: dice.count], self.faces_left[dice.count :]
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
                f"--dice {option}: no combatant or side {', '.join(map(repr, unknown)) or 'named'}"
            )
        only = {c.id for c in encounter.combatants if c.id in wanted or c.side in wanted}
        return AskDice(encounter, only)
    return FileDice(option)
