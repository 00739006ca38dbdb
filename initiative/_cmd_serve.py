"""The seat commands: ``serve`` a live fight with seats over the network, ``join`` one."""

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from ._app import QUIET, UsageProblem, app, err, out, parse_policies

if TYPE_CHECKING:
    from initiative.events import Event

    from ._serve import Served

PANEL = "Live fights over the network"


@app.command(rich_help_panel=PANEL)
def serve(
    encounter: Annotated[Path, typer.Argument(help="The encounter file (TOML).")],
    seat: Annotated[
        list[str],
        typer.Option(help="A seat played over the network: a combatant id or a side; repeatable."),
    ] = [],  # noqa: B006 - typer reads the default
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
    deadline: Annotated[
        float, typer.Option(help="Seconds a seat has per decision; past it, a recorded timeout.")
    ] = 60.0,
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
    quiet: QUIET = False,
) -> None:
    """Run an encounter live: each --seat is played by whoever connects with its token."""
    import trio

    from initiative import engine
    from initiative.actors import check_names
    from initiative.replays import Narrator

    from ._serve import Limits, serve_fight

    spec = engine.load_encounter(encounter)
    if not seat:
        raise UsageProblem("name at least one --seat (a combatant id or a side)")
    chosen = parse_policies(policy)
    check_names(spec, chosen, what="--policy {name}=...", where=str(encounter))
    for name, value, what in [
        ("--hello-timeout", hello_timeout, "seconds"),
        ("--max-frame", max_frame, "bytes"),
        ("--max-connections", max_connections, "connections"),
    ]:
        if not value > 0:
            raise UsageProblem(f"{name} must be a positive number of {what}, got {value:g}")
    the_seed = spec.seed if seed is None else seed
    target = out_path or Path(f"{encounter.stem}.seed{the_seed}.jsonl")
    limits = Limits(
        hello_timeout=hello_timeout,
        frame_timeout=hello_timeout,
        send_timeout=hello_timeout,
        max_frame=max_frame,
        max_connections=max_connections,
    )
    narrate = Narrator()

    def show(event: "Event") -> None:
        line = narrate(event)
        if line is not None and not quiet:
            out.print(line)

    def listening(served: "Served") -> None:
        shown = f"[{served.host}]" if ":" in served.host else served.host
        out.print(f"listening on {escape(shown)}:{served.port}", markup=False)
        for s in served.seats.values():
            out.print(
                f"seat {s.name} ({', '.join(s.combatants)}): token {s.token}\n"
                f"  terminal: initiative join {shown}:{served.port} --seat {s.name} --token {s.token}\n"
                f"  browser:  http://{shown}:{served.port}/seat/{s.name}#token={s.token}",
                markup=False,
            )
        out.print("waiting for every seat..." if wait else "the fight begins", markup=False)
        sys.stdout.flush()

    fight_holder: list[engine.Fight] = []

    async def run() -> None:
        async with trio.open_nursery() as nursery:

            async def fight_task(task_status: "trio.TaskStatus[Served]") -> None:
                fight_holder.append(
                    await serve_fight(
                        spec,
                        the_seed,
                        seat,
                        out=target,
                        host=host,
                        port=port,
                        deadline=deadline,
                        policies=chosen,
                        timeout=timeout,
                        limits=limits,
                        wait=wait,
                        on_event=show,
                        task_status=task_status,
                    )
                )

            listening(await nursery.start(fight_task))

    try:
        trio.run(run)
    except KeyboardInterrupt:
        err.print(
            f"stopped; the log so far is in {escape(str(target))}"
            f" ([bold]initiative resume {escape(str(target))}[/bold] finishes the fight)"
        )
        raise typer.Exit(130) from None
    fight = fight_holder[0]
    state = fight.state
    err.print(
        f"[dim]{len(fight.events)} events, {state.round} round(s), winner:"
        f" {escape(state.winner or 'no one')}; log written to {escape(str(target))}[/dim]"
    )


@app.command(rich_help_panel=PANEL)
def join(
    address: Annotated[str, typer.Argument(help="The server, HOST:PORT, as serve printed it.")],
    seat: Annotated[str | None, typer.Option(help="The seat to take.")] = None,
    token: Annotated[
        str | None, typer.Option(help="The seat's token, as serve printed it.")
    ] = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Take no seat: narrate the fight as it goes.")
    ] = False,
    copy_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Keep a copy of the log as it arrives (a .jsonl file)."),
    ] = None,
) -> None:
    """Play a seat of a served fight from this terminal (a numbered choice at each priority),
    or --watch it."""
    from ._join import join as join_seat

    if watch == (seat is not None):
        raise UsageProblem("give either --seat and --token, or --watch")
    if seat is not None and token is None:
        raise UsageProblem(f"--seat {seat}: the seat's --token is needed too")

    def say(text: str, markup: bool) -> None:
        out.print(text, markup=markup)

    def ask(prompt: str) -> str:
        return out.input(prompt, markup=False)

    try:
        with copy_path.open("wb") if copy_path is not None else contextlib.nullcontext() as copy:
            winner = join_seat(address, seat, token, say=say, ask=ask, copy=copy)
    except (EOFError, KeyboardInterrupt):
        err.print("left the fight")
        raise typer.Exit(1) from None
    out.print(f"the fight is over: {winner or 'no one'} won", markup=False)
