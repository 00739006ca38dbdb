"""Encounters per second of ``initiative batch`` with one job and with ``--jobs 2``.

Runs the installed command on the same seeds both ways (so the work is identical: batch results
do not depend on ``--jobs``), alternating the two a few times and keeping the best of each
(the machine may be shared), and prints each rate and their ratio. The rate is the command's own
figure: encounters over the wall-clock time of the fighting, worker start-up included.

    python benchmarks/bench_batch.py [ENCOUNTER.toml] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
RATE = re.compile(r"(\d+) encounters in ([\d.]+) s \(([\d,.]+) per second, (\d+) job")


def rate(encounter: Path, runs: int, jobs: int) -> float:
    command = [
        str(Path(sys.executable).parent / "initiative"),
        "batch",
        str(encounter),
        "--runs",
        str(runs),
        "--jobs",
        str(jobs),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = RATE.search(done.stdout)
    assert found, done.stdout
    return int(found[1]) / float(found[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "encounter", nargs="?", default=ROOT / "examples" / "openings-skirmish.toml"
    )
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3, help="Alternate rounds; best kept.")
    args = parser.parse_args()
    ones, twos = [], []
    for _ in range(args.repeat):  # alternated, so a busy moment of the machine hits both
        ones.append(rate(Path(args.encounter), args.runs, 1))
        twos.append(rate(Path(args.encounter), args.runs, 2))
    one, two = max(ones), max(twos)
    print(f"encounter: {Path(args.encounter).name}, {args.runs} encounters, {os.cpu_count()} cores")
    print(f"--jobs 1: {one:8.1f} encounters/s")
    print(f"--jobs 2: {two:8.1f} encounters/s")
    print(f"ratio:    {two / one:8.2f}x")


if __name__ == "__main__":
    main()
