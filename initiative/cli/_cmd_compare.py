"""``compare``: variants of an encounter fought on the same seeds, side by side, with paired
tests and differences."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from ._app import UsageProblem, app, err, out, parse_policies
from ._cmd_batch import (
    AS_JSON,
    JOBS,
    REPORT,
    SEED_START,
    TIMEOUT,
    Clock,
    _check,
    _ci,
    _level,
    _outcomes_json,
    _pct,
    _start_worker_server,
    _timing,
    check_report,
    write_report,
)
from ._data_out import CSV, CSV_COMBATANTS, check_csv, write_csv
from ._options import CompareOptions
from ._output import print_json, print_table, rounded

if TYPE_CHECKING:
    from initiative.batch import Summary, Task

    from ..analysis._compare import PairDifference, PairedRate, Variant
    from ..analysis._csv import Fought


@app.command(rich_help_panel="Simulation at scale")
def compare(
    ctx: typer.Context,
    encounters: Annotated[
        list[Path],
        typer.Argument(
            help="Two or more encounter files (TOML): variants of one encounter, with the same"
            " sides.",
            show_default=False,
        ),
    ],
    runs: Annotated[
        int, typer.Option("--runs", "-n", help="Seeds to fight each variant on (the same seeds).")
    ],
    jobs: JOBS = CompareOptions.jobs,
    seed_start: SEED_START = CompareOptions.seed_start,
    policy: Annotated[
        list[str],
        typer.Option(help="Override a policy in every variant: ID=NAME or SIDE=NAME; repeatable."),
    ] = [],  # noqa: B006 - typer reads the default
    timeout: TIMEOUT = CompareOptions.timeout,
    as_json: AS_JSON = CompareOptions.as_json,
    report: REPORT = CompareOptions.report,
    csv: CSV = CompareOptions.csv,
    csv_combatants: CSV_COMBATANTS = CompareOptions.csv_combatants,
) -> None:
    """Fight variants of an encounter on the same seeds with the same policies and say what
    changes: win rates per variant, and per pair of variants each side's and each combatant's
    differences with 95% intervals and a paired test (exact McNemar over the seeds where a side
    won in one variant only)."""
    o = CompareOptions.from_params(ctx.params)
    check_report(o.report)
    check_csv(o.csv, o.csv_combatants)
    _start_worker_server(o.jobs, None)
    from ..analysis._compare import CompareError, compare_tasks, differences, plan_compare

    chosen = parse_policies(list(o.policy))
    specs = [_check(path, o.runs, o.jobs, chosen, o.seed_start) for path in o.encounters]
    try:
        variants = plan_compare(o.encounters, specs)
    except CompareError as problem:
        raise UsageProblem(str(problem)) from None
    tasks = compare_tasks(chosen, o.runs, o.seed_start)
    results, clock = _fight(ctx, variants, tasks, o.jobs, o.timeout)
    write_csv(o.csv, o.csv_combatants, _rows(variants, results))
    pairs = differences(variants, results)
    if o.as_json or o.report is not None:
        data = _json(variants, results, pairs, o.runs, o.seed_start, chosen, clock, o.jobs)
        from ..analysis._report import compare_page

        write_report(o.report, lambda: compare_page(data, variants, results))
        if o.as_json:
            print_json(data)
            return
    _print_variants(variants, results, o.runs)
    for pair in pairs:
        _print_pair(pair)
    from ..analysis._compare import INTERVALS, TEST

    out.print(f"p: {TEST}; {INTERVALS}")
    out.print(
        f"{clock.done} encounters in {clock.elapsed:.2f} s ({clock.rate:,.1f} per second,"
        f" {o.jobs} job(s))"
    )
    if o.report is not None:
        from initiative.replays import plain

        out.print(plain(f"report written to {o.report}"))


def _fight(
    ctx: typer.Context,
    variants: list[Variant],
    tasks: list[Task],
    jobs: int,
    timeout: float | None,
) -> tuple[list[list[Summary]], Clock]:
    """Fight each variant on the tasks, a progress bar each; Ctrl-C stops the workers, says
    how many fights were done, and exits 130."""
    from initiative.batch import iter_batch, quiet_logging
    from initiative.replays import literal, plain

    from ._progress import progress_bar

    level = _level(ctx)
    quiet_logging(level)
    clock = Clock()
    results: list[list[Summary]] = []
    try:
        with progress_bar(clock, err) as progress:
            bars = [
                progress.add_task(literal(f"{v.label} {Path(v.path).name}"), total=len(tasks))
                for v in variants
            ]
            for variant, bar in zip(variants, bars, strict=True):
                got: dict[int, Summary] = {}
                fought = iter_batch(
                    variant.path, tasks, jobs=jobs, timeout=timeout, log_level=level
                )
                with closing(fought):  # type: ignore[type-var]  # a generator: close() stops its workers
                    for index, summary in fought:
                        got[index] = summary
                        clock.tick()
                        progress.advance(bar, 1)
                results.append([got[i] for i in range(len(tasks))])
    except KeyboardInterrupt:
        err.print(plain(f"interrupted: {clock.done} fights done; nothing was stored"))
        raise typer.Exit(130) from None
    return results, clock


def _rows(variants: list[Variant], results: list[list[Summary]]) -> list[Fought]:
    from ..analysis._csv import Fought

    return [
        Fought({"variant": v.label, "encounter": v.path}, v.spec, r)
        for v, summaries in zip(variants, results, strict=True)
        for r in summaries
    ]


def _variant_json(variant: Variant, results: list[Summary], runs: int) -> dict[str, object]:
    from initiative.batch import (
        combatant_stats,
        combatants_json,
        figures_json,
        outcomes,
        side_stats,
    )

    spec = variant.spec
    first = results[0].policies
    ended = outcomes(results)
    return {
        "label": variant.label,
        "encounter": variant.path,
        "name": spec.name,
        "sides": [
            {
                "side": s.side,
                "policies": sorted({first[c.id] for c in spec.combatants if c.side == s.side}),
                "wins": s.wins,
                "rate": rounded(s.rate),
                "ci95": [rounded(s.interval[0]), rounded(s.interval[1])],
                "damage": s.damage.as_json(),
            }
            for s in side_stats(spec.sides, results)
        ],
        "no_winner": ended.stalemates + ended.undecided,
        **_outcomes_json(ended, spec),
        "combatants": combatants_json(combatant_stats(spec, results)),
        **figures_json(spec, results),
    }


def _json(
    variants: list[Variant],
    results: list[list[Summary]],
    pairs: list[PairDifference],
    runs: int,
    seed_start: int,
    chosen: dict[str, str],
    clock: Clock,
    jobs: int,
) -> dict[str, object]:
    from ..analysis._compare import INTERVALS, TEST, pair_json

    return {
        "command": "compare",
        "runs": runs,
        "seed_start": seed_start,
        "policies": chosen,
        "variants": [_variant_json(v, r, runs) for v, r in zip(variants, results, strict=True)],
        "pairs": [pair_json(p) for p in pairs],
        "test": TEST,
        "intervals": INTERVALS,
        **_timing(clock, jobs, None),
    }


def _print_variants(variants: list[Variant], results: list[list[Summary]], runs: int) -> None:
    from initiative.batch import outcomes, side_stats
    from initiative.replays import plain

    sides = variants[0].spec.sides
    table = Table(
        title=plain(f"{len(variants)} variants, each on the same {runs} seeds"),
        header_style="bold",
    )
    table.add_column("variant")
    table.add_column("encounter")
    for side in sides:
        table.add_column(plain(f"{side} wins"), justify="right")
        table.add_column("95% CI", justify="right")
    table.add_column("no winner", justify="right")
    table.add_column("rounds", justify="right")
    for v, summaries in zip(variants, results, strict=True):
        cells = []
        for s in side_stats(sides, summaries):
            cells += [_pct(s.rate), _ci(*s.interval)]
        ended = outcomes(summaries)
        table.add_row(
            v.label,
            plain(v.path),
            *cells,
            str(ended.stalemates + ended.undecided),
            ended.rounds.text(),
        )
    print_table(out, table)


def _signed(low: float, high: float, scale: float = 1.0, unit: str = "") -> str:
    return f"{scale * low:+.1f} to {scale * high:+.1f}{unit}"


def _rate_cells(rate: PairedRate) -> list[str]:
    low, high = rate.interval
    return [
        f"{_pct(rate.first / rate.n)} → {_pct(rate.second / rate.n)}" if rate.n else "-",
        f"{100 * rate.difference:+.1f}",
        _signed(low, high, 100),
    ]


def _mean_cells(mean: object) -> list[str]:
    from initiative.batch import Mean

    assert isinstance(mean, Mean)
    if mean.n == 0:
        return ["-", ""]
    if mean.low is None or mean.high is None:
        return [f"{mean.mean:+.1f}", ""]
    return [f"{mean.mean:+.1f}", _signed(mean.low, mean.high)]


def _print_pair(pair: PairDifference) -> None:
    from initiative.replays import plain

    a, b = pair.first, pair.second
    title = f"{b.label} against {a.label} ({b.path} against {a.path}), {pair.seeds} seeds"
    table = Table(title=plain(title), header_style="bold")
    for column in (
        "side",
        f"wins {a.label} → {b.label}",
        "difference (pts)",
        "95% CI",
        f"won only in {a.label}/{b.label}",
        "p",
        "damage dealt",
        "95% CI",
        "hp left",
        "95% CI",
    ):
        table.add_column(column, justify="left" if column == "side" else "right")
    for s in pair.sides:
        table.add_row(
            plain(s.side),
            *_rate_cells(s.wins),
            f"{s.wins.first_only}/{s.wins.second_only}",
            f"{s.wins.p:.3g}",
            *_mean_cells(s.damage),
            *_mean_cells(s.hp_left),
        )
    print_table(out, table)
    who = Table(title=plain(f"combatants, {b.label} against {a.label}"), header_style="bold")
    columns = ("combatant", "side", "survived", "difference (pts)", "95% CI", "p")
    for column in (*columns, "dealt", "95% CI", "taken", "95% CI"):
        who.add_column(column, justify="left" if column in ("combatant", "side") else "right")
    for c in pair.combatants:
        if c.survived is None or c.dealt is None or c.taken is None:
            who.add_row(plain(c.id), plain(c.side), f"only in {c.present}", *[""] * 7)
            continue
        who.add_row(
            plain(c.id),
            plain(c.side),
            *_rate_cells(c.survived),
            f"{c.survived.p:.3g}",
            *_mean_cells(c.dealt),
            *_mean_cells(c.taken),
        )
    print_table(out, who)
    mean, interval = _mean_cells(pair.rounds)
    shown = f"{mean} ({interval})" if interval else mean
    out.print(
        f"rounds, {b.label} less {a.label}: {shown} (mean per-seed difference, 95% t interval)"
    )
