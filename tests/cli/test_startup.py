"""``initiative --help`` pays only for the command line: the events (and msgspec), the engine,
the actors, the replays and Trio load when a command needs them."""

from __future__ import annotations

import subprocess
import sys

from packages import import_name

HEAVY = (
    "trio",
    "msgspec",
    "importlib.metadata",
    "rich.progress",
    "tomllib",
    *(import_name(f) for f in ("events", "engine", "actors", "replays")),
)


def test_help_does_not_import_the_events_engine_actors_replays_or_trio() -> None:
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['initiative', '--help']\n"
        "try:\n"
        "    runpy.run_module('initiative', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert "Usage" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_command_still_finds_what_it_imports_late() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "initiative", "rulesets", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert '"policies"' in done.stdout
