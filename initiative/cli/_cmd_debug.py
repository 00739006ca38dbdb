"""The debugging commands: why, diff, fork, resume, view. Thin: parse, call ``replays``, render."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from initiative.actors import Result
    from initiative.events import Event, LogContents
    from initiative.replays import Step

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
    warn,
)
from ._options import ResumeOptions
from ._output import print_json
from ._table import DiceOption, HostOption, dice_source, parse_hosts, resume_command, stops_cleanly

TRUST = Annotated[
    bool,
    typer.Option(
        "--trust-log-policies",
        help="Load the policy files the log names (they run as code: only for logs you trust).",
    ),
]

_CONTEXT = 3


def _step_line(step: "Step", marker: str = " ") -> str:
    from initiative.replays import literal

    indent = "  " * max(0, step.depth - 1)
    who = step.who or "-"
    return literal(f"{marker}{step.seq:>6}  {indent}{step.type:<18} {who:<12} {step.summary}")


@app.command(rich_help_panel="Debugging and what-if")
def why(
    log: Annotated[Path, typer.Argument(help="A log file (.jsonl).")],
    seq: Annotated[int, typer.Argument(help="The event to explain.")],
    show_effects: Annotated[
        bool, typer.Option("--effects", help="Also list the events SEQ caused in turn.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The chain of causes from the root to event SEQ (and with --effects, what SEQ caused)."""
    from msgspec import to_builtins

    from initiative.replays import cause_chain, deciding_rolls, effects, plain

    contents = load_log(log)
    chain = cause_chain(contents.events, seq, name=str(log))
    caused = effects(contents.events, seq, name=str(log)) if show_effects else []
    rolls = deciding_rolls(contents.events, chain)
    if as_json:

        def with_event(step: "Step") -> dict[str, object]:
            return {**step.to_builtins(), "event": to_builtins(contents.events[step.seq])}

        data: dict[str, object] = {"seq": seq, "causes": [with_event(s) for s in chain]}
        data["decided_by"] = {str(k): [s.to_builtins() for s in v] for k, v in rolls.items()}
        if show_effects:
            data["effects"] = [with_event(s) for s in caused]
        sys.stdout.write(json.dumps(data) + "\n")
        return
    target = chain[-1]
    out.print(plain(f"why seq {seq} ({target.type}{' ' + target.who if target.who else ''}):"))
    for step in chain:
        for roll in rolls.get(step.seq, ()):
            out.print(_step_line(roll, "~"))
        out.print(_step_line(step, ">" if step.seq == seq else " "))
    if show_effects:
        out.print(f"effects of seq {seq}: {len(caused)} event(s)")
        for step in caused:
            out.print(_step_line(step))


def _context_lines(contents: "LogContents", start: int, stop: int, marker: str) -> None:
    from initiative.replays import step_of

    for event in contents.events[max(0, start) : stop]:
        out.print(_step_line(step_of(event), marker))


@app.command(rich_help_panel="Debugging and what-if")
def diff(
    log_a: Annotated[Path, typer.Argument(help="The first log.")],
    log_b: Annotated[Path, typer.Argument(help="The second log.")],
    context: Annotated[int, typer.Option(help="Events of context around the difference.")] = (
        _CONTEXT
    ),
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the difference as one JSON object.")
    ] = False,
) -> None:
    """The first event where two logs differ, with the differing fields side by side.

    Exit 0 when the logs are identical (apart from where they came from), 1 otherwise."""
    from initiative.replays import diff_logs, literal, plain, step_of

    a, b = load_log(log_a), load_log(log_b)
    result = diff_logs(a, b)
    if as_json:
        _diff_json(result, a, b)
    for note in result.notes:
        out.print(f"note: {literal(note)}")
    if result.identical:
        out.print(f"identical: {result.events_a} events")
        return
    seq = result.seq
    assert seq is not None
    out.print(f"first difference at seq {seq}")
    out.print(f"  A = {literal(str(log_a))} ({result.events_a} events)")
    out.print(f"  B = {literal(str(log_b))} ({result.events_b} events)")
    if result.ended is not None:
        longer, name = (b, "B") if result.ended == "a" else (a, "A")
        short = "A" if name == "B" else "B"
        nxt = step_of(longer.events[seq])
        out.print(
            plain(f"{short} ends after seq {seq - 1}; {name} goes on with {nxt.type} at seq {seq}")
        )
    else:
        width = max(len("field"), *(len(f.path) for f in result.fields))
        va = [json.dumps(f.a) for f in result.fields]
        vwidth = max(len("A"), *(len(v) for v in va))
        out.print(literal(f"  {'field':<{width}}  {'A':<{vwidth}}  B"))
        for f, left in zip(result.fields, va, strict=True):
            out.print(literal(f"  {f.path:<{width}}  {left:<{vwidth}}  {json.dumps(f.b)}"))
    out.print("context:")
    _context_lines(a, seq - context, seq, " ")
    _context_lines(a, seq, seq + context, "A")
    _context_lines(b, seq, seq + context, "B")
    raise typer.Exit(1)


def _diff_json(result: Any, a: "LogContents", b: "LogContents") -> None:
    from msgspec import to_builtins

    seq = result.seq

    def event_at(log: "LogContents") -> object:
        return to_builtins(log.events[seq]) if seq is not None and seq < len(log.events) else None

    print_json(
        {
            "identical": result.identical,
            "seq": seq,
            "events_a": result.events_a,
            "events_b": result.events_b,
            "ended": result.ended,
            "fields": [{"path": f.path, "a": f.a, "b": f.b} for f in result.fields],
            "a": event_at(a),
            "b": event_at(b),
            "notes": list(result.notes),
        }
    )
    if not result.identical:
        raise typer.Exit(1)
    raise typer.Exit(0)


def _narrator(
    start: int | list[int], quiet: bool, table: bool = False
) -> Callable[["Event"], None]:
    """Narrate events from seq ``start`` on (a one-item list: set once the log is read); at the
    table (a person or hand-rolled dice), in the table's sentences."""
    from initiative.replays import Narrator, TableNarrator

    narrate = TableNarrator() if table else Narrator()
    narrating = not quiet
    first = start if isinstance(start, list) else [start]

    def show(event: "Event") -> None:
        nonlocal narrating
        line = narrate(event)  # always called, so names and nesting are known
        if narrating and line is not None and event.seq >= first[0]:
            try:
                out.print(line)
            except (BrokenPipeError, SystemExit):
                # The reader went away (``| head``): finish the fight and its log quietly.
                narrating = False

    return show


def _check_policies(chosen: dict[str, str], contents: "LogContents") -> None:
    from initiative.actors import check_names

    check_names(
        contents.header.encounter, chosen, what="--policy {name}=...", where=str(contents.path)
    )


def _finished(result: "Result", target: Path) -> None:
    from initiative.replays import literal

    state = result.fight.state
    err.print(
        f"[dim]{result.fight.next_seq} events, {state.round} round(s),"
        f" winner: {literal(state.winner or 'no one')}; log written to {literal(str(target))}[/dim]"
    )


@app.command(rich_help_panel="Debugging and what-if")
def fork(
    log: Annotated[Path, typer.Argument(help="The parent log.")],
    at: Annotated[int, typer.Option("--at", help="Keep the parent's events up to this seq.")],
    policy: Annotated[
        list[str], typer.Option(help="Live policy after the fork: ID=NAME or SIDE=NAME.")
    ] = [],  # noqa: B006 - typer reads the default
    seed: Annotated[
        int | None, typer.Option(help="New seed for the dice (and policies) after the fork.")
    ] = None,
    out_path: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where to write the fork's log.")
    ] = None,
    quiet: QUIET = False,
    trust: TRUST = False,
    force: FORCE = False,
    dice: DiceOption = None,
    host: HostOption = [],  # noqa: B006 - typer reads the default
) -> None:
    """Replay LOG's recorded decisions up to --at, then go on with live policies ("what if").

    --at just before a decision undoes it: that decision is asked of the live policy again.
    Policies come from --policy and the built-ins; a policy file the log names is never loaded
    without --policy for that combatant or --trust-log-policies."""
    import trio

    from initiative.replays import fork_log

    try:
        data = log.read_bytes()
    except OSError as problem:
        raise UsageProblem(f"{log}: cannot read: {problem.strerror}") from None
    contents = load_log(log)
    chosen = parse_policies(policy)
    _check_policies(chosen, contents)
    target = out_path or log.with_name(f"{log.stem}.fork{at}.jsonl")
    refuse_existing(target, force, inputs=[log])
    existed = target.exists()
    spec = contents.header.encounter
    at_table = dice is not None or "human" in chosen.values()
    try:
        with stops_cleanly(target, lambda: resume_command(target, policy, dice, host)):
            result = trio.run(
                lambda: fork_log(
                    contents,
                    data,
                    at,
                    out=target,
                    policies=chosen,
                    seed=seed,
                    on_event=_narrator(at + 1, quiet, at_table),
                    trust_log_policies=trust,
                    dice=dice_source(dice, spec),
                    hosts=parse_hosts(host, spec),
                )
            )
    except typer.Exit:
        raise  # stopped at the table: the fork's log keeps what was typed, to be resumed
    except BaseException:
        if not existed:
            target.unlink(missing_ok=True)  # no half-written fork left behind
        raise
    _finished(result, target)


@app.command(rich_help_panel="Debugging and what-if")
def resume(
    log: Annotated[Path, typer.Argument(help="The log of an interrupted fight.")],
    policy: Annotated[
        list[str],
        typer.Option(help="The overrides the fight was run with: ID=NAME or SIDE=NAME."),
    ] = [],  # noqa: B006 - typer reads the default
    quiet: QUIET = ResumeOptions.quiet,
    trust: TRUST = ResumeOptions.trust_log_policies,
    dice: DiceOption = ResumeOptions.dice,
    host: HostOption = [],  # noqa: B006 - typer reads the default
) -> None:
    """Go on with an interrupted fight from its last complete event, appending to its log.

    Holds the log's lock while it writes (a log another process is writing is refused). A
    policy file the log names is never loaded without --policy or --trust-log-policies. Dice
    the log records as given are taken from it; --dice says where the rest come from (a dice
    file goes on from the first face the log has not used)."""
    import trio

    from initiative.events import read_log
    from initiative.replays import NothingToResume, literal, resume_log

    chosen = parse_policies(policy)
    # The header, for --dice and --host; the fight itself is read again under the log's lock.
    spec = read_log(log).header.encounter
    hosts, given = parse_hosts(host, spec), dice_source(dice, spec)
    start = [0]

    def ready(contents: "LogContents") -> None:
        warn(contents)
        _check_policies(chosen, contents)
        start[0] = len(contents.events)

    try:
        with stops_cleanly(log, lambda: resume_command(log, policy, dice, host)):
            result = trio.run(
                lambda: resume_log(
                    log,
                    policies=chosen,
                    on_event=_narrator(
                        start, quiet, dice is not None or "human" in chosen.values()
                    ),
                    on_ready=ready,
                    trust_log_policies=trust,
                    dice=given,
                    hosts=hosts,
                )
            )
    except NothingToResume as done:
        out.print(literal(done))
        return
    _finished(result, log)


@app.command(rich_help_panel="Debugging and what-if")
def view(
    log: Annotated[Path, typer.Argument(help="A log file (.jsonl).")],
    out_path: Annotated[
        Path | None, typer.Option("--out", "-o", help="The HTML file (default: LOG.html).")
    ] = None,
    force: FORCE = False,
    review: Annotated[
        bool,
        typer.Option(
            "--review",
            help="Also review the fight (as `initiative review`) and draw each side's chance to"
            " win under the hit points, the graded decisions marked.",
        ),
    ] = False,
    rollouts: Annotated[
        int | None,
        typer.Option("--rollouts", help="With --review: rollouts per candidate."),
    ] = None,
) -> None:
    """Write one self-contained HTML page for LOG: lanes, hit points, events, causes, state
    (and with --review, the chance to win)."""
    from initiative.replays import (
        Budget,
        default_rollouts,
        literal,
        render_html,
        review as review_log,
    )

    contents = load_log(log)
    target = out_path or log.with_suffix(".html")
    refuse_existing(target, force, inputs=[log])
    reviewed = None
    if review:
        n = rollouts if rollouts is not None else default_rollouts(contents.header.ruleset)
        if n < 1:
            raise UsageProblem(f"--rollouts {n}: at least 1")
        reviewed = review_log(contents, Budget(rollouts=n))
    try:
        target.write_text(render_html(contents, reviewed), encoding="utf-8")
    except OSError as problem:
        raise UsageProblem(f"{target}: cannot write: {problem.strerror}") from None
    err.print(f"[dim]{len(contents.events)} events; page written to {literal(str(target))}[/dim]")
