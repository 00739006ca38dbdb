"""Leagues: a round robin of policies over encounters, with ratings and paired tests.

Each pair of policies plays each two-sided encounter on paired seeds: on seed ``s`` the first
policy takes the encounter's first side and the second the other (every combatant of a side
plays that side's policy), then the same seed is fought again with the sides swapped. Both
games of a seed share their dice, so luck and the sides' own strength cancel in the pair.

A league is not an actor: it plans :class:`~initiative.batch.Task` lists and fights them with
the batch machinery (:func:`~initiative.batch.iter_batch`: worker processes, results in task
order whatever the number of jobs), then reads the results:

- a pairwise table: each pair's wins, losses and undecided games, and the exact two-sided sign
  test over the seeds where one policy did better (:func:`~initiative.batch.paired`);
- Bradley-Terry ratings, fitted by the MM algorithm (Hunter, 2004), on the Elo scale (400
  points: ten to one odds), with 95% intervals from a bootstrap over the seeds (a fixed random
  stream, so the same results give the same intervals).

Standard library only.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from initiative.actors import check_policies, load_policy, make_runners, run_encounter_sync
from initiative.batch import Summary, Task, iter_batch, paired
from initiative.engine import load_encounter
from initiative.events import EncounterSpec, InitiativeError


class LeagueError(InitiativeError):
    """A league cannot be played as asked (too few policies, an encounter without two sides)."""


@dataclass(frozen=True)
class Game:
    """One fought game of a league."""

    encounter: str
    """The encounter's name (its file's stem)."""
    seed: int
    a: str
    """The pair's first policy (in the league's order)."""
    b: str
    swapped: bool
    """``False``: ``a`` played the encounter's first side; ``True``: its second."""
    winner: str | None
    """The winning policy (``a`` or ``b``), ``None`` when the fight had no winner."""
    rounds: int
    stalemate: bool = False
    """Undecided with nothing changing in its last rounds (see ``batch.FightStats``)."""


@dataclass(frozen=True)
class Pairing:
    """One pair's record: wins, losses, undecided games, and the paired sign test."""

    a: str
    b: str
    wins: int
    """Games ``a`` won."""
    losses: int
    """Games ``b`` won."""
    undecided: int
    """Games neither won (stalemates included)."""
    a_better: int
    """Seeds where ``a`` won more of the two games than ``b``."""
    b_better: int
    even: int
    p: float
    """Exact two-sided sign test over the seeds that were not even."""
    stalemates: int = 0
    """The undecided games that were stalemates."""

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.undecided


@dataclass(frozen=True)
class Rating:
    """A policy's Bradley-Terry rating on the Elo scale (mean 0 over the league) and its 95%
    bootstrap interval."""

    policy: str
    rating: float
    low: float
    high: float
    score: float
    """Its share of points (a win 1, an undecided game 1/2) over all its games."""
    games: int
    decisive: int = 0
    """Its games that some policy won: with none, its rating is the prior's alone."""


def check_league(policies: Sequence[str], encounters: Sequence[EncounterSpec], runs: int) -> None:
    """Refuse a league that cannot be played: raises :class:`LeagueError`."""
    if len(policies) < 2:
        raise LeagueError(f"a league needs at least two policies, got {len(policies)}")
    twice = sorted({p for p in policies if policies.count(p) > 1})
    if twice:
        raise LeagueError(f"policy {twice[0]!r} is named twice; name each policy once")
    if runs < 1:
        raise LeagueError(f"--runs {runs}: must be at least 1")
    for spec in encounters:
        if len(spec.sides) != 2:
            raise LeagueError(
                f"a league needs encounters with two sides; {spec.name!r} has {len(spec.sides)}"
            )


def pairs_of(policies: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of the league, once, in the order the policies were named."""
    return list(itertools.combinations(policies, 2))


def league_tasks(
    spec: EncounterSpec, policies: Sequence[str], runs: int, seed_start: int = 1
) -> list[Task]:
    """The tasks of one encounter: for each pair and each of ``runs`` seeds, the seed with the
    pair's first policy on the first side, then the same seed with the sides swapped."""
    one, two = spec.sides
    tasks = []
    for a, b in pairs_of(policies):
        for seed in range(seed_start, seed_start + runs):
            tasks.append(Task(seed=seed, policies=((one, a), (two, b)), label=f".{a}-{b}"))
            tasks.append(Task(seed=seed, policies=((one, b), (two, a)), label=f".{a}-{b}.swapped"))
    return tasks


def games_of(
    spec: EncounterSpec, name: str, policies: Sequence[str], results: Sequence[Summary]
) -> list[Game]:
    """Read one encounter's results (in the order of :func:`league_tasks`) as games."""
    one, two = spec.sides
    pairs = pairs_of(policies)
    per_pair = len(results) // len(pairs)  # two games a seed
    games = []
    for i, summary in enumerate(results):
        a, b = pairs[i // per_pair]
        swapped = i % 2 == 1
        side_a, side_b = (two, one) if swapped else (one, two)
        winner = a if summary.winner == side_a else b if summary.winner == side_b else None
        games.append(
            Game(name, summary.seed, a, b, swapped, winner, summary.rounds, summary.stalemate)
        )
    return games


@dataclass(frozen=True)
class League:
    """The games of a league and what they say."""

    policies: tuple[str, ...]
    encounters: tuple[str, ...]
    runs: int
    """Seeds per pair and encounter (each fought both ways)."""
    seed_start: int
    games: tuple[Game, ...]

    def pairings(self, encounter: str | None = None) -> list[Pairing]:
        """Each pair's record over every encounter, or over one (by name)."""
        out = []
        for a, b in pairs_of(self.policies):
            mine = [
                g for g in self.games if (g.a, g.b) == (a, b) and encounter in (None, g.encounter)
            ]
            key: dict[tuple[str, int], int] = {}  # (encounter, seed) -> a number to pair by
            scores = [
                (
                    key.setdefault((g.encounter, g.seed), len(key)),
                    1 if g.winner == a else -1 if g.winner == b else 0,
                )
                for g in mine
            ]
            seeds = paired(scores)
            out.append(
                Pairing(
                    a=a,
                    b=b,
                    wins=sum(1 for g in mine if g.winner == a),
                    losses=sum(1 for g in mine if g.winner == b),
                    undecided=sum(1 for g in mine if g.winner is None),
                    a_better=seeds.a_better,
                    b_better=seeds.b_better,
                    even=seeds.even,
                    p=seeds.p,
                    stalemates=sum(1 for g in mine if g.winner is None and g.stalemate),
                )
            )
        return out

    def ratings(self, *, resamples: int = 200, seed: int = 2024) -> list[Rating]:
        """Bradley-Terry ratings, best first, each with the wider of two 95% intervals: a
        bootstrap over the seeds (each resample draws whole seeds of each encounter: all the
        games fought on them) and the model's own (Wald's, from the fitted strengths'
        information, :func:`model_spread`). The bootstrap alone says ``+0 to +0`` when every
        seed split its two games; the model's interval is as wide as that many games allow."""
        strength = bradley_terry(self.policies, _points(self.games))
        fitted = _elo(strength)
        spread = model_spread(self.policies, self.games, strength)
        by_seed: dict[tuple[str, int], list[Game]] = {}
        for g in self.games:
            by_seed.setdefault((g.encounter, g.seed), []).append(g)
        keys = sorted(by_seed)
        draws: dict[str, list[float]] = {p: [] for p in self.policies}
        rng = random.Random(seed)
        for _ in range(resamples):
            sample = [g for _ in keys for g in by_seed[keys[rng.randrange(len(keys))]]]
            for policy, value in _elo(bradley_terry(self.policies, _points(sample))).items():
                draws[policy].append(value)
        out = []
        for policy in self.policies:
            values = sorted(draws[policy])
            mine = [g for g in self.games if policy in (g.a, g.b)]
            points = sum(
                1.0 if g.winner == policy else 0.5 if g.winner is None else 0.0 for g in mine
            )
            half = Z95 * spread[policy]
            out.append(
                Rating(
                    policy=policy,
                    rating=fitted[policy],
                    low=min(_quantile(values, 0.025), fitted[policy] - half)
                    if values
                    else fitted[policy] - half,
                    high=max(_quantile(values, 0.975), fitted[policy] + half)
                    if values
                    else fitted[policy] + half,
                    score=points / len(mine) if mine else 0.0,
                    games=len(mine),
                    decisive=sum(1 for g in mine if g.winner is not None),
                )
            )
        return sorted(out, key=lambda r: (-r.rating, self.policies.index(r.policy)))


def _points(games: Iterable[Game]) -> dict[tuple[str, str], float]:
    """Points of each policy against each other: a win 1, an undecided game 1/2 to each."""
    points: dict[tuple[str, str], float] = {}
    for g in games:
        for me, other in ((g.a, g.b), (g.b, g.a)):
            got = 1.0 if g.winner == me else 0.5 if g.winner is None else 0.0
            points[(me, other)] = points.get((me, other), 0.0) + got
    return points


def bradley_terry(
    players: Sequence[str],
    points: Mapping[tuple[str, str], float],
    *,
    prior: float = 0.5,
    iterations: int = 10_000,
    tolerance: float = 1e-10,
) -> dict[str, float]:
    """Bradley-Terry strengths (geometric mean 1) fitted by the MM algorithm (Hunter 2004):
    ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``, where ``W_i`` is i's points and ``n_ij`` the
    games of i and j. ``prior`` adds that many points to each side of every pair that met
    (a drawn virtual game when 1/2), so a policy that never won keeps a finite strength."""
    played: dict[tuple[str, str], float] = {}
    for (i, j), got in points.items():
        played[(i, j)] = played.get((i, j), 0.0) + got
        played[(j, i)] = played.get((j, i), 0.0) + got
    met = {pair for pair, n in played.items() if n > 0}
    wins = {
        i: sum(points.get((i, j), 0.0) + (prior if (i, j) in met else 0.0) for j in players)
        for i in players
    }
    games = {pair: n + 2 * prior for pair, n in played.items() if pair in met}
    strength = dict.fromkeys(players, 1.0)
    for _ in range(iterations):
        new = {}
        for i in players:
            denom = sum(
                games[(i, j)] / (strength[i] + strength[j]) for j in players if (i, j) in games
            )
            new[i] = wins[i] / denom if denom > 0 else strength[i]
        scale = math.exp(sum(math.log(v) for v in new.values() if v > 0) / len(players))
        new = {i: v / scale for i, v in new.items()}
        change = max(abs(math.log(new[i]) - math.log(strength[i])) for i in players)
        strength = new
        if change < tolerance:
            break
    return strength


Z95 = 1.959964
ELO = 400 / math.log(10)
"""Elo points per unit of log-strength."""


def model_spread(
    players: Sequence[str], games: Iterable[Game], strength: Mapping[str, float], prior: float = 0.5
) -> dict[str, float]:
    """Each rating's standard error on the Elo scale, from the Bradley-Terry model's Fisher
    information at the fitted ``strength``: the games of each pair (and the ``prior``'s drawn
    virtual game) weighted by p(1-p), a graph Laplacian whose pseudo-inverse (the ratings sum
    to 0) is the log-strengths' covariance. Games are taken as independent, which a seed's
    two games are not: the bootstrap over seeds catches that, and the wider interval is kept."""
    n = len(players)
    index = {p: i for i, p in enumerate(players)}
    met: dict[tuple[int, int], float] = {}
    for g in games:
        i, j = sorted((index[g.a], index[g.b]))
        met[(i, j)] = met.get((i, j), 0.0) + 1.0
    laplacian = [[0.0] * n for _ in range(n)]
    for (i, j), count in met.items():
        si, sj = strength[players[i]], strength[players[j]]
        p = si / (si + sj)
        w = (count + 2 * prior) * p * (1 - p)
        laplacian[i][j] -= w
        laplacian[j][i] -= w
        laplacian[i][i] += w
        laplacian[j][j] += w
    # The pseudo-inverse of a connected graph's Laplacian: (L + J/n)^-1 - J/n.
    shifted = [[laplacian[i][j] + 1 / n for j in range(n)] for i in range(n)]
    inverse = _invert(shifted)
    if inverse is None:  # pairs that never met (no game): nothing is known
        return dict.fromkeys(players, math.inf)
    return {p: ELO * math.sqrt(max(inverse[i][i] - 1 / n, 0.0)) for p, i in index.items()}


def _invert(matrix: list[list[float]]) -> list[list[float]] | None:
    """The inverse of a small square matrix by Gauss-Jordan elimination (``None`` if
    singular)."""
    n = len(matrix)
    rows = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        top = rows[col][col]
        rows[col] = [v / top for v in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0.0:
                factor = rows[r][col]
                rows[r] = [v - factor * w for v, w in zip(rows[r], rows[col], strict=True)]
    return [row[n:] for row in rows]


def _elo(strength: Mapping[str, float]) -> dict[str, float]:
    """Strengths on the Elo scale, mean 0: 400 points apart is ten to one odds."""
    return {i: 400 * math.log10(v) for i, v in strength.items()}


def _quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values``, interpolated linearly."""
    at = q * (len(values) - 1)
    low = math.floor(at)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (at - low)


@dataclass(frozen=True)
class Stage:
    """One encounter of a league and the tasks fought on it."""

    path: str
    name: str
    spec: EncounterSpec
    tasks: tuple[Task, ...]


def plan_league(
    encounters: Sequence[str | Path], policies: Sequence[str], runs: int, seed_start: int = 1
) -> list[Stage]:
    """Load and check the encounters and the policies (unknown names fail here, before any
    fighting) and plan each encounter's tasks (see :func:`league_tasks`)."""
    specs = [load_encounter(Path(e)) for e in encounters]
    check_league(policies, specs, runs)
    for spec in specs:
        one, two = spec.sides
        for name in policies:
            check_policies(spec, {one: name, two: name}, what="--policies")
            make_runners(spec, seed_start, {one: name, two: name})
    return [
        Stage(
            str(path), Path(path).stem, spec, tuple(league_tasks(spec, policies, runs, seed_start))
        )
        for path, spec in zip(encounters, specs, strict=True)
    ]


def league_of(
    stages: Sequence[Stage],
    policies: Sequence[str],
    runs: int,
    seed_start: int,
    results: Sequence[Sequence[Summary]],
) -> League:
    """The league that ``results`` (each stage's summaries, in task order) make."""
    games: list[Game] = []
    for stage, summaries in zip(stages, results, strict=True):
        games += games_of(stage.spec, stage.name, policies, summaries)
    return League(
        policies=tuple(policies),
        encounters=tuple(stage.name for stage in stages),
        runs=runs,
        seed_start=seed_start,
        games=tuple(games),
    )


def play_league(
    encounters: Sequence[str | Path],
    policies: Sequence[str],
    runs: int,
    *,
    seed_start: int = 1,
    jobs: int = 1,
    timeout: float | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> League:
    """Fight the whole league (see the module's docstring): ``runs`` seeds per pair and
    encounter, each fought both ways; ``progress(encounter, n)`` as ``n`` games finish."""
    stages = plan_league(encounters, policies, runs, seed_start)
    results = [
        fight(s.path, s.tasks, jobs=jobs, timeout=timeout, name=s.name, progress=progress)
        for s in stages
    ]
    return league_of(stages, policies, runs, seed_start, results)


def fight(
    path: str | Path,
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    timeout: float | None = None,
    name: str = "",
    progress: Callable[[str, int], None] | None = None,
    on_result: Callable[[int, Summary], None] | None = None,
) -> list[Summary]:
    """The tasks' summaries in task order, fought by :func:`~initiative.batch.iter_batch`;
    ``on_result(index, summary)`` as each finishes. Stopping early (Ctrl-C) stops the workers."""
    by_index: dict[int, Summary] = {}
    fought = iter_batch(path, tasks, jobs=jobs, timeout=timeout)
    with closing(fought):  # type: ignore[type-var]  # a generator: close() stops its workers
        for index, summary in fought:
            by_index[index] = summary
            if on_result is not None:
                on_result(index, summary)
            if progress is not None:
                progress(name, 1)
    return [by_index[i] for i in range(len(tasks))]


# --- the cost of a decision ---------------------------------------------------------------------


class _Timed:
    """A policy loaded by name whose decisions are timed in CPU seconds (this process's)."""

    in_line = True  # as trusted as the built-in it wraps

    def __init__(self, name: str, ctx: Any, clock: list[float]) -> None:
        self.policy = load_policy(name, ctx).policy
        self.clock = clock
        self.warm = getattr(self.policy, "warm", True)
        observe = getattr(self.policy, "observe", None)
        if observe is not None:
            self.observe = observe

    def decide(self, view: Any) -> Any:
        decide = getattr(self.policy, "decide", self.policy)
        started = time.process_time()
        try:
            return decide(view)
        finally:
            self.clock[0] += time.process_time() - started
            self.clock[1] += 1


def decision_cost(encounter: str | Path, policy: str, opponent: str, seeds: Iterable[int]) -> float:
    """CPU microseconds per decision of ``policy`` playing ``opponent`` on each seed, both
    ways, fought in this process (only ``policy``'s own decisions are counted)."""
    spec = load_encounter(Path(encounter))
    one, two = spec.sides
    clock = [0.0, 0.0]

    class Timed(_Timed):
        def __init__(self, ctx: Any) -> None:
            super().__init__(policy, ctx, clock)

    for seed in seeds:
        for mine, theirs in ((one, two), (two, one)):
            run_encounter_sync(
                spec, seed, policies={mine: Timed, theirs: opponent}, executor="auto"
            )
    return 1e6 * clock[0] / clock[1] if clock[1] else 0.0


def games_table(league: League) -> Iterator[dict[str, Any]]:
    """Every game as a plain dict (for ``--json`` and for scripts)."""
    for g in league.games:
        yield {
            "encounter": g.encounter,
            "seed": g.seed,
            "a": g.a,
            "b": g.b,
            "swapped": g.swapped,
            "winner": g.winner,
            "rounds": g.rounds,
            "stalemate": g.stalemate,
        }
