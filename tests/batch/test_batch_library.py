"""The batch library (initiative.batch) as a script meets it: a fight's row, a duel's verdict."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import cli_support
import pytest
from initiative.batch import ResultStore, Task, duel, fight_one, judge, run_batch
from initiative.engine import load_encounter

from tests.helpers import DUEL


def test_a_row_is_the_same_with_and_without_its_log(tmp_path: Path) -> None:
    """A fight that keeps no log (and so encodes no lines) sums up exactly as one that keeps
    it; the kept log is the one ``initiative run`` writes."""
    spec = load_encounter(DUEL)
    kept = fight_one(spec, 4, {"south": "random"}, out=tmp_path / "kept.jsonl")
    bare = fight_one(spec, 4, {"south": "random"})
    assert kept.log == str(tmp_path / "kept.jsonl") and bare.log is None
    kept.log = None
    assert bare == kept
    done = cli_support.run(
        "run", DUEL, "--seed", 4, "--policy", "south=random", "--out", tmp_path / "run.jsonl"
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "kept.jsonl").read_bytes() == (tmp_path / "run.jsonl").read_bytes()


def test_the_duel_verdict_is_the_commands(tmp_path: Path) -> None:
    """``duel(...)`` gives the paired counts, p and verdict ``initiative duel`` prints."""
    verdict, games = duel(DUEL, "aggressive", "random", runs=5, seed_start=2)
    assert len(games) == 10
    done = cli_support.run(
        "duel", DUEL, "--policies", "aggressive", "random", "--runs", 5, "--seed-start", 2, "--json"
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["paired"]["a_better"] == verdict.pairs.a_better
    assert printed["paired"]["b_better"] == verdict.pairs.b_better
    assert printed["paired"]["even"] == verdict.pairs.even
    assert printed["paired"]["p"] == verdict.p
    assert printed["better"] == verdict.better
    assert [p["wins"] for p in printed["policies"]] == [verdict.wins["A"], verdict.wins["B"]]
    words = cli_support.run(
        "duel", DUEL, "--policies", "aggressive", "random", "--runs", 5, "--seed-start", 2
    )
    assert f"verdict: {verdict.verdict()}" in " ".join(words.stdout.split())


def test_judging_a_batch_of_the_duel_tasks_gives_the_same_verdict() -> None:
    """The duel's tasks fought by ``run_batch`` and judged give what ``duel`` gives."""
    spec = load_encounter(DUEL)
    verdict, _ = duel(DUEL, "cautious", "aggressive", runs=3)
    a_first = (("north", "cautious"), ("south", "aggressive"))
    b_first = (("north", "aggressive"), ("south", "cautious"))
    tasks = []
    for seed in (1, 2, 3):
        tasks += [Task(seed, a_first), Task(seed, b_first, ".swapped")]
    assert judge(spec, "cautious", "aggressive", tasks, run_batch(DUEL, tasks)) == verdict


class _CutOnce:
    """SQLite's connection, whose first ``commit`` is cut short as a Ctrl-C cuts it: the
    interrupt arrives as the call returns."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con, self.cut = con, False

    def commit(self) -> None:
        self.con.commit()
        if not self.cut:
            self.cut = True
            raise KeyboardInterrupt

    def __getattr__(self, name: str) -> object:
        return getattr(self.con, name)


def test_a_close_cut_short_is_finished_by_the_next_and_keeps_every_row(tmp_path: Path) -> None:
    """A sweep interrupted as it closed one value's rows printed ``error: [Errno 9] Bad file
    descriptor``: its Ctrl-C handler closed the store a second time, which closed the lock's
    descriptor twice. A second ``close`` finishes the first; a third does nothing; every row
    stays and the database is free for the next writer."""
    db = tmp_path / "r.db"
    tasks = [Task(seed=s) for s in range(3)]
    store = ResultStore(
        db, kind="batch", encounter=DUEL, policies={}, seed_start=0, tasks=tasks, jobs=1
    )
    for ordinal, summary in enumerate(run_batch(DUEL, tasks)):
        store.add(ordinal, summary)
    store._con = _CutOnce(store._con)  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        store.close()
    store.close()
    store.close()
    again = ResultStore(
        db, kind="batch", encounter=DUEL, policies={}, seed_start=0, tasks=tasks, jobs=1
    )
    again.close()
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM encounters").fetchone()[0] == 3
