"""Shared by the debug-command tests: run the installed ``initiative`` and make real logs."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import cli_support

from initiative import engine

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
INITIATIVE = shutil.which("initiative") or "initiative"


def examples() -> list[Path]:
    """Every example encounter whose ruleset is installed: one per ruleset at least."""
    names = set(engine.ruleset_names())
    found = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        if tomllib.loads(path.read_text()).get("ruleset") in names:
            found.append(path)
    return found


def cli(
    *args: object, cwd: Path | None = None, check: int | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``initiative ARGS`` as a user would (in this process: see :mod:`cli_support`)."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1", TERM="dumb")
    proc = cli_support.run(*args, cwd=cwd, env=env)
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def record(example: Path, out: Path, *extra: object) -> Path:
    """Run ``example`` quietly and write its log to ``out``."""
    cli("run", example, "--quiet", "--out", out, *extra, check=0)
    return out
