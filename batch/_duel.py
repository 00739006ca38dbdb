"""Duels: two policies on paired seeds, and the verdict of the paired sign test.

Each seed is fought twice, policy A on the encounter's first side and B on the second, then the
other way round, so the luck of the dice and of the sides cancels out of the comparison. The
verdict is an exact two-sided sign test over the seeds where one policy did better
(:func:`~initiative.batch.paired`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from initiative.engine import load_encounter
from initiative.events import EncounterSpec

from ._fight import BatchError, Summary, Task
from ._stats import Paired, paired, wilson
from ._workers import run_batch

#: The p-value below which a duel names the better policy.
ALPHA = 0.05


def duel_tasks(
    encounter: EncounterSpec, a: str, b: str, runs: int, seed_start: int = 1
) -> list[Task]:
    """The ``2 * runs`` tasks of a duel of ``a`` against ``b``: seed ``s`` with A on the first
    side, then seed ``s`` with A on the second (its log named ``.swapped``)."""
    if len(encounter.sides) != 2:
        raise BatchError(
            f"a duel needs an encounter with two sides; {encounter.name or 'this one'}"
            f" has {len(encounter.sides)}"
        )
    one, two = encounter.sides
    return [
        Task(
            seed=seed_start + i // 2,
            policies=((one, a), (two, b)) if i % 2 == 0 else ((one, b), (two, a)),
            label="" if i % 2 == 0 else ".swapped",
        )
        for i in range(2 * runs)
    ]


@dataclass(frozen=True)
class Duel:
    """A duel's outcome: each policy's wins (by side) and faults, and the paired verdict."""

    a: str
    """Policy A (on the first side in the even games)."""
    b: str
    sides: tuple[str, str]
    games: int
    wins: dict[str, int]
    """Games won, by ``"A"`` and ``"B"``."""
    by_side: dict[tuple[str, str], int]
    """Games won, by ``("A" or "B", side)``."""
    faults: dict[str, int]
    """Faults (failed decisions, rejected actions), by ``"A"`` and ``"B"``."""
    pairs: Paired
    better: str | None
    """The policy that did better (``a`` or ``b``) when the sign test's ``p`` is below
    :data:`ALPHA`; ``None``: no clear difference."""

    @property
    def p(self) -> float:
        """The exact two-sided sign test over the seeds that were not even."""
        return self.pairs.p

    @property
    def draws(self) -> int:
        """Games no one won."""
        return self.games - self.wins["A"] - self.wins["B"]

    def interval(self, who: str) -> tuple[float, float]:
        """Wilson's 95% interval for the win rate of ``"A"`` or ``"B"``."""
        return wilson(self.wins[who], self.games)

    def verdict(self) -> str:
        """The verdict in words, as ``initiative duel`` prints it."""
        split = self.pairs.a_better + self.pairs.b_better
        test = (
            f"p = {self.p:.3g}, exact two-sided sign test over the {split} seeds that were not even"
        )
        if self.better is None:
            return f"no clear difference between {self.a} and {self.b} ({test}); more runs may tell"
        worse = self.b if self.better == self.a else self.a
        return f"{self.better} is better than {worse} ({test})"


def judge(
    encounter: EncounterSpec,
    a: str,
    b: str,
    tasks: Sequence[Task],
    results: Sequence[Summary],
    alpha: float = ALPHA,
) -> Duel:
    """Read a duel's results (``results[i]`` fought ``tasks[i]`` of :func:`duel_tasks`)."""
    one, two = encounter.sides
    wins = {"A": 0, "B": 0}
    by_side = {("A", one): 0, ("A", two): 0, ("B", one): 0, ("B", two): 0}
    faults = {"A": 0, "B": 0}
    scores = []
    for i, r in enumerate(results):
        side_of = {"A": one, "B": two} if i % 2 == 0 else {"A": two, "B": one}
        for who, side in side_of.items():
            faults[who] += r.side_faults.get(side, 0)
            if r.winner == side:
                wins[who] += 1
                by_side[(who, side)] += 1
        score = 1 if r.winner == side_of["A"] else -1 if r.winner == side_of["B"] else 0
        scores.append((tasks[i].seed, score))
    pairs = paired(scores)
    better = None
    if pairs.p < alpha and pairs.a_better != pairs.b_better:
        better = a if pairs.a_better > pairs.b_better else b
    return Duel(
        a=a,
        b=b,
        sides=(one, two),
        games=len(results),
        wins=wins,
        by_side=by_side,
        faults=faults,
        pairs=pairs,
        better=better,
    )


def duel(
    path: str | Path,
    a: str,
    b: str,
    *,
    runs: int,
    seed_start: int = 1,
    jobs: int = 1,
    keep_logs: str | Path | None = None,
    timeout: float | None = None,
    cluster: str | None = None,
    log_level: int = logging.ERROR,
) -> tuple[Duel, list[Summary]]:
    """Fight a duel of policies ``a`` and ``b`` on the two-sided encounter at ``path`` over
    ``runs`` seeds (each fought both ways round); its verdict and the games' summaries."""
    encounter = load_encounter(Path(path))
    tasks = duel_tasks(encounter, a, b, runs, seed_start)
    results = run_batch(
        path,
        tasks,
        jobs=jobs,
        keep_logs=keep_logs,
        timeout=timeout,
        log_level=log_level,
        cluster=cluster,
    )
    return judge(encounter, a, b, tasks, results), results
