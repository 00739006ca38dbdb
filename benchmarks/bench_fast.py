"""The fast engine's figures, each a ratio measured in one run (against an older commit where
the target says so).

    git worktree add ../initiative-base 06061ef        # once: the commit to compare against
    python benchmarks/bench_fast.py --baseline ../initiative-base [--quick]

Each figure runs this same file as a worker in a subprocess, so both versions run the same
measuring code through APIs both have (``initiative.run``). This checkout's worker runs with the
Python running this script, where the checkout must be installed (``pip install -e .``: its
folders import as ``initiative.engine``, ...); the baseline's worker runs with ``PYTHONPATH``
pointing at the baseline checkout, whose folders import as top-level ``engine``, .... Workers alternate between the
two trees and the best of the repeats is kept, since the machine may be shared; quote the
machine's load (``uptime``) beside any figure.

1. 4v4 melee fights per second through the library with the log written (``initiative.run``):
   this tree against the baseline.                                             target >= 8x
2. Decisions per second through the Trio executor (a task per combatant) against a bare Trio
   round trip with the same number of tasks.                                   target >= 0.5
3. Cost per decision at 1,000 combatants against 8 (two lines of melee fighters, one round;
   whole fights through the library until 2,000 decisions were made, so fixed costs per fight
   are spread as they are in use), and the peak memory (max RSS) of the process that fought
   the 1,000.         target <= 2x,
                                                                               < 100 MB
4. ``state``'s fold (parse + fold) against typed msgspec decoding (a ``Decoder`` of the event
   union) of the same log.                                                     target >= 0.5
   Beside it, the fold alone (``engine.fold`` of the parsed events) in ns per event.
5. ``lookahead``: microseconds per decision against the baseline.              target >= 20x
6. ``initiative --help`` start-up against ``python -c "import trio, msgspec, structlog"``.
                                                                               target <= 1.5x

Issue 26's figures (each this tree against the baseline, alternating, the best of each):

7. ``batch``: ``initiative batch`` of the 4v4 with ``--jobs 1``, the command's own fights/s;
   beside it the rate in CPU time and the events per fight of each tree.       target >= 1.6x
8. ``run``: ``initiative.run(path, seed, out=...)`` in a loop, the encounter given as its
   file.                                                                       target >= 2x
9. ``env``: environment steps per second (CPU time), the AEC environment on the 4v4, every
   agent playing the first valid action.                                       target >= 1.5x
10. ``cluster`` (this tree only, asked for by name): ``batch --cluster local:2`` against
    ``--jobs 2`` over 2,000 runs of the 4v4 (500 with ``--quick``).             target >= 0.9

A baseline checkout with a ``.venv`` of its own (``python -m venv .venv && .venv/bin/pip
install -e '.[env]'`` in it) runs its workers with that Python; one without runs them with
this Python and ``PYTHONPATH`` (the flat layout of older commits).

With ``fights`` and a baseline it also prints the floor under the first figure: what the log
alone costs per fight, whatever engine made it. The same 4v4 fights' events are made again
from their fields, encoded, chained (the pinned BLAKE2b chain) and written, with no rules, no
decisions and no state; that time is set against the 8x budget, one eighth of the baseline's
time per fight.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


# --- workers (run in a subprocess under the tree being measured) -------------------------------


def _package(name: str):  # type: ignore[no-untyped-def]
    """``initiative.<name>`` of the tree being measured (top-level ``<name>`` in a baseline
    checkout from before the folders were installed under ``initiative``)."""
    import importlib

    if os.environ.get("BENCH_FLAT_LAYOUT"):
        return importlib.import_module(name)
    return importlib.import_module(f"initiative.{name}")


def _quiet() -> None:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))


def _spec(per_side: int, *, rounds: int = 30, policy: str = "aggressive"):  # type: ignore[no-untyped-def]
    from _encounters import melee_lines

    engine = _package("engine")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lines.toml"
        path.write_text(melee_lines(per_side, max_rounds=rounds, policy=policy))
        return engine.load_encounter(path)


def worker_fights(count: int) -> dict[str, float]:
    import initiative

    _quiet()
    spec = _spec(4)
    with tempfile.TemporaryDirectory() as tmp:
        # Warm up: a first fight pays for imports a tree may make on first use (the baseline
        # makes them when ``initiative`` is imported), which are no fight's cost.
        initiative.run(spec, count, out=Path(tmp) / "warm-up.jsonl")
        Path(tmp, "warm-up.jsonl").unlink()
        start = time.perf_counter()
        for seed in range(count):
            initiative.run(spec, seed, out=Path(tmp) / f"{seed}.jsonl")
        seconds = time.perf_counter() - start
        logs = hashlib.blake2b(b"".join(p.read_bytes() for p in sorted(Path(tmp).iterdir())))
    return {"fights_per_s": count / seconds, "logs": logs.hexdigest()}  # type: ignore[dict-item]


def worker_floor(count: int) -> dict[str, float]:
    """The log's own work for the fights ``worker_fights`` plays: each event made again from
    its fields, encoded, chained and the lines written to a file, one file per fight."""
    import msgspec

    import initiative

    engine = _package("engine")
    _quiet()
    spec = _spec(4)
    fields = [
        [(type(e), {f: getattr(e, f) for f in e.__struct_fields__}) for e in r.events]
        for r in (initiative.run(spec, seed) for seed in range(count))
    ]
    encode = msgspec.json.Encoder().encode
    chain_step = engine.chain_step
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(3):
            start = time.perf_counter()
            for seed, events in enumerate(fields):
                chain = bytes(32)
                lines = []
                for kind, values in events:
                    line = encode(kind(**values)) + b"\n"
                    chain = chain_step(chain, line)
                    lines.append(line)
                with open(Path(tmp) / f"{seed}.jsonl", "wb") as out:
                    out.write(b"".join(lines))
            best = min(best, time.perf_counter() - start)
    events = sum(map(len, fields))
    return {"us_per_fight": best / count * 1e6, "events_per_fight": events / count}


def worker_lookahead(count: int) -> dict[str, float]:
    import initiative

    _quiet()
    spec = _spec(2, rounds=4)
    policies = {"red0": "lookahead", "red1": "lookahead"}
    decisions = 0
    seconds = 0.0
    for seed in range(count):
        start = time.perf_counter()
        result = initiative.run(spec, seed, policies=policies)
        seconds += time.perf_counter() - start
        decisions += sum(
            type(e).__name__ == "PriorityGranted" and e.who in policies for e in result.events
        )
    return {"us_per_lookahead_decision": seconds / decisions * 1e6}


def worker_scale(per_side: int) -> dict[str, float]:
    import resource

    import initiative

    PriorityGranted = _package("events").PriorityGranted

    _quiet()
    spec = _spec(per_side, rounds=1)
    initiative.run(_spec(2, rounds=1), 1)  # warm up: first-call costs are not per decision
    # Whole one-round fights (seeds 1, 2, ...) until at least 2,000 decisions were made, so
    # the small fight's figure is not one fight's start-up over a handful of decisions.
    decisions = 0
    seconds = 0.0
    seed = 0
    while decisions < 2000:
        seed += 1
        start = time.perf_counter()
        result = initiative.run(spec, seed)
        seconds += time.perf_counter() - start
        decisions += sum(isinstance(e, PriorityGranted) for e in result.events)
    return {
        "us_per_decision": seconds / decisions * 1e6,
        "decisions": decisions,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def worker_trio(count: int) -> dict[str, float]:
    import trio

    run_encounter = _package("actors").run_encounter
    PriorityGranted = _package("events").PriorityGranted

    _quiet()
    spec = _spec(4)
    tasks = len(spec.combatants)

    async def fights() -> tuple[int, float]:
        decisions = 0
        start = time.perf_counter()
        for seed in range(count):
            result = await run_encounter(spec, seed, executor="trio")
            decisions += sum(isinstance(e, PriorityGranted) for e in result.events)
        return decisions, time.perf_counter() - start

    async def round_trips(trips: int) -> float:
        start = time.perf_counter()
        async with trio.open_nursery() as nursery:
            links = []
            for _ in range(tasks):
                token_tx, token_rx = trio.open_memory_channel[object](0)
                reply_tx, reply_rx = trio.open_memory_channel[object](0)

                async def echo(rx=token_rx, tx=reply_tx) -> None:  # type: ignore[no-untyped-def]
                    async with rx, tx:
                        async for token in rx:
                            await tx.send(token)

                nursery.start_soon(echo)
                links.append((token_tx, reply_rx))
            for i in range(trips):
                token_tx, reply_rx = links[i % tasks]
                await token_tx.send(i)
                await reply_rx.receive()
            for token_tx, reply_rx in links:
                await token_tx.aclose()
                await reply_rx.aclose()
        return time.perf_counter() - start

    decisions, seconds = trio.run(fights)
    trips = 20_000
    return {
        "trio_decisions_per_s": decisions / seconds,
        "bare_round_trips_per_s": trips / trio.run(round_trips, trips),
        "tasks": tasks,
    }


def worker_fold(repeat: int) -> dict[str, float]:
    import msgspec

    import initiative

    events, engine = _package("events"), _package("engine")
    AnyEvent, encode_lines, parse_log = events.AnyEvent, events.encode_lines, events.parse_log

    _quiet()
    result = initiative.run(_spec(4), 7)
    raw = encode_lines(result.events)
    lines = raw.splitlines()
    decoder = msgspec.json.Decoder(AnyEvent)
    parsed = parse_log(raw).events
    best_state = best_typed = best_fold = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        engine.fold(parse_log(raw).events)
        best_state = min(best_state, time.perf_counter() - start)
        start = time.perf_counter()
        for line in lines:
            decoder.decode(line)
        best_typed = min(best_typed, time.perf_counter() - start)
        start = time.perf_counter()
        for _ in range(10):
            engine.fold(parsed)
        best_fold = min(best_fold, (time.perf_counter() - start) / 10)
    return {
        "events": len(lines),
        "state_s": best_state,
        "typed_s": best_typed,
        "fold_s": best_fold,
    }


def _lines_file(tmp: str, per_side: int = 4) -> Path:
    """The 4v4 (or ``per_side``) melee lines written as an encounter file in ``tmp``."""
    from _encounters import melee_lines

    path = Path(tmp) / f"lines{per_side}.toml"
    path.write_text(melee_lines(per_side, max_rounds=30))
    return path


def worker_run(count: int) -> dict[str, float]:
    """``initiative.run(path, seed, out=...)`` in a loop, the encounter given as its file (as a
    script calls it): fights per second, log written."""
    import initiative

    _quiet()
    with tempfile.TemporaryDirectory() as tmp:
        path = _lines_file(tmp)
        initiative.run(path, count, out=Path(tmp) / "warm-up.jsonl")
        start, cpu = time.perf_counter(), time.process_time()
        for seed in range(count):
            initiative.run(path, seed, out=Path(tmp) / f"{seed}.jsonl")
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"fights_per_s": count / seconds, "fights_per_cpu_s": count / cpu}


def worker_batch(count: int) -> dict[str, float]:
    """``initiative batch LINES --runs COUNT --jobs 1 --json`` of the 4v4: the command's own
    rate (wall clock), the rate in CPU time (the command's CPU seconds less those of a batch of
    20, so start-up is left out), and the events per fight (the fights of two trees differ when
    policies changed)."""
    import resource
    import sqlite3

    def command(*options: str) -> tuple[subprocess.CompletedProcess[str], float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [sys.executable, "-m", "initiative", "batch", str(path), *options],
            capture_output=True,
            text=True,
            check=True,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return done, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    with tempfile.TemporaryDirectory() as tmp:
        path = _lines_file(tmp)
        db = Path(tmp) / "rows.db"
        _, small = command("--runs", "20", "--db", str(db))
        done, big = command("--runs", str(count), "--json")
        with sqlite3.connect(db) as con:
            (events,) = con.execute("SELECT AVG(events) FROM encounters").fetchone()
    return {
        "fights_per_s": json.loads(done.stdout)["per_second"],
        "fights_per_cpu_s": (count - 20) / (big - small),
        "events_per_fight": float(events),
    }


def worker_env(episodes: int) -> dict[str, float]:
    """Environment steps per second (CPU time) on the 4v4: the AEC environment, every agent
    playing the first valid action, reward "win", no log."""
    import numpy as np

    from initiative.env import env as make

    _quiet()
    with tempfile.TemporaryDirectory() as tmp:
        e = make(_lines_file(tmp))

    def play(first: int, count: int) -> int:
        steps = 0
        for episode in range(count):
            e.reset(seed=first + episode)
            for _ in e.agent_iter():
                observation, _, terminated, truncated, _ = e.last()
                valid = np.flatnonzero(observation["action_mask"])
                e.step(None if terminated or truncated else int(valid[0]))
                steps += 1
        return steps

    play(10_000, 1)
    start = time.process_time()
    steps = play(1, episodes)
    return {"steps_per_s": steps / (time.process_time() - start), "steps": steps}


WORKERS = {
    "fights": worker_fights,
    "lookahead": worker_lookahead,
    "floor": worker_floor,
    "scale": worker_scale,
    "trio": worker_trio,
    "fold": worker_fold,
    "run": worker_run,
    "batch": worker_batch,
    "env": worker_env,
}


# --- the driver ---------------------------------------------------------------------------------


def python_of(tree: Path) -> str:
    """The Python that runs ``tree``'s workers: this one for this checkout; for a baseline, the
    one of its own venv (``tree/.venv``, where it is installed with ``pip install -e .``) if it
    has one, else this one with ``PYTHONPATH`` (a checkout of the flat layout)."""
    own = tree / ".venv" / "bin" / "python"
    return str(own) if tree != ROOT and own.is_file() else sys.executable


def tree_env(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("BENCH_FLAT_LAYOUT", None)
    if tree != ROOT and python_of(tree) == sys.executable:
        env.update(PYTHONPATH=str(tree), BENCH_FLAT_LAYOUT="1")
    return env


def run_worker(tree: Path, name: str, arg: int) -> dict[str, float]:
    env = tree_env(tree)
    done = subprocess.run(
        [python_of(tree), __file__, "--worker", name, str(arg)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"worker {name} under {tree} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _check_installed() -> None:
    """This checkout must be what ``import initiative.engine`` finds with this Python."""
    found = subprocess.run(
        [sys.executable, "-c", "import initiative.engine as e; print(e.__file__)"],
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        check=False,
    )
    where = Path(found.stdout.strip() or ".").resolve()
    if found.returncode != 0 or ROOT not in where.parents:
        raise SystemExit(
            f"this checkout is not what {sys.executable} imports as initiative.engine "
            f"(found {found.stdout.strip() or found.stderr.strip().splitlines()[-1:]}); "
            "run `pip install -e .` here, or use the Python where it is installed"
        )


def best(tree: Path, name: str, arg: int, key: str, repeat: int, *, low: bool = False) -> float:
    values = [run_worker(tree, name, arg)[key] for _ in range(repeat)]
    return min(values) if low else max(values)


def startup(command: list[str], repeat: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return min(times)


def batch_rate(options: list[str], runs: int) -> float:
    """This tree's ``batch`` of the 4v4 with ``options``: the command's own fights/s."""
    with tempfile.TemporaryDirectory() as tmp:
        path = _lines_file(tmp)
        done = subprocess.run(
            [sys.executable, "-m", "initiative", "batch", str(path), "--runs", str(runs),
             "--json", *options],
            capture_output=True, text=True, check=True, env=tree_env(ROOT),
        )  # fmt: skip
    return float(json.loads(done.stdout)["per_second"])


def line(label: str, value: str) -> None:
    print(f"{label:<58} {value}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a checkout of the commit to compare against (e.g. a git worktree of 06061ef)",
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        help="figures to run: fights trio scale fold lookahead help batch run env cluster"
        " (all but cluster by default)",
    )
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        name, arg = args.worker
        print(json.dumps(WORKERS[name](int(arg))))
        return
    _check_installed()

    wanted = set(
        args.only or ["fights", "batch", "run", "env", "trio", "scale", "fold", "lookahead", "help"]
    )
    repeat = 2 if args.quick else 3
    base = args.baseline.resolve() if args.baseline else None
    if base is not None and not (base / "engine" / "_fight.py").is_file():
        raise SystemExit(f"--baseline {base}: not a checkout of initiative")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")

    if "fights" in wanted:
        n = 20 if args.quick else 40
        news, olds = [], []
        for _ in range(repeat):  # alternate the two trees, keep the best of each
            news.append(run_worker(ROOT, "fights", n))
            if base is not None:
                olds.append(run_worker(base, "fights", n))
        new = max(r["fights_per_s"] for r in news)
        line("4v4 melee fights/s, library, log written (this tree)", f"{new:10.1f}")
        if base is not None:
            old = max(r["fights_per_s"] for r in olds)
            line("4v4 melee fights/s (baseline)", f"{old:10.1f}")
            line("  ratio (target >= 8)", f"{new / old:10.2f}")
            same = {r["logs"] for r in news} == {r["logs"] for r in olds}
            line(
                "  logs byte-identical to the baseline's",
                "       yes" if same else "  no (rules changed since; see README)",
            )
            floor = min(
                (run_worker(ROOT, "floor", n) for _ in range(repeat)),
                key=lambda r: r["us_per_fight"],
            )
            budget = 1e6 / (8 * old)
            line(
                f"  the log alone, µs per fight ({floor['events_per_fight']:.0f} events)",
                f"{floor['us_per_fight']:10.0f}",
            )
            line("  the 8x budget, µs per fight", f"{budget:10.0f}")
            line("  the log alone / the 8x budget", f"{floor['us_per_fight'] / budget:10.2f}")

    if "trio" in wanted:
        # Each worker measures both; the best of each over the repeats (a shared machine
        # slows a run down, never speeds it up).
        runs = [run_worker(ROOT, "trio", 10 if args.quick else 20) for _ in range(repeat)]
        fights = max(r["trio_decisions_per_s"] for r in runs)
        bare = max(r["bare_round_trips_per_s"] for r in runs)
        line(
            f"decisions/s through the Trio executor ({runs[0]['tasks']:.0f} tasks)",
            f"{fights:10,.0f}",
        )
        line("round trips/s, bare Trio, same number of tasks", f"{bare:10,.0f}")
        line("  ratio (target >= 0.5)", f"{fights / bare:10.3f}")

    if "scale" in wanted:
        small = min(
            (run_worker(ROOT, "scale", 4) for _ in range(repeat)),
            key=lambda r: r["us_per_decision"],
        )
        larges = [run_worker(ROOT, "scale", 500) for _ in range(repeat)]
        large = min(larges, key=lambda r: r["us_per_decision"])  # the best, as for the small
        large["max_rss_mb"] = max(r["max_rss_mb"] for r in larges)  # the most memory of any
        line("µs per decision, 8 combatants, one round", f"{small['us_per_decision']:10.1f}")
        line(
            f"µs per decision, 1,000 combatants ({large['decisions']:.0f} decisions)",
            f"{large['us_per_decision']:10.1f}",
        )
        line(
            "  ratio 1,000 / 8 (target <= 2)",
            f"{large['us_per_decision'] / small['us_per_decision']:10.2f}",
        )
        line("  peak memory (max RSS) at 1,000, MB (target < 100)", f"{large['max_rss_mb']:10.1f}")

    if "fold" in wanted:
        got = run_worker(ROOT, "fold", 5 if args.quick else 10)
        line("events/s, state (parse + fold)", f"{got['events'] / got['state_s']:10,.0f}")
        line("events/s, typed msgspec decoding", f"{got['events'] / got['typed_s']:10,.0f}")
        line("  ratio (target >= 0.5)", f"{got['typed_s'] / got['state_s']:10.3f}")
        line(
            "ns per event, the fold alone (engine.fold)",
            f"{got['fold_s'] / got['events'] * 1e9:10,.0f}",
        )

    if "lookahead" in wanted:
        n = 2 if args.quick else 4
        new = best(ROOT, "lookahead", n, "us_per_lookahead_decision", repeat, low=True)
        line("µs per lookahead decision (this tree)", f"{new:10,.0f}")
        if base is not None:
            old = best(base, "lookahead", n, "us_per_lookahead_decision", 1, low=True)
            line("µs per lookahead decision (baseline)", f"{old:10,.0f}")
            line("  ratio baseline / this tree (target >= 20)", f"{old / new:10.2f}")

    def against(name: str, arg: int, key: str, label: str, target: str) -> None:
        """This tree's figure against the baseline's, alternating, the best of each."""
        news, olds = [], []
        for _ in range(repeat):
            news.append(run_worker(ROOT, name, arg))
            if base is not None:
                olds.append(run_worker(base, name, arg))
        new = max(news, key=lambda r: r[key])
        line(f"{label} (this tree)", f"{new[key]:10,.1f}")
        if base is not None:
            old = max(olds, key=lambda r: r[key])
            line(f"{label} (baseline)", f"{old[key]:10,.1f}")
            line(f"  ratio ({target})", f"{new[key] / old[key]:10.2f}")
            if "fights_per_cpu_s" in new:
                cpu_new = max(r["fights_per_cpu_s"] for r in news)
                cpu_old = max(r["fights_per_cpu_s"] for r in olds)
                line("  in CPU time: this tree, baseline", f"{cpu_new:10,.1f} {cpu_old:,.1f}")
                line("  ratio in CPU time", f"{cpu_new / cpu_old:10.2f}")
            if "events_per_fight" in new:
                line(
                    "  events per fight, this tree / baseline",
                    f"{new['events_per_fight']:4.0f} / {old['events_per_fight']:.0f}",
                )
                per_event = (new[key] * new["events_per_fight"]) / (
                    old[key] * old["events_per_fight"]
                )
                line("  ratio of events per second", f"{per_event:10.2f}")

    if "batch" in wanted:
        against(
            "batch", 200 if args.quick else 400, "fights_per_s",
            "4v4 batch --jobs 1, fights/s", "target >= 1.6",
        )  # fmt: skip

    if "run" in wanted:
        against(
            "run", 20 if args.quick else 40, "fights_per_s",
            "4v4 initiative.run(path, out=...) in a loop, fights/s", "target >= 2",
        )  # fmt: skip

    if "env" in wanted:
        against(
            "env", 10 if args.quick else 20, "steps_per_s",
            "4v4 environment steps/s (CPU)", "target >= 1.5",
        )  # fmt: skip

    if "cluster" in wanted:
        runs = 500 if args.quick else 2000
        jobs, cluster = [], []
        for _ in range(repeat):
            jobs.append(batch_rate(["--jobs", "2"], runs))
            cluster.append(batch_rate(["--cluster", "local:2"], runs))
        line(f"4v4 batch --jobs 2, fights/s over {runs}", f"{max(jobs):10,.1f}")
        line(f"4v4 batch --cluster local:2, fights/s over {runs}", f"{max(cluster):10,.1f}")
        line("  ratio (target >= 0.9)", f"{max(cluster) / max(jobs):10.2f}")

    if "help" in wanted:
        r = 5 if args.quick else 10
        cli = startup([sys.executable, "-m", "initiative", "--help"], r)
        bare = startup([sys.executable, "-c", "import trio, msgspec, structlog"], r)
        line("initiative --help start-up, ms", f"{cli * 1e3:10.0f}")
        line('python -c "import trio, msgspec, structlog", ms', f"{bare * 1e3:10.0f}")
        line("  ratio (target <= 1.5)", f"{cli / bare:10.2f}")


if __name__ == "__main__":
    main()
