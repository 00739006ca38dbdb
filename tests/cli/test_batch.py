"""``initiative batch`` and ``initiative duel`` through the installed command."""

from __future__ import annotations

import fcntl
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import cli_support
import pytest
from initiative.batch import sign_test, wilson
from initiative.events import read_log

from tests.helpers import DUEL, ROOT

SKIRMISH = ROOT / "examples" / "openings-skirmish.toml"
INITIATIVE = str(Path(sys.executable).parent / "initiative")


def cli(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command, in this process (see cli_support)."""
    return cli_support.run(*args, cwd=cwd)


def rows(db: Path) -> list[dict[str, object]]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    got = [dict(r) for r in con.execute("SELECT * FROM encounters ORDER BY run_id, ordinal")]
    con.close()
    return got


def test_each_row_matches_its_kept_log(tmp_path: Path) -> None:
    """Seed, winner, rounds, event count and damage in the database are those of its log."""
    done = cli(
        "batch",
        DUEL,
        "--runs",
        6,
        "--seed-start",
        10,
        "--db",
        tmp_path / "r.sqlite",
        "--keep-logs",
        tmp_path / "logs",
    )
    assert done.returncode == 0, done.stderr
    found = rows(tmp_path / "r.sqlite")
    assert [r["seed"] for r in found] == list(range(10, 16))
    for r in found:
        log = read_log(Path(str(r["log"])))
        end = log.events[-1]
        assert (r["winner"], r["rounds"], r["events"]) == (end.winner, end.rounds, len(log.events))
        sides = {c.id: c.side for c in log.events[0].encounter.combatants}
        damage = {"north": 0, "south": 0}
        for e in log.events:
            if type(e).__name__ == "DamageDealt" and e.source:
                damage[sides[e.source]] += e.amount
        assert json.loads(str(r["damage"])) == damage
        assert Path(str(r["log"])).name == f"openings-duel.seed{r['seed']}.jsonl"


def test_the_report_gives_each_sides_wins_and_wilson_interval(tmp_path: Path) -> None:
    """The table's wins and 95% interval are computed from the stored winners."""
    done = cli("batch", DUEL, "--runs", 12, "--db", tmp_path / "r.sqlite")
    assert done.returncode == 0, done.stderr
    winners = [r["winner"] for r in rows(tmp_path / "r.sqlite")]
    for side in ("north", "south"):
        wins = winners.count(side)
        low, high = wilson(wins, 12)
        line = next(line for line in done.stdout.splitlines() if f" {side} " in line)
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        assert cells[2] == str(wins)
        assert cells[3] == f"{100 * wins / 12:.1f}%"
        assert cells[4] == f"{100 * low:.1f}-{100 * high:.1f}%"
    assert f"no winner: {winners.count(None)}" in done.stdout


def test_results_are_the_same_whatever_the_number_of_jobs(tmp_path: Path) -> None:
    """``--jobs 2`` gives the same rows and the same log bytes as ``--jobs 1``."""
    for jobs in (1, 2):
        done = cli(
            "batch",
            SKIRMISH,
            "--runs",
            8,
            "--jobs",
            jobs,
            "--db",
            tmp_path / f"{jobs}.db",
            "--keep-logs",
            tmp_path / f"logs{jobs}",
        )
        assert done.returncode == 0, done.stderr
    keys = ("seed", "winner", "rounds", "events", "damage", "faults", "policies")
    one = [tuple(r[k] for k in keys) for r in rows(tmp_path / "1.db")]
    two = [tuple(r[k] for k in keys) for r in rows(tmp_path / "2.db")]
    assert one == two
    for log in sorted((tmp_path / "logs1").iterdir()):
        assert log.read_bytes() == (tmp_path / "logs2" / log.name).read_bytes()


def test_any_encounter_of_a_batch_reruns_to_the_same_bytes(tmp_path: Path) -> None:
    """The row's re-run command writes exactly the kept log, and the kept log verifies."""
    done = cli(
        "batch",
        DUEL,
        "--runs",
        3,
        "--seed-start",
        40,
        "--policy",
        "north=tactician",
        "--db",
        tmp_path / "r.sqlite",
        "--keep-logs",
        tmp_path / "logs",
    )
    assert done.returncode == 0, done.stderr
    row = rows(tmp_path / "r.sqlite")[2]
    kept = Path(str(row["log"]))
    command = str(row["rerun"]).replace(str(kept), str(tmp_path / "again.jsonl"))
    assert command.startswith(f"initiative run {DUEL} --seed 42 --policy north=tactician --out ")
    again = subprocess.run(
        command.replace("initiative", INITIATIVE, 1), shell=True, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == kept.read_bytes()
    verified = cli("verify", kept)
    assert verified.returncode == 0
    assert verified.stdout.startswith("verified")


def test_faults_are_counted_per_policy(tmp_path: Path) -> None:
    """Errors and rejected actions are counted by policy, the same as in the logs."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from initiative.events import Attack\n"
        "from initiative.actors import aggressive\n"
        "def flaky(view):\n"
        "    if view.round % 2:\n"
        "        raise ValueError('odd round')\n"
        "    if not view.window.is_turn:\n"
        "        return Attack(target='nobody')\n"
        "    return aggressive(view)\n"
    )
    name = f"{bad}:flaky"
    done = cli(
        "batch",
        DUEL,
        "--runs",
        4,
        "--policy",
        f"tomas={name}",
        "--db",
        tmp_path / "r.sqlite",
        "--keep-logs",
        tmp_path / "logs",
    )
    assert done.returncode == 0, done.stderr
    total = 0
    for r in rows(tmp_path / "r.sqlite"):
        events = read_log(Path(str(r["log"]))).events
        faults = [e for e in events if type(e).__name__ in ("DecisionFailed", "ActionRejected")]
        assert {e.who for e in faults} == {"tomas"}
        assert json.loads(str(r["faults"])) == {name: len(faults)}
        total += len(faults)
    assert total > 0
    assert f"faults by policy: {name} {total}, cautious 0, random 0" in done.stdout


def test_duel_swaps_sides_and_says_which_policy_is_better(tmp_path: Path) -> None:
    """Each seed twice, once each way round; the verdict comes from an exact sign test."""
    done = cli(
        "duel",
        DUEL,
        "--policies",
        "aggressive",
        "random",
        "--runs",
        10,
        "--db",
        tmp_path / "r.sqlite",
    )
    assert done.returncode == 0, done.stderr
    found = rows(tmp_path / "r.sqlite")
    assert [r["seed"] for r in found] == [1 + i // 2 for i in range(20)]
    wins = {"aggressive": 0, "random": 0}
    net: dict[int, int] = {}
    for i, r in enumerate(found):
        chosen = json.loads(str(r["policies"]))
        expected = ("aggressive", "random") if i % 2 == 0 else ("random", "aggressive")
        assert (chosen["ilse"], chosen["tomas"]) == expected
        assert chosen["hound"] == chosen["tomas"]
        if r["winner"] is not None:
            winner = chosen["ilse" if r["winner"] == "north" else "tomas"]
            wins[winner] += 1
            net[int(str(r["seed"]))] = net.get(int(str(r["seed"])), 0) + (
                1 if winner == "aggressive" else -1
            )
    better = sum(1 for v in net.values() if v > 0)
    worse = sum(1 for v in net.values() if v < 0)
    p = sign_test(better, worse)
    assert better > worse
    assert p < 0.05
    assert (
        f"aggressive did better on {better} seeds, random on {worse}, {10 - better - worse} even"
        in done.stdout
    )
    assert (
        f"verdict: aggressive is better than random (p = {p:.3g}, exact two-sided sign test"
        f" over the {better + worse} seeds that were not even)" in done.stdout
    )


def test_a_duel_of_a_policy_with_itself_is_even(tmp_path: Path) -> None:
    """With paired seeds, identical deterministic policies win exactly half each."""
    done = cli(
        "duel",
        DUEL,
        "--policies",
        "aggressive",
        "aggressive",
        "--runs",
        15,
        "--keep-logs",
        tmp_path / "logs",
    )
    assert done.returncode == 0, done.stderr
    assert "verdict: no clear difference between aggressive and aggressive (p = 1," in done.stdout
    assert len(list((tmp_path / "logs").glob("*.swapped.jsonl"))) == 15


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["batch", DUEL, "--runs", 2, "--policy", "north=nonesuch"], "unknown policy 'nonesuch'"),
        (["batch", DUEL, "--runs", 2, "--jobs", 0], "--jobs 0: must be at least 1"),
        (["batch", DUEL, "--runs", 0], "--runs 0: must be at least 1"),
        (["batch", "missing.toml", "--runs", 2], "missing.toml"),
        (
            ["batch", DUEL, "--runs", 2, "--policy", "nobody=random"],
            "no combatant or side 'nobody'",
        ),
        (["duel", DUEL, "--policies", "aggressive", "nonesuch", "--runs", 2], "unknown policy"),
        (["duel", SKIRMISH.parent / "nope.toml", "--policies", "a", "b", "--runs", 2], "nope.toml"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[object], message: str) -> None:
    """A mistake is one clear line on stderr, exit status 2, no traceback."""
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_sign_test_and_wilson_give_known_values() -> None:
    """Exact binomial tails and Wilson bounds, checked against hand-computed values."""
    assert sign_test(9, 1) == pytest.approx(0.021484375)
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0
    low, high = wilson(7, 10)
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_policy_over_its_budget_is_a_fault_and_the_batch_goes_on(tmp_path: Path) -> None:
    """A stuck plain function is abandoned at ``--timeout`` (one timeout fault); while it still
    runs, its combatant's tokens fail at once as ``busy`` instead of entering it again."""
    slow = tmp_path / "slow.py"
    slow.write_text(
        "import time\n"
        "from initiative.actors import aggressive\n"
        "def stuck_once(view):\n"
        "    if view.round == 1 and view.window.is_turn:\n"
        "        time.sleep(3)\n"
        "    return aggressive(view)\n"
    )
    name = f"{slow}:stuck_once"
    done = cli(
        "batch",
        DUEL,
        "--runs",
        2,
        "--timeout",
        0.2,
        "--policy",
        f"north={name}",
        "--db",
        tmp_path / "r.sqlite",
        "--keep-logs",
        tmp_path / "logs",
    )
    assert done.returncode == 0, done.stderr
    for r in rows(tmp_path / "r.sqlite"):
        events = read_log(Path(str(r["log"]))).events
        failed = [e for e in events if type(e).__name__ == "DecisionFailed"]
        assert {(e.who, e.kind) for e in failed} <= {("ilse", "timeout"), ("ilse", "busy")}
        assert [e.detail for e in failed if e.kind == "timeout"] in (
            [],
            ["no decision within 0.2 s; the call was abandoned (a thread cannot be killed)"],
        )
        assert json.loads(str(r["faults"])) == {name: len(failed)}
        assert "--timeout 0.2" in str(r["rerun"])
        assert events[-1].rounds > 1


@pytest.mark.parametrize("resume", [False, True])
def test_a_second_writer_of_a_database_is_refused_in_one_line(tmp_path: Path, resume: bool) -> None:
    """While one batch holds a database (its lock, taken here as the first writer would), a
    second ``batch --db`` (or ``--resume``) is refused with one line and exit 2, writes
    nothing, and leaves the rows alone; once the lock is free the same command runs."""
    db = tmp_path / "r.sqlite"
    args = ["batch", DUEL, "--runs", 2, "--db", db, "--jobs", 1]
    if resume:
        assert cli(*args).returncode == 0
        with sqlite3.connect(db) as con:  # as if the run had stopped after its first row
            con.execute("DELETE FROM encounters WHERE ordinal = 1")
        con.close()
        args.append("--resume")
    before = db.read_bytes() if db.exists() else b""
    with open(db, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        done = cli(*args)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: {db}: another batch is writing this database (it holds the database's lock);"
        " wait until it has finished, or stop it first"
    ]
    assert db.read_bytes() == before
    assert cli(*args).returncode == 0
    assert len(rows(db)) == 2
