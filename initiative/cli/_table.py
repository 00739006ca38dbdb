"""Options for fights played at a table: ``--dice``, ``--host``, and what an interruption says.

Shared by ``run``, ``fork`` and ``resume``; kept here so the commands only gain a line or two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

if TYPE_CHECKING:
    from initiative.engine import DiceSource
    from initiative.events import EncounterSpec

from ._app import UsageProblem, err
from ._options import ResumeOptions

DiceOption = Annotated[
    str | None,
    typer.Option(
        "--dice",
        help="Dice rolled at the table: 'ask' (prompt for every die), 'ask=ID_OR_SIDE' (only"
        " theirs), or a FILE of faces in order (resume and fork go on from its first face the"
        " log has not used). Recorded in the log as given.",
    ),
]
HostOption = Annotated[
    list[str],
    typer.Option(
        "--host",
        help="Where a policy runs: ID=process (a child process killed at its deadline) or"
        " ID=thread; SIDE=... for a whole side; repeatable.",
    ),
]


def dice_source(option: str | None, encounter: EncounterSpec) -> DiceSource | None:
    from initiative.actors import table_dice

    return None if option is None else table_dice(option, encounter)


def parse_hosts(pairs: list[str], encounter: EncounterSpec) -> dict[str, str]:
    from initiative.actors import HOSTS, check_names

    ids = {c.id for c in encounter.combatants} | set(encounter.sides)
    chosen = {}
    for pair in pairs:
        who, sep, kind = pair.partition("=")
        if sep:
            check_names(encounter, [who], what="--host {name}=...")
        if not sep or who not in ids or kind not in HOSTS:
            raise UsageProblem(
                f"--host {pair!r}: expected ID=HOST or SIDE=HOST with a combatant or side of the"
                f" encounter and HOST one of {', '.join(HOSTS)}"
            )
        chosen[who] = kind
    return chosen


T = TypeVar("T")


@contextmanager
def stops_cleanly(log: Path, again: Callable[[], str]) -> Iterator[None]:
    """Ctrl-C or a closed terminal stops the fight with a line saying how to go on.

    (A terminal that hangs up stops the fight at its next question; see ``actors._terminal``.
    Everything typed is in the log by then: at the table it is written as it happens.)"""
    from initiative.replays import literal

    try:
        yield
    except KeyboardInterrupt:
        with suppress(OSError):  # the terminal went away as this was said
            err.print(
                f"\ninterrupted; the log {literal(log)} keeps every event so far. Go on with:"
                f"\n  {literal(again())}"
            )
        raise typer.Exit(130) from None


def resume_command(log: Path, policy: list[str], dice: str | None, host: list[str]) -> str:
    """The command that goes on with the fight in ``log``, with the same overrides, dice and
    hosts."""
    again = ResumeOptions(log=log, policy=tuple(policy), dice=dice, host=tuple(host))
    return again.command_line()
