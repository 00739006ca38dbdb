"""``initiative sweep`` through the command (in this process; see cli_support)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import tempfile
import time
from pathlib import Path

import cli_support
import pytest

from tests.helpers import DUEL


def test_json_win_rates_equal_a_batch_of_the_changed_file(tmp_path: Path) -> None:
    """Tomas's hp at 10, 16 and 22 on ten seeds: each value's rates are those of ``batch`` on
    the file with that hp written in, the same seeds: the sweep fights the real encounter."""
    done = cli_support.run(
        "sweep", DUEL, "--vary", "combatants.tomas.hp=10..22", "--step", 6, "-n", 10, "--json"
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert (got["command"], got["key"], got["low"], got["high"]) == (
        "sweep",
        "combatants.tomas.hp",
        10,
        22,
    )
    assert (got["values"], got["runs"], got["seed_start"], got["fought"]) == (
        [10, 16, 22],
        10,
        1,
        30,
    )
    assert got["sides"] == ["north", "south"] and got["target"] is None
    text = DUEL.read_text(encoding="utf-8")
    assert text.count("hp = 22\n") == 1
    for point in got["points"]:
        assert point["fights"] == 10
        assert [s["side"] for s in point["sides"]] == ["north", "south"]
        changed = tmp_path / f"duel-{point['value']}.toml"
        changed.write_text(text.replace("hp = 22\n", f"hp = {point['value']}\n"), encoding="utf-8")
        batch = cli_support.run("batch", changed, "-n", 10, "--json")
        assert batch.returncode == 0, batch.stderr
        expected = json.loads(batch.stdout)
        assert [
            {"side": s["side"], "wins": s["wins"], "rate": s["rate"], "ci95": s["ci95"]}
            for s in expected["sides"]
        ] == point["sides"]
        assert point["no_winner"] == expected["no_winner"]
    north = [p["sides"][0]["wins"] for p in got["points"]]
    assert north[0] > north[-1]  # a weaker Tomas loses more: the value did change the fights


def test_the_table_shows_each_value_and_each_side() -> None:
    done = cli_support.run(
        "sweep", DUEL, "--vary", "options.reaction_move=0.0..2", "--points", 2, "-n", 3
    )
    assert done.returncode == 0, done.stderr
    assert "options.reaction_move from 0.0 to 2, 3 seeds each" in done.stdout
    assert "north wins" in done.stdout and "south wins" in done.stdout
    rows = [line for line in done.stdout.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ["0.0", "2.0"]
    assert "6 encounters in" in done.stdout


def test_target_bisects_and_brackets_the_crossing(tmp_path: Path) -> None:
    """Each probe fights the same four seeds; the crossing is two neighbours whose probed rates
    sit on each side of the target; --db keeps one run a probe."""
    db = tmp_path / "sweep.sqlite"
    done = cli_support.run(
        "sweep",
        DUEL,
        "--vary",
        "combatants.tomas.hp=5..60",
        "--target",
        0.5,
        "--side",
        "north",
        "-n",
        4,
        "--db",
        db,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    t = got["target"]
    assert (t["side"], t["rate"], t["found"], t["rising"]) == ("north", 0.5, "crossed", False)
    assert t["probes"][:2] == [5, 60] and len(set(t["probes"])) == len(t["probes"])
    assert t["fights"] == 4 * len(t["probes"]) == got["fought"]
    rate = {p["value"]: p["sides"][0]["rate"] for p in got["points"]}
    assert t["above"] == t["below"] + 1
    assert rate[t["below"]] > 0.5 >= rate[t["above"]]
    closer = min((t["above"], t["below"]), key=lambda v: (abs(rate[v] - 0.5), v != t["above"]))
    assert t["closer"] == closer
    ci = {p["value"]: p["sides"][0]["ci95"] for p in got["points"]}
    assert t["unsure"] == any(ci[v][0] <= 0.5 <= ci[v][1] for v in (t["below"], t["above"]))
    with sqlite3.connect(db) as con:
        runs = con.execute("SELECT id, kind, encounter, runs FROM runs ORDER BY id").fetchall()
        fights = con.execute("SELECT COUNT(*) FROM encounters").fetchone()[0]
    assert [r[0] for r in runs] == got["run_ids"]
    assert [(kind, encounter.rsplit("=", 1)[1], n) for _, kind, encounter, n in runs] == [
        ("sweep", str(v), 4) for v in t["probes"]
    ]
    assert fights == t["fights"]


def test_target_says_where_the_crossing_is_in_words() -> None:
    done = cli_support.run(
        "sweep",
        DUEL,
        "--vary",
        "combatants.tomas.hp=5..9",
        "--target",
        0.5,
        "--side",
        "south",
        "-n",
        2,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "no crossing in the range: south's win rate is still 0.0% at combatants.tomas.hp=9"
        " (0.0% at 5)"
    ) in done.stdout
    # Two seeds a value cannot rule 50% out anywhere: the fair range walks down from 9 and takes
    # the whole range (issue 36: a fair range, not only a bracket), three probes more.
    assert (
        "fair range: combatants.tomas.hp=5..9, every value whose 95% interval holds 50.0%; the"
        " range ends there: values beyond it may be fair too; 3 probe(s) after the bisection"
    ) in done.stdout
    assert "5 probes, 10 fights; the bisection assumes the win rate is monotone" in done.stdout


@pytest.mark.parametrize(
    ("vary", "extra", "message"),
    [
        (
            "combatants.bob.hp=1..3",
            [],
            "no combatant 'bob' in the file (its ids: ilse, tomas, hound)",
        ),
        ("combatants.tomas.name=1..3", [], "combatants.tomas.name: is 'Tomas', not a number"),
        (
            "combatants.tomas.hp=0..3",
            [],
            "with combatants.tomas.hp=0: at key combatants[1] (combatant 'tomas').hp: must be at"
            " least 1, got 0",
        ),
        ("combatants.tomas.hp", [], "expected KEY=LO..HI"),
        ("sides.south.count=0..2", [], "a side needs at least 1 combatant"),
        ("options.reaction_move=0.5..2", ["--target", "0.5"], "is not one"),
        ("combatants.tomas.hp=5..9", ["--side", "north"], "give --target too"),
        (
            "combatants.tomas.hp=5..9",
            ["--target", "0.5", "--side", "east"],
            "--side east: not a side",
        ),
        ("combatants.tomas.hp=5..9", ["--target", "2"], "--target 2: a win rate is from 0 to 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(vary: str, extra: list[str], message: str) -> None:
    done = cli_support.run("sweep", DUEL, "--vary", vary, "-n", 1, *extra)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stdout == ""


@pytest.mark.slow  # a real sweep process with two workers, interrupted with SIGINT
def test_ctrl_c_stops_the_workers_keeps_the_rows_and_the_changed_files_go(tmp_path: Path) -> None:
    """SIGINT stops a sweep within seconds with exit 130 and one line saying how many fights
    were done (as many as the database holds); its folder of changed files is removed."""
    db = tmp_path / "s.db"
    # A short folder of its own: the workers' sockets live in TMPDIR, and a socket's path has
    # a limit (about 100 bytes) that pytest-xdist's tmp_path can pass.
    temp = Path(tempfile.mkdtemp(prefix="sweep-"))
    args = ["sweep", DUEL, "--vary", "combatants.tomas.hp=10..40", "-n", 400, "-j", 2, "--db", db]
    proc = cli_support.interruptible(*args, env={**os.environ, "TMPDIR": str(temp)})
    cli_support.wait_for_rows(db, 3, proc)
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 3
    assert proc.returncode == 130 and out == ""
    with sqlite3.connect(db) as con:
        kept = con.execute("SELECT COUNT(*) FROM encounters").fetchone()[0]
    assert (
        err.splitlines()[-1] == f"interrupted: {kept} fights done; the finished fights are in {db}"
    )
    assert "Traceback" not in err and kept < 2000
    left = list(temp.iterdir())
    shutil.rmtree(temp)
    assert left == []


def test_ctrl_c_waits_for_the_row_or_the_close_in_hand() -> None:
    """A Ctrl-C inside :func:`whole` (a row being stored and counted, a database being closed)
    takes effect when the block is done, so the count said and the database agree."""
    from initiative.cli._progress import whole

    done: list[str] = []
    with pytest.raises(KeyboardInterrupt), whole():
        os.kill(os.getpid(), signal.SIGINT)
        done.append("the row is stored")
    assert done == ["the row is stored"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
