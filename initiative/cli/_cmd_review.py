"""``review``: each side's chance to win before every decision of a log, the choices graded, the
turning points of luck. Thin: parse, call ``replays.review``, render."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._app import UsageProblem, app, err, out, parse_policies
from ._cmd_batch import REPORT, check_report, write_report
from ._options import ReviewOptions
from ._output import print_json, print_table

if TYPE_CHECKING:
    from initiative.events import LogContents
    from initiative.replays import Budget

_GRADE_STYLE = {
    "best": "green",
    "good": "green",
    "inaccuracy": "yellow",
    "mistake": "dark_orange",
    "blunder": "bold red",
}


POLICY_CAPTION = (
    "the policy each log's header names, unless review --policy says who played: a --policy"
    " given to run or batch, a seat at the table and a stepped fight are not recorded in the log"
)
"""What the per-policy table can vouch for (a log records the encounter's policies, not who
was put in their place)."""


@app.command(rich_help_panel="Debugging and what-if")
def review(
    ctx: typer.Context,
    log: Annotated[
        Path,
        typer.Argument(
            help="A log file (.jsonl) that verifies, or a folder of them (batch --keep-logs):"
            " reviewed one by one and added up per policy and combatant."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object.")
    ] = ReviewOptions.as_json,
    rollouts: Annotated[
        int | None,
        typer.Option(
            "--rollouts",
            help="Rollouts per candidate at each decision (default: the ruleset's, see"
            " docs/review.md).",
        ),
    ] = ReviewOptions.rollouts,
    width: Annotated[
        int,
        typer.Option(
            "--width", help="Candidates compared at each decision, the choice made among them."
        ),
    ] = ReviewOptions.width,
    model: Annotated[
        str,
        typer.Option(
            "--model",
            help="The built-in that plays everyone in the rollouts (tactician, aggressive,"
            " cautious, first), or 'log': each by the policy its log names where it is one of"
            " them.",
        ),
    ] = ReviewOptions.model,
    seconds: Annotated[
        float | None,
        typer.Option(
            "--seconds",
            help="At most about this much CPU time in all (shared among the decisions;"
            " the result then depends on the machine).",
        ),
    ] = ReviewOptions.seconds,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Worker processes.")
    ] = ReviewOptions.jobs,
    seed: Annotated[
        int, typer.Option("--seed", help="The seed of the rollouts' dice.")
    ] = ReviewOptions.seed,
    report: REPORT = ReviewOptions.report,
    policy: Annotated[
        list[str],
        typer.Option(
            help="Who played, when the log's file policy did not: ID=NAME or SIDE=NAME, as"
            " run or batch were given --policy (the log does not record it). Credited in the"
            " summaries, and played by --model log."
        ),
    ] = [],  # noqa: B006 - typer reads the default
) -> None:
    """Each side's chance to win before every decision of LOG (rollouts on forks with paired
    dice), the choice made against the best alternative found, graded best / good /
    inaccuracy / mistake / blunder, and the dice and GM overrides that moved the chance most."""
    o = ReviewOptions.from_params(ctx.params)
    if o.jobs < 1:
        raise UsageProblem(f"--jobs {o.jobs}: at least 1")
    if o.log.is_dir():
        if o.report is not None:
            raise UsageProblem("--report draws the review of one log; give a LOG, not a folder")
        budget = _budget(o, o.rollouts or 1)
        _folder(o.log, budget, o.rollouts is None, o.jobs, o.as_json)
    else:
        _one(o)


def _budget(o: ReviewOptions, rollouts: int) -> "Budget":
    """The review's budget, checked (a bad one is one line and exit 2)."""
    from initiative.replays import Budget

    played = tuple(parse_policies(list(o.policy)).items())
    budget = Budget(
        rollouts=rollouts,
        width=o.width,
        model=o.model,
        seed=o.seed,
        seconds=o.seconds,
        played=played,
    )
    _check(budget)
    return budget


def _one(o: ReviewOptions) -> None:
    """Review one log: print it (or its JSON), and draw its report."""
    from initiative.events import parse_log
    from initiative.replays import default_rollouts, literal

    from ..analysis._report import review_page

    check_report(o.report)
    try:
        data = o.log.read_bytes()
    except OSError as problem:
        raise UsageProblem(f"{o.log}: cannot read: {problem.strerror}") from None
    contents = parse_log(data, name=str(o.log))
    n = o.rollouts if o.rollouts is not None else default_rollouts(contents.header.ruleset)
    data_out = _run(contents, _budget(o, n), o.jobs, data)
    write_report(o.report, lambda: review_page(data_out))
    if o.as_json:
        print_json(data_out)
    else:
        _print(data_out)
    if o.report is not None:
        err.print(f"[dim]report written to {literal(str(o.report))}[/dim]")


def _check(budget: "Budget") -> None:
    try:
        budget.check()
    except ValueError as problem:
        raise UsageProblem(f"review: {problem}") from None


def _folder(folder: Path, budget: "Budget", per_ruleset: bool, jobs: int, as_json: bool) -> None:
    """Review every log of ``folder`` and print the sums (or the JSON)."""
    from rich.table import Table

    from initiative.replays import literal, plain, review_folder

    paths = sorted(folder.glob("*.jsonl"))
    if not paths:
        raise UsageProblem(f"{folder}: no logs (*.jsonl) in this folder")
    if err.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=err,
            transient=True,
        ) as bar:
            task = bar.add_task("reviewing", total=None)

            def progress(i: int, n: int, done: int, total: int) -> None:
                bar.update(task, description=f"log {i + 1}/{n}", completed=done, total=total)

            data = review_folder(
                paths, budget, jobs=jobs, per_ruleset=per_ruleset, progress=progress
            )
    else:
        data = review_folder(paths, budget, jobs=jobs, per_ruleset=per_ruleset)
    if as_json:
        print_json(data)
        return
    out.print(
        plain(
            f"review of {len(data['logs'])} logs in {folder}: {data['decisions']} decisions"
            f" with a choice" + (f"; {len(data['skipped'])} skipped" if data["skipped"] else "")
        )
    )
    for s in data["skipped"]:
        err.print(f"[yellow]skipped:[/yellow] {literal(s['reason'])}")
    for title, key, rows in (
        ("Per policy", "policy", data["policies"]),
        ("Per combatant", "name", data["combatants"]),
    ):
        table = Table(title=title, title_justify="left", title_style="bold")
        if key == "policy":  # (what the log holds: see docs/review.md, "Limits")
            table.caption = POLICY_CAPTION
            table.caption_justify = "left"
        table.add_column(key if key == "policy" else "combatant")
        for column in ("decisions", "mean loss", *_GRADE_STYLE, "accuracy"):
            table.add_column(column, justify="right")
        for r in rows:
            table.add_row(
                literal(r[key]),
                str(r["decisions"]),
                f"{100 * r['mean_loss']:.1f} pts",
                *(str(r["grades"][g]) for g in _GRADE_STYLE),
                f"{r['accuracy']:.1f}",
            )
        out.print()
        print_table(out, table)
    if data["worst"]:
        out.print()
        out.print("[bold]The costliest decisions[/bold]")
        for w in data["worst"]:
            out.print(f"  [dim]{literal(w['log'])} seq {w['seq']}[/dim]  " + literal(w["text"]))


def _run(contents: "LogContents", budget: "Budget", jobs: int, data: bytes) -> dict[str, Any]:
    from initiative.replays import review as review_log

    if not err.is_terminal:
        return review_log(contents, budget, jobs=jobs, data=data)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("[bold]reviewing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task("review", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return review_log(contents, budget, jobs=jobs, data=data, progress=progress)


def _print(data: dict[str, Any]) -> None:
    from rich.table import Table

    from initiative.replays import literal, plain

    budget = data["budget"]
    if data["winner"]:
        end = f"{data['winner']} won"
    elif data["complete"]:
        end = "no winner"
    else:
        end = "the log stops before the fight ends: reviewed up to its last event"
    out.print(
        plain(
            f"review of {data['log']} ({data['ruleset']}, seed {data['seed']}): {end};"
            f" {len(data['decisions'])} decisions with a choice, {budget['rollouts']} rollouts"
            f" of up to {budget['width']} candidates each, played by {budget['model']}"
        )
    )
    shown = [d for d in data["decisions"] if d["grade"] in ("inaccuracy", "mistake", "blunder")]
    out.print()
    out.print(f"[bold]Decisions that gave up 5 points or more[/bold] ({len(shown)})")
    for d in shown:
        style = _GRADE_STYLE[d["grade"]]
        out.print(
            f"  [dim]seq {d['seq']:>5} round {d['round']}[/dim]  [{style}]{d['grade']:<10}[/{style}] "
            + literal(d["text"])
        )
    if not shown:
        out.print("  none")
    out.print()
    out.print("[bold]Turning points[/bold] (the dice and events between decisions)")
    for t in data["turning_points"]:
        out.print("  " + literal(_turning_text(t, data["sides"])))
    if not data["turning_points"]:
        out.print("  none")
    out.print()
    table = Table(
        title="Accuracy",
        title_justify="left",
        title_style="bold",
        caption=POLICY_CAPTION.replace("each log's", "the log's"),
        caption_justify="left",
    )
    for column in ("combatant", "side", "policy", "decisions", "mean loss"):
        table.add_column(
            column, justify="right" if column in ("decisions", "mean loss") else "left"
        )
    for grade in _GRADE_STYLE:
        table.add_column(grade, justify="right")
    table.add_column("accuracy", justify="right")
    for c in data["combatants"]:
        table.add_row(
            literal(c["name"]),
            literal(c["side"]),
            literal(c["policy"]),
            str(c["decisions"]),
            f"{100 * c['mean_loss']:.1f} pts",
            *(str(c["grades"][g]) for g in _GRADE_STYLE),
            f"{c['accuracy']:.1f}",
        )
    print_table(out, table)


def _turning_text(t: dict[str, Any], sides: list[str]) -> str:
    side = max(sides, key=lambda s: (t["swing"].get(s, 0.0), -sides.index(s)))
    if t["kind"] == "override":
        side = max(sides, key=lambda s: (abs(t["swing"].get(s, 0.0)), -sides.index(s)))
    delta = t["swing"][side]
    verb = "gave" if delta >= 0 else "cost"
    size = round(100 * abs(delta))
    what = t["text"] or "(nothing told)"
    head = "GM override" if t["kind"] == "override" else "luck"
    return (
        f"seq {t['seq']}-{t['to']} ({head}): {what} -> {verb} {side} {size} points"
        f" ({round(100 * t['before'][side])}% to {round(100 * t['after'][side])}%)"
    )
