"""The ``initiative`` command: the app, with every command module registered on it.

Commands are thin: parse, call the library, render. Each group of commands lives in its own
module and registers itself on :data:`initiative.cli._app.app` when imported here.
"""

from __future__ import annotations

import importlib
import sys

from ._app import UsageProblem, app, err

#: Command modules, imported in the order their panels appear in ``--help``.
COMMAND_MODULES = (
    "_commands",
    "_cmd_debug",
    "_cmd_review",
    "_cmd_batch",
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


def main() -> None:
    """Entry point: every error a user can cause is one line on stderr and exit status 2."""
    try:
        try:
            app()  # standalone: usage errors exit 2 with click's message, typer.Exit exits
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
