"""Storage: a batch's rows in SQLite, written as its encounters finish, resumable."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from ._fight import BatchError, CombatantRecord, Summary, Task, rerun_command

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
        self._connected = True
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
        """Commit what was added and release the database. Safe to call again: a second call
        finishes a first that was cut short (by Ctrl-C, say) and otherwise does nothing."""
        if self._connected:
            try:
                self._con.commit()
                self._con.close()
                self._connected = False
            except sqlite3.Error:
                self._con.close()
                self._connected = False
                self._unlock()
                raise
        self._unlock()

    def _unlock(self) -> None:
        if self._lock >= 0:
            os.close(self._lock)  # after SQLite's own handle: closing ends the lock
            self._lock = -1


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
