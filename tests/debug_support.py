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
    """One example encounter per installed ruleset, the one with the most combatants: another
    example of the same ruleset exercises no other code in the commands these tests run."""
    names = set(engine.ruleset_names())
    chosen: dict[str, tuple[int, Path]] = {}
    for path in sorted(EXAMPLES.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        ruleset, size = data.get("ruleset"), len(data.get("combatants", []))
        if ruleset in names and (ruleset not in chosen or size > chosen[ruleset][0]):
            chosen[ruleset] = (size, path)
    return sorted(path for _, path in chosen.values())


def cli(
    *args: object, cwd: Path | None = None, check: int | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``initiative ARGS`` as a user would (in this process: see :mod:`cli_support`)."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1", TERM="dumb")
    proc = cli_support.run(*args, cwd=cwd, env=env)
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout, proc.stderr)
    return proc


_RECORDED: dict[tuple[object, ...], bytes] = {}


def record(example: Path, out: Path, *extra: object) -> Path:
    """Run ``example`` quietly and write its log to ``out``.

    The command runs once per example and options in a test process; later calls write the
    bytes it wrote (the same bytes a rerun writes: determinism is tested on its own)."""
    key = (str(example), example.read_bytes(), *map(str, extra))
    if key not in _RECORDED:
        cli("run", example, "--quiet", "--out", out, *extra, check=0)
        _RECORDED[key] = out.read_bytes()
    else:
        out.write_bytes(_RECORDED[key])
    return out
