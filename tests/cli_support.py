"""Run the ``initiative`` command inside the test process.

:func:`run` calls the entry point the installed ``initiative`` script calls
(:func:`initiative.cli._main.main`) with the given arguments, environment and working directory, and
returns what a finished process would: the exit status and the text written to standard output
and standard error, read back as bytes through UTF-8 as ``subprocess.run(..., text=True)`` reads
them. Only the interpreter's start-up (about a second of imports per call) is saved.

Each call sees the environment of a fresh process: the two Rich consoles detect the terminal,
its width, ``NO_COLOR`` and ``TERM`` again, standard input is empty unless ``input`` is given,
and the structlog set-up, environment, working directory, ``sys.argv`` and warning filters are
put back afterwards. An exception that escapes ``main`` is printed as a traceback on standard
error with exit status 1, as the interpreter would.

The click command Typer builds from the app on each call (a dozen milliseconds, more than many
commands take to run) is built once and reused while the app's commands stay the same.

Tests of the process itself (signals, a pty, locks, start-up, buffering, the installed script
after ``pip install``) keep running the real command with :mod:`subprocess`.
"""

from __future__ import annotations

import io
import operator
import os
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Mapping
from pathlib import Path

import structlog
import typer.main

#: The interpreter's default warning filters (``python -W`` unset): what a user's process shows.
_PROCESS_WARNINGS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, None),
    ("ignore", PendingDeprecationWarning, None),
    ("ignore", ImportWarning, None),
    ("ignore", ResourceWarning, None),
)


#: One command at a time: a call swaps this process's standard streams, environment and folder.
_ONE_AT_A_TIME = threading.Lock()


def _stream(data: bytes = b"", *, errors: str = "strict") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors, write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    """What ``subprocess.run(text=True)`` reads back: UTF-8 with universal newlines."""
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8").read()


def _fresh_consoles() -> list[tuple[object, dict[str, object]]]:
    """Re-detect the command's consoles in the current environment; return how to restore them."""
    from initiative.cli import _app

    saved = []
    for console in (_app.out, _app.err):
        saved.append((console, dict(vars(console))))
        type(console).__init__(
            console,
            stderr=console.stderr,
            highlight=console._highlight,
            soft_wrap=console.soft_wrap,
            markup=console._markup,
            emoji=console._emoji,
            tab_size=console.tab_size,
        )
    return saved


def run(
    *args: object,
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``initiative ARGS`` in this process; ``env`` replaces the environment when given.
    Calls from several threads take turns."""
    with _ONE_AT_A_TIME:
        return _run(args, env, cwd, input)


_BUILT: dict[int, tuple[tuple[object, ...], object]] = {}
_BUILD = typer.main.get_command


def _built_once(app: typer.Typer) -> object:
    """``typer.main.get_command(app)``, kept while ``app`` has the same commands and callback."""
    same = (app, *app.registered_commands, *app.registered_groups, app.registered_callback)
    kept = _BUILT.get(id(app))
    if kept is None or len(kept[0]) != len(same) or not all(map(operator.is_, kept[0], same)):
        kept = _BUILT[id(app)] = (same, _BUILD(app))
    return kept[1]


def _run(
    args: tuple[object, ...],
    env: Mapping[str, str] | None,
    cwd: Path | str | None,
    input: str | None,
) -> subprocess.CompletedProcess[str]:
    from initiative.cli._main import main

    argv = ["initiative", *map(str, args)]
    stdout, stderr = _stream(), _stream(errors="backslashreplace")
    stdin = _stream((input or "").encode())
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_argv, saved_environ, saved_cwd = sys.argv, dict(os.environ), os.getcwd()
    saved_logging = structlog.get_config()
    code: int = 0
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = argv
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        consoles = _fresh_consoles()
        try:
            with warnings.catch_warnings():
                warnings.resetwarnings()
                for action, category, module in reversed(_PROCESS_WARNINGS):
                    warnings.filterwarnings(action, category=category, module=module or "")
                typer.main.get_command = _built_once  # type: ignore[assignment]
                try:
                    main()
                finally:
                    typer.main.get_command = _BUILD
        except SystemExit as done:
            if done.code is None:
                code = 0
            elif isinstance(done.code, int):
                code = done.code
            else:
                print(done.code, file=sys.stderr)
                code = 1
        except BaseException:  # what the interpreter does with an uncaught exception
            traceback.print_exc(file=sys.stderr)
            code = 1
        finally:
            for console, state in consoles:
                vars(console).clear()
                vars(console).update(state)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        structlog.configure(**saved_logging)
    return subprocess.CompletedProcess(argv, code, _text(stdout), _text(stderr))


#: pip, offline: no index, no dependencies, the build back-end of this environment.
PIP = [sys.executable, "-m", "pip", "-q", "--no-input"]
OFFLINE = ["--no-deps", "--no-build-isolation", "--no-index"]


def install(source: Path, target: Path) -> dict[str, str]:
    """``pip install`` the package at ``source`` offline into the folder ``target``; return an
    environment whose processes see it (``PYTHONPATH``) as they would see it in site-packages:
    its modules import and its entry points are found. The shared environment stays untouched,
    so tests running beside it (``pytest -n``) never see it."""
    subprocess.run(
        [*PIP, "install", *OFFLINE, "--target", str(target), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return {**os.environ, "PYTHONPATH": str(target)}


def pyproject(
    name: str, packages: list[str], entry_point: tuple[str, str, str] | None = None
) -> str:
    """The ``pyproject.toml`` of a package a test builds with setuptools: ``name`` at version
    0.1, its ``packages``, and an ``entry_point`` (group, name, object) if it has one."""
    entry = ""
    if entry_point is not None:
        group, key, target = entry_point
        entry = f'[project.entry-points."{group}"]\n{key} = "{target}"\n\n'
    listed = ", ".join(f'"{p}"' for p in packages)
    return f"""
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1"

{entry}[tool.setuptools]
packages = [{listed}]
"""


def interruptible(*args: object, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """The installed ``initiative ARGS`` in a session of its own, its output piped: a signal to
    its group (``os.killpg(proc.pid, signal.SIGINT)``) reaches its workers too, as a terminal's
    Ctrl-C would."""
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "initiative"), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )


def wait_for_rows(db: Path, n: int, proc: subprocess.Popen[str]) -> None:
    """Until the results database ``db`` holds ``n`` fights, while ``proc`` runs (two minutes
    at most)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            with sqlite3.connect(db) as con:
                if con.execute("SELECT COUNT(*) FROM encounters").fetchone()[0] >= n:
                    return
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{db} holds fewer than {n} fights after two minutes")
