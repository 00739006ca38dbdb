"""Running a batch: the tasks fought in this process, in worker processes, or on a cluster.

Worker processes (started from a ``forkserver``) live for the whole batch and fight chunks of
whole encounters; each summary comes back as soon as its encounter is done. :func:`run_batch`
puts them back in task order, so a batch's results never depend on how many jobs ran it.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import forkserver
from pathlib import Path
from typing import Any

from ._fight import BatchError, Summary, Task
from ._tasks import PRELOAD, chunks, quiet_logging, run_tasks


def _worker(
    path: str,
    tasks: Sequence[Task],
    keep_logs: str | None,
    timeout: float | None,
    level: int,
    inbox: Any,
    outbox: Any,
) -> None:
    """A worker process: lives for the whole batch, fights the chunks it is handed and sends
    each summary back as soon as it is done. Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    quiet_logging(level)
    try:
        while (chunk := inbox.get()) is not None:
            for index in chunk:
                outbox.put((index, run_tasks(path, [tasks[index]], keep_logs, timeout)[0]))
    except BaseException as problem:  # reported to the parent, which stops the batch
        outbox.put((-1, f"{type(problem).__name__}: {problem}"))


def _start(workers: list[Any], problems: list[BaseException]) -> None:
    """Start the worker processes (in a thread of their own: starting waits for the fork server
    to be ready; errors go to ``problems``) without making each of them import this program's
    main module: ``multiprocessing`` would re-import it in every worker (for the command line, the
    whole CLI: Typer, Rich), and a worker needs only what the fork server preloaded. Nothing a
    worker runs or is sent comes from ``__main__`` (the target and the tasks live here)."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        for w in workers:
            w.start()
    except Exception as problem:  # the caller reports it and stops the batch
        problems.append(problem)
    finally:
        sys.modules["__main__"] = main


def _ensure_server() -> None:
    """Start the fork server (if the command has not already) with Ctrl-C ignored, as the
    workers ignore it: the parent handles it, and the server, still importing the engine,
    must not die of it with a traceback. (Called from the main thread: only it sets signals.)"""
    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, before)


def _take(inbox: Any) -> list[int] | None:
    """The next chunk of work, if one is ready (``None`` once only the workers' ends are
    left, which stay for them)."""
    try:
        chunk: list[int] | None = inbox.get(timeout=0.05)  # its feeder thread may lag a little
    except queue.Empty:
        return None
    if chunk is None:
        inbox.put(None)
    return chunk


def _in_processes(
    path: str,
    tasks: Sequence[Task],
    todo: Sequence[int],
    jobs: int,
    keep_logs: str | None,
    timeout: float | None,
    level: int,
) -> Iterator[tuple[int, Summary]]:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    inbox = context.Queue()
    outbox = context.Queue()
    for chunk in chunks(todo, jobs):
        inbox.put(chunk)
    workers = [
        context.Process(
            target=_worker,
            args=(path, tasks, keep_logs, timeout, level, inbox, outbox),
            daemon=True,
        )
        for _ in range(jobs)
    ]
    for _ in workers:
        inbox.put(None)
    _ensure_server()
    problems: list[BaseException] = []
    starting = threading.Thread(target=_start, args=(workers, problems), daemon=True)
    try:
        starting.start()
        left = len(todo)
        # Until the first worker reports, this process fights chunks itself: the workers'
        # start-up (waiting for the fork server to load the engine) costs no fighting time.
        while left and outbox.empty() and (mine := _take(inbox)) is not None:
            for index in mine:
                left -= 1
                yield index, run_tasks(path, [tasks[index]], keep_logs, timeout)[0]
        starting.join()
        if problems:
            raise BatchError(f"the worker processes did not start: {problems[0]}")
        while left:
            try:
                index, got = outbox.get(timeout=0.5)
            except queue.Empty:
                if all(not w.is_alive() for w in workers):
                    raise BatchError(
                        "every worker process stopped before the batch was done"
                    ) from None
                continue
            if index < 0:
                raise BatchError(f"a worker process failed: {got}")
            left -= 1
            yield index, got
    finally:
        if starting.ident is not None:
            starting.join()
        for w in workers:
            if w.is_alive():
                w.terminate()
        for w in workers:
            if w.pid is not None:
                w.join(timeout=5)
        inbox.cancel_join_thread()
        outbox.cancel_join_thread()


def iter_batch(
    path: str | Path,
    tasks: Sequence[Task],
    *,
    todo: Sequence[int] | None = None,
    jobs: int = 1,
    keep_logs: str | Path | None = None,
    timeout: float | None = None,
    log_level: int = logging.ERROR,
    cluster: str | None = None,
) -> Iterator[tuple[int, Summary]]:
    """Fight the tasks at positions ``todo`` (all by default) and yield ``(position, summary)``
    as each is done, in the order they finish.

    ``jobs`` > 1 runs that many worker processes for the whole batch, each handed chunks of
    work; ``cluster`` (``tcp://host:port`` or ``local:N``) runs them on Dask instead. Each
    encounter depends only on its task, so results never depend on how they were run.
    Closing the iterator early (Ctrl-C) stops the workers at once.
    """
    where = str(path)
    kept = str(keep_logs) if keep_logs is not None else None
    if kept is not None:
        Path(kept).mkdir(parents=True, exist_ok=True)
    indices = list(range(len(tasks))) if todo is None else list(todo)
    if cluster is not None:
        from ._cluster import on_cluster

        yield from on_cluster(cluster, where, tasks, indices, kept, timeout, log_level)
    elif jobs <= 1 or len(indices) <= 1:
        for index in indices:
            yield index, run_tasks(where, [tasks[index]], kept, timeout)[0]
    else:
        yield from _in_processes(where, tasks, indices, jobs, kept, timeout, log_level)


def run_batch(
    path: str | Path,
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    keep_logs: str | Path | None = None,
    timeout: float | None = None,
    progress: Callable[[int], None] | None = None,
    log_level: int = logging.ERROR,
    cluster: str | None = None,
) -> list[Summary]:
    """Fight every task (see :func:`iter_batch`); the results in task order.

    ``progress(n)`` is called in this process after each ``n`` encounters finished.
    """
    by_index: dict[int, Summary] = {}
    for index, summary in iter_batch(
        path,
        tasks,
        jobs=jobs,
        keep_logs=keep_logs,
        timeout=timeout,
        log_level=log_level,
        cluster=cluster,
    ):
        by_index[index] = summary
        if progress is not None:
            progress(1)
    return [by_index[i] for i in range(len(tasks))]
