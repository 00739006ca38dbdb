"""Win rates of the built-in policies against each other on the example encounters.

Each pair plays ``initiative duel`` (``--runs N``: N games, N/2 seeds each fought both ways;
results stored with ``--db``); prints a Markdown table: A's wins, B's wins, no winner, A's win rate with its Wilson
95% interval, and the two-sided sign test's p.

    python benchmarks/policy_table.py [--runs N] [--lookahead-runs M] [--jobs J]
"""

from __future__ import annotations

import argparse
import itertools
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from initiative.batch import sign_test, wilson

ROOT = Path(__file__).parents[1]
POLICIES = ["aggressive", "cautious", "tactician", "random", "lookahead"]


def wins(db: Path, a: str, b: str) -> tuple[int, int]:
    """Wins of A and of B: the winning side's policy, from each stored row's re-run command."""
    count = {a: 0, b: 0}
    con = sqlite3.connect(db)
    for winner, rerun in con.execute("SELECT winner, rerun FROM encounters"):
        if winner is not None:
            chosen = dict(pair.split("=", 1) for pair in re.findall(r"--policy (\S+)", rerun))
            count[chosen[winner]] += 1
    con.close()
    return count[a], count[b]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--lookahead-runs", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    exe = str(Path(sys.executable).parent / "initiative")
    print("| encounter | A | B | A wins | B wins | no winner | A's rate (95% CI) | p |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for encounter in sorted((ROOT / "examples").glob("*.toml")):
        for a, b in itertools.combinations(POLICIES, 2):
            seeds = max(1, (args.lookahead_runs if "lookahead" in (a, b) else args.runs) // 2)
            runs = 2 * seeds  # games: duel fights each seed both ways
            with tempfile.TemporaryDirectory() as scratch:
                db = Path(scratch) / "duel.sqlite"
                command = [exe, "duel", str(encounter), "--policies", a, b, "--runs", str(seeds)]
                command += ["--jobs", str(args.jobs), "--db", str(db)]
                subprocess.run(command, capture_output=True, text=True, check=True)
                wa, wb = wins(db, a, b)
            low, high = wilson(wa, runs)
            print(
                f"| {encounter.stem} | {a} | {b} | {wa} | {wb} | {runs - wa - wb} |"
                f" {100 * wa / runs:.1f}% ({100 * low:.1f}-{100 * high:.1f}%) |"
                f" {sign_test(wa, wb):.3g} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
