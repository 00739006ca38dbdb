"""``batch`` and ``duel``: many seeds of one encounter, with statistics and a results database."""

import logging
import sys
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

if TYPE_CHECKING:
    from initiative.batch import CombatantStats, Outcomes, ResultStore, Summary, Task
    from initiative.events import EncounterSpec

    from ..analysis._csv import Fought

from ._app import UsageProblem, app, err, out, parse_policies
from ._data_out import CSV, CSV_COMBATANTS, check_csv, print_attacks, print_groups, write_csv
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
    from ..analysis._report import ReportPathProblem, check_report as check

    try:
        check(report)
    except ReportPathProblem as problem:
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
    encounter: Path,
    tasks: "list[Task]",
    jobs: int,
    keep_logs: Path | None,
    timeout: float | None,
    cluster: str | None = None,
    saved: "ResultStore | None" = None,
) -> "tuple[list[Summary], Clock]":
    """Fight the tasks not yet in ``saved``, with a progress bar; rows are stored as they come.

    Ctrl-C stops the workers at once, keeps every finished encounter's row, says how many were
    done and how to go on, and exits 130.
    """
    from initiative.batch import iter_batch, quiet_logging
    from initiative.replays import literal

    from ._progress import progress_bar

    level = _level(ctx)
    quiet_logging(level)
    results: dict[int, Summary] = dict(saved.done) if saved is not None else {}
    todo = [i for i in range(len(tasks)) if i not in results]
    clock = Clock()
    try:
        with progress_bar(clock, err) as progress:
            bar = progress.add_task(
                literal(encounter.name), total=len(tasks), completed=len(results)
            )
            fought = iter_batch(
                encounter,
                tasks,
                todo=todo,
                jobs=jobs,
                keep_logs=keep_logs,
                timeout=timeout,
                log_level=level,
                cluster=cluster,
            )
            with closing(fought):  # type: ignore[type-var]  # a generator: close() stops its workers
                for index, summary in fought:
                    results[index] = summary
                    if saved is not None:
                        saved.add(index, summary)
                    clock.tick()
                    progress.advance(bar, 1)
    except KeyboardInterrupt:
        _interrupted(len(results), len(tasks), saved)
        raise typer.Exit(130) from None
    finally:
        if saved is not None:
            saved.close()
    return [results[i] for i in range(len(tasks))], clock


def _interrupted(done: int, total: int, saved: "ResultStore | None") -> None:
    import shlex

    from initiative.replays import plain

    where = (
        f"their rows are in {saved.db} (run {saved.run_id}); continue with: "
        + shlex.join(["initiative", *[a for a in sys.argv[1:] if a != "--resume"], "--resume"])
        if saved is not None
        else "nothing was stored (give --db to keep rows and --resume later)"
    )
    err.print(plain(f"interrupted: {done} of {total} encounters done; {where}"))


def _open_store(
    db: Path | None,
    resume: bool,
    *,
    kind: str,
    encounter: Path,
    policies: object,
    seed_start: int,
    tasks: "list[Task]",
    jobs: int,
    timeout: float | None,
) -> "ResultStore | None":
    from initiative.batch import ResultStore

    if db is None:
        if resume:
            raise UsageProblem("--resume continues a run stored with --db; give --db")
        return None
    return ResultStore(
        db,
        kind=kind,
        encounter=encounter,
        policies=policies,
        seed_start=seed_start,
        tasks=tasks,
        jobs=jobs,
        timeout=timeout,
        resume=resume,
    )


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
    cluster: CLUSTER = None,
    resume: RESUME = False,
    as_json: AS_JSON = False,
    report: REPORT = None,
    csv: CSV = None,
    csv_combatants: CSV_COMBATANTS = None,
) -> None:
    """Fight an encounter over many seeds: win rates with 95% intervals, rounds, damage and
    policy faults per side, hit points and damage by round, group outcomes, hit rates per
    attack; results optionally stored in SQLite or written as CSV."""
    check_report(report)
    check_csv(csv, csv_combatants)
    _start_worker_server(jobs, cluster)
    from initiative.batch import (
        Task,
        check_cluster,
        combatant_stats,
        combatants_json,
        faults_by_policy,
        figures_json,
        outcomes,
        rerun_command,
        side_stats,
    )
    from initiative.replays import plain

    from ..analysis._csv import Fought

    chosen = parse_policies(policy)
    spec = _check(encounter, runs, jobs, chosen, seed_start)
    tasks = [Task(seed=seed_start + i, policies=tuple(chosen.items())) for i in range(runs)]
    if cluster is not None:
        check_cluster(cluster)
    saved = _open_store(
        db,
        resume,
        kind="batch",
        encounter=encounter,
        policies=chosen,
        seed_start=seed_start,
        tasks=tasks,
        jobs=jobs,
        timeout=timeout,
    )
    results, clock = _fight_all(ctx, encounter, tasks, jobs, keep_logs, timeout, cluster, saved)
    first = results[0].policies
    stats = side_stats(spec.sides, results)
    ended = outcomes(results, spec.max_rounds)
    fighters = combatant_stats(spec, results)
    draws = ended.stalemates + ended.undecided
    rerun = rerun_command(encounter, tasks[0], results[0].log, timeout)
    rows = [Fought({"encounter": str(encounter)}, spec, r) for r in results]
    write_csv(csv, csv_combatants, rows)
    if as_json or report is not None:
        data: dict[str, object] = {
            "command": "batch",
            "encounter": str(encounter),
            "runs": runs,
            "seed_start": seed_start,
            "sides": [
                {
                    "side": s.side,
                    "policies": sorted({first[c.id] for c in spec.combatants if c.side == s.side}),
                    "wins": s.wins,
                    "rate": rounded(s.rate),
                    "ci95": [rounded(s.interval[0]), rounded(s.interval[1])],
                    "rounds_mean": rounded(s.rounds_mean),
                    "rounds_sd": rounded(s.rounds_sd),
                    "damage_mean": rounded(s.damage_mean),
                    "damage": s.damage.as_json(),
                    "faults": s.faults,
                }
                for s in stats
            ],
            "no_winner": draws,
            **_outcomes_json(ended, spec),
            "combatants": combatants_json(fighters),
            **figures_json(spec, results),
            "faults_by_policy": faults_by_policy(results),
            **_timing(clock, jobs, cluster),
            **_storage(saved, keep_logs),
            "rerun": rerun,
        }
        from ..analysis._report import batch_page

        write_report(report, lambda: batch_page(data, spec, results))
        if as_json:
            print_json(data)
            return
    table = Table(
        title=plain(f"{spec.name or encounter.name}: {runs} encounters"), header_style="bold"
    )
    for column in ("side", "policy", "wins", "rate", "95% CI", "rounds", "damage", "faults"):
        table.add_column(column, justify="left" if column in ("side", "policy") else "right")
    for s in stats:
        names = sorted({first[c.id] for c in spec.combatants if c.side == s.side})
        low, high = s.interval
        table.add_row(
            plain(s.side),
            plain(", ".join(names)),
            str(s.wins),
            _pct(s.rate),
            _ci(low, high),
            f"{s.rounds_mean:.1f}±{s.rounds_sd:.1f}",
            s.damage.text(),
            str(s.faults),
        )
    print_table(out, table)
    _print_outcomes(ended, spec)
    _print_combatants(fighters)
    print_groups(spec, results)
    print_attacks(spec, results)
    out.print(
        plain(
            "faults by policy: "
            + ", ".join(f"{name} {n}" for name, n in faults_by_policy(results).items())
        )
    )
    _print_timing(clock, jobs, cluster)
    _report_storage(saved, keep_logs, rerun)
    if report is not None:
        out.print(plain(f"report written to {report}"))


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


def _duel_words(words: list[Path], policies: list[str]) -> tuple[Path, tuple[str, str]]:
    """The encounter and the two policies of ``duel``. An option takes one value, so in
    ``--policies A B`` the word B arrives beside the encounter: the encounter is the word that
    ends in ``.toml`` or names an existing file, every other word a policy (as ``league``
    reads them). Anything but one encounter and two policies is one line and exit 2."""
    files = [w for w in words if w.suffix == ".toml" or w.is_file()]
    names = [name for given in policies for name in given.split(",") if name]
    names += [str(w) for w in words if w not in files]
    if len(files) != 1:
        raise UsageProblem(
            f"duel takes one encounter file, got {len(files)}"
            + (f": {', '.join(map(str, files))}" if files else "")
        )
    if len(names) != 2:
        raise UsageProblem(
            f"--policies takes exactly two names (--policies A B), got {len(names)}"
            + (f": {' '.join(names)}" if names else "")
        )
    return files[0], (names[0], names[1])


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
    jobs: JOBS = 1,
    seed_start: SEED_START = 1,
    db: DB = None,
    keep_logs: KEEP = None,
    timeout: TIMEOUT = None,
    cluster: CLUSTER = None,
    resume: RESUME = False,
    as_json: AS_JSON = False,
    report: REPORT = None,
    csv: CSV = None,
    csv_combatants: CSV_COMBATANTS = None,
) -> None:
    """Pit two policies against each other: each of --runs seeds is fought twice, with the
    policies on one side and then on the other. Says which is better and how sure that is (an exact
    two-sided sign test over the seeds, paired: the two games of a seed share their dice)."""
    check_report(report)
    check_csv(csv, csv_combatants)
    _start_worker_server(jobs, cluster)
    from initiative import engine
    from initiative.batch import (
        BatchError,
        check_cluster,
        combatant_stats_by_policy,
        combatants_json,
        duel_tasks,
        judge,
        outcomes,
        rerun_command,
    )
    from initiative.replays import plain

    encounter, (a, b) = _duel_words(words, policies)
    spec = engine.load_encounter(encounter)
    try:
        tasks = duel_tasks(spec, a, b, runs, seed_start)
    except BatchError:
        raise UsageProblem(
            f"duel needs an encounter with two sides; {encounter} has {len(spec.sides)}"
        ) from None
    one, two = spec.sides
    from initiative.actors import check_policies

    check_policies(spec, {one: a, two: b}, where=str(encounter), what="--policies")
    _check(encounter, runs, jobs, {one: a, two: b}, seed_start)
    _check(encounter, runs, jobs, {one: b, two: a}, seed_start)
    games = len(tasks)
    if cluster is not None:
        check_cluster(cluster)
    saved = _open_store(
        db,
        resume,
        kind="duel",
        encounter=encounter,
        policies=[a, b],
        seed_start=seed_start,
        tasks=tasks,
        jobs=jobs,
        timeout=timeout,
    )
    results, clock = _fight_all(ctx, encounter, tasks, jobs, keep_logs, timeout, cluster, saved)

    verdict = judge(spec, a, b, tasks, results)
    wins, by_side, faults, pairs = verdict.wins, verdict.by_side, verdict.faults, verdict.pairs
    ended = outcomes(results, spec.max_rounds)
    fighters = combatant_stats_by_policy(spec, results, [a, b])  # a row per policy played
    rerun = rerun_command(encounter, tasks[0], results[0].log, timeout)
    write_csv(csv, csv_combatants, _duel_rows(encounter, spec, a, b, results))
    if as_json or report is not None:
        data: dict[str, object] = {
            "command": "duel",
            "encounter": str(encounter),
            "runs": runs,
            "seeds": runs,
            "games": games,
            "seed_start": seed_start,
            "policies": [
                {
                    "label": who,
                    "policy": name,
                    "wins": wins[who],
                    "wins_by_side": {one: by_side[(who, one)], two: by_side[(who, two)]},
                    "rate": rounded(wins[who] / games),
                    "ci95": [rounded(x) for x in verdict.interval(who)],
                    "faults": faults[who],
                }
                for who, name in (("A", a), ("B", b))
            ],
            "no_winner": verdict.draws,
            **_outcomes_json(ended, spec),
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
            **_timing(clock, jobs, cluster),
            **_storage(saved, keep_logs),
            "rerun": rerun,
        }
        from ..analysis._report import duel_page

        write_report(report, lambda: duel_page(data, spec, results))
        if as_json:
            print_json(data)
            return
    title = f"{spec.name or encounter.name}: {runs} seeds, each fought both ways ({games} duels)"
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
            str(by_side[(who, one)]),
            str(by_side[(who, two)]),
            str(wins[who]),
            _pct(wins[who] / games),
            _ci(low, high),
            str(faults[who]),
        )
    print_table(out, table)
    _print_outcomes(ended, spec)
    _print_combatants(fighters)
    out.print(
        plain(
            f"paired by seed: each seed is fought twice, {a} once on each side, with the same"
            f" dice; {a} did better on {pairs.a_better} seeds, {b} on {pairs.b_better},"
            f" {pairs.even} even (one game each, or no winner)"
            + (f"; {pairs.unpaired} seed(s) with a single game" if pairs.unpaired else "")
        )
    )
    out.print(plain(f"verdict: {verdict.verdict()}"))
    _print_timing(clock, jobs, cluster)
    _report_storage(saved, keep_logs, rerun)
    if report is not None:
        out.print(plain(f"report written to {report}"))
