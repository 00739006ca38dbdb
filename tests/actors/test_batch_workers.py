"""``batch --jobs N`` workers: long-lived, handed chunks that shrink towards the end, started
from a fork server that loaded the engine once, without the command line's own modules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from initiative.batch import PRELOAD
from initiative.batch._tasks import chunks

from initiative.cli._cmd_batch import WORKER_PRELOAD

ROOT = Path(__file__).parents[2]
SKIRMISH = ROOT / "examples" / "openings-skirmish.toml"
INITIATIVE = str(Path(sys.executable).parent / "initiative")

SPY = '''
import os
import sys
from pathlib import Path

from initiative.actors import aggressive


def spy(view):
    """aggressive, noting which process decided and whether it had loaded the command line."""
    cli = "typer" in sys.modules or "initiative.cli._main" in sys.modules
    Path(os.environ["SPY_DIR"], f"{os.getpid()}").write_text(f"{cli}")
    return aggressive(view)
'''


def test_chunks_cover_the_work_in_order_and_shrink_to_one() -> None:
    """Every index once, in order; the first chunks the largest, the last ones single."""
    for count, jobs in ((300, 2), (37, 3), (5, 2), (1, 4)):
        got = chunks(list(range(count)), jobs)
        assert [i for chunk in got for i in chunk] == list(range(count))
        sizes = [len(c) for c in got]
        assert sizes == sorted(sizes, reverse=True)
        assert max(sizes) <= 8
        assert sizes[-jobs:] == [1] * min(jobs, len(sizes))


def test_the_command_starts_the_fork_server_with_the_workers_preload() -> None:
    """The command starts the fork server early with the list the workers expect."""
    assert WORKER_PRELOAD == PRELOAD


def test_workers_do_not_load_the_command_line(tmp_path: Path) -> None:
    """``--jobs 2`` fights in worker processes that never imported Typer or the CLI: they were
    forked from the server that preloaded the engine, not re-run the command. (The command
    itself fights the first chunks while the workers start; it has the CLI loaded.)"""
    policy = tmp_path / "spy.py"
    policy.write_text(SPY)
    spies = tmp_path / "spies"
    spies.mkdir()
    command = [INITIATIVE, "batch", SKIRMISH, "-n", "40", "-j", "2"]
    proc = subprocess.Popen(
        [*map(str, command), "--policy", f"wardens={policy}:spy"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SPY_DIR": str(spies)},
    )
    out, errors = proc.communicate(timeout=300)
    assert proc.returncode == 0, errors
    assert "40 encounters" in out
    seen = {int(p.name): p.read_text() for p in spies.iterdir()}
    workers = {pid: cli for pid, cli in seen.items() if pid != proc.pid}
    assert 1 <= len(workers) <= 2
    assert set(workers.values()) == {"False"}
    assert seen.get(proc.pid, "True") == "True"
