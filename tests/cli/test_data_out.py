"""Data out (issue 36, reproduction 6: no CSV, no per-round curves, no hit rate per attack, no
group outcomes): ``--csv`` and ``--csv-combatants`` of the five commands read back with the csv
module and held against the command's own ``--json``."""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path
from typing import Any

import cli_support
import pytest

from tests.helpers import DUEL, ROOT

SKIRMISH = ROOT / "examples" / "openings-skirmish.toml"


def read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def batch_with_csv(tmp: Path, runs: int) -> tuple[dict[str, Any], list[dict[str, str]], list]:  # type: ignore[type-arg]
    fights, people = tmp / "fights.csv", tmp / "combatants.csv"
    done = cli_support.run(
        "batch", SKIRMISH, "--runs", runs, "--json", "--csv", fights, "--csv-combatants", people
    )
    assert done.returncode == 0, done.stderr
    assert f"fights written to {fights}" in done.stderr
    return json.loads(done.stdout), read(fights), read(people)


def test_batch_csv_rows_are_the_fights_the_json_sums_up(tmp_path: Path) -> None:
    """One row a fight: the winners, damage per side and stalemates counted from the CSV are
    the JSON's; one row per combatant per fight: damage, kills, falls and hits per attack kind
    summed from it are the JSON's per-combatant figures and hit rates."""
    data, fights, people = batch_with_csv(tmp_path, 12)
    assert [int(r["seed"]) for r in fights] == list(range(1, 13))
    for s in data["sides"]:
        side = s["side"]
        assert sum(r["winner"] == side for r in fights) == s["wins"]
        damage = [int(r[f"damage_{side}"]) for r in fights]
        assert statistics.fmean(damage) == pytest.approx(s["damage"]["mean"], abs=1e-4)
    assert sum(r["stalemate"] == "1" for r in fights) == data["stalemates"]
    assert len(people) == 12 * len(data["combatants"])
    for c in data["combatants"]:
        mine = [r for r in people if r["combatant"] == c["id"]]
        dealt = statistics.fmean(int(r["dealt"]) for r in mine)
        assert dealt == pytest.approx(c["damage_dealt"]["mean"], abs=1e-4)
        assert sum(int(r["kills"]) for r in mine) == c["kills"]
        assert sum(r["fell_round"] != "" for r in mine) == c["fell"]
        assert all(int(r["hits"]) + int(r["misses"]) == int(r["attacks"]) for r in mine)
    for a in data["attacks"]:
        mine = [r for r in people if r["combatant"] == a["combatant"]]
        hits = sum(int(r[f"hits_{a['kind']}"]) for r in mine)
        misses = sum(int(r[f"misses_{a['kind']}"]) for r in mine)
        assert (hits, hits + misses) == (a["hits"], a["attacks"])
        assert a["ci95"][0] <= a["rate"] <= a["ci95"][1]
    kinds = {a["kind"] for a in data["attacks"]}
    assert {"halberd", "sword", "longbow", "spear", "cleaver"} <= kinds


def test_group_outcomes_and_curves_agree_with_the_rows(tmp_path: Path) -> None:
    """ "Any hero falls" counts the fights where a side's ``fallen`` is above 0, with Wilson's
    interval; hit points left is each fight's row summed; the last round's hit points are
    each fight's end (a fight that is over counts with its end), and the damage of every round
    adds up to the damage per fight. No interval leaves its quantity's range."""
    data, fights, people = batch_with_csv(tmp_path, 12)
    for g, c in zip(data["groups"], data["curves"], strict=True):
        side = g["side"]
        assert g["any_fell"]["fights"] == sum(int(r[f"fallen_{side}"]) > 0 for r in fights)
        left = [int(r[f"hp_left_{side}"]) for r in fights]
        per_fight = {
            seed: sum(int(p["hp_left"]) for p in people if p["seed"] == seed and p["side"] == side)
            for seed in {r["seed"] for r in fights}
        }
        assert sorted(per_fight.values()) == sorted(left)
        assert g["hp_left"]["mean"] == pytest.approx(statistics.fmean(left), abs=1e-4)
        assert g["hp_left"]["ci95"][0] >= 0 and g["hp_left"]["ci95"][1] <= g["start_hp"]
        for what in ("any_fell", "all_fell"):
            low, high = g[what]["ci95"]
            assert 0 <= low <= g[what]["rate"] <= high <= 1
        rounds = c["rounds"]
        assert len(rounds) == max(int(r["rounds"]) for r in fights)
        assert rounds[-1]["hp"]["mean"] == pytest.approx(statistics.fmean(left), abs=1e-3)
        total = sum(r["damage"]["mean"] for r in rounds)
        side_damage = next(s for s in data["sides"] if s["side"] == side)["damage"]["mean"]
        assert total == pytest.approx(side_damage, abs=1e-2)
        for r in rounds:
            assert r["running"] == sum(int(f["rounds"]) >= r["round"] for f in fights)
            if r["hp"]["ci95"] is not None:
                assert 0 <= r["hp"]["ci95"][0] <= r["hp"]["ci95"][1] <= c["start_hp"]
            if r["damage"]["ci95"] is not None:
                assert r["damage"]["ci95"][0] >= 0


def test_duel_sweep_and_league_write_a_row_a_fight(tmp_path: Path) -> None:
    """``duel`` (2 games a seed, which side A played and which policy won), ``sweep`` (a row per
    value and seed) and ``league`` (each pair's games) write the same columns plus their own."""
    out = tmp_path / "d.csv"
    done = cli_support.run(
        "duel", DUEL, "--policies", "aggressive", "first", "--runs", 3, "--csv", out, "--json"
    )
    assert done.returncode == 0, done.stderr
    rows = read(out)
    assert [(r["seed"], r["a_side"]) for r in rows] == [
        (str(s), side) for s in (1, 2, 3) for side in ("north", "south")
    ]
    for r in rows:
        a_won = r["winner"] == r["a_side"]
        assert r["won"] == ("" if not r["winner"] else "A" if a_won else "B")
        assert r[f"policy_{r['a_side']}"] == "aggressive"
    wins = {p["label"]: p["wins"] for p in json.loads(done.stdout)["policies"]}
    assert wins == {x: sum(r["won"] == x for r in rows) for x in "AB"}

    out = tmp_path / "s.csv"
    done = cli_support.run(
        "sweep", DUEL, "--vary", "combatants.tomas.hp=20..22", "--runs", 2, "--csv", out
    )
    assert done.returncode == 0, done.stderr
    rows = read(out)
    assert [(r["value"], r["seed"]) for r in rows] == [
        (str(v), str(s)) for v in (20, 21, 22) for s in (1, 2)
    ]
    assert {r["key"] for r in rows} == {"combatants.tomas.hp"}
    tomas = tmp_path / "sc.csv"
    cli_support.run(
        "sweep", DUEL, "--vary", "combatants.tomas.hp=20..22", "--runs", 2,
        "--csv-combatants", tomas,
    )  # fmt: skip
    starts = {(r["value"], r["hp_start"]) for r in read(tomas) if r["combatant"] == "tomas"}
    assert starts == {("20", "20"), ("21", "21"), ("22", "22")}

    out = tmp_path / "l.csv"
    done = cli_support.run(
        "league", DUEL, "--policies", "first", "random", "aggressive", "--runs", 2, "--csv", out
    )
    assert done.returncode == 0, done.stderr
    rows = read(out)
    assert len(rows) == 3 * 2 * 2
    assert {(r["a"], r["b"]) for r in rows} == {
        ("first", "random"),
        ("first", "aggressive"),
        ("random", "aggressive"),
    }


@pytest.mark.parametrize(
    "command",
    [
        ("batch", DUEL, "--runs", 1),
        ("duel", DUEL, "--policies", "first", "first", "--runs", 1),
        ("compare", DUEL, DUEL, "--runs", 1),
        ("league", DUEL, "--policies", "first", "random", "--runs", 1),
        ("sweep", DUEL, "--vary", "combatants.ilse.hp=5..6", "--runs", 1),
    ],
    ids=lambda c: c[0],
)
def test_an_unwritable_csv_is_one_line_before_any_fight(
    tmp_path: Path, command: tuple[object, ...]
) -> None:
    """A CSV in a missing folder, or that is a folder, is refused in one line with exit 2
    before anything is fought (no file is left behind)."""
    for option in ("--csv", "--csv-combatants"):
        for where, why in (
            (tmp_path / "missing" / "f.csv", f"there is no folder {tmp_path / 'missing'}"),
            (tmp_path, "that is a folder; give a file name such as fights.csv"),
        ):
            done = cli_support.run(*command, option, where)
            assert (done.returncode, done.stdout) == (2, "")
            assert done.stderr.strip().splitlines() == [f"error: {option} {where}: {why}"]
    assert list(tmp_path.iterdir()) == []


def test_a_two_value_sweep_writes_its_grid_to_csv(tmp_path: Path) -> None:
    """Two ``--vary`` with ``--csv`` and ``--csv-combatants``: a row per pair of values and
    seed (``a;b`` in the key and value cells), each pair's fights fought at both values (the
    merge of the grid and the CSV once left the grid's files unwritten)."""
    out, people = tmp_path / "g.csv", tmp_path / "gc.csv"
    done = cli_support.run(
        "sweep", DUEL, "--vary", "combatants.tomas.hp=20..21", "--vary",
        "combatants.ilse.hp=30..31", "--runs", 2, "--csv", out, "--csv-combatants", people,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = read(out)
    assert [(r["value"], r["seed"]) for r in rows] == [
        (f"{t};{i}", str(s)) for t in (20, 21) for i in (30, 31) for s in (1, 2)
    ]
    assert {r["key"] for r in rows} == {"combatants.tomas.hp;combatants.ilse.hp"}
    starts = {
        (r["value"], r["combatant"], r["hp_start"])
        for r in read(people)
        if r["combatant"] in ("tomas", "ilse")
    }
    assert starts == {
        (f"{t};{i}", who, str(hp))
        for t in (20, 21)
        for i in (30, 31)
        for who, hp in (("tomas", t), ("ilse", i))
    }
