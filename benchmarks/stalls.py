"""How often fights run to ``max_rounds``: every bundled example, every pairing of built-in
policies (one on each side, both ways round), ``--runs`` seeds each; ``search`` and
``lookahead`` (tens of milliseconds a decision) on ``--slow-runs`` seeds against ``first`` and
``tactician`` only.

Prints a Markdown table per example and policy pairing: fights, how many reached
``max_rounds`` undecided, how many of those were stalls (``batch``'s reading: no hit points
changed in the last 10 rounds), in how many someone withdrew (``CombatantLeft`` with reason
``withdrew``: the rule of ``withdraw_turns``), and the mean rounds; then the totals. The machine's load (``uptime``) is
printed before and after: quote it beside the figures.

    nice -n 10 python benchmarks/stalls.py [--runs 200] [--slow-runs 6] [--jobs 2]
        [--examples openings-skirmish ...] [--policies first aggressive ...]
"""

from __future__ import annotations

import argparse
import os
import time
from itertools import product
from multiprocessing import Pool
from pathlib import Path

from initiative.batch import FightStats
from initiative.engine import load_encounter
from initiative.events import CombatantLeft

import initiative

ROOT = Path(__file__).parents[1]
FAST = ["first", "random", "aggressive", "cautious", "tactician"]
SLOW = ["lookahead", "search"]
SLOW_AGAINST = ["first", "tactician"]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def pairings(policies: list[str], slow: list[str]) -> list[tuple[str, str, bool]]:
    """(side A's policy, side B's policy, slow?) for every pairing to fight."""
    out = [(a, b, False) for a, b in product(policies, policies)]
    for s in slow:
        for other in SLOW_AGAINST:
            out += [(s, other, True), (other, s, True)]
    return out


def fight(task: tuple[str, int, dict[str, str]]) -> tuple[int, bool, bool, bool]:
    """One fight: its rounds, whether it reached ``max_rounds`` undecided, whether that was a
    stall (``batch``'s own reading: no hit points changed, nobody joined, fell or left, in its
    last 10 rounds), and whether anyone withdrew."""
    path, seed, policies = task
    spec = load_encounter(path)
    result = initiative.run(spec, seed, policies=policies)
    stats = FightStats(spec)
    withdrew = False
    for e in result.events:
        stats.see(e)
        if isinstance(e, CombatantLeft) and e.reason == "withdrew":
            withdrew = True
    at_max = result.winner is None and result.rounds >= spec.max_rounds
    return result.rounds, at_max, at_max and stats.stalemate, withdrew


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="seeds per fast pairing")
    parser.add_argument("--slow-runs", type=int, default=6, help="seeds per slow pairing")
    parser.add_argument("--seed-start", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--examples", nargs="+", default=None)
    parser.add_argument("--policies", nargs="*", default=FAST)
    parser.add_argument("--slow", nargs="*", default=SLOW)
    args = parser.parse_args()
    print(f"# before: {load()}")
    started = time.perf_counter()
    examples = sorted((ROOT / "examples").glob("*.toml"))
    if args.examples:
        examples = [e for e in examples if e.stem in args.examples]
    print("| example | A | B | fights | at max_rounds | stalled | withdrew | rounds mean |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    totals: dict[bool, list[int]] = {False: [0, 0, 0, 0, 0], True: [0, 0, 0, 0, 0]}
    with Pool(args.jobs) as pool:
        for example in examples:
            spec = load_encounter(example)
            first, second = spec.sides[0], spec.sides[1]
            for a, b, slow in pairings(args.policies, args.slow):
                runs = args.slow_runs if slow else args.runs
                seeds = range(args.seed_start, args.seed_start + runs)
                tasks = [(str(example), s, {first: a, second: b}) for s in seeds]
                results = pool.map(fight, tasks, chunksize=max(1, runs // (4 * args.jobs)))
                row = (
                    len(results),
                    sum(r[1] for r in results),
                    sum(r[2] for r in results),
                    sum(r[3] for r in results),
                    sum(r[0] for r in results),
                )
                t = totals[slow]
                for i, v in enumerate(row):
                    t[i] += v
                print(
                    f"| {example.stem} | {a} | {b} | {row[0]} | {row[1]} | {row[2]}"
                    f" | {row[3]} | {row[4] / row[0]:.1f} |",
                    flush=True,
                )
    for slow, (n, at_max, stalled, withdrew, rounds) in totals.items():
        if n:
            kind = "lookahead and search" if slow else "the fast built-ins"
            print(
                f"\n{kind}: {n} fights, {at_max} at max_rounds ({stalled} stalled),"
                f" {withdrew} with a withdrawal, rounds mean {rounds / n:.2f}"
            )
    print(f"\n# after: {load()}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
