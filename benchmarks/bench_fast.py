"""The fast engine's figures, each a ratio measured in one run (against an older commit where
the target says so).

    git worktree add ../initiative-base 32adc96        # once: the commit to compare against
    python -m venv ../base-venv && ../base-venv/bin/pip install -e '../initiative-base[env]'
    python benchmarks/bench_fast.py --baseline-python ../base-venv/bin/python [--quick]

Each figure runs this same file as a worker in a subprocess, so both versions run the same
measuring code through APIs both have (``initiative.run``). This checkout's worker runs with the
Python running this script, where the checkout must be installed (``pip install -e .``: its
folders import as ``initiative.engine``, ...); the baseline's as said below. Workers alternate
between the two trees and the best of the repeats is kept, since the machine may be shared; quote the
machine's load (``uptime``) beside any figure.

1. 4v4 melee fights per second through the library with the log written (``initiative.run``):
   this tree against the baseline.                                             target >= 8x
2. Decisions per second through the Trio executor (a task per combatant) against a bare Trio
   round trip with the same number of tasks.                                   target >= 0.5
3. CPU cost per decision at 1,000 combatants against 8 (two lines of melee fighters, one round;
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

Issue 26's figures (each this tree against the baseline, alternating, the best of each, the
1-minute load before and after; each with the built-in ``aggressive`` (``own``) and with the
first legal offer (``first``, a policy file both trees load, :data:`FIRST`), whose decisions
are the same in both trees, so the engines are compared on the same work: the ``run`` figure
says whether the two trees' logs are byte-identical):

7. ``batch``: ``initiative batch`` of the 4v4 with ``--jobs 1``, the command's own fights/s;
   beside it the rate in CPU time and the events per fight of each tree.       target >= 1.6x
8. ``run``: ``initiative.run(path, seed, out=...)`` in a loop, the encounter given as its
   file.                                                                       target >= 2x
9. ``decision``: CPU µs per in-line decision, 4v4 fights through ``initiative.run``, no log.
                                                                               target <= 0.6x
10. ``env``: environment steps per second (CPU time), the AEC environment on the 4v4, every
    agent playing the first valid action.                                      target >= 1.5x
11. ``cluster`` (this tree only, asked for by name): ``batch --cluster local:2`` against
    ``--jobs 2`` over 2,000 runs of the 4v4 (500 with ``--quick``).             target >= 0.9
``scale`` runs in the baseline too when there is one.

The baseline's workers run under a Python of their own, since both trees install their folders
under ``initiative.``: ``--baseline-python V/bin/python`` (a venv where the baseline checkout is
installed: ``python -m venv V && V/bin/pip install -e 'CHECKOUT[env]'``), or ``--baseline
CHECKOUT`` with a ``CHECKOUT/.venv``; a checkout without one runs with this Python and
``PYTHONPATH`` (the flat layout of older commits). Workers run from the temporary folder, so
neither checkout's folders shadow the other's.

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
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(
    0, str(HERE)
)  # (``_encounters``, ``_timing``, when a worker runs from another folder)


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


FIRST = """from initiative.actors import in_line


@in_line
def first(view):
    return view.legal[0].action
"""
"""The like-for-like policy, given as a file both trees load: the first legal offer. Its
decisions depend on nothing but the offers, so two trees whose rules offer the same actions in
the same order fight the same fights, whatever their built-in policies do."""

POLICIES = ("own", "first")
"""``own``: the built-in ``aggressive`` (the examples' own policy, whose decisions may differ
between the trees); ``first``: :data:`FIRST`."""


def _scratch() -> Path:
    """A folder for this worker's files, removed when it exits."""
    import atexit
    import shutil

    path = Path(tempfile.mkdtemp(prefix="bench-"))
    atexit.register(shutil.rmtree, path, True)
    return path


def _lines_file(
    tmp: str | Path, per_side: int = 4, *, rounds: int = 30, policy: str = "own"
) -> Path:
    """The melee lines of ``per_side`` a side written as an encounter file in ``tmp``, every
    fighter playing ``policy`` (one of :data:`POLICIES`)."""
    from _encounters import melee_lines

    name = "aggressive"
    if policy == "first":
        # One path for both trees: the encounter (and so the log's header) names it.
        policy_file = Path(tempfile.gettempdir(), "initiative-bench", "first.py")
        policy_file.parent.mkdir(exist_ok=True)
        policy_file.write_text(FIRST)
        name = f"{policy_file}:first"
    text = melee_lines(per_side, max_rounds=rounds, policy=name)
    withdraw = os.environ.get("BENCH_WITHDRAW_TURNS")
    if withdraw is not None and _knows_withdrawal():
        text += f"\n[options]\nwithdraw_turns = {int(withdraw)}\n"
    path = Path(tmp) / f"lines{per_side}-{rounds}-{policy}.toml"
    path.write_text(text)
    return path


def _knows_withdrawal() -> bool:
    """Whether the tree being measured has the withdrawal rule (``withdraw_turns``, an option
    of every ruleset since issue 36); a tree from before it plays as with ``0``."""
    options = getattr(_package("engine"), "Options", None)
    return "withdraw_turns" in getattr(options, "__struct_fields__", ())


def _spec(per_side: int, *, rounds: int = 30, policy: str = "own"):  # type: ignore[no-untyped-def]
    engine = _package("engine")
    return engine.load_encounter(_lines_file(_scratch(), per_side, rounds=rounds, policy=policy))


def worker_fights(count: int, policy: str = "own") -> dict[str, float]:
    import initiative

    _quiet()
    spec = _spec(4, policy=policy)
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


def worker_floor(count: int, policy: str = "own") -> dict[str, float]:
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

    def write_all(tmp: str) -> None:
        for seed, events in enumerate(fields):
            chain = bytes(32)
            lines = []
            for kind, values in events:
                line = encode(kind(**values)) + b"\n"
                chain = chain_step(chain, line)
                lines.append(line)
            with open(Path(tmp) / f"{seed}.jsonl", "wb") as out:
                out.write(b"".join(lines))

    from _timing import best_times

    with tempfile.TemporaryDirectory() as tmp:
        (best,) = best_times(3, lambda: write_all(tmp))
    events = sum(map(len, fields))
    return {"us_per_fight": best / count * 1e6, "events_per_fight": events / count}


def worker_lookahead(count: int, policy: str = "own") -> dict[str, float]:
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


def worker_scale(per_side: int, policy: str = "own") -> dict[str, float]:
    import resource

    import initiative

    PriorityGranted = _package("events").PriorityGranted

    _quiet()
    spec = _spec(per_side, rounds=1, policy=policy)
    initiative.run(_spec(2, rounds=1, policy=policy), 1)  # warm up: first-call costs
    # Whole one-round fights (seeds 1, 2, ...) until at least 2,000 decisions were made, so
    # the small fight's figure is not one fight's start-up over a handful of decisions.
    decisions = 0
    seconds = 0.0
    seed = 0
    while decisions < 2000:
        seed += 1
        start = time.process_time()  # (CPU time: the load moves it less than the clock)
        result = initiative.run(spec, seed)
        seconds += time.process_time() - start
        decisions += sum(isinstance(e, PriorityGranted) for e in result.events)
    return {
        "us_per_decision": seconds / decisions * 1e6,
        "decisions": decisions,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def worker_trio(count: int, policy: str = "own") -> dict[str, float]:
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


def worker_fold(repeat: int, policy: str = "own") -> dict[str, float]:
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

    def decode_typed() -> None:
        for line in lines:
            decoder.decode(line)

    def fold_ten() -> None:
        for _ in range(10):
            engine.fold(parsed)

    from _timing import best_times

    best_state, best_typed, best_ten = best_times(
        repeat, lambda: engine.fold(parse_log(raw).events), decode_typed, fold_ten
    )
    return {
        "events": len(lines),
        "state_s": best_state,
        "typed_s": best_typed,
        "fold_s": best_ten / 10,
    }


def worker_run(count: int, policy: str = "own") -> dict[str, float]:
    """``initiative.run(path, seed, out=...)`` in a loop, the encounter given as its file (as a
    script calls it): fights per second, log written; and a digest of the logs (so two trees'
    fights can be compared byte for byte)."""
    import initiative

    _quiet()
    with tempfile.TemporaryDirectory() as tmp:
        path = _lines_file(tmp, policy=policy)
        logs = Path(tmp, "logs")
        logs.mkdir()
        initiative.run(path, count, out=Path(tmp) / "warm-up.jsonl")
        start, cpu = time.perf_counter(), time.process_time()
        for seed in range(count):
            initiative.run(path, seed, out=logs / f"{seed:05}.jsonl")
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        digest = hashlib.blake2b(b"".join(p.read_bytes() for p in sorted(logs.iterdir())))
    return {
        "fights_per_s": count / seconds,
        "fights_per_cpu_s": count / cpu,
        "logs": digest.hexdigest(),  # type: ignore[dict-item]
    }


def worker_decision(count: int, policy: str = "own") -> dict[str, float]:
    """CPU µs per in-line decision: 4v4 fights through ``initiative.run`` (in line: every
    policy qualifies), no log, the CPU time over the ``PriorityGranted`` events."""
    import initiative

    PriorityGranted = _package("events").PriorityGranted

    _quiet()
    spec = _spec(4, policy=policy)
    initiative.run(spec, count)  # warm up
    decisions = 0
    cpu = 0.0
    for seed in range(count):
        start = time.process_time()
        result = initiative.run(spec, seed)
        cpu += time.process_time() - start
        decisions += sum(isinstance(e, PriorityGranted) for e in result.events)
    return {"us_per_decision": cpu / decisions * 1e6, "decisions": decisions}


def worker_batch(count: int, policy: str = "own") -> dict[str, float]:
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
        path = _lines_file(tmp, policy=policy)
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


def worker_env(episodes: int, policy: str = "own") -> dict[str, float]:
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
    "decision": worker_decision,
    "batch": worker_batch,
    "env": worker_env,
}


# --- the driver ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tree:
    """A tree whose workers run this file: the Python that runs them, and their environment."""

    label: str
    python: str
    env: dict[str, str]


def _clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("BENCH_FLAT_LAYOUT", None)
    return env


def this_tree() -> Tree:
    """This checkout, run by the Python running this script (where it must be installed)."""
    return Tree("this tree", sys.executable, _clean_env())


def baseline_tree(checkout: Path | None, python: str | None) -> Tree:
    """The baseline: ``python`` (a venv where the baseline checkout is installed) if given;
    else the checkout's own ``.venv`` if it has one; else this Python with ``PYTHONPATH`` at the
    checkout (the flat layout of older commits, whose folders import as top-level ``engine``)."""
    env = _clean_env()
    if python is None and checkout is not None:
        own = checkout / ".venv" / "bin" / "python"
        if own.is_file():
            python = str(own)
        else:
            env.update(PYTHONPATH=str(checkout), BENCH_FLAT_LAYOUT="1")
    tree = Tree("baseline", python or sys.executable, env)
    module = "engine" if "BENCH_FLAT_LAYOUT" in env else "initiative.engine"
    found = subprocess.run(
        [tree.python, "-c", f"import {module} as e; print(e.__file__)"],
        env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True, check=False,
    )  # fmt: skip
    where = Path(found.stdout.strip() or ".").resolve()
    if found.returncode != 0 or ROOT in where.parents:
        raise SystemExit(
            f"the baseline's Python {tree.python} does not import a baseline's {module} "
            f"(found {found.stdout.strip() or found.stderr.strip().splitlines()[-1:]}); make a "
            "venv for the baseline checkout and `pip install -e CHECKOUT` in it"
        )
    print(f"baseline: {module} from {where.parent}")
    return tree


def run_worker(tree: Tree, name: str, arg: int, policy: str = "own") -> dict[str, float]:
    done = subprocess.run(
        [tree.python, __file__, "--worker", name, str(arg), policy],
        env=tree.env,
        cwd=tempfile.gettempdir(),  # (not this checkout: its folders would shadow a baseline's)
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"worker {name} ({policy}) under {tree.label} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _check_installed() -> None:
    """This checkout must be what ``import initiative.engine`` finds with this Python."""
    found = subprocess.run(
        [sys.executable, "-c", "import initiative.engine as e; print(e.__file__)"],
        env=_clean_env(),
        cwd=tempfile.gettempdir(),
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


def startup(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, env=_clean_env(), capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return min(times)


def batch_rate(options: list[str], runs: int) -> float:
    """This tree's ``batch`` of the 4v4 with ``options``: the command's own fights/s."""
    with tempfile.TemporaryDirectory() as tmp:
        path = _lines_file(tmp)
        done = subprocess.run(
            [sys.executable, "-m", "initiative", "batch", str(path), "--runs", str(runs),
             "--json", *options],
            capture_output=True, text=True, check=True, env=_clean_env(),
        )  # fmt: skip
    return float(json.loads(done.stdout)["per_second"])


def line(label: str, value: str) -> None:
    print(f"{label:<62} {value}", flush=True)


def load() -> float:
    return os.getloadavg()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a checkout of the commit to compare against (e.g. a git worktree of 32adc96); "
        "its .venv's Python runs its workers if it has one",
    )
    parser.add_argument(
        "--baseline-python",
        help="the Python of a venv where the baseline checkout is installed (pip install -e)",
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="workers per tree for each figure, alternating (3 by default, 2 with --quick); on"
        " a noisy machine more, and read the median of the pairs' ratios printed beside the best",
    )
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        help="figures to run: fights trio scale fold lookahead help batch run decision env"
        " cluster (all but cluster by default)",
    )
    parser.add_argument(
        "--policies",
        nargs="*",
        choices=POLICIES,
        default=list(POLICIES),
        help="for batch, run, decision and scale: own (the built-in aggressive) and/or first "
        "(a policy file, the first legal offer: the same decisions in both trees)",
    )
    parser.add_argument(
        "--withdraw-turns",
        type=int,
        default=None,
        help="the 4v4's withdraw_turns in every tree that has the withdrawal rule (0: off, so a"
        " tree from before the rule plays the same fights); by default each tree's own",
    )
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.withdraw_turns is not None:  # (the workers read it from their environment)
        os.environ["BENCH_WITHDRAW_TURNS"] = str(args.withdraw_turns)
    if args.worker:
        name, arg, policy = args.worker
        print(json.dumps(WORKERS[name](int(arg), policy)))
        return
    _check_installed()

    wanted = set(
        args.only
        or ["fights", "batch", "run", "decision", "env", "trio", "scale", "fold", "lookahead",
            "help"]
    )  # fmt: skip
    repeat = args.repeat or (2 if args.quick else 3)
    if repeat < 1:
        raise SystemExit(f"--repeat must be 1 or more, not {repeat}")
    new_tree = this_tree()
    base: Tree | None = None
    if args.baseline is not None or args.baseline_python is not None:
        checkout = args.baseline.resolve() if args.baseline else None
        if checkout is not None and not (checkout / "engine" / "_fight.py").is_file():
            raise SystemExit(f"--baseline {checkout}: not a checkout of initiative")
        base = baseline_tree(checkout, args.baseline_python)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")

    if "fights" in wanted:
        n = 20 if args.quick else 40
        news, olds = [], []
        for _ in range(repeat):  # alternate the two trees, keep the best of each
            news.append(run_worker(new_tree, "fights", n))
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
                (run_worker(new_tree, "floor", n) for _ in range(repeat)),
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
        runs = [run_worker(new_tree, "trio", 10 if args.quick else 20) for _ in range(repeat)]
        fights = max(r["trio_decisions_per_s"] for r in runs)
        bare = max(r["bare_round_trips_per_s"] for r in runs)
        line(
            f"decisions/s through the Trio executor ({runs[0]['tasks']:.0f} tasks)",
            f"{fights:10,.0f}",
        )
        line("round trips/s, bare Trio, same number of tasks", f"{bare:10,.0f}")
        line("  ratio (target >= 0.5)", f"{fights / bare:10.3f}")

    def against(
        name: str, arg: int, key: str, label: str, target: str, policy: str, *, low: bool = False
    ) -> None:
        """This tree's figure against the baseline's, alternating, the best of each (the
        lowest with ``low``), with the load before and after."""
        start = load()
        news, olds = [], []
        for _ in range(repeat):
            news.append(run_worker(new_tree, name, arg, policy))
            if base is not None:
                olds.append(run_worker(base, name, arg, policy))
        pick = min if low else max
        new = pick(news, key=lambda r: r[key])
        label = f"{label}, {policy} policy"
        line(f"{label} (this tree)", f"{new[key]:10,.1f}")
        if base is not None:
            old = pick(olds, key=lambda r: r[key])
            line(f"{label} (baseline)", f"{old[key]:10,.1f}")
            line(f"  ratio ({target})", f"{new[key] / old[key]:10.2f}")
            if repeat >= 3:  # each pair ran side by side: its ratio, their median
                by = "fights_per_cpu_s" if "fights_per_cpu_s" in new else key
                pairs = sorted(n[by] / o[by] for n, o in zip(news, olds, strict=True))
                line(
                    f"  median of the {repeat} pairs' ratios{' in CPU time' * (by != key)}"
                    " (lowest, highest)",
                    f"{statistics.median(pairs):10.2f} ({pairs[0]:.2f}, {pairs[-1]:.2f})",
                )
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
            if "decisions" in new:
                line(
                    "  decisions, this tree / baseline",
                    f"{new['decisions']:4.0f} / {old['decisions']:.0f}",
                )
            if "logs" in new:
                same = {r["logs"] for r in news} == {r["logs"] for r in olds}
                line("  logs byte-identical to the baseline's", "yes" if same else "no")
        line("  load (1-minute) before, after", f"{start:10.2f} {load():.2f}")

    for policy in args.policies:
        if "batch" in wanted:
            against(
                "batch", 200 if args.quick else 400, "fights_per_s",
                "4v4 batch --jobs 1, fights/s", "target >= 1.6", policy,
            )  # fmt: skip
        if "run" in wanted:
            against(
                "run", 20 if args.quick else 40, "fights_per_s",
                "4v4 initiative.run(path, out=...) in a loop, fights/s", "target >= 2", policy,
            )  # fmt: skip
        if "decision" in wanted:
            against(
                "decision", 20 if args.quick else 40, "us_per_decision",
                "4v4 CPU µs per in-line decision", "target <= 0.6", policy, low=True,
            )  # fmt: skip

    if "env" in wanted:
        against(
            "env", 10 if args.quick else 20, "steps_per_s",
            "4v4 environment steps/s (CPU)", "target >= 1.5", "own",
        )  # fmt: skip

    if "scale" in wanted:
        trees = [new_tree] if base is None else [new_tree, base]
        for policy in args.policies:
            start = load()
            found: dict[str, list[dict[str, float]]] = {}
            for _ in range(repeat):  # alternating the trees and the sizes
                for tree in trees:
                    for size in (4, 500):
                        found.setdefault(f"{tree.label} {size}", []).append(
                            run_worker(tree, "scale", size, policy)
                        )
            for tree in trees:
                small = min(found[f"{tree.label} 4"], key=lambda r: r["us_per_decision"])
                larges = found[f"{tree.label} 500"]
                large = min(larges, key=lambda r: r["us_per_decision"])  # the best of each
                rss = max(r["max_rss_mb"] for r in larges)  # the most memory of any
                who = f"{policy} policy, {tree.label}"
                line(f"µs per decision, 8 combatants, one round, {who}",
                     f"{small['us_per_decision']:10.1f}")  # fmt: skip
                line(
                    f"µs per decision, 1,000 combatants ({large['decisions']:.0f} decisions)",
                    f"{large['us_per_decision']:10.1f}",
                )
                line(
                    "  ratio 1,000 / 8 (target <= 2)",
                    f"{large['us_per_decision'] / small['us_per_decision']:10.2f}",
                )
                line("  peak memory (max RSS) at 1,000, MB (target < 100)", f"{rss:10.1f}")
            line("  load (1-minute) before, after", f"{start:10.2f} {load():.2f}")

    if "fold" in wanted:
        got = run_worker(new_tree, "fold", 5 if args.quick else 10)
        line("events/s, state (parse + fold)", f"{got['events'] / got['state_s']:10,.0f}")
        line("events/s, typed msgspec decoding", f"{got['events'] / got['typed_s']:10,.0f}")
        line("  ratio (target >= 0.5)", f"{got['typed_s'] / got['state_s']:10.3f}")
        line(
            "ns per event, the fold alone (engine.fold)",
            f"{got['fold_s'] / got['events'] * 1e9:10,.0f}",
        )

    if "lookahead" in wanted:
        n = 2 if args.quick else 4
        news = [run_worker(new_tree, "lookahead", n) for _ in range(repeat)]
        new = min(r["us_per_lookahead_decision"] for r in news)
        line("µs per lookahead decision (this tree)", f"{new:10,.0f}")
        if base is not None:
            old = run_worker(base, "lookahead", n)["us_per_lookahead_decision"]
            line("µs per lookahead decision (baseline)", f"{old:10,.0f}")
            line("  ratio baseline / this tree (target >= 20)", f"{old / new:10.2f}")

    if "cluster" in wanted:
        start = load()
        runs = 500 if args.quick else 2000
        jobs, cluster = [], []
        for _ in range(repeat):
            jobs.append(batch_rate(["--jobs", "2"], runs))
            cluster.append(batch_rate(["--cluster", "local:2"], runs))
        line(f"4v4 batch --jobs 2, fights/s over {runs}", f"{max(jobs):10,.1f}")
        line(f"4v4 batch --cluster local:2, fights/s over {runs}", f"{max(cluster):10,.1f}")
        line("  ratio (target >= 0.9)", f"{max(cluster) / max(jobs):10.2f}")
        line("  load (1-minute) before, after", f"{start:10.2f} {load():.2f}")

    if "help" in wanted:
        r = 5 if args.quick else 10
        cli = startup([sys.executable, "-m", "initiative", "--help"], r)
        bare = startup([sys.executable, "-c", "import trio, msgspec, structlog"], r)
        line("initiative --help start-up, ms", f"{cli * 1e3:10.0f}")
        line('python -c "import trio, msgspec, structlog", ms', f"{bare * 1e3:10.0f}")
        line("  ratio (target <= 1.5)", f"{cli / bare:10.2f}")


if __name__ == "__main__":
    main()
