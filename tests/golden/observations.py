"""Golden observations: ``python tests/golden/observations.py`` writes ``observations.json``.

Fights of every bundled example, played through the AEC environment by random masked actions
(move slots included) from a seeded generator; at every step, every agent's observation and
mask (the holder's and the others', as ``observe`` gives them) go into one digest, and each
fight's log lines into another. tests/test_observation.py plays the same fights and holds every
digest equal: a faster encoder must not change one value of an observation nor one byte of a
log. Regenerate only when a change of the observation (or of the engine's output) is intended,
and say so in the commit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
GOLDEN = HERE / "observations.json"

#: (example, seed, options of the environment) of each golden fight; ``max_offers=4`` keeps
#: the first three offers and the closing one (the cut of a long list of offers).
FIGHTS: list[tuple[str, int, dict[str, Any]]] = [
    ("openings-duel", 1, {}),
    ("openings-duel", 2, {}),
    ("openings-skirmish", 3, {}),
    ("thriller-ambush", 4, {}),
    ("percentile-wilhelm", 5, {}),
    ("tactical-bridge", 6, {}),
    ("tactical-bridge", 7, {"max_offers": 4}),
]


def key(example: str, seed: int, options: dict[str, Any]) -> str:
    extra = "".join(f" {k}={v}" for k, v in sorted(options.items()))
    return f"{example} seed {seed}{extra}"


def play(example: str, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """The fight's digests: one a step (every agent's observation and mask), and its log's."""
    from initiative.env import env

    aec = env(example, **options).unwrapped
    rng = np.random.default_rng(seed)
    aec.reset(seed=seed)
    steps = []
    while aec.agents and not aec.stepper.over:
        digest = hashlib.blake2b(digest_size=8)
        for agent in aec.possible_agents:
            seen = aec.observe(agent)
            digest.update(agent.encode())
            digest.update(seen["observation"].tobytes())
            digest.update(seen["action_mask"].tobytes())
            assert seen["observations"] is seen["observation"]
        steps.append(digest.hexdigest())
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
    log = hashlib.blake2b(b"".join(aec.stepper.lines), digest_size=16).hexdigest()
    return {"steps": steps, "log": log}


def main() -> None:
    golden = {key(*fight): play(*fight) for fight in FIGHTS}
    GOLDEN.write_text(json.dumps(golden, indent=1) + "\n")
    for name, fight in golden.items():
        print(f"{name}: {len(fight['steps'])} steps")


if __name__ == "__main__":
    main()
