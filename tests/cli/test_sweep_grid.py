"""Sweeps in two dimensions and the fair range (issue 36, items 3 and 7), through the command
(in this process; see cli_support)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cli_support

from tests.helpers import DUEL

TWO = ("--vary", "combatants.tomas.hp=20..22", "--vary", "combatants.ilse.hp=30..31")


def run(*args: object) -> tuple[int, str, str]:
    done = cli_support.run(*args, env={"COLUMNS": "200"})
    return done.returncode, done.stdout, done.stderr


def test_two_varies_make_a_grid_of_every_pair(tmp_path: Path) -> None:
    """Issue 36, reproduction 3: two ``--vary`` swept only the last one and exited 0. Now every
    pair of values is fought on the same seeds, each pair's rates those of ``batch`` on the file
    with both values written in."""
    code, out, err = run("sweep", DUEL, *TWO, "--runs", 2, "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got["keys"] == ["combatants.tomas.hp", "combatants.ilse.hp"]
    assert got["grid"] == {"rows": [20, 21, 22], "columns": [30, 31], "side": "north"}
    assert [p["value"] for p in got["points"]] == [[r, c] for r in (20, 21, 22) for c in (30, 31)]
    assert got["fought"] == 6 * 2 and all(p["fights"] == 2 for p in got["points"])
    text = DUEL.read_text(encoding="utf-8")
    tomas, ilse = "hp = 22\n", "hp = 34\n"
    assert text.count(tomas) == 1 and text.count(ilse) == 1
    for point in (got["points"][0], got["points"][-1]):
        r, c = point["value"]
        changed = tmp_path / f"duel-{r}-{c}.toml"
        changed.write_text(text.replace(tomas, f"hp = {r}\n").replace(ilse, f"hp = {c}\n"))
        code, out, err = run("batch", changed, "--runs", 2, "--json")
        assert code == 0, err
        sides = [
            {k: s[k] for k in ("side", "wins", "rate", "ci95")} for s in json.loads(out)["sides"]
        ]
        assert sides == point["sides"]


def test_the_grid_table_shows_every_pair() -> None:
    """The table: the first key's values down, the second's across, a rate and interval in
    each cell."""
    code, out, err = run("sweep", DUEL, *TWO, "--runs", 2)
    assert code == 0, err
    assert "combatants.tomas.hp \\ combatants.ilse.hp" in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ["20", "21", "22"]
    assert all(row.count("%)") == 2 for row in rows)


def test_three_varies_and_a_grid_with_target_are_refused_in_one_line() -> None:
    code, out, err = run("sweep", DUEL, *TWO, "--vary", "max_rounds=5..6", "--runs", 1)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "error: --vary given 3 times; a sweep varies one value, or two as a grid"
    ]
    code, out, err = run("sweep", DUEL, *TWO, "--target", 0.5, "--runs", 1)
    assert (code, err.splitlines()) == (
        2,
        ["error: --target bisects one --vary; give one --vary with --target"],
    )
    code, out, err = run(
        "sweep", DUEL, "--vary", "combatants.ilse.hp=1..2", "--vary", "combatants.ilse.hp=3..4",
        "--runs", 1,
    )  # fmt: skip
    assert code == 2 and "given twice" in err and len(err.splitlines()) == 1


def test_target_reports_the_fair_range() -> None:
    """Issue 36, item 7: ``--target 0.5`` gave a bracket of two neighbours while the intervals
    fit a wider range. The fair range is every value around the crossing whose 95% interval
    holds the target: each value in it was fought (a row of the probes' table) and holds it,
    its neighbours inside the range were fought and do not. (The JSON's ``fair`` is checked
    against the page in tests/test_report.py.)"""
    code, out, err = run(
        "sweep", DUEL, "--vary", "combatants.tomas.hp=20..45", "--target", 0.5, "--runs", 12
    )
    assert code == 0, err
    interval = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 7 and cells[0].isdigit():
            low, high = (float(x) / 100 for x in cells[3].rstrip("%").split("-"))
            interval[int(cells[1])] = (low, high)
    said = re.search(r"fair range: combatants\.tomas\.hp=(\d+)\.\.(\d+), every value whose", out)
    assert said is not None, out
    first, last = int(said[1]), int(said[2])

    def holds(v: int) -> bool:
        return interval[v][0] <= 0.5 <= interval[v][1]

    assert all(holds(v) for v in range(first, last + 1))
    assert (first == 20 or not holds(first - 1)) and (last == 45 or not holds(last + 1))
    assert last - first >= 1  # 12 seeds cannot tell neighbours apart
