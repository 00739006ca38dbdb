"""The ``join`` command: take a seat of a served fight from this terminal, or watch it."""

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app, err, out
from ._cmd_serve import PANEL
from ._options import JoinOptions

if TYPE_CHECKING:
    import ssl

    from ..table._join import Screen


_ReviewOut = Annotated[
    Path | None,
    typer.Option(
        help="With --gm: where gm review saves the fight's review once the fight is over (an"
        " HTML page, fetched from the server with the GM token); default: the encounter's"
        " name, NAME.review.html, in the current folder.",
    ),
]


@app.command(rich_help_panel=PANEL)
def join(
    ctx: typer.Context,
    address: Annotated[str, typer.Argument(help="The server, HOST:PORT, as serve printed it.")],
    seat: Annotated[str | None, typer.Option(help="The seat to take.")] = JoinOptions.seat,
    token: Annotated[
        str | None,
        typer.Option(
            help="The seat's token (or the GM's, or the spectators'), as serve printed it."
        ),
    ] = JoinOptions.token,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch", help="Take no seat: narrate the fight as it goes (the spectators' --token)."
        ),
    ] = JoinOptions.watch,
    gm: Annotated[
        bool,
        typer.Option(
            "--gm",
            help="As the game master (with the GM --token serve printed): watch, and step in"
            " with typed gm commands (gm help).",
        ),
    ] = JoinOptions.gm,
    copy_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Keep a copy of the log as it arrives (a .jsonl file): for a connection that"
            " sees every number (the GM, a spectator of serve --spectators all, a seat with"
            ' reveal = "all"); a spectator who sees what the seats see is refused.',
        ),
    ] = JoinOptions.out,
    reconnect: Annotated[
        float,
        typer.Option(
            help="Seconds to keep trying when the server goes away before the end (it comes"
            " back with serve --resume, the same links and tokens); 0: stop at once.",
        ),
    ] = JoinOptions.reconnect,
    tls: Annotated[
        bool,
        typer.Option(
            "--tls",
            help="Connect with TLS (a server started with serve --tls); its certificate is"
            " checked against the system's authorities, or --ca.",
        ),
    ] = JoinOptions.tls,
    ca: Annotated[
        Path | None,
        typer.Option(
            help="Trust only this certificate (PEM): a self-signed server's own, or the authority"
            " that signed it; implies --tls."
        ),
    ] = JoinOptions.ca,
    review_out: _ReviewOut = JoinOptions.review_out,
) -> None:
    """Play a seat of a served fight from this terminal (a numbered choice at each priority,
    with the deadline counting down), or --watch it.

    With --gm the terminal shows the live odds (serve --gm-odds; gm odds) and, once the fight
    is over, stays to offer its review (gm review; q leaves)."""
    from ..table._join import Screen, client_context

    o = JoinOptions.from_params(ctx.params)
    token = o.check()
    context = client_context(o.ca) if o.tls or o.ca is not None else None

    def say(text: str, markup: bool) -> None:
        out.print(text, markup=markup)
        sys.stdout.flush()

    screen = Screen(say)
    winner = _play(o, token, screen, context)
    out.print(f"the fight is over: {winner or 'no one'} won", markup=False)


def _play(
    o: JoinOptions, token: str, screen: "Screen", context: "ssl.SSLContext | None"
) -> str | None:
    """Connect and play (or watch) to the end; the winner. A lost server, leaving and Ctrl-C
    each end the command with a line and exit 1; no empty copy of the log is left behind."""
    from initiative.events import InitiativeError

    from ..table._join import LeftFight, ServerLost

    try:
        return _connected(o, token, screen, context)
    except ServerLost as lost:
        screen.close()
        err.print(str(lost), markup=False)
        raise typer.Exit(1) from None
    except (LeftFight, KeyboardInterrupt):
        screen.close()
        err.print("left the fight")
        raise typer.Exit(1) from None
    except InitiativeError:
        if o.out is not None and o.out.exists() and not o.out.stat().st_size:
            o.out.unlink()  # (refused before a line came: no empty copy left behind)
        raise


def _connected(
    o: JoinOptions, token: str, screen: "Screen", context: "ssl.SSLContext | None"
) -> str | None:
    """The fight joined over the network, with a keyboard for a seat or the GM and a copy of
    the log with ``--out``; Ctrl-C inside the fight's tasks comes out as itself."""
    import trio

    from ..table._join import Keyboard, join_fight

    with contextlib.ExitStack() as stack:
        copy = stack.enter_context(o.out.open("wb")) if o.out is not None else None
        typing = o.seat is not None or o.gm
        keyboard = stack.enter_context(Keyboard(screen)) if typing else None
        try:
            return trio.run(
                lambda: join_fight(
                    str(o.address),
                    o.seat,
                    token,
                    screen=screen,
                    keyboard=keyboard,
                    copy=copy,
                    tls=context,
                    role="gm" if o.gm else "spectator",
                    reconnect=o.reconnect,
                    review_out=o.review_out,
                )
            )
        except BaseExceptionGroup as group:  # Ctrl-C while a task was running
            if group.subgroup(KeyboardInterrupt) is not None:
                raise KeyboardInterrupt from None
            raise
