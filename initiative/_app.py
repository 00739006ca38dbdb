"""The ``initiative`` Typer app, its consoles, and helpers every command module shares."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from . import _logging

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
        str,
        typer.Option(
            "--log-level",
            help="Show the engine's own log on stderr: debug, info, warning, error.",
            case_sensitive=False,
        ),
    ] = "warning",
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
    if log_level.lower() not in _logging.LEVELS:
        raise typer.BadParameter(f"choose one of {', '.join(_logging.LEVELS)}")
    _logging.configure(log_level.lower())


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
