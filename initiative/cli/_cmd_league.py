"""``league``: a round robin of policies over encounters, with ratings and paired tests."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    _level,
    _start_worker_server,
    check_report,
    write_report,
)
from ._data_out import CSV, CSV_COMBATANTS, check_csv, league_rows, write_csv
from ._options import LeagueOptions
from ._output import print_json, print_table, rounded

if TYPE_CHECKING:
    from rich.progress import TaskID

    from initiative.batch import Summary

    from ..analysis._league import League, Pairing, Stage


def _fight(
    ctx: typer.Context,
    stages: "list[Stage]",
    policies: list[str],
    jobs: int,
    timeout: float | None,
    db: Path | None,
) -> "tuple[list[list[Summary]], Clock, list[int]]":
    """Fight each stage with a progress bar; with ``db``, each encounter is a run of the
    results database (kind ``league``), its rows written as they come. Ctrl-C stops the
    workers, says what was kept, and exits 130."""
    from initiative.batch import ResultStore, quiet_logging
    from initiative.replays import literal, plain

    from ..analysis._league import fight
    from ._progress import progress_bar, whole

    quiet_logging(_level(ctx))
    clock = Clock()
    results: list[list[Summary]] = []
    run_ids: list[int] = []
    saved: ResultStore | None = None
    try:
        with progress_bar(clock, err) as progress:
            bars = [progress.add_task(literal(s.name), total=len(s.tasks)) for s in stages]
            for stage, bar in zip(stages, bars, strict=True):
                if db is not None:
                    saved = ResultStore(
                        db,
                        kind="league",
                        encounter=stage.path,
                        policies=policies,
                        seed_start=stage.tasks[0].seed,
                        tasks=stage.tasks,
                        jobs=jobs,
                        timeout=timeout,
                    )
                    run_ids.append(saved.run_id)

                def done(
                    index: int,
                    summary: "Summary",
                    bar: "TaskID" = bar,
                    saved: "ResultStore | None" = saved,
                ) -> None:
                    with whole():  # the row and the count together, or neither
                        if saved is not None:
                            saved.add(index, summary)
                        clock.tick()
                    progress.advance(bar, 1)

                results.append(
                    fight(stage.path, stage.tasks, jobs=jobs, timeout=timeout, on_result=done)
                )
                if saved is not None:
                    with whole():
                        saved.close()
                    saved = None
    except KeyboardInterrupt:
        if saved is not None:
            with whole():
                saved.close()
        kept = f"; the finished games are in {db}" if db is not None else ""
        err.print(plain(f"interrupted: {clock.done} games done{kept}"))
        raise typer.Exit(130) from None
    return results, clock, run_ids


@app.command(rich_help_panel="Simulation at scale")
def league(
    ctx: typer.Context,
    encounters: Annotated[
        list[Path],
        typer.Argument(
            help="Encounter files (TOML), each with two sides, and the rest of --policies.",
            show_default=False,
        ),
    ],
    policies: Annotated[
        list[str],
        typer.Option(
            "--policies",
            help="The policies of the league, two or more: --policies A B C (or A,B,C).",
        ),
    ],
    runs: Annotated[
        int,
        typer.Option(
            "--runs", "-n", help="Seeds per pair and encounter; each seed is fought both ways."
        ),
    ] = LeagueOptions.runs,
    jobs: JOBS = LeagueOptions.jobs,
    seed_start: SEED_START = LeagueOptions.seed_start,
    db: DB = LeagueOptions.db,
    timeout: TIMEOUT = LeagueOptions.timeout,
    as_json: AS_JSON = LeagueOptions.as_json,
    report: REPORT = LeagueOptions.report,
    csv: CSV = LeagueOptions.csv,
    csv_combatants: CSV_COMBATANTS = LeagueOptions.csv_combatants,
) -> None:
    """A round robin of policies: every pair plays every encounter on the same seeds, once on
    each side. Bradley-Terry ratings with 95% intervals, and each pair's wins, losses and
    undecided games with a paired sign test."""
    o = LeagueOptions.from_params(ctx.params)
    check_report(o.report)
    check_csv(o.csv, o.csv_combatants)
    _start_worker_server(o.jobs, None)
    from ..analysis._league import LeagueError, league_of, plan_league

    if o.jobs < 1:
        raise UsageProblem(f"--jobs {o.jobs}: must be at least 1")
    files, names = list(o.encounters), list(o.policies)
    if not files:
        raise UsageProblem("no encounter file given (a file ending in .toml)")
    try:
        stages = plan_league(files, names, o.runs, o.seed_start)
    except LeagueError as problem:
        raise UsageProblem(str(problem)) from None
    results, clock, run_ids = _fight(ctx, stages, names, o.jobs, o.timeout, o.db)
    played = league_of(stages, names, o.runs, o.seed_start, results)
    write_csv(o.csv, o.csv_combatants, league_rows(stages, names, results))
    if o.as_json or o.report is not None:
        from ..analysis._report import league_page

        data = _json(played, clock, o.jobs, o.db, run_ids)
        write_report(o.report, lambda: league_page(data))
        if o.as_json:
            print_json(data)
            return
    _print_tables(played, clock, o.jobs, o.db, run_ids)
    if o.report is not None:
        from initiative.replays import plain

        out.print(plain(f"report written to {o.report}"))


def _pairings(played: "League") -> "list[tuple[str, list[object]]]":
    """The pairwise records: over every encounter, then (with several) one by one."""
    rows: list[tuple[str, list[object]]] = [("all", list(played.pairings()))]
    if len(played.encounters) > 1:
        rows += [(name, list(played.pairings(name))) for name in played.encounters]
    return rows


RATING_SCALE = (
    "Bradley-Terry (MM) on the Elo scale, mean 0; 95% interval: the wider of a bootstrap over"
    " seeds and the model's own (Wald)"
)


def unknown(played: "League") -> str | None:
    """What the league does not know yet, in a sentence (``None`` when it has a decisive game
    for every policy): no decisive game at all, or none for some policies."""
    ratings = played.ratings()
    if all(r.decisive == 0 for r in ratings):
        return (
            f"no decisive game yet: all {len(played.games)} games were undecided, so the ratings"
            " are the prior's (all 0) and say nothing"
        )
    none = [r.policy for r in ratings if r.decisive == 0]
    if none:
        return (
            f"no decisive game yet for {', '.join(none)}: its rating is the prior's, its"
            " interval the width of its games"
        )
    return None


def p_text(p: "Pairing") -> str:
    """A pair's p, or why there is none to speak of."""
    if p.wins + p.losses == 0:
        return "no decisive game yet"
    if p.a_better + p.b_better == 0:
        return "1 (every seed even)"
    return f"{p.p:.3g}"


def _json(
    played: "League", clock: Clock, jobs: int, db: Path | None, run_ids: list[int]
) -> dict[str, object]:
    """What ``--json`` prints, and the report draws."""
    from ..analysis._league import Pairing

    pairings = []
    for where, records in _pairings(played):
        for p in records:
            assert isinstance(p, Pairing)
            pairings.append(
                {
                    "encounter": None if where == "all" else where,
                    "a": p.a,
                    "b": p.b,
                    "wins": p.wins,
                    "losses": p.losses,
                    "undecided": p.undecided,
                    "stalemates": p.stalemates,
                    "a_better": p.a_better,
                    "b_better": p.b_better,
                    "even": p.even,
                    "p": p.p,
                    "decisive_games": p.wins + p.losses,
                    "decided_seeds": p.a_better + p.b_better,
                }
            )
    return {
        "command": "league",
        "encounters": list(played.encounters),
        "policies": list(played.policies),
        "seeds": played.runs,
        "seed_start": played.seed_start,
        "games": len(played.games),
        "ratings": [
            {
                "policy": r.policy,
                "rating": rounded(r.rating, 1),
                "ci95": [rounded(r.low, 1), rounded(r.high, 1)],
                "score": rounded(r.score),
                "games": r.games,
                "decisive_games": r.decisive,
            }
            for r in played.ratings()
        ],
        "unknown": unknown(played),
        "pairings": pairings,
        "rating_scale": RATING_SCALE,
        "test": "exact two-sided sign test over the seeds where one policy did better",
        "seconds": rounded(clock.elapsed, 3),
        "jobs": jobs,
        "db": str(db) if db is not None else None,
        "run_ids": run_ids,
    }


def _print_tables(
    played: "League", clock: Clock, jobs: int, db: Path | None, run_ids: list[int]
) -> None:
    from initiative.replays import plain

    from ..analysis._league import Pairing

    title = (
        f"league: {len(played.policies)} policies, {len(played.encounters)} encounter(s),"
        f" {played.runs} seeds each fought both ways ({len(played.games)} games)"
    )
    ratings = Table(title=plain(title), header_style="bold")
    for column in ("#", "policy", "rating", "95% CI", "score", "games"):
        ratings.add_column(column, justify="left" if column == "policy" else "right")
    for rank, r in enumerate(played.ratings(), 1):
        ratings.add_row(
            str(rank),
            plain(r.policy),
            f"{r.rating:+.0f}",
            f"{r.low:+.0f} to {r.high:+.0f}",
            f"{100 * r.score:.1f}%",
            str(r.games),
        )
    print_table(out, ratings)
    note = unknown(played)
    if note is not None:
        out.print(plain(note))
    pairs = Table(title="pairs (wins-losses-undecided of A against B)", header_style="bold")
    for column in ("encounter", "A", "B", "W-L-U", "stalemates", "seeds A/B/even", "p"):
        pairs.add_column(column, justify="left" if column in ("encounter", "A", "B") else "right")
    for where, records in _pairings(played):
        for p in records:
            assert isinstance(p, Pairing)
            pairs.add_row(
                plain(where),
                plain(p.a),
                plain(p.b),
                f"{p.wins}-{p.losses}-{p.undecided}",
                str(p.stalemates),
                f"{p.a_better}/{p.b_better}/{p.even}",
                p_text(p),
            )
    print_table(out, pairs)
    out.print(
        "ratings: Bradley-Terry (MM) on the Elo scale, mean 0, 95% interval the wider of a"
        " bootstrap over seeds and the model's own;"
        " p: exact two-sided sign test over the seeds where one policy did better"
    )
    out.print(
        f"{clock.done} games in {clock.elapsed:.2f} s ({clock.rate:,.1f} per second, {jobs} job(s))"
    )
    if db is not None:
        runs = ", ".join(map(str, run_ids))
        out.print(plain(f"results stored in {db} as runs {runs} (one per encounter)"))
