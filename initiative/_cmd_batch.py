"""``batch`` and ``duel``: many seeds of one encounter, with statistics and a results database."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task as ProgressTask,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

import engine
from actors import (
    Summary,
    Task,
    faults_by_policy,
    make_runners,
    quiet_logging,
    rerun_command,
    run_batch,
    side_stats,
    sign_test,
    store,
    wilson,
)
from events import EncounterSpec
from replays import literal, plain

from ._app import UsageProblem, app, err, out, parse_policies

RUNS = Annotated[int, typer.Option("--runs", "-n", help="How many encounters (seeds) to fight.")]
JOBS = Annotated[
    int, typer.Option("--jobs", "-j", help="Worker processes (1: fight in this process).")
]
SEED_START = Annotated[
    int, typer.Option("--seed-start", help="The first seed; the batch uses S, S+1, ...")
]
DB = Annotated[Path | None, typer.Option("--db", help="Append the results to this SQLite file.")]
KEEP = Annotated[
    Path | None, typer.Option("--keep-logs", help="Write every encounter's log in this folder.")
]
TIMEOUT = Annotated[
    float | None, typer.Option(help="Seconds a policy has per decision (default: the file's).")
]


class RateColumn(ProgressColumn):
    """Encounters per second so far."""

    def render(self, task: ProgressTask) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.1f} enc/s", style="cyan")


def _check(
    encounter: Path, runs: int, jobs: int, chosen: dict[str, str], seed: int
) -> EncounterSpec:
    if runs < 1:
        raise UsageProblem(f"--runs {runs}: must be at least 1")
    if jobs < 1:
        raise UsageProblem(f"--jobs {jobs}: must be at least 1")
    spec = engine.load_encounter(encounter)
    ids = {c.id for c in spec.combatants} | set(spec.sides)
    for who in chosen:
        if who not in ids:
            raise UsageProblem(f"--policy {who}=...: no combatant or side {who!r} in {encounter}")
    make_runners(spec, seed, chosen)  # fails early, in this process, on an unknown policy
    return spec


def _level(ctx: typer.Context) -> int:
    """Batches count faults themselves, so policy warnings stay quiet unless asked for."""
    chosen = str((ctx.parent.params if ctx.parent else {}).get("log_level", "warning")).lower()
    level = getattr(logging, chosen.upper(), logging.WARNING)
    return logging.ERROR if level == logging.WARNING else level


def _fight_all(
    ctx: typer.Context,
    encounter: Path,
    tasks: list[Task],
    jobs: int,
    keep_logs: Path | None,
    timeout: float | None,
) -> tuple[list[Summary], float]:
    level = _level(ctx)
    quiet_logging(level)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    started = time.perf_counter()
    with Progress(*columns, console=err, transient=False) as progress:
        bar = progress.add_task(literal(encounter.name), total=len(tasks))
        results = run_batch(
            encounter,
            tasks,
            jobs=jobs,
            keep_logs=keep_logs,
            timeout=timeout,
            progress=lambda n: progress.advance(bar, n),
            log_level=level,
        )
    return results, time.perf_counter() - started


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(low: float, high: float) -> str:
    return f"{100 * low:.1f}-{100 * high:.1f}%"


@app.command(rich_help_panel="Simulation at scale")
def batch(
    ctx: typer.Context,
    encounter: Annotated[Path, typer.Argument(help="The encounter file (TOML).")],
    runs: RUNS,
    jobs: JOBS = 1,
    seed_start: SEED_START = 1,
    policy: Annotated[
        list[str], typer.Option(help="Override a policy: ID=NAME or SIDE=NAME; repeatable.")
    ] = [],  # noqa: B006 - typer reads the default
    db: DB = None,
    keep_logs: KEEP = None,
    timeout: TIMEOUT = None,
) -> None:
    """Fight an encounter over many seeds: win rates with 95% intervals, rounds, damage and
    policy faults per side; results optionally stored in SQLite."""
    chosen = parse_policies(policy)
    spec = _check(encounter, runs, jobs, chosen, seed_start)
    tasks = [Task(seed=seed_start + i, policies=tuple(chosen.items())) for i in range(runs)]
    results, elapsed = _fight_all(ctx, encounter, tasks, jobs, keep_logs, timeout)

    table = Table(
        title=plain(f"{spec.name or encounter.name}: {runs} encounters"), header_style="bold"
    )
    for column in ("side", "policy", "wins", "rate", "95% CI", "rounds", "damage", "faults"):
        table.add_column(column, justify="left" if column in ("side", "policy") else "right")
    first = results[0].policies
    for s in side_stats(spec.sides, results):
        names = sorted({first[c.id] for c in spec.combatants if c.side == s.side})
        low, high = s.interval
        table.add_row(
            plain(s.side),
            plain(", ".join(names)),
            str(s.wins),
            _pct(s.rate),
            _ci(low, high),
            f"{s.rounds_mean:.1f}±{s.rounds_sd:.1f}",
            f"{s.damage_mean:.1f}",
            str(s.faults),
        )
    out.print(table)
    draws = sum(1 for r in results if r.winner is None)
    out.print(f"no winner: {draws}")
    out.print(
        plain(
            "faults by policy: "
            + ", ".join(f"{name} {n}" for name, n in faults_by_policy(results).items())
        )
    )
    out.print(
        f"{runs} encounters in {elapsed:.2f} s ({runs / elapsed:,.1f} per second, {jobs} job(s))"
    )
    _report_storage(
        encounter, "batch", chosen, seed_start, jobs, tasks, results, db, keep_logs, timeout
    )


def _report_storage(
    encounter: Path,
    kind: str,
    policies: object,
    seed_start: int,
    jobs: int,
    tasks: list[Task],
    results: list[Summary],
    db: Path | None,
    keep_logs: Path | None,
    timeout: float | None,
) -> None:
    if keep_logs is not None:
        out.print(plain(f"logs kept in {keep_logs}/"))
    if db is not None:
        run_id = store(
            db,
            kind=kind,
            encounter=encounter,
            policies=policies,
            seed_start=seed_start,
            jobs=jobs,
            tasks=tasks,
            results=results,
            timeout=timeout,
        )
        out.print(plain(f"results stored in {db} as run {run_id} (tables runs, encounters)"))
    out.print(
        plain("fight one again: " + rerun_command(encounter, tasks[0], results[0].log, timeout))
    )


@app.command(rich_help_panel="Simulation at scale")
def duel(
    ctx: typer.Context,
    encounter: Annotated[Path, typer.Argument(help="An encounter file (TOML) with two sides.")],
    policies: Annotated[tuple[str, str], typer.Option("--policies", help="The two policies: A B.")],
    runs: RUNS,
    jobs: JOBS = 1,
    seed_start: SEED_START = 1,
    db: DB = None,
    keep_logs: KEEP = None,
    timeout: TIMEOUT = None,
) -> None:
    """Pit two policies against each other: each seed is fought twice, with the policies on
    one side and then on the other. Says which is better and how sure that is (an exact
    two-sided sign test)."""
    a, b = policies
    spec = engine.load_encounter(encounter)
    if len(spec.sides) != 2:
        raise UsageProblem(
            f"duel needs an encounter with two sides; {encounter} has {len(spec.sides)}"
        )
    one, two = spec.sides
    _check(encounter, runs, jobs, {one: a, two: b}, seed_start)
    _check(encounter, runs, jobs, {one: b, two: a}, seed_start)
    # Paired seeds: each seed is fought twice, A on the first side then on the second, so the
    # luck of the dice and of the sides cancels out of the comparison.
    tasks = [
        Task(
            seed=seed_start + i // 2,
            policies=((one, a), (two, b)) if i % 2 == 0 else ((one, b), (two, a)),
            label="" if i % 2 == 0 else ".swapped",
        )
        for i in range(runs)
    ]
    results, elapsed = _fight_all(ctx, encounter, tasks, jobs, keep_logs, timeout)

    wins = {"A": 0, "B": 0}
    by_side = {("A", one): 0, ("A", two): 0, ("B", one): 0, ("B", two): 0}
    faults = {"A": 0, "B": 0}
    for i, r in enumerate(results):
        side_of = {"A": one, "B": two} if i % 2 == 0 else {"A": two, "B": one}
        for who, side in side_of.items():
            faults[who] += r.side_faults.get(side, 0)
            if r.winner == side:
                wins[who] += 1
                by_side[(who, side)] += 1
    draws = runs - wins["A"] - wins["B"]
    table = Table(title=plain(f"{spec.name or encounter.name}: {runs} duels"), header_style="bold")
    for column in (
        "policy",
        plain(f"wins as {one}"),
        plain(f"wins as {two}"),
        "wins",
        "rate",
        "95% CI",
        "faults",
    ):
        table.add_column(column, justify="left" if column == "policy" else "right")
    for who, name in (("A", a), ("B", b)):
        low, high = wilson(wins[who], runs)
        table.add_row(
            plain(f"{who} {name}"),
            str(by_side[(who, one)]),
            str(by_side[(who, two)]),
            str(wins[who]),
            _pct(wins[who] / runs),
            _ci(low, high),
            str(faults[who]),
        )
    out.print(table)
    p = sign_test(wins["A"], wins["B"])
    decisive = wins["A"] + wins["B"]
    out.print(f"no winner: {draws}")
    if p < 0.05 and wins["A"] != wins["B"]:
        better, worse = (a, b) if wins["A"] > wins["B"] else (b, a)
        out.print(
            f"verdict: {literal(better)} is better than {literal(worse)} (p = {p:.3g}, two-sided sign test"
            f" over {decisive} decisive encounters)"
        )
    else:
        out.print(
            f"verdict: no clear difference between {literal(a)} and {literal(b)} (p = {p:.3g}, two-sided sign"
            f" test over {decisive} decisive encounters); more runs may tell"
        )
    out.print(
        f"{runs} encounters in {elapsed:.2f} s ({runs / elapsed:,.1f} per second, {jobs} job(s))"
    )
    _report_storage(
        encounter, "duel", [a, b], seed_start, jobs, tasks, results, db, keep_logs, timeout
    )
