"""Timing shared by the benchmarks: the least of several runs, the works of one figure
interleaved so that a slow spell of a shared machine touches each of them alike."""

from __future__ import annotations

import math
import time
from collections.abc import Callable


def best_times(repeat: int, *works: Callable[[], object]) -> list[float]:
    """The least time in seconds each of ``works`` took over ``repeat`` rounds, each round
    running every one of them once, in the order given."""
    best = [math.inf] * len(works)
    for _ in range(repeat):
        for i, work in enumerate(works):
            start = time.perf_counter()
            work()
            best[i] = min(best[i], time.perf_counter() - start)
    return best
