"""``initiative compare``: variants of an encounter on the same seeds, through the command (in
this process; see cli_support), its JSON and its CSV read back."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import cli_support
import pytest

from tests.helpers import DUEL


def variant(tmp: Path, name: str, old: str, new: str) -> Path:
    """The duel with one line changed, written as ``name``."""
    text = DUEL.read_text()
    assert old in text
    path = tmp / name
    path.write_text(text.replace(old, new, 1))
    return path


def sign_test(k: int, m: int) -> float:
    """Exact two-sided binomial p of ``k`` of ``m`` discordant seeds (written again here)."""
    if m == 0:
        return 1.0
    low = min(k, m - k)
    return min(1.0, 2 * sum(math.comb(m, i) for i in range(low + 1)) / 2**m)


def test_compare_pairs_the_seeds_and_tests_the_discordant_ones(tmp_path: Path) -> None:
    """Reproduction 5 (``batch a.toml b.toml`` was refused; no paired comparison): Tomas with 22
    and with 34 hit points on seeds 1-12. Each variant's wins equal ``batch`` on its file over
    the same seeds; the paired counts and p are those of the fights' CSV rows, seed by seed
    (an exact sign test over the seeds a side won in one variant only)."""
    tough = variant(tmp_path, "tough.toml", "hp = 22", "hp = 34")
    fights = tmp_path / "fights.csv"
    done = cli_support.run(
        "compare", DUEL, tough, "--runs", 12, "--json", "--csv", fights, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [v["label"] for v in data["variants"]] == ["A", "B"]
    for v, path in zip(data["variants"], (DUEL, tough), strict=True):
        alone = cli_support.run("batch", path, "--runs", 12, "--json")
        assert [s["wins"] for s in v["sides"]] == [
            s["wins"] for s in json.loads(alone.stdout)["sides"]
        ]
    with open(fights, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 24 and {r["variant"] for r in rows} == {"A", "B"}
    winner = {(r["variant"], int(r["seed"])): r["winner"] for r in rows}
    pair = data["pairs"][0]
    assert (pair["first"], pair["second"], pair["seeds"]) == ("A", "B", 12)
    for s in pair["sides"]:
        side = s["side"]
        a_only = sum(winner["A", n] == side != winner["B", n] for n in range(1, 13))
        b_only = sum(winner["B", n] == side != winner["A", n] for n in range(1, 13))
        wins = s["wins"]
        assert (wins["first_only"], wins["second_only"]) == (a_only, b_only)
        assert wins["p"] == pytest.approx(sign_test(a_only, a_only + b_only))
        assert wins["difference"] == pytest.approx((b_only - a_only) / 12, abs=1e-4)
        low, high = wins["ci95"]
        assert -1 <= low <= wins["difference"] <= high <= 1
    assert "McNemar" in data["test"]
    south = next(s for s in pair["sides"] if s["side"] == "south")
    assert south["wins"]["second"] > south["wins"]["first"]  # a tougher Tomas wins more


def test_a_combatant_in_one_variant_only_is_said_so(tmp_path: Path) -> None:
    """Without the hound, B has no ``hound``: its row says it is only in A, and the terminal
    says so too; the others are matched by id."""
    text = DUEL.read_text()
    start = text.index('[[combatants]]\nid = "hound"')
    alone = tmp_path / "no-hound.toml"
    alone.write_text(text[:start])
    done = cli_support.run("compare", DUEL, alone, "--runs", 3, "--json")
    assert done.returncode == 0, done.stderr
    rows = {c["id"]: c for c in json.loads(done.stdout)["pairs"][0]["combatants"]}
    assert rows["hound"]["in"] == "A" and rows["hound"]["survived"] is None
    assert rows["ilse"]["in"] == "both" and rows["ilse"]["damage_dealt"]["n"] == 3
    shown = cli_support.run("compare", DUEL, alone, "--runs", 3)
    assert shown.returncode == 0 and "only in A" in shown.stdout


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: [DUEL], "compare needs two encounter files or more"),
        (
            lambda tmp: [DUEL, variant(tmp, "sides.toml", 'side = "north"', 'side = "west"')],
            "sides.toml: its sides (west, south) are not those of",
        ),
        (lambda tmp: [DUEL, variant(tmp, "broken.toml", "hp = 22", "hp = ")], "broken.toml"),
    ],
    ids=["one file", "other sides", "broken file"],
)
def test_variants_that_cannot_be_compared_are_one_line(tmp_path: Path, make, says) -> None:  # type: ignore[no-untyped-def]
    """One file, variants whose sides differ, and a malformed variant are each refused in one
    line that names the file, with exit 2 and no fight."""
    done = cli_support.run("compare", *make(tmp_path), "--runs", 2)
    assert (done.returncode, done.stdout) == (2, "")
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], lines


def test_policy_overrides_apply_to_every_variant(tmp_path: Path) -> None:
    """``--policy south=first`` plays in both variants (the CSV's policy column), and a key
    that names nothing in a variant is refused naming that file."""
    tough = variant(tmp_path, "tough.toml", "hp = 22", "hp = 34")
    fights = tmp_path / "f.csv"
    done = cli_support.run(
        "compare", DUEL, tough, "--runs", 2, "--policy", "south=first", "--csv", fights
    )
    assert done.returncode == 0, done.stderr
    with open(fights, newline="", encoding="utf-8") as f:
        assert {r["policy_south"] for r in csv.DictReader(f)} == {"first"}
    bad = cli_support.run("compare", DUEL, tough, "--runs", 2, "--policy", "tomass=first")
    assert bad.returncode == 2 and "tomass" in bad.stderr and "did you mean" in bad.stderr


@pytest.mark.slow
def test_jobs_give_the_same_comparison(tmp_path: Path) -> None:
    """``--jobs 2`` fights each variant in worker processes: the same figures as one job."""
    tough = variant(tmp_path, "tough.toml", "hp = 22", "hp = 34")

    def figures(*more: object) -> dict[str, object]:
        done = cli_support.run("compare", DUEL, tough, "--runs", 6, "--json", *more)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        return {"variants": data["variants"], "pairs": data["pairs"]}

    assert figures("--jobs", "2") == figures()
