"""``batch`` and ``duel`` for scripts and long runs: JSON, whole tables, rates, Ctrl-C, resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import cli_support
import pytest
from initiative.batch import Paired, paired, sign_test, wilson

from tests.helpers import DUEL


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    """The command, in this process (see cli_support)."""
    return cli_support.run(*args)


def jq(expression: str, text: str) -> object:
    """Read ``text`` with jq when it is installed (else json), and evaluate ``expression``."""
    if shutil.which("jq"):
        done = subprocess.run(
            ["jq", "-c", expression], input=text, capture_output=True, text=True, check=True
        )
        return json.loads(done.stdout)
    assert expression.startswith(".")
    value: object = json.loads(text)
    for key in expression.strip(".").split("."):
        if key:
            value = value[key]  # type: ignore[index]
    return value


def encounter_rows(db: Path) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    got = con.execute(
        "SELECT ordinal, seed, winner, rounds, events, damage, policies FROM encounters"
        " ORDER BY run_id, ordinal"
    ).fetchall()
    con.close()
    return got


def test_wilson_and_the_sign_test_agree_with_scipy() -> None:
    """Our standard-library statistics give scipy's binomtest p-value and Wilson interval."""
    stats = pytest.importorskip("scipy.stats")
    for wins, n in [(0, 1), (1, 1), (3, 10), (7, 10), (50, 100), (39, 43), (135, 200), (4, 43)]:
        test = stats.binomtest(wins, n)
        assert sign_test(wins, n - wins) == pytest.approx(test.pvalue, rel=1e-9)
        ci = test.proportion_ci(confidence_level=0.95, method="wilson")
        low, high = wilson(wins, n)
        assert (low, high) == pytest.approx((ci.low, ci.high), abs=1e-6)


def test_pairing_by_seed_gives_the_issues_figures() -> None:
    """39 seeds won both ways by A, 4 by B, 57 split: paired p = 3.1e-08, unpaired 8.3e-07."""
    scores = []
    for seed in range(100):
        a = 1 if seed < 39 else -1 if seed < 43 else 0
        scores += [(seed, a or 1), (seed, a or -1)]
    pairs = paired(scores)
    assert pairs == Paired(a_better=39, b_better=4, even=57)
    assert f"{pairs.p:.2g}" == "3.1e-08"
    assert f"{sign_test(39 * 2 + 57, 4 * 2 + 57):.2g}" == "8.3e-07"


def test_batch_json_is_read_by_jq(tmp_path: Path) -> None:
    """``batch --json`` prints one object: per-side wins agree with the stored rows."""
    done = cli("batch", DUEL, "--runs", 6, "--json", "--db", tmp_path / "r.db")
    assert done.returncode == 0, done.stderr
    winners = [r[2] for r in encounter_rows(tmp_path / "r.db")]
    sides = jq(".sides", done.stdout)
    assert [(s["side"], s["wins"]) for s in sides] == [  # type: ignore[union-attr, index]
        ("north", winners.count("north")),
        ("south", winners.count("south")),
    ]
    assert jq(".no_winner", done.stdout) == winners.count(None)
    assert jq(".fought", done.stdout) == 6


def test_duel_json_explains_the_pairing(tmp_path: Path) -> None:
    """``duel --json`` gives the paired counts and the sign test's p."""
    done = cli("duel", DUEL, "--policies", "aggressive", "random", "--runs", 4, "--json")
    assert done.returncode == 0, done.stderr
    pairs = jq(".paired", done.stdout)
    assert isinstance(pairs, dict)
    assert pairs["a_better"] + pairs["b_better"] + pairs["even"] == 4
    assert pairs["p"] == sign_test(pairs["a_better"], pairs["b_better"])


def test_tables_are_whole_when_piped_and_the_rates_agree(tmp_path: Path) -> None:
    """A table wider than 80 columns is not cut in a pipe; bar and summary show one rate."""
    policy = tmp_path / "a_policy_file_with_a_rather_long_name_for_the_table.py"
    policy.write_text("def first_offer_every_time(view):\n    return view.legal[0].action\n")
    name = f"{policy}:first_offer_every_time"
    done = cli("batch", DUEL, "--runs", 3, "--policy", f"north={name}")
    assert done.returncode == 0, done.stderr
    assert any(name in line for line in done.stdout.splitlines())
    bar = done.stderr.rsplit("enc/s", 1)[0].split()[-1]
    summary = done.stdout.split(" per second")[0].rsplit("(", 1)[1]
    assert bar == summary


_FRESH: dict[int, tuple[list[tuple[object, ...]], str]] = {}


def fresh_run(runs: int, folder: Path) -> tuple[list[tuple[object, ...]], str]:
    """The rows and the summary of an uninterrupted batch of ``runs`` duels (run once per worker;
    the two tests of Ctrl-C compare with the same one, and run on one worker)."""
    if runs not in _FRESH:
        fresh = cli("batch", DUEL, "--runs", runs, "--db", folder / "fresh.db")
        assert fresh.returncode == 0, fresh.stderr
        _FRESH[runs] = (encounter_rows(folder / "fresh.db"), fresh.stdout)
    return _FRESH[runs]


@pytest.mark.slow  # real batch processes interrupted with SIGINT
@pytest.mark.xdist_group("batch-ctrl-c")
@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_keeps_finished_rows_and_resume_finishes_the_run(tmp_path: Path, jobs: int) -> None:
    """SIGINT stops a batch within seconds, keeps each finished row once, says how many were
    done; ``--resume`` then fights only the rest, and the rows equal an uninterrupted run."""
    db = tmp_path / "r.db"
    # Enough encounters that the batch is still fighting when the first rows are committed
    # (a quarter of a second in): forty duels once took longer than that, now they do not, and
    # two hundred with two jobs could end before the interrupt came.
    runs = 500
    args = ["batch", DUEL, "--runs", runs, "--jobs", jobs, "--db", db]
    proc = cli_support.interruptible(*args)
    cli_support.wait_for_rows(db, 3, proc)
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    _, stderr = proc.communicate(timeout=30)
    # Within seconds: under the whole suite on two busy cores the workers' shutdown has taken
    # more than the three seconds it takes alone, so the bound leaves room for the load.
    took = time.monotonic() - sent
    assert took < 10, f"the batch took {took:.1f} s to stop: {stderr[-500:]}"
    assert proc.returncode == 130, stderr[-500:]
    kept = encounter_rows(db)
    assert f"interrupted: {len(kept)} of {runs} encounters done" in stderr
    assert "--resume" in stderr
    assert "Traceback" not in stderr
    assert [r[0] for r in kept] == sorted({r[0] for r in kept})
    assert len(kept) < runs

    resumed = cli(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{runs - len(kept)} encounters in" in resumed.stdout
    fresh_rows, fresh_stdout = fresh_run(runs, tmp_path)
    assert encounter_rows(db) == fresh_rows
    # the summary after resuming covers the whole run
    assert resumed.stdout.split("no winner")[0] == fresh_stdout.split("no winner")[0]


def test_resume_refuses_to_mix_runs(tmp_path: Path) -> None:
    """``--resume`` with other settings than the stored run's is refused, and nothing runs."""
    db = tmp_path / "r.db"
    con = sqlite3.connect(db)
    con.close()
    first = cli("batch", DUEL, "--runs", 4, "--db", db)
    assert first.returncode == 0
    done = cli("batch", DUEL, "--runs", 4, "--db", db, "--resume")
    assert done.returncode == 2
    assert "is complete (4 of 4)" in done.stderr
    con = sqlite3.connect(db)
    con.execute("DELETE FROM encounters WHERE ordinal >= 2")
    con.commit()
    con.close()
    done = cli("batch", DUEL, "--runs", 4, "--seed-start", 9, "--db", db, "--resume")
    assert done.returncode == 2
    assert "runs are never mixed" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert len(encounter_rows(db)) == 2
