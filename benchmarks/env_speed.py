"""Environment steps per CPU-second beside PettingZoo's connect_four, in one run.

Every environment is played by random masked actions (a uniform choice among the mask's valid
indices, from a seeded generator), through PettingZoo's AEC loop (``agent_iter``, ``last``,
``step``): ``connect_four_v3`` (PettingZoo's classic board game, which needs pygame) and
initiative's AEC environment of ``openings-duel`` and ``tactical-bridge`` by name, reward
``"win"``, no log. The environments take turns in ``--rounds`` rounds of ``--seconds`` CPU
seconds each, so a change in the machine's load meets all of them; each one's figure is its
best round, and the ratios are to connect_four's best in the same run::

    nice -n 10 python benchmarks/env_speed.py [--rounds 3] [--seconds 4] [--profile NAME]

``--profile NAME`` profiles one environment's loop instead (cProfile, the top functions by
their own time). Needs the ``env`` extra and pygame (for connect_four only).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

TARGETS = {"openings-duel": 1.0, "tactical-bridge": 0.6}


def make(name: str) -> Any:
    if name == "connect_four":
        from pettingzoo.classic import connect_four_v3

        return connect_four_v3.env()
    from initiative.env import env

    return env(name)


def play(e: Any, seconds: float, seed: int) -> tuple[int, float]:
    """Random masked play for about ``seconds`` of CPU: the steps taken and the CPU they took
    (whole episodes only are counted past the budget's end, none cut short)."""
    rng = np.random.default_rng(seed)
    steps = 0
    episode = seed
    start = time.process_time()
    while time.process_time() - start < seconds:
        e.reset(seed=episode)
        episode += 1
        for _ in e.agent_iter():
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
            else:
                e.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
    return steps, time.process_time() - start


def measure(names: list[str], rounds: int, seconds: float) -> dict[str, float]:
    """The best steps per CPU-second of each environment over ``rounds`` alternating rounds."""
    envs = {name: make(name) for name in names}
    for e in envs.values():
        play(e, 0.3, 99_999)  # warm caches and imports
    best = dict.fromkeys(names, 0.0)
    for r in range(rounds):
        for name, e in envs.items():
            steps, cpu = play(e, seconds, 1_000 * (r + 1))
            best[name] = max(best[name], steps / cpu)
    return best


def profile(name: str, seconds: float) -> None:
    import cProfile
    import pstats

    e = make(name)
    play(e, 0.3, 99_999)
    profiler = cProfile.Profile()
    profiler.runcall(play, e, seconds, 1)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--profile", default=None)
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.seconds)
        return {}
    load = os.getloadavg()
    names = ["connect_four", *TARGETS]
    best = measure(names, args.rounds, args.seconds)
    after = os.getloadavg()
    base = best["connect_four"]
    out(
        f"random masked actions, best of {args.rounds} rounds of {args.seconds:g} s of CPU each"
        f" (load average {load[0]:.1f} before, {after[0]:.1f} after):"
    )
    out(f"  connect_four_v3: {base:,.0f} steps per CPU-second")
    for name, target in TARGETS.items():
        ratio = best[name] / base
        verdict = "meets" if ratio >= target else "misses"
        out(
            f"  {name}: {best[name]:,.0f} steps per CPU-second, {ratio:.2f}x connect_four"
            f" ({verdict} the target of {target:g}x)"
        )
    return best


if __name__ == "__main__":
    main()
