"""Environment steps per CPU-second beside PettingZoo's connect_four, in one run.

Every environment is played by random masked actions (a uniform choice among the mask's valid
indices, from a seeded generator), through PettingZoo's AEC loop (``agent_iter``, ``last``,
``step``): ``connect_four_v3`` (PettingZoo's classic board game, which needs pygame) and
initiative's AEC environment of ``openings-duel`` and ``tactical-bridge`` by name, reward
``"win"``, no log. The environments take turns in ``--rounds`` rounds of ``--seconds`` CPU
seconds each, so a change in the machine's load meets all of them; each one's figure is its
best round, and the ratios are to connect_four's best in the same run. After each of its
rounds, an initiative environment's episodes are replayed without it, "the fight alone": the
same seeds and the same actions sent straight to the fight ``initiative.step`` steps
(:func:`fight_alone`), so the two figures part the environment's own work (encoding,
bookkeeping, PettingZoo's wrapper) from the engine's::

    nice -n 10 python benchmarks/env_speed.py [--rounds 3] [--seconds 4] [--profile NAME]

``--profile NAME`` profiles one environment's loop instead (cProfile, the top functions by
their own time; ``--profile "NAME alone"`` the fight alone). Needs the ``env`` extra and pygame (for connect_four only).
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


def play(
    e: Any,
    seconds: float,
    seed: int,
    *,
    episodes: int | None = None,
    record: list[Any] | None = None,
) -> tuple[int, float]:
    """Random masked play for about ``seconds`` of CPU (or exactly ``episodes`` episodes): the
    steps taken and the CPU they took (whole episodes only are counted past the budget's end,
    none cut short). With ``record``, each episode's ``(seed, steps, actions sent)`` is
    appended to it (what :func:`fight_alone` replays; the recording costs time of its own)."""
    rng = np.random.default_rng(seed)
    steps = 0
    episode = seed
    start = time.process_time()
    while time.process_time() - start < seconds if episodes is None else episode - seed < episodes:
        e.reset(seed=episode)
        sent: list[Any] = []
        if record is not None:
            record.append((episode, steps, sent))
        episode += 1
        for _ in e.agent_iter():
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
            else:
                index = int(rng.choice(np.flatnonzero(observation["action_mask"])))
                if record is not None:
                    u = e.unwrapped
                    sent.append(u.encoder.action(u.stepper.view, index))
                e.step(index)
            steps += 1
        if record is not None:
            record[-1] = (record[-1][0], steps - record[-1][1], sent)
    return steps, time.process_time() - start


def fight_alone(name: str, recorded: list[Any], seconds: float) -> tuple[int, float]:
    """The same fights without the environment: each recorded episode's seed and actions
    sent, in turn, to the :class:`SteppedFight` that ``initiative.step`` returns (quiet, as
    the environments make it), for about ``seconds`` of CPU (the episodes again from the
    first when they run out). Each episode counts the steps the environment took in it (its
    decisions and its agents' last steps), so the two figures divide the same steps."""
    from initiative._stepping import SteppedFight
    from initiative.env import find_encounter

    spec = find_encounter(name)
    steps = 0
    start = time.process_time()
    while recorded:  # (one episode at least, however short the budget)
        for seed, taken, actions in recorded:
            fight = SteppedFight(spec, seed, quiet=True)
            send = fight.send
            for action in actions:
                send(action)
            assert fight.over, f"{name} seed {seed}: the recorded actions did not end it"
            steps += taken
            if time.process_time() - start >= seconds:
                return steps, time.process_time() - start
    return steps, time.process_time() - start


def measure(names: list[str], rounds: int, seconds: float) -> dict[str, float]:
    """The best steps per CPU-second of each environment over ``rounds`` alternating rounds,
    and (under ``NAME alone``) of each initiative environment's fights without it: the
    round's episodes replayed by :func:`fight_alone` right after the environment's round."""
    envs = {name: make(name) for name in names}
    for e in envs.values():
        play(e, 0.3, 99_999)  # warm caches and imports
    best = dict.fromkeys(names, 0.0)
    for r in range(rounds):
        for name, e in envs.items():
            seed = 1_000 * (r + 1)
            before = getattr(e.unwrapped, "episode", 0)
            steps, cpu = play(e, seconds, seed)
            best[name] = max(best[name], steps / cpu)
            if name != "connect_four":
                recorded: list[Any] = []
                episodes = e.unwrapped.episode - before
                play(e, 0, seed, episodes=episodes, record=recorded)
                steps, cpu = fight_alone(name, recorded, seconds)
                alone = f"{name} alone"
                best[alone] = max(best.get(alone, 0.0), steps / cpu)
    return best


def profile(name: str, seconds: float) -> None:
    import cProfile
    import pstats

    env_name = name.removesuffix(" alone")
    e = make(env_name)
    play(e, 0.3, 99_999)
    profiler = cProfile.Profile()
    if name == env_name:
        profiler.runcall(play, e, seconds, 1)
    else:
        recorded: list[Any] = []
        play(e, seconds / 2, 1, record=recorded)
        profiler.runcall(fight_alone, env_name, recorded, seconds)
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
        alone = best[f"{name} alone"]
        own = 1e6 / best[name] - 1e6 / alone
        out(
            f"    the fight alone: {alone:,.0f} steps per CPU-second, {alone / base:.2f}x"
            f" connect_four; the environment's own work {own:.0f} us of"
            f" {1e6 / best[name]:.0f} us a step"
        )
    return best


if __name__ == "__main__":
    main()
