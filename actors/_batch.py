"""Batches: many seeds of one encounter, each fought to a one-row summary, across processes.

An encounter of a batch is an ordinary :func:`run_encounter` with a seed and a policy choice,
so any one of them can be fought again, or its kept log verified, from the seed alone. Worker
processes (``spawn``) each fight whole encounters; results are put back in seed order, so a
batch's results never depend on how many jobs ran it.

Statistics use the standard library only: Wilson's 95% interval for a win rate, and an exact
two-sided sign (binomial) test for a duel between two policies.
"""

from __future__ import annotations

import fcntl
import json
import logging
import math
import multiprocessing
import os
import queue
import shlex
import signal
import sqlite3
import statistics
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import forkserver
from pathlib import Path
from typing import Any

import structlog
from initiative.engine import Fight, load_encounter
from initiative.events import (
    ActionDeclared,
    ActionRejected,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    DamageDealt,
    DecisionFailed,
    EncounterEnded,
    EncounterSpec,
    Event,
    Healed,
    InitiativeError,
    LogWriter,
    RoundEnded,
    RoundStarted,
)

from ._inline import play_fight
from ._run import make_runners


class BatchError(InitiativeError):
    """A batch could not go on (a worker process failed, or a results database mismatch)."""


@dataclass(frozen=True)
class Task:
    """One encounter of a batch: its seed and the policy overrides (ID or SIDE -> name)."""

    seed: int
    policies: tuple[tuple[str, str], ...] = ()
    label: str = ""
    """Added to the kept log's name (a duel fights each seed twice, ``.swapped`` the second)."""


@dataclass
class CombatantRecord:
    """What one combatant did and suffered in one fight."""

    dealt: int = 0
    """Damage it dealt (to anyone, as the log's ``DamageDealt`` events attribute it)."""
    taken: int = 0
    """Damage it took."""
    kills: int = 0
    """Others it defeated: the damage (or action) that caused their defeat was its own."""
    fell: int | None = None
    """The round it was defeated in; ``None`` if it never was."""
    side: str = ""


STALEMATE_ROUNDS = 10
"""The rounds without any change in hit points (nor anyone joining, falling or leaving) that
make a fight which reached ``max_rounds`` a stalemate, unless the encounter gives its own
``stalemate_rounds``."""


class FightStats:
    """Reads one fight's events as they come and keeps its per-combatant records and whether it
    was a stalemate; :meth:`see` every event, in order.

    Damage is credited to the event's ``source``; when it has none, to whoever declared the
    action it came from (its ``cause`` chain, walked back to an ``ActionDeclared``). A defeat is
    a kill of whoever the damage (or action) that caused it is credited to, unless that is the
    defeated combatant itself.
    """

    def __init__(self, encounter: EncounterSpec) -> None:
        self.records: dict[str, CombatantRecord] = {
            c.id: CombatantRecord(side=c.side) for c in encounter.combatants
        }
        self.max_rounds = encounter.max_rounds
        self.window = encounter.stalemate_window or STALEMATE_ROUNDS
        self.stalemate = False
        self._round = 0
        self._cause: dict[int, int | None] = {}
        self._credit: dict[int, str] = {}
        """Who each ``ActionDeclared`` and each credited ``DamageDealt`` is credited to."""
        self._hp: dict[str, tuple[int, bool]] = {}
        self._before: tuple[tuple[str, int, bool], ...] | None = None
        self._calm_since = 0

    def _credited(self, seq: int | None) -> str | None:
        while seq is not None:
            if seq in self._credit:
                return self._credit[seq]
            seq = self._cause.get(seq)
        return None

    def see(self, event: Event) -> None:
        self._cause[event.seq] = event.cause
        if type(event) not in _COUNTED:  # most events: one lookup, not a match over classes
            return
        match event:
            case ActionDeclared(who=who):
                self._credit[event.seq] = who
            case DamageDealt(who=who, amount=amount, hp=hp, source=source):
                by = source if source is not None else self._credited(event.cause)
                if by is not None:
                    self._credit[event.seq] = by
                    if by in self.records:
                        self.records[by].dealt += amount
                if who in self.records:
                    self.records[who].taken += amount
                self._hp[who] = (hp, self._hp.get(who, (hp, True))[1])
            case Healed(who=who, hp=hp):
                self._hp[who] = (hp, self._hp.get(who, (hp, True))[1])
            case CombatantJoined(who=who, hp=hp):
                self._hp[who] = (hp, True)
            case CombatantDefeated(who=who):
                killer = self._credited(event.cause)
                if killer is not None and killer != who and killer in self.records:
                    self.records[killer].kills += 1
                if who in self.records and self.records[who].fell is None:
                    self.records[who].fell = self._round
                self._hp[who] = (self._hp.get(who, (0, True))[0], False)
            case CombatantLeft(who=who):
                self._hp[who] = (self._hp.get(who, (0, True))[0], False)
            case RoundStarted(round=number):
                self._round = number
                if self._before is None:
                    self._before = self._print()
            case RoundEnded(round=number):
                now = self._print()
                if now != self._before:
                    self._calm_since = number
                self._before = now
            case EncounterEnded(winner=winner, reason=reason, rounds=rounds):
                self.stalemate = reason.startswith("stalemate") or (
                    winner is None
                    and rounds >= self.max_rounds
                    and rounds - self._calm_since >= self.window
                )

    def _print(self) -> tuple[tuple[str, int, bool], ...]:
        return tuple((who, hp, standing) for who, (hp, standing) in self._hp.items())


#: The events :meth:`FightStats.see` reads beyond their causes.
_COUNTED = frozenset(
    {
        ActionDeclared,
        DamageDealt,
        Healed,
        CombatantJoined,
        CombatantDefeated,
        CombatantLeft,
        RoundStarted,
        RoundEnded,
        EncounterEnded,
    }
)


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
    combatants: dict[str, CombatantRecord] = field(default_factory=dict)
    """Each combatant's record (empty for a row stored before they were kept)."""
    stalemate: bool = False
    """It ended undecided with nothing changing (see :class:`FightStats`)."""


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
    """Fight one encounter with live policies and summarize it: called in line when every
    policy is trusted and synchronous, else through the Trio actors (the log is the same)."""
    names = policy_of(encounter, policies)
    side_of = {c.id: c.side for c in encounter.combatants}
    damage = dict.fromkeys(encounter.sides, 0)
    faults: dict[str, int] = {}
    side_faults = dict.fromkeys(encounter.sides, 0)
    count = 0
    stats = FightStats(encounter)

    runners = make_runners(encounter, seed, policies, timeout=timeout)
    writer = LogWriter(out) if out is not None else None

    def sink(event: Event) -> None:
        nonlocal count
        count += 1
        if writer is not None:
            writer.append(event)
        stats.see(event)
        match event:
            case DamageDealt(source=source, amount=amount) if source in side_of:
                damage[side_of[source]] += amount
            case DecisionFailed(who=who) | ActionRejected(who=who):
                faults[names[who]] = faults.get(names[who], 0) + 1
                side_faults[side_of[who]] += 1

    fight = Fight(encounter, seed, sink=sink)
    try:
        play_fight(fight, runners)  # in line when every policy is trusted and synchronous
    except BaseExceptionGroup as group:  # Ctrl-C inside the nursery arrives wrapped
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        raise
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
        combatants=stats.records,
        stalemate=stats.stalemate,
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
    encounter: EncounterSpec | None = None,
) -> list[Summary]:
    """Fight ``tasks`` of the encounter at ``path`` one after another (in this process).

    ``encounter`` is the loaded file, when the caller has it (a cluster worker may not see the
    file itself); ``path`` then only names the kept logs.
    """
    spec = encounter if encounter is not None else _encounter(path)
    out = []
    for task in tasks:
        target = str(Path(keep_logs) / log_name(path, task.seed, task.label)) if keep_logs else None
        out.append(fight_one(spec, task.seed, dict(task.policies), out=target, timeout=timeout))
    return out


def chunks(indices: Sequence[int], jobs: int, most: int = 8) -> list[list[int]]:
    """Split the work into chunks, largest first: big enough early that handing them out
    costs little, shrinking to single encounters at the end so that every worker stays busy
    until the batch is done (no worker is left alone with a long last chunk)."""
    out = []
    start = 0
    while start < len(indices):
        size = max(1, min(most, (len(indices) - start) // (jobs * 4)))
        out.append(list(indices[start : start + size]))
        start += size
    return out


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


PRELOAD = ("initiative.actors", "initiative.engine", "initiative.events")
"""What the workers' fork server imports once, before it forks them."""


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


@dataclass(frozen=True)
class Paired:
    """A duel's games paired by seed: each seed fought once each way round."""

    a_better: int
    """Seeds where A won more of the two games than B (both, or one and a draw)."""
    b_better: int
    even: int
    """Seeds that split one each, or where neither won."""
    unpaired: int = 0
    """Seeds with a single game (an odd ``--runs``), counted by that game alone."""

    @property
    def p(self) -> float:
        """Exact two-sided sign test over the seeds that were not even."""
        return sign_test(self.a_better, self.b_better)


def paired(scores: Iterable[tuple[int, int]]) -> Paired:
    """Pair a duel's games by seed: ``scores`` gives, per game, ``(seed, +1)`` for a win of A,
    ``(seed, -1)`` for one of B and ``(seed, 0)`` for no winner.

    Both games of a seed share its dice, so luck and side cancel inside the pair; the sign test
    is over the seeds where one policy did better, as a paired design asks.
    """
    net: dict[int, int] = {}
    games: dict[int, int] = {}
    for seed, score in scores:
        net[seed] = net.get(seed, 0) + score
        games[seed] = games.get(seed, 0) + 1
    return Paired(
        a_better=sum(1 for v in net.values() if v > 0),
        b_better=sum(1 for v in net.values() if v < 0),
        even=sum(1 for v in net.values() if v == 0),
        unpaired=sum(1 for n in games.values() if n == 1),
    )


#: Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom: from the
    table up to 30, beyond it by the Cornish-Fisher expansion around the normal's 1.96 (off by
    less than 0.001 there)."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df * df)


@dataclass(frozen=True)
class Mean:
    """A sample mean with its 95% t interval (``None`` with fewer than two values)."""

    n: int
    mean: float
    low: float | None
    high: float | None

    def as_json(self) -> dict[str, object]:
        return {
            "n": self.n,
            "mean": round(self.mean, 4),
            "ci95": None
            if self.low is None or self.high is None
            else [round(self.low, 4), round(self.high, 4)],
        }

    def text(self) -> str:
        """``12.3 (10.1-14.5)``; ``-`` for no values."""
        if self.n == 0:
            return "-"
        if self.low is None or self.high is None:
            return f"{self.mean:.1f}"
        return f"{self.mean:.1f} ({self.low:.1f}-{self.high:.1f})"


def mean_ci(values: Sequence[float]) -> Mean:
    """The mean of ``values`` and its 95% interval, ``mean ± t(n-1) · sd / √n``."""
    n = len(values)
    if n == 0:
        return Mean(0, 0.0, None, None)
    mean = statistics.fmean(values)
    if n < 2:
        return Mean(n, mean, None, None)
    half = t95(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return Mean(n, mean, mean - half, mean + half)


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
    damage: Mean = Mean(0, 0.0, None, None)
    """Damage dealt by the side per fight, with its 95% t interval."""

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
                damage=mean_ci(damage),
            )
        )
    return out


@dataclass
class CombatantStats:
    """One combatant over a batch (the fights whose rows have its record)."""

    id: str
    side: str
    policies: list[str]
    """The policies it fought with (one in a batch; both in a duel)."""
    fights: int
    survived: int
    """Fights it was never defeated in (one that fled survived)."""
    interval: tuple[float, float]
    """Wilson's 95% interval for its survival rate."""
    dealt: Mean
    taken: Mean
    kills: int
    kills_mean: float
    fell: Mean
    """The round it was defeated in, over the fights it was."""

    @property
    def survival(self) -> float:
        return self.survived / self.fights if self.fights else 0.0


def combatant_stats(encounter: EncounterSpec, results: Sequence[Summary]) -> list[CombatantStats]:
    """Survival (with Wilson's interval), damage dealt and taken (means with t intervals),
    kills and the round of the first fall, for each combatant, in the encounter's order."""
    out = []
    for c in encounter.combatants:
        rows = [(r, r.combatants[c.id]) for r in results if c.id in r.combatants]
        survived = sum(1 for _, rec in rows if rec.fell is None)
        kills = sum(rec.kills for _, rec in rows)
        out.append(
            CombatantStats(
                id=c.id,
                side=c.side,
                policies=sorted({r.policies.get(c.id, c.policy) for r, _ in rows}),
                fights=len(rows),
                survived=survived,
                interval=wilson(survived, len(rows)),
                dealt=mean_ci([rec.dealt for _, rec in rows]),
                taken=mean_ci([rec.taken for _, rec in rows]),
                kills=kills,
                kills_mean=kills / len(rows) if rows else 0.0,
                fell=mean_ci([rec.fell for _, rec in rows if rec.fell is not None]),
            )
        )
    return out


@dataclass(frozen=True)
class Outcomes:
    """How a batch's fights ended: won by some side, stalemates, and the other undecided."""

    won: int
    stalemates: int
    undecided: int
    """Neither won nor a stalemate (every side down at once, the round limit with hit points
    still changing, nobody acting any more)."""
    rounds: Mean


def outcomes(results: Sequence[Summary]) -> Outcomes:
    won = sum(1 for r in results if r.winner is not None)
    stalemates = sum(1 for r in results if r.winner is None and r.stalemate)
    return Outcomes(
        won=won,
        stalemates=stalemates,
        undecided=len(results) - won - stalemates,
        rounds=mean_ci([r.rounds for r in results]),
    )


def combatants_json(stats: Iterable[CombatantStats]) -> list[dict[str, object]]:
    """The per-combatant statistics as ``--json`` prints them."""
    return [
        {
            "id": s.id,
            "side": s.side,
            "policies": s.policies,
            "fights": s.fights,
            "survived": s.survived,
            "survival": round(s.survival, 4),
            "survival_ci95": [round(s.interval[0], 4), round(s.interval[1], 4)],
            "damage_dealt": s.dealt.as_json(),
            "damage_taken": s.taken.as_json(),
            "kills": s.kills,
            "kills_mean": round(s.kills_mean, 4),
            "fell": s.fell.n,
            "fell_round": s.fell.as_json(),
        }
        for s in stats
    ]


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
    runs INTEGER NOT NULL,        -- encounters planned; the run is complete when all have rows
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
    side_faults TEXT,             -- JSON: faults by side
    stalemate INTEGER,            -- 1: undecided with nothing changing (NULL: not recorded)
    PRIMARY KEY (run_id, ordinal)
);
CREATE TABLE IF NOT EXISTS combatants (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    ordinal INTEGER NOT NULL,     -- the encounter's row in encounters
    combatant TEXT NOT NULL,      -- its id
    side TEXT NOT NULL,
    policy TEXT NOT NULL,
    dealt INTEGER NOT NULL,       -- damage it dealt
    taken INTEGER NOT NULL,       -- damage it took
    kills INTEGER NOT NULL,       -- others it defeated
    fell INTEGER,                 -- the round it was defeated in, NULL if never
    PRIMARY KEY (run_id, ordinal, combatant)
);
"""

_COLUMNS = (
    "run_id, ordinal, seed, winner, rounds, events, damage, faults, policies, log, rerun,"
    " side_faults, stalemate"
)


class ResultStore:
    """A run's rows in the SQLite file ``db``, written as encounters finish.

    Rows are committed in small groups (and on :meth:`close`), so an interrupted batch keeps
    every encounter that finished. ``(run_id, ordinal)`` is the primary key: an encounter can
    never be written twice. With ``resume``, the newest unfinished run of ``db`` is continued,
    and only if it was started with the same settings; otherwise :class:`BatchError`.

    As a log's writer does, the store holds an exclusive lock (``flock``) on the database file
    from opening to closing: a second writer (two ``batch --db X`` at once, or two ``--resume``
    of one run) is refused with :class:`BatchError` before it reads or writes anything.
    """

    def __init__(
        self,
        db: str | Path,
        *,
        kind: str,
        encounter: str | Path,
        policies: object,
        seed_start: int,
        tasks: Sequence[Task],
        jobs: int,
        timeout: float | None = None,
        resume: bool = False,
    ) -> None:
        self.db = str(db)
        self.encounter = encounter
        self.tasks = tasks
        self.timeout = timeout
        self._lock = _lock_database(self.db)
        self._con = sqlite3.connect(self.db)
        try:
            self._open(kind, policies, seed_start, jobs, resume)
        except BaseException:
            self._con.close()
            os.close(self._lock)
            raise

    def _open(self, kind: str, policies: object, seed_start: int, jobs: int, resume: bool) -> None:
        """Create the tables if new; start a run, or find the run to resume."""
        tasks, encounter = self.tasks, self.encounter
        self._con.executescript(SCHEMA)
        found = {row[1] for row in self._con.execute("PRAGMA table_info(encounters)")}
        if "side_faults" not in found:  # a database from before the column existed
            self._con.execute("ALTER TABLE encounters ADD COLUMN side_faults TEXT")
        if "stalemate" not in found:  # (the combatants table is created above if missing)
            self._con.execute("ALTER TABLE encounters ADD COLUMN stalemate INTEGER")
        settings = (kind, str(encounter), json.dumps(policies, sort_keys=True), seed_start)
        self.done: dict[int, Summary] = {}
        if resume:
            self.run_id = self._resumable(settings, len(tasks))
        else:
            cur = self._con.execute(
                "INSERT INTO runs (kind, encounter, policies, seed_start, runs, jobs, started)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*settings, len(tasks), jobs, datetime.now(UTC).isoformat(timespec="seconds")),
            )
            self.run_id = int(cur.lastrowid or 0)
        self._con.commit()
        self._last_commit = time.monotonic()

    def _resumable(self, settings: tuple[object, ...], runs: int) -> int:
        row = self._con.execute(
            "SELECT r.id, r.kind, r.encounter, r.policies, r.seed_start, r.runs,"
            " (SELECT COUNT(*) FROM encounters e WHERE e.run_id = r.id)"
            " FROM runs r ORDER BY r.id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise BatchError(f"--resume: {self.db} holds no run to continue")
        run_id, *recorded, planned, count = row
        if count >= planned:
            raise BatchError(
                f"--resume: run {run_id} in {self.db} is complete ({count} of {planned});"
                " leave out --resume to start a new run"
            )
        if tuple(recorded) != settings or planned != runs:
            raise BatchError(
                f"--resume: run {run_id} in {self.db} was a {recorded[0]} of {planned} encounters"
                f" of {recorded[1]} with policies {recorded[2]} from seed {recorded[3]}; this"
                " command asks for something else, and runs are never mixed"
            )
        for ordinal, rerun, summary in self._rows(run_id):
            if rerun != rerun_command(
                self.encounter, self.tasks[ordinal], summary.log, self.timeout
            ):
                raise BatchError(
                    f"--resume: run {run_id} in {self.db} fought its encounters with other"
                    " settings (compare its rerun commands); runs are never mixed"
                )
            self.done[ordinal] = summary
        return int(run_id)

    def _rows(self, run_id: int) -> Iterator[tuple[int, str, Summary]]:
        records: dict[int, dict[str, CombatantRecord]] = {}
        for ordinal, who, side, dealt, taken, kills, fell in self._con.execute(
            "SELECT ordinal, combatant, side, dealt, taken, kills, fell FROM combatants"
            " WHERE run_id = ? ORDER BY ordinal, rowid",
            (run_id,),
        ):
            records.setdefault(ordinal, {})[who] = CombatantRecord(dealt, taken, kills, fell, side)
        for row in self._con.execute(
            "SELECT ordinal, seed, winner, rounds, events, damage, faults, policies, log, rerun,"
            " side_faults, stalemate FROM encounters WHERE run_id = ? ORDER BY ordinal",
            (run_id,),
        ):
            ordinal, seed, winner, rounds, events, damage, faults, policies, log, rerun, sf, st = (
                row
            )
            yield (
                ordinal,
                rerun,
                Summary(
                    seed=seed,
                    winner=winner,
                    rounds=rounds,
                    events=events,
                    damage=json.loads(damage),
                    faults=json.loads(faults),
                    policies=json.loads(policies),
                    side_faults=json.loads(sf) if sf else {},
                    log=log,
                    combatants=records.get(ordinal, {}),
                    stalemate=bool(st),
                ),
            )

    def add(self, ordinal: int, summary: Summary) -> None:
        """Write one finished encounter (committed within a quarter of a second)."""
        task = self.tasks[ordinal]
        self._con.execute(
            f"INSERT INTO encounters ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.run_id,
                ordinal,
                summary.seed,
                summary.winner,
                summary.rounds,
                summary.events,
                json.dumps(summary.damage, sort_keys=True),
                json.dumps(summary.faults, sort_keys=True),
                json.dumps(summary.policies, sort_keys=True),
                summary.log,
                rerun_command(self.encounter, task, summary.log, self.timeout),
                json.dumps(summary.side_faults, sort_keys=True),
                int(summary.stalemate),
            ),
        )
        # Rows of this encounter left without its encounters row (a hand-edited database) are
        # stale: the encounters row is the record of what was fought.
        self._con.execute(
            "DELETE FROM combatants WHERE run_id = ? AND ordinal = ?", (self.run_id, ordinal)
        )
        self._con.executemany(
            "INSERT INTO combatants (run_id, ordinal, combatant, side, policy, dealt, taken,"
            " kills, fell) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    self.run_id,
                    ordinal,
                    who,
                    rec.side,
                    summary.policies.get(who, ""),
                    rec.dealt,
                    rec.taken,
                    rec.kills,
                    rec.fell,
                )
                for who, rec in summary.combatants.items()
            ],
        )
        self.done[ordinal] = summary
        if time.monotonic() - self._last_commit > 0.25:
            self._con.commit()
            self._last_commit = time.monotonic()

    def close(self) -> None:
        try:
            self._con.commit()
            self._con.close()
        finally:
            os.close(self._lock)  # after SQLite's own handle: closing ends the lock


def _lock_database(db: str) -> int:
    """An open descriptor of ``db`` holding its exclusive ``flock`` (the database is created
    empty if missing; SQLite fills it). :class:`BatchError` if another writer holds it."""
    try:
        fd = os.open(db, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise BatchError(f"{db}: cannot open the results database: {err.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BatchError(
            f"{db}: another batch is writing this database (it holds the database's lock);"
            " wait until it has finished, or stop it first"
        ) from None
    except OSError as err:
        os.close(fd)
        raise BatchError(f"{db}: cannot lock the results database: {err.strerror}") from None
    return fd


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
    """Write one whole run and its encounters to the SQLite file ``db``; the run's id."""
    saved = ResultStore(
        db,
        kind=kind,
        encounter=encounter,
        policies=policies,
        seed_start=seed_start,
        tasks=tasks,
        jobs=jobs,
        timeout=timeout,
    )
    try:
        for ordinal, summary in enumerate(results):
            saved.add(ordinal, summary)
    finally:
        saved.close()
    return saved.run_id
