"""Shared test set-up: quiet structlog, and the package built once as a wheel."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import py_compile
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from cli_support import OFFLINE, PIP

structlog.configure(
    wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
    logger_factory=structlog.testing.CapturingLoggerFactory(),
    cache_logger_on_first_use=False,
)


ROOT = Path(__file__).resolve().parents[1]

#: The checkout's folders that are installed as ``initiative.*`` (see setup.py).
PACKAGE_FOLDERS = ("initiative", "events", "engine", "actors", "replays", "batch")


def pytest_configure(config: pytest.Config) -> None:
    """With ``PYTHONDONTWRITEBYTECODE`` set, no interpreter caches the bytecode of the checkout's
    modules, and every ``initiative`` process a test starts (hundreds in the suite) compiles
    them from source again: 0.15 s or more of its start-up. Compile them once, into the
    ``__pycache__`` folders an interpreter without the setting would have written (as it does
    in CI), and remove what was written here at the end."""
    if hasattr(config, "workerinput") or not sys.flags.dont_write_bytecode:
        return  # an xdist worker (the controller did it), or the interpreter caches them itself
    written: list[Path] = []
    for folder in PACKAGE_FOLDERS:
        for source in sorted((ROOT / folder).rglob("*.py")):
            cached = Path(importlib.util.cache_from_source(str(source)))
            if not cached.exists():
                py_compile.compile(str(source), cfile=str(cached), doraise=False, quiet=2)
                written.append(cached)

    def remove() -> None:
        for cached in written:
            cached.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                cached.parent.rmdir()  # only if nothing else is left in it

    config.add_cleanup(remove)


@pytest.fixture(autouse=True)
def _keep_structlog_quiet() -> Iterator[None]:
    """Put the set-up above back after each test: a command invoked in the test process (Typer's
    CliRunner) configures structlog to print on its own stderr, which is closed once it returns."""
    before = structlog.get_config()
    yield
    structlog.configure(**before)


# A test run started in the background by a shell without job control (``cmd &`` in a script, as
# CI may do) starts with Ctrl-C ignored, and an ignored signal stays ignored in every process it
# starts: the commands these tests interrupt with SIGINT would never see it. Give the test
# process (and so its children) the interpreter's usual Ctrl-C.
if (
    threading.current_thread() is threading.main_thread()
    and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
):
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def initiative_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package built once as a wheel, offline, from a copy of the checkout's sources (so no
    ``build/`` folder left in the checkout finds its way in, and none is left there)."""
    source = tmp_path_factory.mktemp("source") / "initiative"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "tests", "benchmarks"
        ),
    )
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [*PIP, "wheel", *OFFLINE, "-w", str(dist), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = dist.glob("initiative-*.whl")
    return wheel


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests (real processes, browsers, long properties) first, each group in its own
    order: the workers hand out tests in this order, and a long test picked up last kept one
    worker busy while the other had nothing left (about 40 s of a 4-minute run on 2 cores).

    With ``--dist loadgroup``, the ``xdist_group`` of a test is also put at the end of its id
    (``...::test@wheel``), as pytest-xdist does to send a group to one worker. pytest-xdist 3.8
    sets ``item._nodeid``, which pytest 9.2 no longer reads (the id is ``item._id``): the groups
    were split over the workers, and each worker built the wheel and installed the packages
    the groups share."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = sorted(
            {
                str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                for m in item.iter_markers("xdist_group")
            }
        )
        if names and "@" not in item.nodeid and hasattr(item, "_id"):
            item._id = type(item._id).parse(f"{item.nodeid}@{'_'.join(names)}")
