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
import multiprocessing
import threading
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError
from typing import Any

from initiative.engine import load_encounter
from initiative.events import EncounterSpec, InitiativeError

from ._fight import Summary, Task
from ._tasks import PRELOAD, chunks, quiet_logging, run_tasks


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


def _start_method() -> str:
    """How a local cluster starts its workers: forked from a server process that has imported
    Dask and the engine once (as ``--jobs`` workers are), not spawned, each a fresh Python
    importing both (about half the start-up of a local cluster); spawned where there is no
    fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return "spawn"
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        [*PRELOAD, "distributed"]
    )  # (no effect when this program already started the server: it then has PRELOAD)
    return "forkserver"


def _client(address: str, level: int) -> tuple[object, object | None]:
    import dask
    from distributed import Client, LocalCluster

    workers = check_cluster(address)
    if level > logging.INFO:
        for name in ("distributed", "tornado", "bokeh"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if workers is not None:
        with dask.config.set({"distributed.worker.multiprocessing-method": _start_method()}):
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
    """Fight ``tasks[i]`` for each ``i`` in ``indices`` on the cluster; yield as they finish.

    A local cluster takes seconds to start (its workers import the engine); meanwhile this
    process fights the first tasks itself, as ``--jobs`` does while its workers start.
    """
    from distributed import as_completed

    encounter = load_encounter(path)
    todo = list(indices)
    local = address.startswith("local:")
    if local:
        started: list[tuple[object, object | None]] = []
        problems: list[BaseException] = []
        starting = threading.Thread(
            target=_start_client, args=(address, level, started, problems), daemon=True
        )
        starting.start()
        try:
            while todo and starting.is_alive():
                index = todo.pop(0)
                yield index, run_tasks(path, [tasks[index]], keep_logs, timeout, encounter)[0]
        except BaseException:  # closed early (Ctrl-C): the cluster still stops once it is up
            starting.join()
            if started:
                _close(*started[0])
            raise
        starting.join()
        if problems:
            raise problems[0]
        client, cluster = started[0]
        if not todo:
            _close(client, cluster)
            return
    else:
        client, cluster = _client(address, level)
    # The encounter travels inside each task rather than scattered once: scattered data lost
    # with a worker cannot be computed again, and the tasks that need it are cancelled.
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
    futures: list[Any] = []
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))  # type: ignore[attr-defined]
        # Chunks of up to 32 encounters: each task costs the scheduler and the worker a few
        # milliseconds, several encounters' time on a loaded machine; they shrink to one at
        # the end so that no worker is left alone with a long last chunk. They are handed out
        # as workers finish (two in flight per worker), so that until the first result comes
        # back a local cluster's new workers leave the last, smallest chunks to this process.
        waiting = deque(chunks(todo, workers, most=32))
        in_flight = 0

        def top_up() -> list[Any]:
            nonlocal in_flight
            added = []
            while waiting and in_flight < 2 * workers:
                added.append(submit(waiting.popleft()))
                in_flight += 1
            futures.extend(added)
            return added

        pending = as_completed(top_up())  # type: ignore[no-untyped-call]
        while local and waiting and not any(f.done() for f in futures):
            for index in waiting.pop():
                yield index, run_tasks(path, [tasks[index]], keep_logs, timeout, encounter)[0]
        resubmitted = 0
        for future in pending:
            try:
                got = future.result()
            except CancelledError as why:
                # The scheduler gave the chunk up (a worker lost at an unlucky moment): fight
                # it again, a bounded number of times in all.
                resubmitted += 1
                if resubmitted > 2 * len(futures):
                    raise InitiativeError(
                        f"--cluster {address}: the cluster kept cancelling work ({why})"
                    ) from None
                again = submit(work[future.key])
                futures.append(again)
                pending.add(again)  # type: ignore[no-untyped-call]
                continue
            in_flight -= 1
            for added in top_up():
                pending.add(added)  # type: ignore[no-untyped-call]
            yield from got
    finally:
        for future in futures:
            future.cancel()
        _close(client, cluster)


def _start_client(
    address: str,
    level: int,
    started: list[tuple[object, object | None]],
    problems: list[BaseException],
) -> None:
    """:func:`_client` in a thread of its own (errors go to ``problems``)."""
    try:
        started.append(_client(address, level))
    except BaseException as problem:  # the caller raises it
        problems.append(problem)


def _close(client: object, cluster: object | None) -> None:
    client.close()  # type: ignore[attr-defined]
    if cluster is not None:
        cluster.close()  # type: ignore[attr-defined]
