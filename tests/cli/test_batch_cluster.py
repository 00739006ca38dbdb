"""``batch --cluster``: a real Dask cluster of separate worker processes, one killed mid-batch."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers import DUEL

pytestmark = pytest.mark.slow  # a real Dask cluster of worker processes

pytest.importorskip("distributed")

INITIATIVE = str(Path(sys.executable).parent / "initiative")

# A local cluster in its own process (as a real one would be): prints the scheduler's address
# and each worker's pid, then runs until its standard input closes.
CLUSTER = """
import os, sys
from distributed import Client, LocalCluster
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                       dashboard_address=None, silence_logs=50)
client = Client(cluster)
print(cluster.scheduler_address, *client.run(os.getpid).values(), flush=True)
sys.stdin.read()
client.close()
cluster.close()
"""


def rows(db: Path) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    got = con.execute(
        "SELECT ordinal, seed, winner, rounds, events, damage, faults, policies, rerun"
        " FROM encounters ORDER BY ordinal"
    ).fetchall()
    con.close()
    return got


@contextmanager
def separate_cluster() -> Iterator[list[str]]:
    """A local cluster in its own process: yields the scheduler's address and the workers'
    pids; stopped (its standard input closed) at the end."""
    cluster = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert cluster.stdout is not None
        yield cluster.stdout.readline().split()
    finally:
        cluster.stdin.close()  # type: ignore[union-attr]
        try:
            cluster.wait(timeout=30)
        except subprocess.TimeoutExpired:
            cluster.kill()
            cluster.wait()
        cluster.stdout.close()  # type: ignore[union-attr]


def batch_on(address: str, runs: int, db: Path) -> subprocess.Popen[str]:
    """``initiative batch`` of the duel on the cluster at ``address``, started."""
    return subprocess.Popen(
        [
            INITIATIVE,
            "batch",
            str(DUEL),
            "--runs",
            str(runs),
            "--db",
            str(db),
            "--cluster",
            address,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own (it starts a cluster)."""
    return subprocess.run(
        [INITIATIVE, *map(str, args)], capture_output=True, text=True, timeout=300
    )


def here(*args: object) -> subprocess.CompletedProcess[str]:
    """The command in this process (see cli_support): the ``--jobs 1`` references and the
    refused options, which start no cluster. Imported here: the scheduler imports this module
    to run :func:`_unfinished`, without the tests' folder on its path."""
    import cli_support

    return cli_support.run(*args)


def test_a_worker_killed_mid_batch_loses_nothing_and_writes_nothing_twice(tmp_path: Path) -> None:
    """With one of two workers killed in the middle, the rows equal those of ``--jobs 1``."""
    reference = here("batch", DUEL, "--runs", 16, "--db", tmp_path / "one.db")
    assert reference.returncode == 0, reference.stderr
    with separate_cluster() as (address, *pids):
        assert len(pids) == 2
        db = tmp_path / "cluster.db"
        batch = batch_on(address, 16, db)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and batch.poll() is None:
            try:
                if len(rows(db)) >= 2:
                    break
            except sqlite3.Error:
                pass
            time.sleep(0.05)
        assert batch.poll() is None, batch.communicate()
        os.kill(int(pids[0]), signal.SIGKILL)
        stdout, stderr = batch.communicate(timeout=240)
        assert batch.returncode == 0, stderr
        assert "16 encounters in" in stdout
        assert rows(db) == rows(tmp_path / "one.db")


def test_a_local_cluster_gives_the_same_rows_as_one_job(tmp_path: Path) -> None:
    """``--cluster local:2`` starts two worker processes and gives the ``--jobs 1`` rows."""
    one = here(
        "duel", DUEL, "--policies", "aggressive", "random", "--runs", 4, "--db", tmp_path / "1.db"
    )
    assert one.returncode == 0, one.stderr
    two = cli(
        "duel",
        DUEL,
        "--policies",
        "aggressive",
        "random",
        "--runs",
        4,
        "--db",
        tmp_path / "2.db",
        "--cluster",
        "local:2",
    )
    assert two.returncode == 0, two.stderr
    assert rows(tmp_path / "1.db") == rows(tmp_path / "2.db")
    assert "(8.0 per second" not in two.stdout  # the timing line names the cluster instead
    assert "cluster local:2)" in two.stdout


@pytest.mark.parametrize(
    ("cluster", "message"),
    [("local:0", "expected local:N"), ("nowhere", "expected a scheduler address")],
)
def test_a_bad_cluster_is_one_line_and_exit_2(cluster: str, message: str) -> None:
    """A mistaken ``--cluster`` is a clear one-line error."""
    done = here("batch", DUEL, "--runs", 2, "--cluster", cluster)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def _unfinished(dask_scheduler: object) -> list[str]:
    """Keys of this batch's chunks the scheduler has not finished (run on the scheduler)."""
    return sorted(
        str(key)
        for key, task in dask_scheduler.tasks.items()  # type: ignore[attr-defined]
        if str(key).startswith("initiative-") and task.state in ("waiting", "queued", "processing")
    )


def test_a_chunk_the_cluster_cancels_is_fought_again(tmp_path: Path) -> None:
    """A chunk cancelled on the scheduler (by another client, with force) is fought again:
    the batch ends well with the ``--jobs 1`` rows, none lost and none twice."""
    from distributed import Client, Future

    reference = here("batch", DUEL, "--runs", 64, "--db", tmp_path / "one.db")
    assert reference.returncode == 0, reference.stderr
    with separate_cluster() as (address, *_):
        db = tmp_path / "cluster.db"
        batch = batch_on(address, 64, db)
        cancelled = None
        with Client(address, timeout="10s") as other:
            deadline = time.monotonic() + 120
            while cancelled is None and batch.poll() is None and time.monotonic() < deadline:
                keys = other.run_on_scheduler(_unfinished)
                if keys:
                    cancelled = keys[-1]
                    other.cancel([Future(cancelled, client=other)], force=True)
                else:
                    time.sleep(0.01)
        stdout, stderr = batch.communicate(timeout=240)
        assert cancelled is not None, "the batch ended before a chunk could be cancelled"
        assert batch.returncode == 0, stderr
        assert "64 encounters in" in stdout
        assert rows(db) == rows(tmp_path / "one.db")
