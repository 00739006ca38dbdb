"""Regenerate the golden logs on purpose: ``python tests/golden/regenerate.py``.

Each golden log is an example encounter run with a fixed seed. The tests re-verify them byte for
byte on every run; regenerate only when a change of the engine's output is intended, and say so
in the commit. ``format1/`` keeps five fights as log format 1 wrote them, and ``format1/upcast/``
the same fights in the current format, for the upcaster's tests (tests/replays/test_old_logs.py)
and for tests that read a fixed fight; they are never regenerated.
"""

from __future__ import annotations

import logging
from pathlib import Path

import structlog
from initiative.actors import run_encounter_sync

from initiative import engine

HERE = Path(__file__).parent
ROOT = HERE.parents[1]

#: (example file, seed) pairs kept as golden logs.
GOLDEN = [
    ("openings-skirmish.toml", 7),
    ("openings-duel.toml", 3),
    ("thriller-ambush.toml", 2),
    ("percentile-wilhelm.toml", 1),
    ("tactical-bridge.toml", 4),
]


def golden_path(example: str, seed: int) -> Path:
    return HERE / f"{Path(example).stem}.seed{seed}.jsonl"


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    for example, seed in GOLDEN:
        spec = engine.load_encounter(ROOT / "examples" / example)
        out = golden_path(example, seed)
        result = run_encounter_sync(spec, seed, out=out)
        print(f"{out.relative_to(ROOT)}: {len(result.events)} events")


if __name__ == "__main__":
    main()
