"""The ``join`` command: take a seat of a served fight from this terminal, or watch it."""

import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._app import UsageProblem, app, err, out
from ._cmd_serve import PANEL


@app.command(rich_help_panel=PANEL)
def join(
    address: Annotated[str, typer.Argument(help="The server, HOST:PORT, as serve printed it.")],
    seat: Annotated[str | None, typer.Option(help="The seat to take.")] = None,
    token: Annotated[
        str | None,
        typer.Option(
            help="The seat's token (or the GM's, or the spectators'), as serve printed it."
        ),
    ] = None,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch", help="Take no seat: narrate the fight as it goes (the spectators' --token)."
        ),
    ] = False,
    gm: Annotated[
        bool,
        typer.Option(
            "--gm",
            help="As the game master (with the GM --token serve printed): watch, and step in"
            " with typed gm commands (gm help).",
        ),
    ] = False,
    copy_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Keep a copy of the log as it arrives (a .jsonl file): for a connection that"
            " sees every number (the GM, a spectator of serve --spectators all, a seat with"
            ' reveal = "all"); a spectator who sees what the seats see is refused.',
        ),
    ] = None,
    reconnect: Annotated[
        float,
        typer.Option(
            help="Seconds to keep trying when the server goes away before the end (it comes"
            " back with serve --resume, the same links and tokens); 0: stop at once.",
        ),
    ] = 300.0,
    tls: Annotated[
        bool,
        typer.Option(
            "--tls",
            help="Connect with TLS (a server started with serve --tls); its certificate is"
            " checked against the system's authorities, or --ca.",
        ),
    ] = False,
    ca: Annotated[
        Path | None,
        typer.Option(
            help="Trust only this certificate (PEM): a self-signed server's own, or the authority"
            " that signed it; implies --tls."
        ),
    ] = None,
) -> None:
    """Play a seat of a served fight from this terminal (a numbered choice at each priority,
    with the deadline counting down), or --watch it."""
    import trio

    from initiative.events import InitiativeError

    from ..table._join import Keyboard, LeftFight, Screen, ServerLost, client_context, join_fight

    if (seat is not None) + watch + gm != 1:
        raise UsageProblem("give either --seat and --token, or --watch or --gm with --token")
    if seat is not None and token is None:
        raise UsageProblem(f"--seat {seat}: the seat's --token is needed too")
    if not reconnect >= 0:
        raise UsageProblem(f"--reconnect must be zero or a number of seconds, got {reconnect:g}")
    if token is None:
        raise UsageProblem(
            "--watch: the spectators' --token is needed too (printed by serve)"
            if watch
            else "--gm: the GM's --token is needed too (printed by serve)"
        )
    context = client_context(ca) if tls or ca is not None else None

    def say(text: str, markup: bool) -> None:
        out.print(text, markup=markup)
        sys.stdout.flush()

    screen = Screen(say)
    try:
        with contextlib.ExitStack() as stack:
            copy = stack.enter_context(copy_path.open("wb")) if copy_path is not None else None
            typing = seat is not None or gm
            keyboard = stack.enter_context(Keyboard(screen)) if typing else None
            try:
                winner = trio.run(
                    lambda: join_fight(
                        str(address),
                        seat,
                        token,
                        screen=screen,
                        keyboard=keyboard,
                        copy=copy,
                        tls=context,
                        role="gm" if gm else "spectator",
                        reconnect=reconnect,
                    )
                )
            except BaseExceptionGroup as group:  # Ctrl-C while a task was running
                if group.subgroup(KeyboardInterrupt) is not None:
                    raise KeyboardInterrupt from None
                raise
    except ServerLost as lost:
        screen.close()
        err.print(str(lost), markup=False)
        raise typer.Exit(1) from None
    except (LeftFight, KeyboardInterrupt):
        screen.close()
        err.print("left the fight")
        raise typer.Exit(1) from None
    except InitiativeError:
        if copy_path is not None and copy_path.exists() and not copy_path.stat().st_size:
            copy_path.unlink()  # (refused before a line came: no empty copy left behind)
        raise
    out.print(f"the fight is over: {winner or 'no one'} won", markup=False)
