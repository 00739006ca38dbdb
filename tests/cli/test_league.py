"""``initiative league`` through the command (in this process; see cli_support)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import cli_support

from tests.helpers import DUEL, ROOT

SKIRMISH = ROOT / "examples" / "openings-skirmish.toml"


def test_json_gives_ratings_and_every_pair_per_encounter_and_overall() -> None:
    """Three policies over two encounters, two seeds each way: 24 games, three pairs."""
    done = cli_support.run(
        "league",
        DUEL,
        SKIRMISH,
        "--policies",
        "first",
        "aggressive",
        "cautious",
        "--runs",
        2,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert (got["encounters"], got["seeds"], got["games"]) == (
        ["openings-duel", "openings-skirmish"],
        2,
        24,
    )
    assert sorted(r["policy"] for r in got["ratings"]) == ["aggressive", "cautious", "first"]
    overall = [p for p in got["pairings"] if p["encounter"] is None]
    assert [(p["a"], p["b"]) for p in overall] == [
        ("first", "aggressive"),
        ("first", "cautious"),
        ("aggressive", "cautious"),
    ]
    for p in overall:
        assert p["wins"] + p["losses"] + p["undecided"] == 8
        mine = [q for q in got["pairings"] if (q["a"], q["b"]) == (p["a"], p["b"])]
        assert sum(q["wins"] for q in mine[1:]) == p["wins"]  # the encounters add up


def test_the_table_names_the_policies_and_the_test(tmp_path: Path) -> None:
    """The rating table, the pairs table, and where the rows were stored: one run per
    encounter, kind 'league', each game's rerun command naming its sides' policies."""
    db = tmp_path / "league.sqlite"
    done = cli_support.run(
        "league", DUEL, "--policies", "first,aggressive", "--runs", 3, "--db", db
    )
    assert done.returncode == 0, done.stderr
    assert "league: 2 policies, 1 encounter(s), 3 seeds each fought both ways (6 games)" in (
        done.stdout
    )
    assert "exact two-sided sign test" in done.stdout
    con = sqlite3.connect(db)
    assert con.execute("SELECT kind, runs FROM runs").fetchall() == [("league", 6)]
    reruns = [r for (r,) in con.execute("SELECT rerun FROM encounters ORDER BY ordinal")]
    con.close()
    assert "--policy north=first --policy south=aggressive" in reruns[0]
    assert "--policy north=aggressive --policy south=first" in reruns[1]


def test_bad_leagues_are_one_line_and_exit_2(tmp_path: Path) -> None:
    """One policy, an unknown policy, no encounter: each refused in one line."""
    for args, says in [
        ((DUEL, "--policies", "first"), "at least two policies"),
        ((DUEL, "--policies", "first", "nosuch"), "unknown policy 'nosuch'"),
        (("--policies", "first", "aggressive", tmp_path / "x.toml"), "x.toml"),
    ]:
        done = cli_support.run("league", *args, "--runs", 1)
        assert done.returncode == 2, (args, done.stderr)
        assert says in done.stderr
        assert "Traceback" not in done.stderr
