"""A policy from a file against a built-in of the same cost: ``batch --jobs 1`` fights per
second on ``examples/openings-skirmish.toml``, every combatant played by ``aggressive``
itself, by a file policy that calls it (plain code: played in line, as the built-ins are), and
by the same file policy saying ``in_line = False`` (a thread per combatant under the Trio
actors, which is how every file policy played before plain ones went in line). One run, the
same seeds; fights per second of wall time and per second of this process's CPU time (its
threads included: the fair figure on a loaded machine); the load printed before and after.

    nice -n 10 python benchmarks/file_policy.py [--runs 200] [--example openings-skirmish]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from initiative.batch import Task, run_batch
from initiative.engine import load_encounter

ROOT = Path(__file__).parents[1]
SOURCE = """from initiative.actors import aggressive


def policy(view):
    return aggressive(view)


def threaded(view):
    return aggressive(view)


threaded.in_line = False
"""


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--example", default="openings-skirmish")
    args = parser.parse_args()
    path = ROOT / "examples" / f"{args.example}.toml"
    sides = load_encounter(path).sides
    print(f"# before: {load()}")
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "mine.py"
        file.write_text(SOURCE)
        rates = {}
        for label, name in [
            ("built-in aggressive", "aggressive"),
            ("file policy (plain: in line)", f"{file}:policy"),
            ("file policy, in_line = False (thread)", f"{file}:threaded"),
        ]:
            tasks = [
                Task(seed=s, policies=tuple((side, name) for side in sides))
                for s in range(1, args.runs + 1)
            ]
            run_batch(path, tasks[:2])  # imports and first-use costs out of the clock
            started, cpu = time.perf_counter(), time.process_time()
            results = run_batch(path, tasks)
            wall = time.perf_counter() - started
            rates[label] = (len(results) / wall, len(results) / (time.process_time() - cpu))
            assert not any(r.faults for r in results), label
        base = rates["built-in aggressive"]
        for label, (rate, cpu) in rates.items():
            print(
                f"{args.example}: {label}: {rate:.1f} fights/s, {cpu:.1f} per CPU second"
                f" ({cpu / base[1]:.2f} of the built-in's)"
            )
    print(f"# after: {load()}")


if __name__ == "__main__":
    main()
