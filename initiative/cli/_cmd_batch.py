"""``batch`` and ``duel``: many seeds of one encounter, with statistics and a results database."""

import logging
import sys
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

if TYPE_CHECKING:
    from initiative.batch import CombatantStats, Duel, Outcomes, ResultStore, Summary, Task
    from initiative.events import EncounterSpec

    from ..analysis._csv import Fought

from ._app import UsageProblem, app, err, out, parse_policies
from ._data_out import CSV, CSV_COMBATANTS, check_csv, print_attacks, print_groups, write_csv
from ._options import BatchOptions, DuelOptions
from ._output import print_json, print_table, rounded

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


CLUSTER = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Run on Dask distributed: tcp://HOST:PORT of a scheduler, or local:N for a local"
        " cluster of N worker processes (needs the 'cluster' extra).",
    ),
]
RESUME = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue the unfinished run in --db (after Ctrl-C); refused if it was started"
        " with other settings.",
    ),
]
AS_JSON = Annotated[
    bool, typer.Option("--json", help="Print the results as one JSON object (for jq).")
]
REPORT = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="Also write the results as a self-contained HTML page with charts (no network).",
        show_default=False,
    ),
]


def check_report(report: Path | None) -> None:
    """An unwritable ``--report`` is one line and exit 2, before any fight."""
    if report is None:
        return
    from ..analysis._csv import OutputPathProblem
    from ..analysis._report import check_report as check

    try:
        check(report)
    except OutputPathProblem as problem:
        raise UsageProblem(str(problem)) from None


def write_report(report: Path | None, html: "Callable[[], str]") -> None:
    """Write the page ``html()`` makes to ``report`` (nothing without ``--report``)."""
    if report is not None:
        from ..analysis._report import write_report as write

        write(report, html())


class Clock:
    """When the fighting started and when the last encounter finished: the progress bar and
    the summary give the same rate because both read it."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.last = self.started
        self.done = 0

    def tick(self) -> None:
        self.done += 1
        self.last = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return max(self.last - self.started, 1e-9)

    @property
    def rate(self) -> float:
        return self.done / self.elapsed

    def rate_text(self) -> str:
        return f"{self.rate:,.1f} enc/s"


WORKER_PRELOAD = ("initiative.batch", "initiative.actors", "initiative.engine", "initiative.events")
"""What the fork server of ``--jobs`` workers imports once for all of them (the same list as
``initiative.batch.PRELOAD``; a test holds them equal)."""


def _start_worker_server(jobs: int, cluster: str | None) -> None:
    """With ``--jobs`` above 1, start the workers' fork server first thing, so that it imports
    the engine on one core while this process imports it on the other (to check the encounter
    and the policies); the workers are then forked from it ready to fight."""
    if jobs <= 1 or cluster is not None or sys.platform == "win32":
        return
    import multiprocessing
    import signal
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(list(WORKER_PRELOAD))
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server inherits it: Ctrl-C
    try:  # is this process's to handle, not the server's while it imports the engine
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, before)


def _check(
    encounter: Path, runs: int, jobs: int, chosen: dict[str, str], seed: int
) -> "EncounterSpec":
    from initiative import engine
    from initiative.actors import check_names, check_policies, make_runners

    if runs < 1:
        raise UsageProblem(f"--runs {runs}: must be at least 1")
    if jobs < 1:
        raise UsageProblem(f"--jobs {jobs}: must be at least 1")
    spec = engine.load_encounter(encounter)
    check_names(spec, chosen, what="--policy {name}=...", where=str(encounter))
    check_policies(spec, chosen, where=str(encounter))
    make_runners(spec, seed, chosen)  # fails early, in this process, on an unknown policy
    return spec


def _level(ctx: typer.Context) -> int:
    """Batches count faults themselves, so policy warnings stay quiet unless asked for."""
    chosen = str((ctx.parent.params if ctx.parent else {}).get("log_level") or "warning").lower()
    level = getattr(logging, chosen.upper(), logging.WARNING)
    return logging.ERROR if level == logging.WARNING else level


def _fight_all(
    ctx: typer.Context,
    o: "BatchOptions | DuelOptions",
    tasks: "list[Task]",
    saved: "ResultStore | None" = None,
) -> "tuple[list[Summary], Clock]":
    """Fight the tasks not yet in ``saved``, with a progress bar; rows are stored as they come.

    Ctrl-C stops the workers at once, keeps every finished encounter's row, says how many were
    done and how to go on, and exits 130.
    """
    from initiative.batch import iter_batch, quiet_logging
    from initiative.replays import literal

    from ._progress import progress_bar, whole

    level = _level(ctx)
    quiet_logging(level)
    results: dict[int, Summary] = dict(saved.done) if saved is not None else {}
    todo = [i for i in range(len(tasks)) if i not in results]
    clock = Clock()
    try:
        with progress_bar(clock, err) as progress:
            bar = progress.add_task(
                literal(o.encounter.name), total=len(tasks), completed=len(results)
            )
            fought = iter_batch(
                o.encounter,
                tasks,
                todo=todo,
                jobs=o.jobs,
                keep_logs=o.keep_logs,
                timeout=o.timeout,
                log_level=level,
                cluster=o.cluster,
            )
            with closing(fought):  # type: ignore[type-var]  # a generator: close() stops its workers
                for index, summary in fought:
                    with whole():  # the row and the count together, or neither
                        results[index] = summary
                        if saved is not None:
                            saved.add(index, summary)
                        clock.tick()
                    progress.advance(bar, 1)
    except KeyboardInterrupt:
        _interrupted(len(results), len(tasks), saved, o)
        raise typer.Exit(130) from None
    finally:
        if saved is not None:
            with whole():
                saved.close()
    return [results[i] for i in range(len(tasks))], clock


def _interrupted(
    done: int, total: int, saved: "ResultStore | None", o: "BatchOptions | DuelOptions"
) -> None:
    """Say how many encounters were done, and the command that goes on (the same options
    and ``--resume``), or that nothing was stored."""
    from initiative.replays import plain

    where = (
        f"their rows are in {saved.db} (run {saved.run_id}); continue with: "
        + o.command_line(resume=True)
        if saved is not None
        else "nothing was stored (give --db to keep rows and --resume later)"
    )
    err.print(plain(f"interrupted: {done} of {total} encounters done; {where}"))


def _open_store(
    o: "BatchOptions | DuelOptions", *, kind: str, policies: object, tasks: "list[Task]"
) -> "ResultStore | None":
    """The results database of ``--db`` (``None`` without it), the cluster of ``--cluster``
    checked first."""
    from initiative.batch import ResultStore, check_cluster

    if o.cluster is not None:
        check_cluster(o.cluster)
    if o.db is None:
        if o.resume:
            raise UsageProblem("--resume continues a run stored with --db; give --db")
        return None
    return ResultStore(
        o.db,
        kind=kind,
        encounter=o.encounter,
        policies=policies,
        seed_start=o.seed_start,
        tasks=tasks,
        jobs=o.jobs,
        timeout=o.timeout,
        resume=o.resume,
    )


@dataclass(frozen=True)
class _Fought:
    """A batch's (or duel's) fights done: how long they took, where they were stored, and the
    command that fights the first again: what the JSON and the screen both end with."""

    clock: Clock
    saved: "ResultStore | None"
    rerun: str

    def as_json(self, o: "BatchOptions | DuelOptions") -> dict[str, object]:
        return {
            **_timing(self.clock, o.jobs, o.cluster),
            **_storage(self.saved, o.keep_logs),
            "rerun": self.rerun,
        }

    def print(self, o: "BatchOptions | DuelOptions") -> None:
        from initiative.replays import plain

        _print_timing(self.clock, o.jobs, o.cluster)
        _report_storage(self.saved, o.keep_logs, self.rerun)
        if o.report is not None:
            out.print(plain(f"report written to {o.report}"))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(low: float, high: float) -> str:
    return f"{100 * low:.1f}-{100 * high:.1f}%"


@app.command(rich_help_panel="Simulation at scale")
def batch(
    ctx: typer.Context,
    encounter: Annotated[Path, typer.Argument(help="The encounter file (TOML).")],
    runs: RUNS,
    jobs: JOBS = BatchOptions.jobs,
    seed_start: SEED_START = BatchOptions.seed_start,
    policy: Annotated[
        list[str], typer.Option(help="Override a policy: ID=NAME or SIDE=NAME; repeatable.")
    ] = [],  # noqa: B006 - typer reads the default
    db: DB = BatchOptions.db,
    keep_logs: KEEP = BatchOptions.keep_logs,
    timeout: TIMEOUT = BatchOptions.timeout,
    cluster: CLUSTER = BatchOptions.cluster,
    resume: RESUME = BatchOptions.resume,
    as_json: AS_JSON = BatchOptions.as_json,
    report: REPORT = BatchOptions.report,
    csv: CSV = BatchOptions.csv,
    csv_combatants: CSV_COMBATANTS = BatchOptions.csv_combatants,
) -> None:
    """Fight an encounter over many seeds: win rates with 95% intervals, rounds, damage and
    policy faults per side, hit points and damage by round, group outcomes, hit rates per
    attack; results optionally stored in SQLite or written as CSV."""
    o = BatchOptions.from_params(ctx.params)
    check_report(o.report)
    check_csv(o.csv, o.csv_combatants)
    _start_worker_server(o.jobs, o.cluster)
    from initiative.batch import Task, rerun_command

    from ..analysis._csv import Fought

    chosen = parse_policies(list(o.policy))
    spec = _check(o.encounter, o.runs, o.jobs, chosen, o.seed_start)
    tasks = [Task(seed=o.seed_start + i, policies=tuple(chosen.items())) for i in range(o.runs)]
    saved = _open_store(o, kind="batch", policies=chosen, tasks=tasks)
    results, clock = _fight_all(ctx, o, tasks, saved)
    done = _Fought(clock, saved, rerun_command(o.encounter, tasks[0], results[0].log, o.timeout))
    rows = [Fought({"encounter": str(o.encounter)}, spec, r) for r in results]
    write_csv(o.csv, o.csv_combatants, rows)
    if o.as_json or o.report is not None:
        from ..analysis._report import batch_page

        data = _batch_json(o, spec, results, done)
        write_report(o.report, lambda: batch_page(data, spec, results))
        if o.as_json:
            print_json(data)
            return
    _print_batch(o, spec, results)
    done.print(o)


def _side_policies(spec: "EncounterSpec", first: dict[str, str], side: str) -> list[str]:
    """The policies a side's combatants played (in the first fight), sorted."""
    return sorted({first[c.id] for c in spec.combatants if c.side == side})


def _batch_json(
    o: BatchOptions, spec: "EncounterSpec", results: "list[Summary]", done: _Fought
) -> dict[str, object]:
    """What ``batch --json`` prints, and its report draws."""
    from initiative.batch import (
        combatant_stats,
        combatants_json,
        faults_by_policy,
        figures_json,
        outcomes,
        side_stats,
    )

    first = results[0].policies
    ended = outcomes(results, spec.max_rounds)
    return {
        "command": "batch",
        "encounter": str(o.encounter),
        "runs": o.runs,
        "seed_start": o.seed_start,
        "sides": [
            {
                "side": s.side,
                "policies": _side_policies(spec, first, s.side),
                "wins": s.wins,
                "rate": rounded(s.rate),
                "ci95": [rounded(s.interval[0]), rounded(s.interval[1])],
                "rounds_mean": rounded(s.rounds_mean),
                "rounds_sd": rounded(s.rounds_sd),
                "damage_mean": rounded(s.damage_mean),
                "damage": s.damage.as_json(),
                "faults": s.faults,
            }
            for s in side_stats(spec.sides, results)
        ],
        "no_winner": ended.stalemates + ended.undecided,
        **_outcomes_json(ended, spec),
        "combatants": combatants_json(combatant_stats(spec, results)),
        **figures_json(spec, results),
        "faults_by_policy": faults_by_policy(results),
        **done.as_json(o),
    }


def _print_batch(o: BatchOptions, spec: "EncounterSpec", results: "list[Summary]") -> None:
    """``batch``'s tables: the sides, the outcomes, the combatants, the groups and attacks."""
    from initiative.batch import combatant_stats, faults_by_policy, outcomes, side_stats
    from initiative.replays import plain

    title = f"{spec.name or o.encounter.name}: {o.runs} encounters"
    table = Table(title=plain(title), header_style="bold")
    for column in ("side", "policy", "wins", "rate", "95% CI", "rounds", "damage", "faults"):
        table.add_column(column, justify="left" if column in ("side", "policy") else "right")
    for s in side_stats(spec.sides, results):
        low, high = s.interval
        table.add_row(
            plain(s.side),
            plain(", ".join(_side_policies(spec, results[0].policies, s.side))),
            str(s.wins),
            _pct(s.rate),
            _ci(low, high),
            f"{s.rounds_mean:.1f}±{s.rounds_sd:.1f}",
            s.damage.text(),
            str(s.faults),
        )
    print_table(out, table)
    _print_outcomes(outcomes(results, spec.max_rounds), spec)
    _print_combatants(combatant_stats(spec, results))
    print_groups(spec, results)
    print_attacks(spec, results)
    out.print(
        plain(
            "faults by policy: "
            + ", ".join(f"{name} {n}" for name, n in faults_by_policy(results).items())
        )
    )


def _duel_rows(
    encounter: Path, spec: "EncounterSpec", a: str, b: str, results: "list[Summary]"
) -> "list[Fought]":
    """A duel's games for the CSV files: games alternate, A on the first side, then on the
    second (as :func:`~initiative.batch.duel_tasks` orders them)."""
    from ..analysis._csv import Fought

    one, two = spec.sides
    rows = []
    for i, r in enumerate(results):
        a_side = one if i % 2 == 0 else two
        winner = None if r.winner is None else ("A" if r.winner == a_side else "B")
        context = {"encounter": str(encounter), "a": a, "b": b, "a_side": a_side}
        rows.append(Fought({**context, "won": winner}, spec, r))
    return rows


def _window(spec: "EncounterSpec") -> int:
    from initiative.batch import STALEMATE_ROUNDS

    return spec.stalemate_window or STALEMATE_ROUNDS


def _outcomes_json(ended: "Outcomes", spec: "EncounterSpec") -> dict[str, object]:
    return {
        "stalemates": ended.stalemates,
        "stalemate_rounds": _window(spec),
        "undecided": ended.undecided,
        "rounds": ended.rounds.as_json(),
    }


def _print_outcomes(ended: "Outcomes", spec: "EncounterSpec") -> None:
    out.print(
        f"no winner: {ended.stalemates + ended.undecided} ({ended.stalemates} stalemate(s):"
        f" no hit points changed in the last {_window(spec)} rounds;"
        f" {ended.undecided} undecided otherwise)"
    )
    out.print(f"rounds: {ended.rounds.text()} (mean, 95% interval)")


def _print_combatants(fighters: "list[CombatantStats]") -> None:
    """The per-combatant table: survival with Wilson's interval, damage and the round of a fall
    with intervals inside their range (see ``mean_ci``)."""
    from initiative.replays import plain

    table = Table(title="combatants", header_style="bold")
    columns = ("combatant", "side", "policy", "survived", "95% CI", "dealt", "taken", "kills")
    for column in (*columns, "fell", "in round"):
        table.add_column(column, justify="left" if column in columns[:3] else "right")
    for f in fighters:
        table.add_row(
            plain(f.id),
            plain(f.side),
            plain(", ".join(f.policies)),
            f"{f.survived}/{f.fights}",
            _ci(*f.interval),
            f.dealt.text(),
            f.taken.text(),
            str(f.kills),
            str(f.fell.n),
            f.fell.text(),
        )
    print_table(out, table)


def _workers(jobs: int, cluster: str | None) -> str:
    return f"cluster {cluster}" if cluster else f"{jobs} job(s)"


def _timing(clock: Clock, jobs: int, cluster: str | None) -> dict[str, object]:
    return {
        "fought": clock.done,
        "seconds": rounded(clock.elapsed, 3),
        "per_second": rounded(clock.rate, 3),
        "jobs": jobs,
        "cluster": cluster,
    }


def _print_timing(clock: Clock, jobs: int, cluster: str | None) -> None:
    out.print(
        f"{clock.done} encounters in {clock.elapsed:.2f} s ({clock.rate:,.1f} per second,"
        f" {_workers(jobs, cluster)})"
    )


def _storage(saved: "ResultStore | None", keep_logs: Path | None) -> dict[str, object]:
    return {
        "db": saved.db if saved is not None else None,
        "run_id": saved.run_id if saved is not None else None,
        "logs": str(keep_logs) if keep_logs is not None else None,
    }


def _report_storage(saved: "ResultStore | None", keep_logs: Path | None, rerun: str) -> None:
    from initiative.replays import plain

    if keep_logs is not None:
        out.print(plain(f"logs kept in {keep_logs}/"))
    if saved is not None:
        out.print(
            plain(f"results stored in {saved.db} as run {saved.run_id} (tables runs, encounters)")
        )
    out.print(plain("fight one again: " + rerun))


@app.command(rich_help_panel="Simulation at scale")
def duel(
    ctx: typer.Context,
    words: Annotated[
        list[Path],
        typer.Argument(
            help="An encounter file (TOML) with two sides, and the rest of --policies.",
            show_default=False,
            metavar="ENCOUNTER",
        ),
    ],
    policies: Annotated[
        list[str],
        typer.Option(
            "--policies", help="The two policies: --policies A B (or A,B).", show_default=False
        ),
    ],
    runs: Annotated[
        int,
        typer.Option(
            "--runs", "-n", help="How many seeds to fight; each is fought both ways (2N duels)."
        ),
    ],
    jobs: JOBS = DuelOptions.jobs,
    seed_start: SEED_START = DuelOptions.seed_start,
    db: DB = DuelOptions.db,
    keep_logs: KEEP = DuelOptions.keep_logs,
    timeout: TIMEOUT = DuelOptions.timeout,
    cluster: CLUSTER = DuelOptions.cluster,
    resume: RESUME = DuelOptions.resume,
    as_json: AS_JSON = DuelOptions.as_json,
    report: REPORT = DuelOptions.report,
    csv: CSV = DuelOptions.csv,
    csv_combatants: CSV_COMBATANTS = DuelOptions.csv_combatants,
) -> None:
    """Pit two policies against each other: each of --runs seeds is fought twice, with the
    policies on one side and then on the other. Says which is better and how sure that is (an exact
    two-sided sign test over the seeds, paired: the two games of a seed share their dice)."""
    check_report(report)  # (before the words are read: a bad --report is said first)
    check_csv(csv, csv_combatants)
    _start_worker_server(jobs, cluster)
    from initiative.batch import judge, rerun_command

    o = DuelOptions.from_params(ctx.params)
    spec, tasks = _duel_tasks(o)
    a, b = o.policies
    saved = _open_store(o, kind="duel", policies=[a, b], tasks=tasks)
    results, clock = _fight_all(ctx, o, tasks, saved)
    verdict = judge(spec, a, b, tasks, results)
    done = _Fought(clock, saved, rerun_command(o.encounter, tasks[0], results[0].log, o.timeout))
    write_csv(o.csv, o.csv_combatants, _duel_rows(o.encounter, spec, a, b, results))
    if o.as_json or o.report is not None:
        from ..analysis._report import duel_page

        data = _duel_json(o, spec, results, verdict, done)
        write_report(o.report, lambda: duel_page(data, spec, results))
        if o.as_json:
            print_json(data)
            return
    _print_duel(o, spec, results, verdict)
    done.print(o)


def _duel_tasks(o: DuelOptions) -> "tuple[EncounterSpec, list[Task]]":
    """The encounter and its games, each seed twice (the policies swap sides), once the
    encounter has two sides and both policies may play either."""
    from initiative import engine
    from initiative.actors import check_policies
    from initiative.batch import BatchError, duel_tasks

    a, b = o.policies
    spec = engine.load_encounter(o.encounter)
    try:
        tasks = duel_tasks(spec, a, b, o.runs, o.seed_start)
    except BatchError:
        raise UsageProblem(
            f"duel needs an encounter with two sides; {o.encounter} has {len(spec.sides)}"
        ) from None
    one, two = spec.sides
    check_policies(spec, {one: a, two: b}, where=str(o.encounter), what="--policies")
    _check(o.encounter, o.runs, o.jobs, {one: a, two: b}, o.seed_start)
    _check(o.encounter, o.runs, o.jobs, {one: b, two: a}, o.seed_start)
    return spec, tasks


def _duel_json(
    o: DuelOptions,
    spec: "EncounterSpec",
    results: "list[Summary]",
    verdict: "Duel",
    done: _Fought,
) -> dict[str, object]:
    """What ``duel --json`` prints, and its report draws."""
    from initiative.batch import combatant_stats_by_policy, combatants_json, outcomes

    a, b = o.policies
    one, two = spec.sides
    games = len(results)
    pairs = verdict.pairs
    fighters = combatant_stats_by_policy(spec, results, [a, b])  # a row per policy played
    return {
        "command": "duel",
        "encounter": str(o.encounter),
        "runs": o.runs,
        "seeds": o.runs,
        "games": games,
        "seed_start": o.seed_start,
        "policies": [
            {
                "label": who,
                "policy": name,
                "wins": verdict.wins[who],
                "wins_by_side": {
                    one: verdict.by_side[(who, one)],
                    two: verdict.by_side[(who, two)],
                },
                "rate": rounded(verdict.wins[who] / games),
                "ci95": [rounded(x) for x in verdict.interval(who)],
                "faults": verdict.faults[who],
            }
            for who, name in (("A", a), ("B", b))
        ],
        "no_winner": verdict.draws,
        **_outcomes_json(outcomes(results, spec.max_rounds), spec),
        "combatants": combatants_json(fighters),
        "paired": {
            "seeds": pairs.a_better + pairs.b_better + pairs.even,
            "a_better": pairs.a_better,
            "b_better": pairs.b_better,
            "even": pairs.even,
            "single_game_seeds": pairs.unpaired,
            "p": verdict.p,
            "test": "exact two-sided sign test over the seeds where one policy did better",
        },
        "better": verdict.better,
        **done.as_json(o),
    }


def _print_duel(
    o: DuelOptions, spec: "EncounterSpec", results: "list[Summary]", verdict: "Duel"
) -> None:
    """``duel``'s tables: the policies, the outcomes, the combatants, and the verdict."""
    from initiative.batch import combatant_stats_by_policy, outcomes
    from initiative.replays import plain

    a, b = o.policies
    one, two = spec.sides
    games = len(results)
    title = (
        f"{spec.name or o.encounter.name}: {o.runs} seeds, each fought both ways ({games} duels)"
    )
    table = Table(title=plain(title), header_style="bold")
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
        low, high = verdict.interval(who)
        table.add_row(
            plain(f"{who} {name}"),
            str(verdict.by_side[(who, one)]),
            str(verdict.by_side[(who, two)]),
            str(verdict.wins[who]),
            _pct(verdict.wins[who] / games),
            _ci(low, high),
            str(verdict.faults[who]),
        )
    print_table(out, table)
    _print_outcomes(outcomes(results, spec.max_rounds), spec)
    _print_combatants(combatant_stats_by_policy(spec, results, [a, b]))
    pairs = verdict.pairs
    out.print(
        plain(
            f"paired by seed: each seed is fought twice, {a} once on each side, with the same"
            f" dice; {a} did better on {pairs.a_better} seeds, {b} on {pairs.b_better},"
            f" {pairs.even} even (one game each, or no winner)"
            + (f"; {pairs.unpaired} seed(s) with a single game" if pairs.unpaired else "")
        )
    )
    out.print(plain(f"verdict: {verdict.verdict()}"))
