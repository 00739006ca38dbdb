"""What the live odds (``serve --gm-odds``) cost: CPU seconds per decision of a recorded fight.

Each bundled example named below is run with its file's policies and a seed, and the odds are
computed at every decision of its log (the log cut just after each ``PriorityGranted``, as the
server's odds process sees it), with the default budget (32 rollouts by ``tactician``). Prints
per fight the decisions, the mean, median and largest CPU time per decision; quote ``uptime``
beside the figures. Usage: ``nice -n 10 python benchmarks/odds_cost.py [--rollouts 32]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from initiative.events import parse_log
from initiative.replays import Budget, odds

ROOT = Path(__file__).resolve().parents[1]

FIGHTS = [("openings-duel", 7), ("thriller-ambush", 2), ("tactical-bridge", 11)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=32)
    args = parser.parse_args()
    budget = Budget(rollouts=args.rollouts)
    with tempfile.TemporaryDirectory() as tmp:
        for name, seed in FIGHTS:
            log = Path(tmp) / f"{name}.jsonl"
            subprocess.run(
                [sys.executable, "-m", "initiative", "run", str(ROOT / "examples" / f"{name}.toml"),
                 "--seed", str(seed), "--out", str(log), "-q"],
                check=True, capture_output=True,
            )  # fmt: skip
            lines = log.read_bytes().splitlines(keepends=True)
            cuts = [i + 1 for i, line in enumerate(lines) if b'"type":"PriorityGranted"' in line]
            spent = []
            for cut in cuts:
                contents = parse_log(b"".join(lines[:cut]), name=str(log))
                start = time.process_time()
                odds(contents, budget)
                spent.append(time.process_time() - start)
            print(
                f"{name} seed {seed}: {len(cuts)} decisions, CPU per decision: mean"
                f" {statistics.mean(spent):.3f} s, median {statistics.median(spent):.3f} s,"
                f" largest {max(spent):.3f} s ({args.rollouts} rollouts)",
                flush=True,
            )


if __name__ == "__main__":
    main()
