"""``--csv`` and ``--csv-combatants``: the options, their check before the first fight, and
the writing of the files when the fighting is done (shared by ``batch``, ``duel``,
``compare``, ``sweep`` and ``league``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import UsageProblem, out

if TYPE_CHECKING:
    from initiative.batch import Summary
    from initiative.events import EncounterSpec

    from ..analysis._csv import Fought

CSV = Annotated[
    Path | None,
    typer.Option(
        "--csv",
        help="Also write one row a fight to this CSV file (seed, winner, rounds, stalemate,"
        " per side: policy, damage, hit points left, fallen).",
        show_default=False,
    ),
]
CSV_COMBATANTS = Annotated[
    Path | None,
    typer.Option(
        "--csv-combatants",
        help="Also write one row per combatant per fight to this CSV file (hit points left,"
        " damage dealt and taken, kills, the round it fell in, hits and misses per attack kind).",
        show_default=False,
    ),
]


def check_csv(fights: Path | None, combatants: Path | None) -> None:
    """An unwritable ``--csv`` or ``--csv-combatants`` is one line and exit 2, before any fight."""
    from ..analysis._csv import OutputPathProblem, check_output

    for path, option in ((fights, "--csv"), (combatants, "--csv-combatants")):
        if path is None:
            continue
        try:
            check_output(path, option)
        except OutputPathProblem as problem:
            raise UsageProblem(str(problem)) from None
    if fights is not None and combatants is not None and fights.resolve() == combatants.resolve():
        raise UsageProblem(f"--csv and --csv-combatants are both {fights}; give two files")


def write_csv(
    fights: Path | None, combatants: Path | None, rows: Sequence[Fought], *, say: bool
) -> None:
    """Write the files asked for; with ``say``, a line for each on the terminal."""
    from initiative.replays import plain

    from ..analysis._csv import write_combatants, write_fights

    if fights is not None:
        write_fights(fights, rows)
        if say:
            out.print(plain(f"fights written to {fights} (CSV, one row a fight)"))
    if combatants is not None:
        write_combatants(combatants, rows)
        if say:
            out.print(
                plain(f"combatants written to {combatants} (CSV, one row per combatant per fight)")
            )


def print_groups(spec: EncounterSpec, results: Sequence[Summary]) -> None:
    """The group outcomes table of ``batch``: per side, how often any (or all) of it fell,
    with Wilson's interval, and the hit points it had left."""
    from rich.table import Table

    from initiative.batch import group_outcomes, wilson
    from initiative.replays import plain

    from ._output import print_table

    table = Table(title="group outcomes", header_style="bold")
    for column in ("side", "any fell", "95% CI", "all fell", "95% CI", "hp left", "of"):
        table.add_column(column, justify="left" if column == "side" else "right")
    for g in group_outcomes(spec, results):
        cells = []
        for count in (g.any_fell, g.all_fell):
            low, high = wilson(count, g.fights)
            cells += [f"{100 * g.rate(count):.1f}%", f"{100 * low:.1f}-{100 * high:.1f}%"]
        table.add_row(plain(g.side), *cells, g.hp_left.text(), str(g.start))
    print_table(out, table)
