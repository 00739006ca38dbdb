"""The ``serve`` command: a live fight with seats over the network (``join`` takes a seat).

Its options are one typed value, :class:`~initiative.cli._options.ServeOptions`: it holds every
option's default (the command's signature takes them from it), checks the values, and prints
itself back as arguments (the command that goes on with a stopped fight, ``--resume LOG`` with
the same seats), so that no default is written twice.
"""

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from ._app import QUIET, app, err, out
from ._options import ServeOptions

if TYPE_CHECKING:
    from initiative import engine
    from initiative.events import EncounterSpec, Event

    from ..table._serve import Served

PANEL = "Live fights over the network"


# The command's options, each typed once (their defaults are ServeOptions').
_Seat = Annotated[
    list[str],
    typer.Option(help="A seat played over the network: a combatant id or a side; repeatable."),
]

_Resume = Annotated[
    Path | None,
    typer.Option(
        help="Go on with the served fight in this log (after Ctrl-C or a stopped server),"
        " with the same --seat options; the tokens kept beside the log (LOG.tokens) stay"
        " good, so every printed link does."
    ),
]

_Host = Annotated[
    str, typer.Option(help="Address to listen on (another than 127.0.0.1 opens it to others).")
]

_Port = Annotated[int, typer.Option(help="Port to listen on (0: pick a free one).")]

_Seed = Annotated[int | None, typer.Option(help="Seed for every die (default: the file's).")]

_OutPath = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Where to write the log (default: NAME.seedN.jsonl)."),
]

_Policy = Annotated[
    list[str],
    typer.Option(help="Override an unseated policy: ID=NAME or SIDE=NAME; repeatable."),
]

_Trust = Annotated[
    bool,
    typer.Option(
        "--trust-log-policies",
        help="With --resume: load the policy files the log names (they run as code).",
    ),
]

_Deadline = Annotated[
    float, typer.Option(help="Seconds a seat has per decision; past it, a recorded timeout.")
]

_Grace = Annotated[
    float,
    typer.Option(
        help="Seconds a seat that drops while holding priority has to come back and make"
        " the same decision (capped by the deadline); past it, a recorded fault."
    ),
]

_Timeout = Annotated[
    float | None, typer.Option(help="Seconds an unseated policy has per decision.")
]

_Wait = Annotated[bool, typer.Option(help="Start the fight once every seat has been taken.")]

_HelloTimeout = Annotated[
    float, typer.Option(help="Seconds a client has to say hello, and to finish any frame.")
]

_MaxFrame = Annotated[int, typer.Option(help="Bytes in one frame, at most.")]

_MaxConnections = Annotated[int, typer.Option(help="Connections open at once, at most.")]

_Tls = Annotated[
    tuple[Path, Path] | None,
    typer.Option(
        metavar="CERT KEY",
        help="Speak only TLS (https:// for browsers, join --tls), with this certificate and"
        " its private key (PEM files; a self-signed certificate is fine: clients get it with"
        " join --ca).",
    ),
]

_Spectators = Annotated[
    str,
    typer.Option(
        help="What spectators see: 'seats' (what the seated players see together: their"
        " sides' numbers, the others' health in words) or 'all' (every number, the log as"
        " news).",
    ),
]


_GmOdds = Annotated[
    bool,
    typer.Option(
        "--gm-odds",
        help="Show the GM page each side's chance to win after every decision (worked out in a"
        " child process by the review's rollouts; never sent to seats or spectators).",
    ),
]


@app.command(rich_help_panel=PANEL)
def serve(
    ctx: typer.Context,
    encounter: Annotated[
        Path | None, typer.Argument(help="The encounter file (TOML); not with --resume.")
    ] = None,
    seat: _Seat = [],  # noqa: B006 - typer reads the default
    resume: _Resume = ServeOptions.resume,
    host: _Host = ServeOptions.host,
    port: _Port = ServeOptions.port,
    seed: _Seed = ServeOptions.seed,
    out_path: _OutPath = ServeOptions.out,
    policy: _Policy = [],  # noqa: B006 - typer reads the default
    trust: _Trust = ServeOptions.trust_log_policies,
    deadline: _Deadline = ServeOptions.deadline,
    grace: _Grace = ServeOptions.grace,
    timeout: _Timeout = ServeOptions.timeout,
    wait: _Wait = ServeOptions.wait,
    hello_timeout: _HelloTimeout = ServeOptions.hello_timeout,
    max_frame: _MaxFrame = ServeOptions.max_frame,
    max_connections: _MaxConnections = ServeOptions.max_connections,
    tls: _Tls = ServeOptions.tls,
    spectators: _Spectators = ServeOptions.spectators,
    gm_odds: _GmOdds = ServeOptions.gm_odds,
    quiet: QUIET = ServeOptions.quiet,
) -> None:
    """Run an encounter live: each --seat is played by whoever connects with its token; the game
    master and spectators get links (and tokens) of their own.

    Ctrl-C stops it, printing the command that goes on (--resume LOG with the same seats).
    Once the fight is over, the GM page and join --gm offer its review (the report served to
    the GM)."""
    options = ServeOptions.from_params(ctx.params)
    _Served(options, options.check()).play()


class _Served:
    """One ``serve`` from its checked options: the encounter and the log, what the console
    says as the fight goes, and the fight on the network."""

    def __init__(self, options: ServeOptions, chosen: dict[str, str]) -> None:
        import shlex

        from initiative import engine
        from initiative.actors import check_names, check_policies
        from initiative.events import read_log
        from initiative.replays import TableNarrator

        from ..table._serve import self_signed, server_context

        self.options = options
        self.chosen = chosen
        encounter = options.encounter
        self.seed: int | None = None
        self.spec: EncounterSpec
        if options.resume is not None:
            self.target = options.resume
            # (read again under the log's lock to go on)
            self.spec = read_log(options.resume).header.encounter
        else:
            assert encounter is not None
            self.spec = engine.load_encounter(encounter)
            self.seed = self.spec.seed if options.seed is None else options.seed
            self.target = options.out or Path(f"{encounter.stem}.seed{self.seed}.jsonl")
        where = str(encounter or options.resume)
        check_names(self.spec, self.chosen, what="--policy {name}=...", where=where)
        check_policies(self.spec, self.chosen, where=where)
        tls = options.tls
        self.context = server_context(*tls) if tls is not None else None
        # A self-signed certificate is trusted by a terminal player given a copy of it.
        self.ca = f" --ca {shlex.quote(tls[0].name)}" if tls and self_signed(tls[0]) else ""
        self.narrate = TableNarrator()  # the table's sentences: initiative, dice, lost turns
        # Narrate from the first new event: a resumed fight's replayed ones are not news
        # (nothing is narrated until the server says how many there were).
        self.start = 0 if options.resume is None else sys.maxsize
        self.port = options.port
        self.over = False
        """Whether the fight has ended (the server may stay up for the GM's review)."""

    def show(self, event: "Event") -> None:
        line = self.narrate(event)  # always called, so names are known
        if line is not None and not self.options.quiet and event.seq >= self.start:
            out.print(line)
        if type(event).__name__ == "EncounterEnded":
            self.over = True

    def staying(self) -> None:
        """The fight is over and a GM page asked to stay for its review."""
        if not self.options.quiet:
            err.print(
                "[dim]the fight is over; while a GM page or a join --gm is open the server stays"
                " up for its review (at most 10 minutes; Ctrl-C stops it)[/dim]"
            )

    def again(self) -> str:
        """The command that goes on with this fight."""
        return self.options.going_on(self.target, self.port)

    def play(self) -> None:
        """Serve the fight to its end; Ctrl-C stops it with the command that goes on."""
        import shlex

        import trio

        from initiative.replays import NothingToResume, literal

        try:
            try:
                fight = trio.run(self._serve)
            except BaseExceptionGroup as group:
                raise _unwrap(group) from None
        except KeyboardInterrupt:
            if self.over:  # (stopped while it stayed up for the review: nothing is lost)
                err.print(
                    f"\nstopped after the end of the fight; the log {literal(self.target)} is whole"
                )
                return
            if self.options.resume is None and not (
                self.target.exists() and self.target.stat().st_size
            ):
                err.print(
                    "\ninterrupted before the fight began (no event was written). Start it again"
                    f" with:\n  {literal(shlex.join(['initiative', *sys.argv[1:]]))}",
                    soft_wrap=True,
                )
            else:
                err.print(
                    f"\ninterrupted; the log {literal(self.target)} keeps every event so far."
                    f" Go on with:\n  {literal(self.again())}",
                    soft_wrap=True,
                )
            raise typer.Exit(130) from None
        except NothingToResume as done:
            out.print(literal(done))
            return
        state = fight.state
        err.print(
            f"[dim]{len(fight.events)} events, {state.round} round(s), winner:"
            f" {escape(state.winner or 'no one')}; log written to {escape(str(self.target))}[/dim]"
        )

    async def _serve(self) -> "engine.Fight":
        import functools

        import trio

        from ..table._reviews import ReviewOptions
        from ..table._serve import Limits, resume_served, serve_fight

        o = self.options
        limits = Limits(
            hello_timeout=o.hello_timeout,
            frame_timeout=o.hello_timeout,
            send_timeout=o.hello_timeout,
            max_frame=o.max_frame,
            max_connections=o.max_connections,
        )
        begin: Callable[..., Awaitable[engine.Fight]]
        if o.resume is not None:
            trust = o.trust_log_policies
            begin = functools.partial(
                resume_served, o.resume, list(o.seat), trust_log_policies=trust
            )
        else:
            assert self.seed is not None  # (a fresh fight's seed: the file's or --seed)
            begin = functools.partial(
                serve_fight, self.spec, self.seed, list(o.seat), out=self.target
            )
        done: list[engine.Fight] = []

        # What the server is given: the options it takes as they are, by their names, and more.
        given: dict[str, object] = {
            k: getattr(o, k) for k in ("host", "port", "deadline", "grace", "timeout", "wait")
        }
        given.update(policies=self.chosen, limits=limits, tls=self.context, on_event=self.show)
        given["spectators"] = "all" if o.spectators == "all" else "seats"
        given["review"] = ReviewOptions(odds=o.gm_odds, on_stay=self.staying)

        async def fight_task(task_status: "trio.TaskStatus[Served]") -> None:
            done.append(await begin(**given, task_status=task_status))

        async with trio.open_nursery() as nursery:
            self.listening(await nursery.start(fight_task))
        return done[0]

    def listening(self, served: "Served") -> None:
        """Say where the fight is served, each seat's token and links, and how to go on."""
        from initiative.replays import visible

        self.port = served.port
        self.start = served.resumed
        tls = self.options.tls
        shown = f"[{served.host}]" if ":" in served.host else served.host
        address = f"{shown}:{served.port}"
        if served.resumed:
            out.print(
                f"resuming {visible(self.target)} after its {served.resumed} events", markup=False
            )
        if served.warning:
            err.print(f"warning: {visible(served.warning)}", markup=False)
        out.print(f"listening on {address}{' (TLS)' if served.tls else ''}", markup=False)
        if self.ca and tls is not None:
            out.print(
                f"the certificate is self-signed: give terminal players a copy of"
                f" {visible(str(tls[0]))} for --ca; browsers warn until it is accepted",
                markup=False,
            )
        scheme, join_tls = ("https", f" --tls{self.ca}") if served.tls else ("http", "")
        for s in served.seats.values():
            out.print(
                f"seat {s.name} ({', '.join(s.combatants)}): token {s.token}\n"
                f"  terminal: initiative join {address}{join_tls} --seat {s.name}"
                f" --token {s.token}\n"
                f"  browser:  {scheme}://{address}/seat/{s.name}#token={s.token}",
                markup=False,
            )
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
        out.print(f"if the server stops, go on with: {self.again()}", markup=False, soft_wrap=True)
        waiting = "waiting for every seat..." if self.options.wait else "the fight begins"
        out.print(waiting, markup=False)
        sys.stdout.flush()


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
