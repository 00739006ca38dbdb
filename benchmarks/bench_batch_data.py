"""``batch --jobs 1`` fights per second, this tree against an older checkout, in one run: what
the per-fight data of issue 36 (hit points and damage by round, hits and misses per attack
kind, hit points left, read in the worker from each fight's events) costs a batch.

    python -m venv ../base-venv && ../base-venv/bin/pip install -e ../initiative-base
    nice -n 10 python benchmarks/bench_batch_data.py --baseline-python ../base-venv/bin/python

Each side runs its own installed ``initiative batch ENCOUNTER --runs N --jobs 1 --json`` (the
same seeds, so the same fights), alternating, and keeps the best of ``--repeat`` rates (the
command's own ``per_second``: fights over the time of the fighting); the machine may be shared,
so ``uptime``'s load is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).parents[1]


def rate(python: str, encounter: Path, runs: int, folder: str) -> float:
    """The command's own fights per second, with the ``initiative`` beside ``python``."""
    command = [str(Path(python).parent / "initiative"), "batch", str(encounter)]
    command += ["--runs", str(runs), "--jobs", "1", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=folder)
    return float(json.loads(done.stdout)["per_second"])


#: Fights through ``fight_one`` (what a worker runs per fight) in CPU time: less sensitive to a
#: shared machine than the wall-clock rate, and the same code in both trees.
CPU = """
import sys, time
from initiative.batch import fight_one
from initiative.engine import load_encounter
spec = load_encounter(sys.argv[1])
fight_one(spec, 0, {})
start = time.process_time()
for seed in range(1, int(sys.argv[2]) + 1):
    fight_one(spec, seed, {})
print(int(sys.argv[2]) / (time.process_time() - start))
"""


def cpu_rate(python: str, encounter: Path, runs: int, folder: str) -> float:
    """Fights per CPU second through ``fight_one`` in one process."""
    command = [python, "-c", CPU, str(encounter), str(runs)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=folder)
    return float(done.stdout)


#: The same engine, the old ``batch/_fight.py`` (its ``fight_one`` and the reader of events it
#: had) against this tree's, alternating in one process: what the new reading alone costs.
AB = """
import importlib.util, sys, time
from initiative.batch import _fight as new
from initiative.engine import load_encounter
found = importlib.util.spec_from_file_location("old_fight", sys.argv[3])
old = importlib.util.module_from_spec(found)
sys.modules["old_fight"] = old
found.loader.exec_module(old)
spec = load_encounter(sys.argv[1])
runs, repeat = int(sys.argv[2]), int(sys.argv[4])
old.fight_one(spec, 0, {}); new.fight_one(spec, 0, {})
best = {"old": 1e9, "new": 1e9}
for _ in range(repeat):
    for name, module in (("old", old), ("new", new)):
        start = time.process_time()
        for seed in range(1, runs + 1):
            module.fight_one(spec, seed, {})
        best[name] = min(best[name], time.process_time() - start)
print(runs / best["old"], runs / best["new"])
"""


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-python", required=True, help="a Python with the old tree")
    parser.add_argument("--encounter", type=Path, default=ROOT / "examples/openings-skirmish.toml")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--old-fight",
        type=Path,
        help="the older tree's batch/_fight.py: also its fight_one against this one's, in one"
        " process on this tree's engine",
    )
    args = parser.parse_args()
    pythons = {"this tree": sys.executable, "baseline": args.baseline_python}
    best = {(n, kind): 0.0 for n in pythons for kind in ("wall", "cpu")}
    print(f"load before: {load()}")
    with tempfile.TemporaryDirectory() as folder:  # neither checkout's folders shadow the other
        for _ in range(args.repeat):
            for name, python in pythons.items():
                wall = rate(python, args.encounter, args.runs, folder)
                cpu = cpu_rate(python, args.encounter, args.runs, folder)
                best[name, "wall"] = max(best[name, "wall"], wall)
                best[name, "cpu"] = max(best[name, "cpu"], cpu)
    print(f"load after: {load()}")
    for kind, what in (("wall", "batch --jobs 1, its own rate"), ("cpu", "fight_one, CPU time")):
        for name in pythons:
            value = best[name, kind]
            print(f"{what}: {name} {value:,.1f} fights/s (best of {args.repeat} x {args.runs})")
        ratio = best["this tree", kind] / best["baseline", kind]
        print(f"{what}: this tree / baseline {ratio:.3f}")
    if args.old_fight is not None:
        command = [sys.executable, "-c", AB, str(args.encounter), str(args.runs)]
        command += [str(args.old_fight), str(args.repeat)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        before, after = map(float, done.stdout.split())
        print(f"fight_one, the old reader and the new on one engine: {before:,.1f} and")
        print(f"  {after:,.1f} fights per CPU second; new / old {after / before:.3f}")
        print(f"load at the end: {load()}")


if __name__ == "__main__":
    main()
