"""The ``initiative`` Typer app, its consoles, and helpers every command module shares."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from .. import _logging

if TYPE_CHECKING:
    from initiative.events import LogContents

app = typer.Typer(
    name="initiative",
    help="Simulate tabletop-RPG combat as an event log: run, replay, verify and inspect fights.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class UsageProblem(Exception):
    """A command-line value the user gave is wrong (one line and exit 2, as an
    :class:`~initiative.events.InitiativeError` is; a class of its own, so that the command
    line starts without loading the events)."""


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version as package_version

        try:
            number = package_version("initiative")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown"
        out.print(f"initiative {number}")
        raise typer.Exit()


@app.callback()
def _main(
    log_level: Annotated[
        str | None,
        typer.Option(
            "--log-level",
            help="Show the engine's own log on stderr, structured: debug, info, warning, error"
            " (without it, warnings are plain lines).",
            case_sensitive=False,
        ),
    ] = None,
    log_json: Annotated[
        bool,
        typer.Option(
            "--log-json",
            help="The engine's own log as JSON lines on stderr, even on a terminal (at"
            " --log-level, warning by default).",
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the installed version and exit.",
            callback=_show_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    if log_level is None and not log_json:
        _logging.plain()  # a person reads: each warning one plain line
        return
    level = (log_level or "warning").lower()
    if level not in _logging.LEVELS:
        raise typer.BadParameter(f"choose one of {', '.join(_logging.LEVELS)}")
    _logging.configure(level, json=log_json)


def _quiet(value: bool) -> bool:
    if value:
        _logging.quiet()
    return value


QUIET = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No narration, no warnings.", callback=_quiet),
]
"""``--quiet``: no narration, and no warning lines either (unless --log-level asked for them)."""

FORCE = Annotated[
    bool, typer.Option("--force", help="Replace the output file if it exists (never the input).")
]


def warn(contents: "LogContents") -> None:
    from initiative.replays import literal

    for warning in contents.warnings:
        err.print(f"[yellow]warning:[/yellow] {literal(warning)}")


def load_log(path: Path) -> "LogContents":
    from initiative.events import read_log

    contents = read_log(path)
    warn(contents)
    return contents


def refuse_existing(target: Path, force: bool, *, inputs: list[Path]) -> None:
    """An output file never replaces an input, nor an existing file without ``--force``."""
    for source in inputs:
        if target.exists() and source.exists() and target.samefile(source):
            raise UsageProblem(f"--out {target}: that is the input {source}; choose another file")
    if target.exists() and not force:
        raise UsageProblem(f"--out {target}: the file exists; use --force to replace it")


def parse_policies(pairs: list[str]) -> dict[str, str]:
    chosen = {}
    for pair in pairs:
        who, sep, name = pair.partition("=")
        if not sep or not who or not name:
            raise UsageProblem(f"--policy {pair!r}: expected ID=NAME (or SIDE=NAME)")
        chosen[who] = name
    return chosen
