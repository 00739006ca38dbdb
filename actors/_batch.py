"""Batches: many seeds of one encounter, each fought to a one-row summary, across processes.

An encounter of a batch is an ordinary :func:`run_encounter` with a seed and a policy choice,
so any one of them can be fought again, or its kept log verified, from the seed alone. Worker
processes (``spawn``) each fight whole encounters; results are put back in seed order, so a
batch's results never depend on how many jobs ran it.

Statistics use the standard library only: Wilson's 95% interval for a win rate, and an exact
two-sided sign (binomial) test for a duel between two policies.
"""

from __future__ import annotations

import json
import logging
import math
import multiprocessing
import shlex
import sqlite3
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import structlog
import trio

from engine import Fight, load_encounter
from events import (
    ActionRejected,
    DamageDealt,
    DecisionFailed,
    EncounterSpec,
    Event,
    LogWriter,
)

from ._run import make_runners, schedule


@dataclass(frozen=True)
class Task:
    """One encounter of a batch: its seed and the policy overrides (ID or SIDE -> name)."""

    seed: int
    policies: tuple[tuple[str, str], ...] = ()
    label: str = ""
    """Added to the kept log's name (a duel fights each seed twice, ``.swapped`` the second)."""


@dataclass
class Summary:
    """One fought encounter, as a row of the results."""

    seed: int
    winner: str | None
    rounds: int
    events: int
    damage: dict[str, int]
    """Damage dealt by each side."""
    faults: dict[str, int]
    """Failed decisions (timeouts, errors, invalid answers) and rejected actions, by policy."""
    policies: dict[str, str]
    """The policy each combatant used."""
    side_faults: dict[str, int] = field(default_factory=dict)
    """Faults by side."""
    log: str | None = None


def policy_of(encounter: EncounterSpec, chosen: dict[str, str]) -> dict[str, str]:
    """The policy name each combatant uses (overrides by id, then by side, then the file's)."""
    return {c.id: chosen.get(c.id) or chosen.get(c.side) or c.policy for c in encounter.combatants}


def log_name(encounter_path: str | Path, seed: int, label: str = "") -> str:
    return f"{Path(encounter_path).stem}.seed{seed}{label}.jsonl"


def fight_one(
    encounter: EncounterSpec,
    seed: int,
    policies: dict[str, str],
    *,
    out: str | Path | None = None,
    timeout: float | None = None,
) -> Summary:
    """Fight one encounter with live policies (through the Trio actors) and summarize it."""
    names = policy_of(encounter, policies)
    side_of = {c.id: c.side for c in encounter.combatants}
    damage = dict.fromkeys(encounter.sides, 0)
    faults: dict[str, int] = {}
    side_faults = dict.fromkeys(encounter.sides, 0)
    count = 0

    runners = make_runners(encounter, seed, policies, timeout=timeout)
    writer = LogWriter(out) if out is not None else None

    def sink(event: Event) -> None:
        nonlocal count
        count += 1
        if writer is not None:
            writer.append(event)
        match event:
            case DamageDealt(source=source, amount=amount) if source in side_of:
                damage[side_of[source]] += amount
            case DecisionFailed(who=who) | ActionRejected(who=who):
                faults[names[who]] = faults.get(names[who], 0) + 1
                side_faults[side_of[who]] += 1

    fight = Fight(encounter, seed, sink=sink)
    try:
        trio.run(schedule, fight, runners)
    finally:
        if writer is not None:
            writer.close()
    return Summary(
        seed=seed,
        winner=fight.state.winner,
        rounds=fight.state.round,
        events=count,
        damage=damage,
        faults=faults,
        policies=names,
        side_faults=side_faults,
        log=str(out) if out is not None else None,
    )


# --- worker processes ------------------------------------------------------------------------

_ENCOUNTERS: dict[str, EncounterSpec] = {}


def _encounter(path: str) -> EncounterSpec:
    if path not in _ENCOUNTERS:
        _ENCOUNTERS[path] = load_encounter(Path(path))
    return _ENCOUNTERS[path]


def quiet_logging(level: int = logging.ERROR) -> None:
    """Configure structlog for a worker: key=value lines on stderr at ``level`` and above."""
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def run_tasks(
    path: str,
    tasks: Sequence[Task],
    keep_logs: str | None = None,
    timeout: float | None = None,
) -> list[Summary]:
    """Fight ``tasks`` of the encounter at ``path`` one after another (in this process)."""
    encounter = _encounter(path)
    out = []
    for task in tasks:
        target = str(Path(keep_logs) / log_name(path, task.seed, task.label)) if keep_logs else None
        out.append(
            fight_one(encounter, task.seed, dict(task.policies), out=target, timeout=timeout)
        )
    return out


def _chunks(tasks: Sequence[Task], jobs: int) -> list[tuple[int, Sequence[Task]]]:
    size = max(1, min(8, len(tasks) // (jobs * 4) or 1))
    return [(i, tasks[i : i + size]) for i in range(0, len(tasks), size)]


def run_batch(
    path: str | Path,
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    keep_logs: str | Path | None = None,
    timeout: float | None = None,
    progress: Callable[[int], None] | None = None,
    log_level: int = logging.ERROR,
) -> list[Summary]:
    """Fight every task; ``jobs`` > 1 uses that many worker processes. Results in task order.

    ``progress(n)`` is called in this process after each ``n`` encounters finished.
    """
    where = str(path)
    kept = str(keep_logs) if keep_logs is not None else None
    if kept is not None:
        Path(kept).mkdir(parents=True, exist_ok=True)
    if jobs <= 1:
        results = []
        for task in tasks:
            results.extend(run_tasks(where, [task], kept, timeout))
            if progress is not None:
                progress(1)
        return results
    by_index: dict[int, Summary] = {}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=quiet_logging, initargs=(log_level,)
    ) as pool:
        starts: dict[Future[list[Summary]], int] = {
            pool.submit(run_tasks, where, list(chunk), kept, timeout): start
            for start, chunk in _chunks(tasks, jobs)
        }
        pending = set(starts)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for offset, summary in enumerate(future.result()):
                    by_index[starts[future] + offset] = summary
                if progress is not None:
                    progress(len(future.result()))
    return [by_index[i] for i in range(len(tasks))]


def rerun_command(
    encounter: str | Path, task: Task, log: str | None = None, timeout: float | None = None
) -> str:
    """The ``initiative run`` command that fights this encounter of the batch again."""
    words = ["initiative", "run", str(encounter), "--seed", str(task.seed)]
    for who, name in task.policies:
        words += ["--policy", f"{who}={name}"]
    if timeout is not None:
        words += ["--timeout", f"{timeout:g}"]
    if log:
        words += ["--out", log]
    return shlex.join([*words, "--quiet"])


# --- statistics --------------------------------------------------------------------------------


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's score interval for a proportion (95% by default); (0, 1) when ``n`` is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided binomial p-value that ``wins`` vs ``losses`` arose from a fair coin."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass
class SideStats:
    """Totals for one side over a batch."""

    side: str
    runs: int
    wins: int
    interval: tuple[float, float]
    rounds_mean: float
    rounds_sd: float
    damage_mean: float
    faults: int

    @property
    def rate(self) -> float:
        return self.wins / self.runs if self.runs else 0.0


def side_stats(sides: Iterable[str], results: Sequence[Summary]) -> list[SideStats]:
    """Win rate (with its 95% interval), rounds, damage and faults for each side."""
    rounds = [r.rounds for r in results]
    mean = statistics.fmean(rounds) if rounds else 0.0
    sd = statistics.stdev(rounds) if len(rounds) > 1 else 0.0
    out = []
    for side in sides:
        wins = sum(1 for r in results if r.winner == side)
        damage = [r.damage.get(side, 0) for r in results]
        faults = sum(r.side_faults.get(side, 0) for r in results)
        out.append(
            SideStats(
                side=side,
                runs=len(results),
                wins=wins,
                interval=wilson(wins, len(results)),
                rounds_mean=mean,
                rounds_sd=sd,
                damage_mean=statistics.fmean(damage) if damage else 0.0,
                faults=faults,
            )
        )
    return out


def faults_by_policy(results: Iterable[Summary]) -> dict[str, int]:
    """Total faults of each policy used in the batch (0 for those without any)."""
    total: dict[str, int] = {}
    for r in results:
        for name in r.policies.values():
            total.setdefault(name, 0)
        for name, n in r.faults.items():
            total[name] = total.get(name, 0) + n
    return dict(sorted(total.items()))


# --- the results database ----------------------------------------------------------------------

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,           -- 'batch' or 'duel'
    encounter TEXT NOT NULL,      -- the encounter file
    policies TEXT NOT NULL,       -- JSON: the --policy overrides (or the duel's two policies)
    seed_start INTEGER NOT NULL,
    runs INTEGER NOT NULL,
    jobs INTEGER NOT NULL,
    started TEXT NOT NULL         -- wall-clock, UTC (this database is not the event log)
);
CREATE TABLE IF NOT EXISTS encounters (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    ordinal INTEGER NOT NULL,     -- 0, 1, 2, ... within the run
    seed INTEGER NOT NULL,
    winner TEXT,                  -- the winning side, NULL for no one
    rounds INTEGER NOT NULL,
    events INTEGER NOT NULL,
    damage TEXT NOT NULL,         -- JSON: damage dealt by side
    faults TEXT NOT NULL,         -- JSON: faults by policy
    policies TEXT NOT NULL,       -- JSON: the policy of each combatant
    log TEXT,                     -- where its log was kept, NULL if not kept
    rerun TEXT NOT NULL,          -- the command that fights it again
    PRIMARY KEY (run_id, ordinal)
);
"""


def store(
    db: str | Path,
    *,
    kind: str,
    encounter: str | Path,
    policies: object,
    seed_start: int,
    jobs: int,
    tasks: Sequence[Task],
    results: Sequence[Summary],
    timeout: float | None = None,
) -> int:
    """Write one run and its encounters to the SQLite file ``db``; the run's id."""
    with sqlite3.connect(db) as con:
        con.executescript(SCHEMA)
        cur = con.execute(
            "INSERT INTO runs (kind, encounter, policies, seed_start, runs, jobs, started)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                kind,
                str(encounter),
                json.dumps(policies, sort_keys=True),
                seed_start,
                len(results),
                jobs,
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )
        run_id = int(cur.lastrowid or 0)
        con.executemany(
            "INSERT INTO encounters VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    run_id,
                    ordinal,
                    r.seed,
                    r.winner,
                    r.rounds,
                    r.events,
                    json.dumps(r.damage, sort_keys=True),
                    json.dumps(r.faults, sort_keys=True),
                    json.dumps(r.policies, sort_keys=True),
                    r.log,
                    rerun_command(encounter, task, r.log, timeout),
                )
                for ordinal, (task, r) in enumerate(zip(tasks, results, strict=True))
            ],
        )
    con.close()
    return run_id
