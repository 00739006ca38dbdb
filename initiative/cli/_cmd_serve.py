"""The ``serve`` command: a live fight with seats over the network (``join`` takes a seat)."""

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from ._app import QUIET, UsageProblem, app, err, out, parse_policies

if TYPE_CHECKING:
    from initiative.events import Event

    from ..table._serve import Served

PANEL = "Live fights over the network"


@app.command(rich_help_panel=PANEL)
def serve(
    encounter: Annotated[
        Path | None, typer.Argument(help="The encounter file (TOML); not with --resume.")
    ] = None,
    seat: Annotated[
        list[str],
        typer.Option(help="A seat played over the network: a combatant id or a side; repeatable."),
    ] = [],  # noqa: B006 - typer reads the default
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Go on with the served fight in this log (after Ctrl-C or a stopped server),"
            " with the same --seat options; the tokens kept beside the log (LOG.tokens) stay"
            " good, so every printed link does."
        ),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on (another than 127.0.0.1 opens it to others).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: pick a free one).")] = 0,
    seed: Annotated[
        int | None, typer.Option(help="Seed for every die (default: the file's).")
    ] = None,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Where to write the log (default: NAME.seedN.jsonl)."),
    ] = None,
    policy: Annotated[
        list[str],
        typer.Option(help="Override an unseated policy: ID=NAME or SIDE=NAME; repeatable."),
    ] = [],  # noqa: B006 - typer reads the default
    trust: Annotated[
        bool,
        typer.Option(
            "--trust-log-policies",
            help="With --resume: load the policy files the log names (they run as code).",
        ),
    ] = False,
    deadline: Annotated[
        float, typer.Option(help="Seconds a seat has per decision; past it, a recorded timeout.")
    ] = 60.0,
    grace: Annotated[
        float,
        typer.Option(
            help="Seconds a seat that drops while holding priority has to come back and make"
            " the same decision (capped by the deadline); past it, a recorded fault."
        ),
    ] = 30.0,
    timeout: Annotated[
        float | None, typer.Option(help="Seconds an unseated policy has per decision.")
    ] = None,
    wait: Annotated[
        bool, typer.Option(help="Start the fight once every seat has been taken.")
    ] = True,
    hello_timeout: Annotated[
        float, typer.Option(help="Seconds a client has to say hello, and to finish any frame.")
    ] = 10.0,
    max_frame: Annotated[int, typer.Option(help="Bytes in one frame, at most.")] = 64 * 1024,
    max_connections: Annotated[int, typer.Option(help="Connections open at once, at most.")] = 64,
    tls: Annotated[
        tuple[Path, Path] | None,
        typer.Option(
            metavar="CERT KEY",
            help="Speak only TLS (https:// for browsers, join --tls), with this certificate and"
            " its private key (PEM files; a self-signed certificate is fine: clients get it with"
            " join --ca).",
        ),
    ] = None,
    spectators: Annotated[
        str,
        typer.Option(
            help="What spectators see: 'seats' (what the seated players see together: their"
            " sides' numbers, the others' health in words) or 'all' (every number, the log as"
            " news).",
        ),
    ] = "seats",
    quiet: QUIET = False,
) -> None:
    """Run an encounter live: each --seat is played by whoever connects with its token; the game
    master and spectators get links (and tokens) of their own.

    Ctrl-C stops it, printing the command that goes on (--resume LOG with the same seats)."""
    import functools
    import shlex

    import trio

    from initiative import engine
    from initiative.actors import check_names
    from initiative.events import read_log
    from initiative.replays import NothingToResume, TableNarrator, literal, visible

    from ..table._serve import Limits, resume_served, self_signed, serve_fight, server_context

    if (encounter is None) == (resume is None):
        raise UsageProblem("give either the ENCOUNTER file or --resume LOG (a served fight's log)")
    if not seat:
        raise UsageProblem("name at least one --seat (a combatant id or a side)")
    chosen = parse_policies(policy)
    if spectators not in ("seats", "all"):
        raise UsageProblem(f"--spectators {spectators}: expected 'seats' or 'all'")
    for name, value, what in [
        ("--hello-timeout", hello_timeout, "seconds"),
        ("--max-frame", max_frame, "bytes"),
        ("--max-connections", max_connections, "connections"),
    ]:
        if not value > 0:
            raise UsageProblem(f"{name} must be a positive number of {what}, got {value:g}")
    if not grace >= 0:
        raise UsageProblem(f"--grace must be zero or a positive number of seconds, got {grace:g}")
    if resume is not None:
        for given, option in [(seed, "--seed"), (out_path, "--out")]:
            if given is not None:
                raise UsageProblem(f"{option} is not for --resume: the log says it")
        target = resume
        spec = read_log(resume).header.encounter  # read again under the log's lock to go on
    else:
        assert encounter is not None
        spec = engine.load_encounter(encounter)
        the_seed = spec.seed if seed is None else seed
        target = out_path or Path(f"{encounter.stem}.seed{the_seed}.jsonl")
    check_names(spec, chosen, what="--policy {name}=...", where=str(encounter or resume))
    context = server_context(*tls) if tls is not None else None
    # A self-signed certificate is trusted by a terminal player given a copy of it.
    ca = f" --ca {shlex.quote(tls[0].name)}" if tls is not None and self_signed(tls[0]) else ""
    limits = Limits(
        hello_timeout=hello_timeout,
        frame_timeout=hello_timeout,
        send_timeout=hello_timeout,
        max_frame=max_frame,
        max_connections=max_connections,
    )
    narrate = TableNarrator()  # the table's sentences: initiative, dice, why a turn is lost
    # Narrate from the first new event: a resumed fight's replayed ones are not news (nothing
    # is narrated until the server says how many there were).
    start = [0 if resume is None else sys.maxsize]
    bound = [port]

    def show(event: "Event") -> None:
        line = narrate(event)  # always called, so names are known
        if line is not None and not quiet and event.seq >= start[0]:
            out.print(line)

    def again() -> str:
        """The command that goes on with this fight."""
        parts = ["initiative", "serve", "--resume", str(target)]
        for name in seat:
            parts += ["--seat", name]
        for pair in policy:
            parts += ["--policy", pair]
        options: list[tuple[str, object, object]] = [
            ("--deadline", deadline, 60.0),
            ("--grace", grace, 30.0),
            ("--timeout", timeout, None),
            ("--host", host, "127.0.0.1"),
            ("--hello-timeout", hello_timeout, 10.0),
            ("--max-frame", max_frame, 64 * 1024),
            ("--max-connections", max_connections, 64),
        ]
        for option, value, default in options:
            if value != default:
                parts += [option, f"{value:g}" if isinstance(value, float) else str(value)]
        if tls is not None:
            parts += ["--tls", str(tls[0]), str(tls[1])]
        parts += ["--port", str(bound[0])]
        if not wait:
            parts.append("--no-wait")
        if spectators != "seats":
            parts += ["--spectators", spectators]
        if trust:
            parts.append("--trust-log-policies")
        if quiet:
            parts.append("-q")
        return shlex.join(parts)

    def listening(served: "Served") -> None:
        bound[0] = served.port
        start[0] = served.resumed
        shown = f"[{served.host}]" if ":" in served.host else served.host
        if served.resumed:
            out.print(f"resuming {visible(target)} after its {served.resumed} events", markup=False)
        if served.warning:
            err.print(f"warning: {visible(served.warning)}", markup=False)
        over = " (TLS)" if served.tls else ""
        out.print(f"listening on {shown}:{served.port}{over}", markup=False)
        if ca:
            out.print(
                f"the certificate is self-signed: give terminal players a copy of"
                f" {visible(str(tls[0]) if tls else '')} for --ca; browsers warn until it is accepted",
                markup=False,
            )
        scheme, join_tls = ("https", f" --tls{ca}") if served.tls else ("http", "")
        for s in served.seats.values():
            out.print(
                f"seat {s.name} ({', '.join(s.combatants)}): token {s.token}\n"
                f"  terminal: initiative join {shown}:{served.port}{join_tls} --seat {s.name}"
                f" --token {s.token}\n"
                f"  browser:  {scheme}://{shown}:{served.port}/seat/{s.name}#token={s.token}",
                markup=False,
            )
        address = f"{shown}:{served.port}"
        for role, path, flag, token in [
            ("gm", "gm", "--gm", served.gm_token),
            ("spectators", "watch", "--watch", served.spectator_token),
        ]:
            out.print(
                f"{role}: token {token}\n"
                f"  browser:  {scheme}://{address}/{path}#token={token}\n"
                f"  terminal: initiative join {address}{join_tls} {flag} --token {token}",
                markup=False,
            )
        out.print(f"if the server stops, go on with: {again()}", markup=False, soft_wrap=True)
        out.print("waiting for every seat..." if wait else "the fight begins", markup=False)
        sys.stdout.flush()

    fight_holder: list[engine.Fight] = []

    async def run() -> None:
        async with trio.open_nursery() as nursery:

            async def fight_task(task_status: "trio.TaskStatus[Served]") -> None:
                begin: Callable[..., Awaitable[engine.Fight]] = (
                    functools.partial(resume_served, resume, seat, trust_log_policies=trust)
                    if resume is not None
                    else functools.partial(serve_fight, spec, the_seed, seat, out=target)
                )
                fight = await begin(
                    host=host,
                    port=port,
                    deadline=deadline,
                    grace=grace,
                    policies=chosen,
                    timeout=timeout,
                    limits=limits,
                    tls=context,
                    wait=wait,
                    on_event=show,
                    spectators="all" if spectators == "all" else "seats",
                    task_status=task_status,
                )
                fight_holder.append(fight)

            listening(await nursery.start(fight_task))

    try:
        try:
            trio.run(run)
        except BaseExceptionGroup as group:
            raise _unwrap(group) from None
    except KeyboardInterrupt:
        if resume is None and not (target.exists() and target.stat().st_size):
            err.print(
                "\ninterrupted before the fight began (no event was written). Start it again"
                f" with:\n  {literal(shlex.join(['initiative', *sys.argv[1:]]))}",
                soft_wrap=True,
            )
        else:
            err.print(
                f"\ninterrupted; the log {literal(target)} keeps every event so far. Go on with:"
                f"\n  {literal(again())}",
                soft_wrap=True,
            )
        raise typer.Exit(130) from None
    except NothingToResume as done:
        out.print(literal(done))
        return
    fight = fight_holder[0]
    state = fight.state
    err.print(
        f"[dim]{len(fight.events)} events, {state.round} round(s), winner:"
        f" {escape(state.winner or 'no one')}; log written to {escape(str(target))}[/dim]"
    )


def _unwrap(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """What a group from the server's nurseries means: a Ctrl-C if it holds one, else its
    first error (one line for the user when it is the project's own)."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        exc = pending.pop(0)
        if isinstance(exc, BaseExceptionGroup):
            pending[:0] = exc.exceptions
        else:
            leaves.append(exc)
    interrupts = [leaf for leaf in leaves if isinstance(leaf, KeyboardInterrupt)]
    return (interrupts or leaves)[0]
