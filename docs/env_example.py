"""A worked example of the PettingZoo environment: random legal play, and a win-rate printout.

Trains nothing: every combatant picks uniformly among its legal offers (the action mask), for a
few hundred episodes, and the script prints how often each side won. Swap the random choice
for a learning agent's to train one.

    python docs/env_example.py [ENCOUNTER.toml] [--episodes N]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from initiative.env import env

ROOT = Path(__file__).parents[1]


def play(encounter: Path, episodes: int, seed: int = 0) -> Counter[str]:
    fights = env(encounter)
    sides = {c.id: c.side for c in fights.unwrapped.spec.combatants}
    rng = np.random.default_rng(seed)
    winners: Counter[str] = Counter()
    for episode in range(episodes):
        fights.reset(seed=seed + episode)
        final: dict[str, float] = {}
        for agent in fights.agent_iter():
            observation, reward, terminated, truncated, _info = fights.last()
            if terminated or truncated:
                final[agent] = reward  # +1 for the winning side, -1 for the others
                fights.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            fights.step(int(rng.choice(legal)))
        won = {sides[a] for a, r in final.items() if r > 0}
        winners[won.pop() if won else "no winner"] += 1
    fights.close()
    return winners


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("encounter", nargs="?", default=ROOT / "examples" / "openings-duel.toml")
    parser.add_argument("--episodes", type=int, default=300)
    args = parser.parse_args()
    winners = play(Path(args.encounter), args.episodes)
    print(f"{args.episodes} episodes of random legal play in {Path(args.encounter).name}:")
    for side, n in sorted(winners.items()):
        print(f"  {side:<10} {n:>5}  {100 * n / args.episodes:5.1f}%")


if __name__ == "__main__":
    main()
