"""Batches on Dask distributed: chunks of encounters as tasks, summaries streamed back.

Needs the ``cluster`` extra (``pip install 'initiative[cluster]'``). ``local:N`` starts a local
cluster of ``N`` worker processes for the batch; ``tcp://host:port`` connects to a running
scheduler, whose workers must have the same version of ``initiative`` installed.

The encounter travels with each chunk (workers need not see the file), and a chunk's result
comes back whole, once: when a worker dies mid-chunk, Dask runs the chunk again elsewhere, and
since an encounter depends only on its seed and policies, the redone one is identical. Rows are
written by the process that asked, as results arrive, so none is written twice.
"""

from __future__ import annotations

import importlib.util
import logging
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError
from typing import Any

from initiative.engine import load_encounter
from initiative.events import EncounterSpec, InitiativeError

from ._fight import Summary, Task
from ._workers import chunks, quiet_logging, run_tasks


def _run_chunk(
    path: str,
    encounter: EncounterSpec,
    tasks: list[Task],
    indices: list[int],
    keep_logs: str | None,
    timeout: float | None,
    level: int,
) -> list[tuple[int, Summary]]:
    quiet_logging(level)
    summaries = run_tasks(path, tasks, keep_logs, timeout, encounter=encounter)
    return list(zip(indices, summaries, strict=True))


def check_cluster(address: str) -> int | None:
    """Check a ``--cluster`` value before anything starts; ``N`` of ``local:N``, else None."""
    if importlib.util.find_spec("distributed") is None:
        raise InitiativeError("--cluster needs Dask distributed: pip install 'initiative[cluster]'")
    if address.startswith("local:"):
        try:
            workers = int(address.removeprefix("local:"))
        except ValueError:
            workers = 0
        if workers < 1:
            raise InitiativeError(f"--cluster {address}: expected local:N with N at least 1")
        return workers
    if not address.startswith(("tcp://", "tls://", "ws://", "wss://")):
        raise InitiativeError(
            f"--cluster {address}: expected a scheduler address (tcp://host:port) or local:N"
        )
    return None


def _client(address: str, level: int) -> tuple[object, object | None]:
    from distributed import Client, LocalCluster

    workers = check_cluster(address)
    if level > logging.INFO:
        for name in ("distributed", "tornado", "bokeh"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if workers is not None:
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=level,
        )
        return Client(cluster), cluster  # type: ignore[no-untyped-call]
    try:
        return Client(address, timeout="10s"), None  # type: ignore[no-untyped-call]
    except OSError as problem:
        raise InitiativeError(
            f"--cluster {address}: cannot reach the scheduler: {problem}"
        ) from None


def on_cluster(
    address: str,
    path: str,
    tasks: Sequence[Task],
    indices: Sequence[int],
    keep_logs: str | None,
    timeout: float | None,
    level: int,
) -> Iterator[tuple[int, Summary]]:
    """Fight ``tasks[i]`` for each ``i`` in ``indices`` on the cluster; yield as they finish."""
    from distributed import as_completed

    client, cluster = _client(address, level)
    # The encounter travels inside each task rather than scattered once: scattered data lost
    # with a worker cannot be computed again, and the tasks that need it are cancelled.
    encounter = load_encounter(path)
    batch = uuid.uuid4().hex[:12]
    submitted = 0

    def submit(chunk: list[int]) -> Any:
        nonlocal submitted
        submitted += 1
        future = client.submit(  # type: ignore[attr-defined]
            _run_chunk,
            path,
            encounter,
            [tasks[i] for i in chunk],
            chunk,
            keep_logs,
            timeout,
            level,
            key=f"initiative-{batch}-{chunk[0]}-{submitted}",
            pure=False,
            retries=2,
        )
        work[future.key] = chunk
        return future

    work: dict[str, list[int]] = {}
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))  # type: ignore[attr-defined]
        futures = [submit(chunk) for chunk in chunks(indices, workers, most=4)]
        resubmitted = 0
        try:
            pending = as_completed(futures)  # type: ignore[no-untyped-call]
            for future in pending:
                try:
                    got = future.result()
                except CancelledError as why:
                    # The scheduler gave the chunk up (a worker lost at an unlucky moment):
                    # fight it again, a bounded number of times in all.
                    resubmitted += 1
                    if resubmitted > 2 * len(futures):
                        raise InitiativeError(
                            f"--cluster {address}: the cluster kept cancelling work ({why})"
                        ) from None
                    again = submit(work[future.key])
                    futures.append(again)
                    pending.add(again)  # type: ignore[no-untyped-call]
                    continue
                yield from got
        finally:
            for future in futures:
                future.cancel()
    finally:
        client.close()  # type: ignore[attr-defined]
        if cluster is not None:
            cluster.close()  # type: ignore[attr-defined]
