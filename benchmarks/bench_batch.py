"""Encounters per second of ``initiative batch`` with one job and with ``--jobs 2``.

Runs the installed command on the same seeds both ways (so the work is identical: batch results
do not depend on ``--jobs``), alternating the two a few times and keeping the best of each
(the machine may be shared), and prints each rate and their ratio. The rate is the command's own
figure: encounters over the wall-clock time of the fighting (from the first encounter handed
out to the last one finished, worker start-up included when it is not yet done). The whole
command's wall time (start-up, imports and printing included) is compared too.

As a control, the same run measures what two processes get out of this machine at that moment:
a pure-Python loop run once alone and then twice at the same time; the ratio of the work done
per second is the ceiling any ``--jobs 2`` figure can reach (2.0 on two idle cores, less when
other programs take CPU time). ``uptime``'s load is printed before and after.

    python benchmarks/bench_batch.py [ENCOUNTER.toml] [--runs N] [--repeat N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
RATE = re.compile(r"(\d+) encounters in ([\d.]+) s \(([\d,.]+) per second, (\d+) job")


def rate(encounter: Path, runs: int, jobs: int) -> tuple[float, float]:
    """The command's own encounters per second, and the whole command's wall time."""
    command = [
        str(Path(sys.executable).parent / "initiative"),
        "batch",
        str(encounter),
        "--runs",
        str(runs),
        "--jobs",
        str(jobs),
    ]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    found = RATE.search(done.stdout)
    assert found, done.stdout
    return int(found[1]) / float(found[2]), wall


def _spin(seconds: float, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """Count loop turns for ``seconds`` of wall time."""
    end = time.perf_counter() + seconds
    turns = 0
    while time.perf_counter() < end:
        for _ in range(10_000):
            turns += 1
    out.put(turns)


def control(seconds: float = 1.5) -> float:
    """Work per second of two pure-Python processes at once over that of one alone."""
    context = multiprocessing.get_context("spawn")
    results = []
    for count in (1, 2):
        out = context.Queue()
        procs = [context.Process(target=_spin, args=(seconds, out)) for _ in range(count)]
        for p in procs:
            p.start()
        results.append(sum(out.get() for _ in procs))
        for p in procs:
            p.join()
    return results[1] / results[0]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "encounter", nargs="?", default=ROOT / "examples" / "openings-skirmish.toml"
    )
    # A batch long enough that the workers' start-up (about half a second, while the command
    # fights alone) is not what is measured: people run thousands of encounters, and 300 of
    # the skirmish now take under six seconds with one job.
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="Alternate rounds; best kept.")
    args = parser.parse_args()
    print(f"load before: {load()}")
    ones, twos, controls = [], [], []
    for _ in range(args.repeat):  # alternated, so a busy moment of the machine hits both
        controls.append(control())
        ones.append(rate(Path(args.encounter), args.runs, 1))
        twos.append(rate(Path(args.encounter), args.runs, 2))
    one, two = max(r for r, _ in ones), max(r for r, _ in twos)
    wall_one, wall_two = min(w for _, w in ones), min(w for _, w in twos)
    print(f"encounter: {Path(args.encounter).name}, {args.runs} encounters, {os.cpu_count()} cores")
    print(f"--jobs 1: {one:8.1f} encounters/s   whole command {wall_one:6.2f} s")
    print(f"--jobs 2: {two:8.1f} encounters/s   whole command {wall_two:6.2f} s")
    print(f"ratio:    {two / one:8.2f}x (whole command {wall_one / wall_two:.2f}x)")
    print(
        "control:  two pure-Python loops at once do "
        + ", ".join(f"{c:.2f}" for c in controls)
        + "x the work of one (the ceiling now)"
    )
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
