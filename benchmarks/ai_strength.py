"""How strong the built-in policies are: each against ``first`` (take the first legal offer) on
every bundled example, as a league of two (``initiative league``'s library).

Each pairing is fought on ``--runs`` seeds, each seed twice with the sides swapped (so 50 seeds
are 100 duels); ``lookahead`` and ``search`` are slow, so they play ``--lookahead-runs`` and
``--search-runs`` seeds (``benchmarks/search_strength.py`` measures ``search`` at length). Prints a Markdown
table: the built-in's wins, losses and undecided games against ``first``, the paired sign
test's p (exact, two-sided, over the seeds where one did better), and the CPU microseconds per
decision of the built-in and of ``first``, timed in this process on ``--cost-seeds`` seeds
(both ways), apart from the league's fights. The machine's load (``uptime``) is printed before
and after: quote it beside the figures.

    python benchmarks/ai_strength.py [--runs 50] [--lookahead-runs 10] [--search-runs 10]
        [--jobs 2] [--policies aggressive tactician ...]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from initiative.analysis._league import decision_cost, play_league

ROOT = Path(__file__).parents[1]
POLICIES = ["aggressive", "tactician", "cautious", "lookahead", "search"]
SLOW = ("lookahead", "search")
"""Policies timed on one seed (a decision costs tens of milliseconds)."""


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50, help="seeds per pairing (x2 duels)")
    parser.add_argument("--lookahead-runs", type=int, default=10, help="seeds for lookahead")
    parser.add_argument("--search-runs", type=int, default=10, help="seeds for search")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cost-seeds", type=int, default=2, help="seeds timed per decision")
    parser.add_argument("--policies", nargs="+", default=POLICIES)
    args = parser.parse_args()
    print(f"# before: {load()}")
    started = time.perf_counter()
    print(
        "| example | policy | seeds | W-L-U against first | p | µs/decision | first µs/decision |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for example in sorted((ROOT / "examples").glob("*.toml")):
        for policy in args.policies:
            runs = {"lookahead": args.lookahead_runs, "search": args.search_runs}.get(
                policy, args.runs
            )
            league = play_league([example], [policy, "first"], runs, jobs=args.jobs)
            (record,) = league.pairings()
            seeds = range(1, 1 + (1 if policy in SLOW else args.cost_seeds))
            mine = decision_cost(example, policy, "first", seeds)
            theirs = decision_cost(example, "first", policy, seeds)
            print(
                f"| {example.stem} | {policy} | {runs} |"
                f" {record.wins}-{record.losses}-{record.undecided} | {record.p:.3g} |"
                f" {mine:,.0f} | {theirs:,.0f} |",
                flush=True,
            )
    print(f"# after: {load()}; {time.perf_counter() - started:.0f} s in all, {args.jobs} jobs")


if __name__ == "__main__":
    main()
