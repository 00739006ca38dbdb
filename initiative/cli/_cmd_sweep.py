"""``sweep``: one value of an encounter varied over a range, and each side's win rate across it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from ._app import UsageProblem, app, err, out
from ._cmd_batch import (
    AS_JSON,
    DB,
    JOBS,
    REPORT,
    SEED_START,
    TIMEOUT,
    Clock,
    _ci,
    _level,
    _pct,
    _start_worker_server as start_worker_server,
    check_report,
    write_report,
)
from ._data_out import CSV, CSV_COMBATANTS, check_csv, sweep_rows, write_csv
from ._options import SweepOptions
from ._output import print_json, print_table, rounded

if TYPE_CHECKING:
    from collections.abc import Mapping

    from initiative.batch import ResultStore, Summary

    from ..analysis._sweep import Grid, Number, Point, Range, Search, Sweep, Value


@app.command(rich_help_panel="Simulation at scale")
def sweep(
    ctx: typer.Context,
    encounter: Annotated[Path, typer.Argument(help="The encounter file (TOML).")],
    vary: Annotated[
        list[str],
        typer.Option(
            "--vary",
            help="KEY=LO..HI: combatants.ID.FIELD (e.g. combatants.boss.hp=10..40,"
            " combatants.boss.stats.agility=1..6), options.NAME, sides.SIDE.count. Twice: a"
            " grid of every pair of values.",
            show_default=False,
        ),
    ],
    step: Annotated[
        float | None, typer.Option("--step", help="Fight LO, LO+S, ... up to HI.")
    ] = SweepOptions.step,
    points: Annotated[
        int | None,
        typer.Option(
            "--points",
            help="Fight N values spread evenly from LO to HI (default: every integer of a range"
            " of at most 11, otherwise 5).",
        ),
    ] = SweepOptions.points,
    runs: Annotated[
        int, typer.Option("--runs", "-n", help="Seeds per value (the same seeds for each).")
    ] = SweepOptions.runs,
    jobs: JOBS = SweepOptions.jobs,
    seed_start: SEED_START = SweepOptions.seed_start,
    side: Annotated[
        str | None,
        typer.Option(
            "--side",
            help="The side whose win rate --target follows, or a grid shows (default: the first).",
        ),
    ] = SweepOptions.side,
    target: Annotated[
        float | None,
        typer.Option(
            "--target",
            help="Find where --side's win rate crosses this rate (0 to 1), by bisection over an"
            " integer range; assumes the rate is monotone in the value.",
        ),
    ] = SweepOptions.target,
    db: DB = SweepOptions.db,
    timeout: TIMEOUT = SweepOptions.timeout,
    as_json: AS_JSON = SweepOptions.as_json,
    report: REPORT = SweepOptions.report,
    csv: CSV = SweepOptions.csv,
    csv_combatants: CSV_COMBATANTS = SweepOptions.csv_combatants,
) -> None:
    """Vary one value of an encounter and report each side's win rate across the range, with
    95% intervals; with --target, find the value where a side's win rate crosses it."""
    o = SweepOptions.from_params(ctx.params)
    check_report(o.report)
    check_csv(o.csv, o.csv_combatants)
    start_worker_server(o.jobs, None)
    from ..analysis._sweep import parse_range

    if len(o.vary) > 2:
        raise UsageProblem(
            f"--vary given {len(o.vary)} times; a sweep varies one value, or two as a grid"
        )
    if len(o.vary) == 2:
        if o.target is not None:
            raise UsageProblem("--target bisects one --vary; give one --vary with --target")
        _grid(ctx, o, [parse_range(v) for v in o.vary])
    else:
        _one(ctx, o, parse_range(o.vary[0]))


def _check_target(o: SweepOptions, span: Range) -> None:
    """``--target`` bisects an integer range, alone; ``--side`` is for ``--target``."""
    if o.target is None:
        if o.side is not None:
            raise UsageProblem("--side names the side --target follows; give --target too")
        return
    if not 0 <= o.target <= 1:
        raise UsageProblem(f"--target {o.target:g}: a win rate is from 0 to 1")
    if o.step is not None or o.points is not None:
        raise UsageProblem("--target bisects the range; --step and --points are for a sweep")
    if not span.integer:
        raise UsageProblem(
            f"--target bisects an integer range; --vary {o.vary[0]} is not one (give LO..HI as"
            " whole numbers)"
        )


def _check_side(o: SweepOptions, sides: tuple[str, ...]) -> None:
    """Refuse a ``--side`` that is not a side of the encounter."""
    if o.side is not None and o.side not in sides:
        raise UsageProblem(f"--side {o.side}: not a side of {o.encounter} ({', '.join(sides)})")


def _one(ctx: typer.Context, o: SweepOptions, span: Range) -> None:
    """One ``--vary``: a sweep over its values, or with ``--target`` a bisection."""
    from ..analysis._sweep import Sweeper, search, sweep as run_sweep, values_of

    _check_target(o, span)
    values = values_of(span, step=o.step, points=o.points) if o.target is None else []
    with Sweeper(
        o.encounter, span.key, runs=o.runs, seed_start=o.seed_start, jobs=o.jobs
    ) as checked:
        for value in values or (int(span.low), int(span.high)):
            checked.check(value)  # a bad key or value fails here, before the progress bar
        _check_side(o, checked.sides)
    fights = _Fights(ctx, o, span.key)
    with fights:
        if o.target is None:
            fights.total(len(values) * o.runs)
            swept = run_sweep(
                o.encounter, span.key, values, o.runs, **fights.settings, on_value=fights.value
            )
        else:
            found = search(
                o.encounter,
                span.key,
                int(span.low),
                int(span.high),
                o.target,
                o.runs,
                side=o.side,
                **fights.settings,
                on_value=fights.probe,
            )
    write_csv(o.csv, o.csv_combatants, sweep_rows(o.encounter, span.key, fights.fought))
    if o.target is None:
        _show_sweep(swept, span, fights, o.as_json, o.report)
    else:
        _show_search(found, span, fights, o.as_json, o.report)


def _grid(ctx: typer.Context, o: SweepOptions, spans: list[Range]) -> None:
    """Two ``--vary``: every pair of their values, fought on the same seeds, as a grid."""
    from ..analysis._sweep import Sweeper, grid, values_of

    rows, columns = (values_of(span, step=o.step, points=o.points) for span in spans)
    keys = (spans[0].key, spans[1].key)
    if keys[0] == keys[1]:
        raise UsageProblem(f"--vary {keys[0]} is given twice; a grid varies two different keys")
    with Sweeper(o.encounter, keys, runs=o.runs, seed_start=o.seed_start, jobs=o.jobs) as checked:
        for pair in [(r, c) for r in rows for c in columns]:
            checked.check(pair)  # a bad key or value fails here, before the progress bar
        _check_side(o, checked.sides)
        chosen = o.side if o.side is not None else checked.sides[0]
    fights = _Fights(ctx, o, keys)
    with fights:
        fights.total(len(rows) * len(columns) * o.runs)
        made = grid(
            o.encounter,
            keys,
            rows,
            columns,
            o.runs,
            **fights.settings,
            on_value=fights.value,
        )
    write_csv(o.csv, o.csv_combatants, sweep_rows(o.encounter, keys, fights.fought))
    _show_grid(made, spans, chosen, fights, o.as_json, o.report)


def _show_grid(
    made: Grid,
    spans: list[Range],
    side: str,
    fights: _Fights,
    as_json: bool,
    report: Path | None,
) -> None:
    from initiative.replays import plain

    data = {
        "command": "sweep",
        "encounter": made.encounter,
        "key": None,
        "keys": list(made.keys),
        "low": [s.low for s in spans],
        "high": [s.high for s in spans],
        "runs": made.runs,
        "seed_start": made.seed_start,
        "sides": list(made.sides),
        "grid": {"rows": list(made.rows), "columns": list(made.columns), "side": side},
        "points": [_point_json(p) for p in made.points],
        "target": None,
    }
    _json_and_report(data, fights, as_json, report)
    if as_json:
        return
    rows_key, columns_key = made.keys
    title = (
        f"{Path(made.encounter).name}: {side}'s win rate (95% CI), {rows_key} down,"
        f" {columns_key} across; {made.runs} seeds each (the same seeds for every pair)"
    )
    table = Table(title=plain(title), header_style="bold")
    table.add_column(plain(f"{rows_key} \\ {columns_key}"), justify="right")
    for c in made.columns:
        table.add_column(plain(str(c)), justify="right")
    for r in made.rows:
        cells = []
        for c in made.columns:
            rate = made.at(r, c).side(side)
            cells.append(f"{_pct(rate.rate)} ({_ci(*rate.interval)})")
        table.add_row(plain(str(r)), *cells)
    print_table(out, table)
    undecided = sum(p.no_winner for p in made.points)
    out.print(plain(f"no winner: {undecided} of {sum(p.fights for p in made.points)} fights"))
    _print_timing(fights, report)


class _Fights:
    """The progress bar, the results database (a run of kind ``sweep`` for each value) and
    Ctrl-C: it stops the workers, says what was kept, and exits 130."""

    def __init__(self, ctx: typer.Context, o: SweepOptions, key: str | tuple[str, ...]) -> None:
        from initiative.batch import quiet_logging

        quiet_logging(_level(ctx))
        self.encounter, self.key, self.runs, self.seed_start = (
            o.encounter,
            key,
            o.runs,
            o.seed_start,
        )
        self.jobs, self.timeout, self.db = o.jobs, o.timeout, o.db
        self.clock = Clock()
        self.run_ids: list[int] = []
        self.saved: ResultStore | None = None
        self.planned = 0
        self.fought: list[tuple[Value, int, Summary]] = []
        """Every fight as it finished: its value, its index among the value's, its summary."""

    @property
    def settings(self) -> dict[str, Any]:
        """What every kind of sweep is given for its batches: the seeds, the workers, the
        policies' timeout, and this object to hear each fight as it ends."""
        return {
            "seed_start": self.seed_start,
            "jobs": self.jobs,
            "timeout": self.timeout,
            "on_result": self.done,
        }

    def __enter__(self) -> _Fights:
        from initiative.replays import literal

        from ._progress import progress_bar

        self.progress = progress_bar(self.clock, err)
        self.progress.__enter__()
        self.bar = self.progress.add_task(literal(self.encounter.name), total=None)
        return self

    def __exit__(self, kind: object, problem: object, trace: object) -> None:
        self.progress.__exit__(None, None, None)
        self._close()
        if isinstance(problem, KeyboardInterrupt):
            from initiative.replays import plain

            kept = (
                f"; the finished fights are in {self.db}"
                if self.db is not None
                else "; nothing was stored (give --db to keep them)"
            )
            err.print(plain(f"interrupted: {self.clock.done} fights done{kept}"))
            raise typer.Exit(130) from None

    def _close(self) -> None:
        if self.saved is not None:
            from ._progress import whole

            with whole():
                self.saved.close()
            self.saved = None

    def total(self, more: int) -> None:
        self.planned += more
        self.progress.update(self.bar, total=self.planned)

    def probe(self, value: Number) -> None:
        """A probe of a bisection: its fights join the bar's total as it starts."""
        self.total(self.runs)
        self.value(value)

    def value(self, value: Value) -> None:
        from initiative.batch import ResultStore, Task
        from initiative.replays import literal

        from ..analysis._sweep import label

        self.progress.update(self.bar, description=literal(label(self.key, value)))
        if self.db is None:
            return
        self._close()
        self.saved = ResultStore(
            self.db,
            kind="sweep",
            encounter=f"{self.encounter} with {label(self.key, value)}",
            policies={},
            seed_start=self.seed_start,
            tasks=[Task(seed=self.seed_start + i) for i in range(self.runs)],
            jobs=self.jobs,
            timeout=self.timeout,
        )
        self.run_ids.append(self.saved.run_id)

    def done(self, value: Value, index: int, summary: Summary) -> None:
        from ._progress import whole

        with whole():
            if self.saved is not None:
                self.saved.add(index, summary)
            self.fought.append((value, index, summary))
            self.clock.tick()
        self.progress.advance(self.bar, 1)


def _point_json(p: Point) -> dict[str, object]:
    return {
        "value": p.value,
        "fights": p.fights,
        "sides": [
            {
                "side": s.side,
                "wins": s.wins,
                "rate": rounded(s.rate),
                "ci95": [rounded(s.interval[0]), rounded(s.interval[1])],
            }
            for s in p.sides
        ],
        "no_winner": p.no_winner,
        "stalemates": p.stalemates,
    }


def _common(span: Range, fights: _Fights, encounter: str, runs: int) -> dict[str, object]:
    return {
        "command": "sweep",
        "encounter": encounter,
        "key": span.key,
        "low": span.low,
        "high": span.high,
        "runs": runs,
        "seed_start": fights.seed_start,
    }


def _timing(fights: _Fights) -> dict[str, object]:
    return {
        "fought": fights.clock.done,
        "seconds": rounded(fights.clock.elapsed, 3),
        "jobs": fights.jobs,
        "db": str(fights.db) if fights.db is not None else None,
        "run_ids": fights.run_ids,
    }


def _rates_table(title: str, sides: tuple[str, ...], key: str, first: str = "") -> Table:
    from initiative.replays import plain

    table = Table(title=plain(title), header_style="bold")
    if first:
        table.add_column(first, justify="right")
    table.add_column(plain(key), justify="right")
    for s in sides:
        table.add_column(plain(f"{s} wins"), justify="right")
        table.add_column("95% CI", justify="right")
    table.add_column("no winner", justify="right")
    return table


def _rate_cells(p: Point) -> list[str]:
    cells = []
    for s in p.sides:
        cells += [_pct(s.rate), _ci(*s.interval)]
    return cells


def _show_sweep(
    swept: Sweep, span: Range, fights: _Fights, as_json: bool, report: Path | None
) -> None:
    data = {
        **_common(span, fights, swept.encounter, swept.runs),
        "values": [p.value for p in swept.points],
        "sides": list(swept.sides),
        "points": [_point_json(p) for p in swept.points],
        "target": None,
    }
    _json_and_report(data, fights, as_json, report)
    if as_json:
        return
    title = (
        f"{Path(swept.encounter).name}: {span.key} from {span.low} to {span.high},"
        f" {swept.runs} seeds each (the same seeds for every value)"
    )
    table = _rates_table(title, swept.sides, span.key)
    for p in swept.points:
        table.add_row(str(p.value), *_rate_cells(p), str(p.no_winner))
    print_table(out, table)
    _print_timing(fights, report)


def _show_search(
    found: Search, span: Range, fights: _Fights, as_json: bool, report: Path | None
) -> None:
    from initiative.replays import plain

    c = found.crossing
    data = {
        **_common(span, fights, found.encounter, found.runs),
        "sides": list(found.sides),
        "points": [_point_json(p) for p in found.points],
        "target": {
            "side": found.side,
            "rate": c.target,
            "rising": c.rising,
            "found": c.found,
            "below": c.below,
            "above": c.above,
            "closer": c.closer,
            "unsure": _unsure(found),
            "fair": list(found.fair) if found.fair is not None else None,
            "fair_cut": list(found.fair_cut),
            "walked": found.walked,
            "probes": [p.value for p in found.points],
            "fights": found.fights,
            "assumes": "the win rate is monotone in the value",
        },
    }
    _json_and_report(data, fights, as_json, report)
    if as_json:
        return
    title = (
        f"{Path(found.encounter).name}: where {found.side}'s win rate crosses {_pct(c.target)}"
        f" as {span.key} goes from {span.low} to {span.high} ({found.runs} seeds a probe)"
    )
    table = _rates_table(title, found.sides, span.key, first="probe")
    for number, p in enumerate(found.points, 1):
        table.add_row(str(number), str(p.value), *_rate_cells(p), str(p.no_winner))
    print_table(out, table)
    rates = {p.value: p.side(found.side).rate for p in found.points}
    key, side, goal = span.key, found.side, _pct(c.target)
    if c.found == "crossed":
        assert c.below is not None and c.above is not None
        line = (
            f"crossing: {side}'s win rate passes {goal} between {key}={c.below}"
            f" ({_pct(rates[c.below])}) and {key}={c.above} ({_pct(rates[c.above])});"
            f" {c.closer} is closer"
        )
        if _unsure(found):
            line += f" (an interval there holds {goal}: more --runs make the bracket surer)"
    elif c.found == "at-low":
        line = (
            f"no crossing in the range: {side}'s win rate is already {_pct(rates[span.low])}"
            f" at {key}={span.low} ({_pct(rates[span.high])} at {span.high})"
        )
    else:
        line = (
            f"no crossing in the range: {side}'s win rate is still {_pct(rates[span.high])}"
            f" at {key}={span.high} ({_pct(rates[span.low])} at {span.low})"
        )
    out.print(plain(line))
    out.print(plain(_fair_line(found, key)))
    out.print(
        plain(
            f"{len(found.points)} probes, {found.fights} fights; the bisection assumes the win"
            f" rate is monotone in {key} (it reads the direction from the two ends)"
        )
    )
    _print_timing(fights, report)


def _fair_line(found: Search, key: str) -> str:
    """The fair range in words: every value whose 95% interval holds the target."""
    goal = _pct(found.crossing.target)
    walked = f"; {found.walked} probe(s) after the bisection found its ends" if found.walked else ""
    if found.fair is None:
        return (
            f"fair range: none; no value next to the crossing has a 95% interval that holds"
            f" {goal}{walked}"
        )
    first, last = found.fair
    where = f"{key}={first}" if first == last else f"{key}={first}..{last}"
    cut_low, cut_high = found.fair_cut
    beyond = [
        f"{first - 1}" if not cut_low else "",
        f"{last + 1}" if not cut_high else "",
    ]
    outside = " and ".join(b for b in beyond if b)
    tail = f" ({outside} do not)" if outside else ""
    if cut_low or cut_high:
        tail += "; the range ends there: values beyond it may be fair too"
    return f"fair range: {where}, every value whose 95% interval holds {goal}{tail}{walked}"


def _json_and_report(
    data: Mapping[str, object], fights: _Fights, as_json: bool, report: Path | None
) -> None:
    """Print ``data`` and the fights' timing with ``--json``; draw the report from the same
    dictionary (nothing without either)."""
    if not as_json and report is None:
        return
    from ..analysis._report import sweep_page

    shown: dict[str, object] = {**data, **_timing(fights)}
    write_report(report, lambda: sweep_page(shown))
    if as_json:
        print_json(shown)


def _unsure(found: Search) -> bool:
    """A value of the crossing's bracket whose 95% interval holds the target (the bracket may
    then be luck): always false when there is no bracket."""
    c = found.crossing
    if c.below is None or c.above is None:
        return False
    by_value = {p.value: p.side(found.side).interval for p in found.points}
    return any(by_value[v][0] <= c.target <= by_value[v][1] for v in (c.below, c.above))


def _print_timing(fights: _Fights, report: Path | None = None) -> None:
    from initiative.replays import plain

    clock = fights.clock
    out.print(
        f"{clock.done} encounters in {clock.elapsed:.2f} s ({clock.rate:,.1f} per second,"
        f" {fights.jobs} job(s))"
    )
    if fights.db is not None:
        runs = ", ".join(map(str, fights.run_ids))
        out.print(plain(f"results stored in {fights.db} as runs {runs} (one a value)"))
    if report is not None:
        out.print(plain(f"report written to {report}"))
