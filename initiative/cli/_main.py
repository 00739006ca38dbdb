"""The ``initiative`` command: the app, with every command module registered on it.

Commands are thin: parse, call the library, render. Each group of commands lives in its own
module and registers itself on :data:`initiative.cli._app.app` when imported here.
"""

from __future__ import annotations

import importlib
import sys

import typer

from ._app import UsageProblem, app, err

#: The exceptions of the click that Typer uses (its own copy in newer Typers, click itself in
#: older ones): found through ``typer.BadParameter``, which is one of them.
_clicks = importlib.import_module(typer.BadParameter.__module__)
_NoArgsIsHelp: type[Exception] = getattr(
    _clicks, "NoArgsIsHelpError", type("Never", (Exception,), {})
)

#: Command modules, imported in the order their panels appear in ``--help``.
COMMAND_MODULES = (
    "_commands",
    "_cmd_debug",
    "_cmd_review",
    "_cmd_batch",
    "_cmd_compare",
    "_cmd_league",
    "_cmd_sweep",
    "_cmd_serve",
    "_cmd_join",
    "_cmd_examples",
)
for _module in COMMAND_MODULES:
    importlib.import_module(f"{__package__}.{_module}")


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            found.extend(_leaves(exc))
        else:
            found.append(exc)
    return found


def _literal(text: object) -> str:
    """``text`` shown as it is (imported late: ``--help`` never needs the replays)."""
    from initiative.replays import literal

    return literal(text)


def _initiative_error() -> type[Exception]:
    """The library's error class (imported late: ``--help`` never loads the events)."""
    from initiative.events import InitiativeError

    return InitiativeError


def _usage_line(problem: typer.BadParameter) -> str:
    """A usage error as one line: click's message, and where the command's help is."""
    message = " ".join(problem.format_message().split()).rstrip(".")
    where = problem.ctx.command_path if problem.ctx is not None else "initiative"
    return f"{message} (see {where} --help)"


def main() -> None:
    """Entry point: every error a user can cause is one line on stderr and exit status 2,
    usage errors (a missing or unknown option, a bad value) included."""
    try:
        try:
            code = app(standalone_mode=False, prog_name="initiative")
        except _NoArgsIsHelp as asked:  # no command: the help, as Typer shows it
            from typer import rich_utils

            rich_utils.rich_format_error(asked)  # type: ignore[arg-type]
            sys.exit(2)
        except _clicks.UsageError as problem:
            err.print(f"[red]error:[/red] {_literal(_usage_line(problem))}")
            sys.exit(2)
        except _clicks.ClickException as problem:
            err.print(f"[red]error:[/red] {_literal(problem.format_message())}")
            sys.exit(problem.exit_code)
        except typer.Abort:
            err.print("Aborted!")
            sys.exit(1)
        except BaseExceptionGroup as group:
            # Errors raised inside Trio nurseries arrive wrapped; unwrap a lone one.
            leaves = _leaves(group)
            if len(leaves) == 1:
                raise leaves[0] from None
            raise
    except Exception as problem:
        if not isinstance(problem, (UsageProblem, OSError, _initiative_error())):
            raise
        err.print(f"[red]error:[/red] {_literal(problem)}")
        sys.exit(2)
    if isinstance(code, int) and code != 0:  # typer.Exit(n) from a command
        sys.exit(code)
