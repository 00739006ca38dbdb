"""``--csv`` and ``--csv-combatants``: the options, their check before the first fight, and
the writing of the files when the fighting is done (shared by ``batch``, ``duel``,
``compare``, ``sweep`` and ``league``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import UsageProblem, err, out

if TYPE_CHECKING:
    from initiative.batch import Summary
    from initiative.events import EncounterSpec

    from ..analysis._csv import Fought
    from ..analysis._league import Stage

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


def write_csv(fights: Path | None, combatants: Path | None, rows: Sequence[Fought]) -> None:
    """Write the files asked for, each said in a line on standard error (beside the progress
    bar, out of the way of ``--json``)."""
    from initiative.replays import plain

    from ..analysis._csv import write_combatants, write_fights

    if fights is not None:
        write_fights(fights, rows)
        err.print(plain(f"fights written to {fights} (CSV, one row a fight)"))
    if combatants is not None:
        write_combatants(combatants, rows)
        err.print(
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


def league_rows(
    stages: Sequence[Stage], policies: Sequence[str], results: Sequence[Sequence[Summary]]
) -> list[Fought]:
    """A league's games for the CSV files: each with its encounter, its pair (``a``, ``b``, in
    the order the policies were named), the side A played and the policy that won."""
    from ..analysis._csv import Fought
    from ..analysis._league import games_of

    rows = []
    for stage, summaries in zip(stages, results, strict=True):
        one, two = stage.spec.sides
        for game, summary in zip(
            games_of(stage.spec, stage.name, policies, summaries), summaries, strict=True
        ):
            won = None if game.winner is None else ("A" if game.winner == game.a else "B")
            context: dict[str, object] = {
                "encounter": stage.path,
                "a": game.a,
                "b": game.b,
                "a_side": two if game.swapped else one,
                "won": won,
            }
            rows.append(Fought(context, stage.spec, summary))
    return rows


def sweep_rows(
    encounter: Path, key: str | tuple[str, ...], fought: Sequence[tuple[object, int, Summary]]
) -> list[Fought]:
    """A sweep's fights for the CSV files, value by value in the order fought, each value's
    in seed order: each with the key and its value (the encounter as that value makes it). A
    grid's key is the pair of keys, its value the pair of values, written ``a;b`` in a cell."""
    from ..analysis._csv import Fought
    from ..analysis._sweep import check, label, pairs_of, read_data, vary

    data = read_data(encounter)
    order: dict[object, int] = {}
    specs: dict[object, EncounterSpec] = {}
    for value, _, _ in fought:
        if value not in order:
            order[value] = len(order)
            changed = data
            for one_key, number in pairs_of(key, value):  # type: ignore[arg-type]
                changed = vary(changed, one_key, number)
            specs[value] = check(changed, f"{encounter} with {label(key, value)}")  # type: ignore[arg-type]
    rows = sorted(fought, key=lambda row: (order[row[0]], row[1]))

    def cell(item: object) -> object:
        return ";".join(map(str, item)) if isinstance(item, tuple) else item

    return [
        Fought(
            {"encounter": str(encounter), "key": cell(key), "value": cell(value)},
            specs[value],
            summary,
        )
        for value, _, summary in rows
    ]


def print_attacks(spec: EncounterSpec, results: Sequence[Summary]) -> None:
    """The hit rates of ``batch``: per combatant and attack kind (its weapon), with Wilson's
    interval."""
    from rich.table import Table

    from initiative.batch import attack_rates
    from initiative.replays import plain

    from ._output import print_table

    rates = attack_rates(spec, results)
    if not rates:
        return
    table = Table(title="hit rate per attack", header_style="bold")
    for column in ("combatant", "kind", "hits", "rate", "95% CI"):
        table.add_column(column, justify="left" if column in ("combatant", "kind") else "right")
    for a in rates:
        low, high = a.interval
        table.add_row(
            plain(a.combatant),
            plain(a.kind),
            f"{a.hits}/{a.attacks}",
            f"{100 * a.rate:.1f}%",
            f"{100 * low:.1f}-{100 * high:.1f}%",
        )
    print_table(out, table)
