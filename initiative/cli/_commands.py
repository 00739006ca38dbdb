"""The core commands: run, replay, verify, show, state, rulesets."""

import functools
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from ._app import (
    FORCE,
    QUIET,
    UsageProblem,
    app,
    err,
    load_log,
    out,
    parse_policies,
    refuse_existing,
)
from ._options import RunOptions
from ._output import print_json
from ._table import DiceOption, HostOption, dice_source, parse_hosts, resume_command, stops_cleanly

if TYPE_CHECKING:
    from collections.abc import Callable

    from initiative.events import Event, LogContents
    from initiative.replays import ChainCheck


@app.command(rich_help_panel="Fights and logs")
def run(
    ctx: typer.Context,
    encounter: Annotated[Path, typer.Argument(help="The encounter file (TOML).")],
    seed: Annotated[
        int | None, typer.Option(help="Seed for every die (default: the file's).")
    ] = RunOptions.seed,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Where to write the log (default: NAME.seedN.jsonl)."),
    ] = RunOptions.out,
    policy: Annotated[
        list[str],
        typer.Option(help="Override a policy: ID=NAME or SIDE=NAME; repeatable."),
    ] = [],  # noqa: B006 - typer reads the default
    timeout: Annotated[
        float | None, typer.Option(help="Seconds a policy has per decision (default: the file's).")
    ] = RunOptions.timeout,
    quiet: QUIET = RunOptions.quiet,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Narrate every event.")
    ] = RunOptions.verbose,
    force: FORCE = RunOptions.force,
    dice: DiceOption = RunOptions.dice,
    host: HostOption = [],  # noqa: B006 - typer reads the default
) -> None:
    """Run an encounter with its policies, narrate it, and write its log."""
    import trio

    from initiative import engine
    from initiative.actors import check_names, check_policies, run_encounter
    from initiative.replays import literal

    o = RunOptions.from_params(ctx.params)
    spec = engine.load_encounter(o.encounter)
    chosen = parse_policies(list(o.policy))
    check_names(spec, chosen, what="--policy {name}=...", where=str(o.encounter))
    check_policies(spec, chosen, where=str(o.encounter))
    the_seed = spec.seed if o.seed is None else o.seed
    target = o.out or Path(f"{o.encounter.stem}.seed{the_seed}.jsonl")
    refuse_existing(target, o.force, inputs=[o.encounter])
    show = _Shown(table=o.dice is not None or "human" in chosen.values(), verbose=o.verbose)
    hosts, given = parse_hosts(list(o.host), spec), dice_source(o.dice, spec)
    again = functools.partial(resume_command, target, list(o.policy), o.dice, list(o.host))
    with stops_cleanly(target, again):
        result = trio.run(
            lambda: run_encounter(
                spec,
                the_seed,
                policies=chosen,
                out=target,
                on_event=None if o.quiet else show,  # --quiet: no narration work at all
                timeout=o.timeout,
                dice=given,
                hosts=hosts,
            )
        )
    show.flush()
    state = result.fight.state
    winner = state.winner or "no one"
    err.print(
        f"[dim]{len(result.events)} events, {state.round} round(s), winner: {literal(winner)};"
        f" log written to {literal(target)}[/dim]"
    )


class _Shown:
    """``run``'s narration of each event as it happens: through Rich on a terminal, plain and
    buffered into a pipe or a file; a reader that goes away (``| head``) stops the narration,
    not the fight or its log."""

    def __init__(self, *, table: bool, verbose: bool) -> None:
        from initiative.replays import Narrator, TableNarrator

        # At the table (dice asked for, or a human playing): the table's sentences.
        self.narrate = TableNarrator() if table and not verbose else Narrator(verbose=verbose)
        self.narrating = True
        self.piped = not out.is_terminal

    def __call__(self, event: "Event") -> None:
        line = self.narrate(event)
        if line is None or not self.narrating:
            return
        try:
            if self.piped:
                sys.stdout.write(Text.from_markup(line).plain + "\n")
            else:
                out.print(line)
        except (BrokenPipeError, SystemExit):
            # The reader went away (``| head``): stop narrating, but finish the fight and
            # its log.
            self.narrating = False
            _silence_stdout()

    def flush(self) -> None:
        """What is still buffered for a pipe, written (or dropped, when its reader is gone)."""
        if self.piped and self.narrating:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                _silence_stdout()


def _silence_stdout() -> None:
    """Point stdout at the null device (its reader went away), so nothing fails at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


@app.command(rich_help_panel="Fights and logs")
def replay(
    log: Annotated[Path, typer.Argument(help="A log file (.jsonl).")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Narrate every event.")] = False,
    review: Annotated[
        bool,
        typer.Option(
            "--review",
            help="Review the fight first (as `initiative review`, which re-simulates it) and"
            " annotate the narration: each decision graded inaccuracy or worse, each turning"
            " point.",
        ),
    ] = False,
    rollouts: Annotated[
        int | None, typer.Option("--rollouts", help="With --review: rollouts per candidate.")
    ] = None,
) -> None:
    """Tell a recorded fight from its log alone (no rules, no policy code run; with --review,
    the rules re-simulate it to review it)."""
    from initiative.replays import Narrator

    contents = load_log(log)
    notes = _review_notes(contents, rollouts) if review else {}
    narrate = Narrator(verbose=verbose)
    for event in contents.events:
        line = narrate(event)
        if line is not None:
            out.print(line)
        for note in notes.get(event.seq, ()):
            out.print(note)
    if not contents.complete:
        err.print("[yellow]warning:[/yellow] the log ends before the encounter did")


def _review_notes(contents: "LogContents", rollouts: int | None) -> dict[int, list[str]]:
    """``replay --review``'s annotations by the seq they follow: a graded decision after the
    event that records it, a turning point after its last event."""
    from initiative.replays import Budget, default_rollouts, literal, review

    n = rollouts if rollouts is not None else default_rollouts(contents.header.ruleset)
    if n < 1:
        raise UsageProblem(f"--rollouts {n}: at least 1")
    data = review(contents, Budget(rollouts=n))
    answers = {e.cause: e.seq for e in contents.events if e.cause is not None}
    notes: dict[int, list[str]] = {}
    styles = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red"}
    for d in data["decisions"]:
        if d["grade"] in styles:
            at = answers.get(d["seq"], d["seq"])
            style = styles[d["grade"]]
            notes.setdefault(at, []).append(
                f"    [{style}]review: {d['grade']}[/{style}] {literal(d['text'])}"
            )
    for t in data["turning_points"]:
        side = max(t["swing"], key=lambda s: abs(t["swing"][s]))
        delta = t["swing"][side]
        what = "GM override" if t["kind"] == "override" else "luck"
        notes.setdefault(t["to"] if t["kind"] != "override" else t["seq"], []).append(
            f"    [cyan]review: {what}[/cyan] {'gave' if delta >= 0 else 'cost'}"
            f" {literal(side)} {round(100 * abs(delta))} points"
            f" ({round(100 * t['before'][side])}% to {round(100 * t['after'][side])}%)"
        )
    return notes


@app.command(rich_help_panel="Fights and logs")
def verify(
    log: Annotated[Path, typer.Argument(help="A log file (.jsonl).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the verdict as one JSON object.")
    ] = False,
) -> None:
    """Check a log's tamper-evidence chain and state digests, then re-simulate it from its
    header and recorded decisions; exit 1 when it was tampered with or diverges."""
    from initiative.events import LogFormatError, LogNeverStartedError
    from initiative.replays import check_chain, literal

    say = functools.partial(_verdict, log, as_json)
    try:
        data = log.read_bytes()
    except OSError as problem:
        raise UsageProblem(f"{log}: cannot read: {problem.strerror}") from None
    chain = check_chain(data)
    if chain.tampered:
        text, facts = _tampered(log, data, chain.detail)
        say("tampered", text, **facts)
    try:
        contents = load_log(log)
    except LogNeverStartedError as problem:
        say("incomplete", f"[yellow]incomplete[/yellow]: {literal(problem)}", detail=str(problem))
        raise
    except LogFormatError as problem:
        # Damage to the lines themselves is tampering, whether the fight finished or not.
        say("tampered", f"[red]tampered[/red]: {literal(problem)}", detail=str(problem))
        raise
    _resimulated(contents, chain, say)


def _verdict(log: Path, as_json: bool, status: str, text: str, **facts: object) -> None:
    """Say ``verify``'s verdict (the text, or with ``--json`` the facts); exit 1 unless the
    log is verified."""
    if as_json:
        print_json({"log": str(log), "status": status, "ok": status == "verified", **facts})
    else:
        out.print(text)
    if status != "verified":
        raise typer.Exit(1)


def _tampered(log: Path, data: bytes, detail: str) -> "tuple[str, dict[str, object]]":
    """What ``verify`` says of a log whose chain is broken: where, and the first damage it can
    find (a line that does not read, or the first unlike the re-simulation)."""
    from initiative.events import InitiativeError, parse_log
    from initiative.replays import literal, verify_log

    lines = [f"[red]tampered[/red]: {literal(detail)}"]
    facts: dict[str, object] = {"detail": detail}
    try:
        contents = parse_log(data, name=str(log))
    except InitiativeError as problem:
        lines.append(f"first damage: {literal(problem)}")
        facts["first_damage"] = str(problem)
    else:
        first = verify_log(contents).divergence
        if first is not None:
            what = _describe_divergence(first.expected, first.got)
            lines.append(f"first line unlike the re-simulation: seq {first.seq}: {literal(what)}")
            facts["divergence"] = {"seq": first.seq, "detail": what}
    return "\n".join(lines), facts


def _resimulated(contents: "LogContents", chain: "ChainCheck", say: "Callable[..., None]") -> None:
    """``verify`` of a log that reads: its state digests, then its re-simulation."""
    from initiative.replays import check_digests, literal, verify_log

    digests, mismatch = check_digests(contents.events)
    if mismatch is not None:
        say(
            "diverged",
            f"[red]diverged[/red]: the state at the end of round {mismatch.round} differs"
            f" (seq {mismatch.seq}: the log records digest {literal(mismatch.recorded)},"
            f" folding its events gives {mismatch.folded})",
            divergence={
                "seq": mismatch.seq,
                "round": mismatch.round,
                "recorded_digest": mismatch.recorded,
                "folded_digest": mismatch.folded,
            },
        )
    result = verify_log(contents)
    d = result.divergence
    if d is not None:
        what = _describe_divergence(d.expected, d.got)
        say(
            "diverged",
            f"[red]diverged[/red] at seq {d.seq}: {literal(what)}",
            divergence={"seq": d.seq, "detail": what},
        )
    if not result.complete:
        say(
            "incomplete",
            f"[yellow]incomplete[/yellow]: all {result.events} events match, but the log ends"
            " before EncounterEnded",
            events=result.events,
        )
    extra = f", {digests} state digests" if digests else ""
    sealed = ", chain intact" if chain.status == "ok" else f" ({chain.detail})"
    say(
        "verified",
        f"[green]verified[/green]: all {result.events} events match the re-simulation"
        f"{extra}{sealed}",
        events=result.events,
        digests=digests,
        chain=chain.status,
    )


def _describe_divergence(expected: bytes | None, got: bytes | None) -> str:
    from initiative.replays import differing_fields

    if expected is None:
        assert got is not None
        return f"the log ends, but the engine goes on with {_type_of(got)}"
    if got is None:
        return f"the engine stops, but the log goes on with {_type_of(expected)}"
    fields = differing_fields(expected, got)
    head = _type_of(expected)
    parts = [
        f"{name}: log has {json.dumps(a)}, re-simulation gives {json.dumps(b)}"
        for name, a, b in fields
    ]
    return f"{head}; " + "; ".join(parts)


def _type_of(line: bytes) -> str:
    import msgspec

    try:
        obj = msgspec.json.decode(line)
        return str(obj.get("type", "?")) if isinstance(obj, dict) else "?"
    except msgspec.DecodeError:
        return "?"


def _csv_set(values: list[str]) -> set[str] | None:
    items = {v.strip() for raw in values for v in raw.split(",") if v.strip()}
    return items or None


@app.command(rich_help_panel="Fights and logs")
def show(
    log: Annotated[Path, typer.Argument(help="A log file (.jsonl).")],
    round_: Annotated[list[int], typer.Option("--round", "-r", help="Only these rounds.")] = [],  # noqa: B006
    who: Annotated[
        list[str], typer.Option("--who", "-w", help="Only events naming these combatants.")
    ] = [],  # noqa: B006
    type_: Annotated[list[str], typer.Option("--type", "-t", help="Only these event types.")] = [],  # noqa: B006
    first: Annotated[int | None, typer.Option("--from", help="From this seq.")] = None,
    last: Annotated[int | None, typer.Option("--to", help="Up to this seq.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON event per line.")] = False,
    follow_: Annotated[
        bool,
        typer.Option("--follow", "-f", help="Keep printing events as a running fight writes them."),
    ] = False,
    idle: Annotated[
        float | None, typer.Option(help="With --follow: stop after this many idle seconds.")
    ] = None,
) -> None:
    """The events of a log as a table, filtered by round, combatant, type and seq."""
    from initiative.replays import check_filters, plain, select, summary, who_of

    if follow_:
        filters = {"rounds": set(round_) or None, "who": _csv_set(who), "types": _csv_set(type_)}
        _follow(log, filters, first, last, as_json, idle)
        return
    contents = load_log(log)
    check_filters(contents, who=_csv_set(who), types=_csv_set(type_))
    rows = select(
        contents.events,
        rounds=set(round_) or None,
        who=_csv_set(who),
        types=_csv_set(type_),
        first=first,
        last=last,
    )
    if as_json:
        for row in rows:
            sys.stdout.write(contents.lines[row.event.seq].decode(errors="backslashreplace"))
        return
    table = Table(show_lines=False, header_style="bold")
    for column in ("seq", "round", "type", "who", "summary", "cause"):
        table.add_column(
            column,
            no_wrap=column != "summary",
            justify="right" if column in ("seq", "round", "cause") else "left",
        )
    for row in rows:
        e = row.event
        table.add_row(
            str(e.seq),
            str(row.round),
            type(e).__name__,
            plain(who_of(e) or ""),
            plain(summary(e)),
            "" if e.cause is None else str(e.cause),
        )
    out.print(table)
    err.print(f"[dim]{len(rows)} of {len(contents.events)} events[/dim]")


def _follow(
    log: Path,
    filters: dict[str, Any],
    first: int | None,
    last: int | None,
    as_json: bool,
    idle: float | None,
) -> None:
    """``show --follow``: one line per event as it arrives (a table needs every row first)."""
    from initiative.events import RoundStarted
    from initiative.replays import follow, plain, select, summary, who_of

    rounds = filters.pop("rounds")
    current = 0
    for event, line in follow(log, idle=idle):
        if isinstance(event, RoundStarted):
            current = event.round
        if rounds is not None and current not in rounds:
            continue
        if not select([event], first=first, last=last, **filters):
            continue
        if as_json:
            sys.stdout.write(line.decode(errors="backslashreplace"))
            sys.stdout.flush()
        else:
            cause = "" if event.cause is None else f" <- {event.cause}"
            out.print(
                plain(
                    f"{event.seq:>6}  {type(event).__name__:<18} {who_of(event) or '-':<12}"
                    f" {summary(event)}{cause}"
                )
            )


@app.command(rich_help_panel="Fights and logs")
def state(
    log: Annotated[Path, typer.Argument(help="A log file (.jsonl).")],
    at: Annotated[
        int | None, typer.Option("--at", help="After this seq (default: the last).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the state as one JSON object.")
    ] = False,
) -> None:
    """The encounter's state after an event, folded from the log alone."""
    from initiative import engine
    from initiative.replays import literal, plain, state_at

    contents = load_log(log)
    st = state_at(contents, at)
    data = engine.state_to_builtins(st)
    if as_json:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    out.print(
        f"after seq [bold]{st.seq}[/bold]: round {st.round}, active {literal(st.active or '-')},"
        f" priority {literal(st.priority or '-')}"
        + (f", ended (winner: {literal(st.winner or 'no one')})" if st.ended else "")
    )
    table = Table(header_style="bold")
    marked = any(c.markers for c in st.combatants.values())  # the GM's markers, when any
    columns = ("id", "side", "init", "hp", "ap", "position", "conditions")
    for column in (*columns, *(("GM markers",) if marked else ()), "status"):
        table.add_column(column)
    ids = [c for c in st.order if c in st.combatants]
    ids += [c for c in st.combatants if c not in ids]
    for cid in ids:
        c = st.combatants[cid]
        status = "defeated" if c.defeated else "left" if c.left else "standing"
        table.add_row(
            plain(cid),
            plain(c.side),
            "" if c.initiative is None else str(c.initiative),
            f"{c.hp}/{c.max_hp}",
            str(c.ap),
            str(c.position),
            plain(", ".join(c.conditions)),
            *((plain(", ".join(c.markers)),) if marked else ()),
            status,
        )
    out.print(table)


@app.command(rich_help_panel="Fights and logs")
def rulesets(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the rulesets and policies as one JSON object.")
    ] = False,
) -> None:
    """List the installed rulesets and built-in policies."""
    from initiative import engine
    from initiative.actors import policy_names

    if as_json:
        print_json(
            {
                "rulesets": [
                    {
                        "name": name,
                        "version": engine.find_ruleset(name).version,
                        "seed_file": engine.find_ruleset(name).seed_file,
                    }
                    for name in engine.ruleset_names()
                ],
                "policies": policy_names(),
            }
        )
        return
    for name in engine.ruleset_names():
        cls = engine.find_ruleset(name)
        seed = f", seed {cls.seed_file}" if cls.seed_file else ""
        out.print(f"[bold]{name}[/bold] (version {cls.version}{seed})")
    out.print("policies: " + ", ".join(policy_names()))
