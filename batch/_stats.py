"""A batch's statistics, with the standard library only: Wilson's 95% interval for a rate,
Student's t interval for a mean, and an exact two-sided sign (binomial) test for a duel's
paired seeds."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from initiative.events import EncounterSpec

from ._fight import Summary


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's score interval for a proportion (95% by default); (0, 1) when ``n`` is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Exactly 0 (or 1) at no wins (or all): rounding would leave the rate itself outside.
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided binomial p-value that ``wins`` vs ``losses`` arose from a fair coin."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class Paired:
    """A duel's games paired by seed: each seed fought once each way round."""

    a_better: int
    """Seeds where A won more of the two games than B (both, or one and a draw)."""
    b_better: int
    even: int
    """Seeds that split one each, or where neither won."""
    unpaired: int = 0
    """Seeds with a single game (an odd ``--runs``), counted by that game alone."""

    @property
    def p(self) -> float:
        """Exact two-sided sign test over the seeds that were not even."""
        return sign_test(self.a_better, self.b_better)


def paired(scores: Iterable[tuple[int, int]]) -> Paired:
    """Pair a duel's games by seed: ``scores`` gives, per game, ``(seed, +1)`` for a win of A,
    ``(seed, -1)`` for one of B and ``(seed, 0)`` for no winner.

    Both games of a seed share its dice, so luck and side cancel inside the pair; the sign test
    is over the seeds where one policy did better, as a paired design asks.
    """
    net: dict[int, int] = {}
    games: dict[int, int] = {}
    for seed, score in scores:
        net[seed] = net.get(seed, 0) + score
        games[seed] = games.get(seed, 0) + 1
    return Paired(
        a_better=sum(1 for v in net.values() if v > 0),
        b_better=sum(1 for v in net.values() if v < 0),
        even=sum(1 for v in net.values() if v == 0),
        unpaired=sum(1 for n in games.values() if n == 1),
    )


#: Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom: from the
    table up to 30, beyond it by the Cornish-Fisher expansion around the normal's 1.96 (off by
    less than 0.001 there)."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df * df)


@dataclass(frozen=True)
class Mean:
    """A sample mean with its 95% interval (``None`` when the sample cannot give one), inside
    the range the quantity can take; ``method`` says how the interval was made."""

    n: int
    mean: float
    low: float | None
    high: float | None
    method: str | None = None
    """``t`` (Student's t, clipped to the quantity's range), ``poisson`` (Garwood's exact
    interval for a count, for a sample whose values are all equal) or ``None`` (no interval)."""

    def as_json(self) -> dict[str, object]:
        return {
            "n": self.n,
            "mean": round(self.mean, 4),
            "ci95": None
            if self.low is None or self.high is None
            else [round(self.low, 4), round(self.high, 4)],
            "method": self.method,
        }

    def text(self) -> str:
        """``12.3 (10.1-14.5)``; ``4.0 (n=1)`` for a single value; ``-`` for no values."""
        if self.n == 0:
            return "-"
        if self.low is None or self.high is None:
            return f"{self.mean:.1f} (n={self.n})"
        return f"{self.mean:.1f} ({self.low:.1f}-{self.high:.1f})"


def _lower_gamma(a: float, x: float) -> float:
    """The regularized lower incomplete gamma function P(a, x), for a > 0 (a series below
    ``a + 1``, Lentz's continued fraction for the upper tail above it)."""
    if x <= 0:
        return 0.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= x / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return min(1.0, total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return max(0.0, 1.0 - h * math.exp(log_front))


def _gamma_quantile(q: float, a: float) -> float:
    """The ``q`` quantile of the Gamma(a, 1) distribution, by bisection."""
    low, high = 0.0, max(1.0, 2 * a)
    while _lower_gamma(a, high) < q:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if _lower_gamma(a, middle) < q:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def poisson_ci(total: float, n: int) -> tuple[float, float]:
    """Garwood's exact 95% interval for the mean of a Poisson count, ``total`` counted over
    ``n`` draws: ``[Gamma(total).q(0.025), Gamma(total + 1).q(0.975)] / n`` (0 below when
    ``total`` is 0)."""
    low = 0.0 if total <= 0 else _gamma_quantile(0.025, total)
    return (low / n, _gamma_quantile(0.975, total + 1) / n)


def mean_ci(values: Sequence[float], floor: float = -math.inf, ceiling: float = math.inf) -> Mean:
    """The mean of ``values`` and its 95% interval inside ``[floor, ceiling]``, the range the
    quantity can take (a count's floor is 0, a round's 1).

    - two or more values that differ: Student's t, ``mean ± t(n-1) · sd / √n``, clipped to
      the range;
    - two or more values all equal (t would claim a width of 0): Garwood's exact interval for
      a count, over the values' excess above ``floor``, clipped to the range (without a finite
      floor, no interval);
    - one value: no interval (``None``): one value says nothing of the spread.
    """
    n = len(values)
    if n == 0:
        return Mean(0, 0.0, None, None)
    mean = statistics.fmean(values)
    floor = min(floor, min(values))
    ceiling = max(ceiling, max(values))
    if n < 2:
        return Mean(n, mean, None, None)
    if max(values) == min(values):
        if math.isinf(floor):
            return Mean(n, mean, None, None)
        low, high = poisson_ci(sum(v - floor for v in values), n)
        return Mean(n, mean, float(floor + low), float(min(ceiling, floor + high)), "poisson")
    half = t95(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return Mean(n, mean, float(max(floor, mean - half)), float(min(ceiling, mean + half)), "t")


@dataclass
class SideStats:
    """Totals for one side over a batch."""

    side: str
    runs: int
    wins: int
    interval: tuple[float, float]
    rounds_mean: float
    rounds_sd: float
    damage_mean: float
    faults: int
    damage: Mean = Mean(0, 0.0, None, None)
    """Damage dealt by the side per fight, with its 95% t interval."""

    @property
    def rate(self) -> float:
        return self.wins / self.runs if self.runs else 0.0


def side_stats(sides: Iterable[str], results: Sequence[Summary]) -> list[SideStats]:
    """Win rate (with its 95% interval), rounds, damage and faults for each side."""
    rounds = [r.rounds for r in results]
    mean = statistics.fmean(rounds) if rounds else 0.0
    sd = statistics.stdev(rounds) if len(rounds) > 1 else 0.0
    out = []
    for side in sides:
        wins = sum(1 for r in results if r.winner == side)
        damage = [r.damage.get(side, 0) for r in results]
        faults = sum(r.side_faults.get(side, 0) for r in results)
        out.append(
            SideStats(
                side=side,
                runs=len(results),
                wins=wins,
                interval=wilson(wins, len(results)),
                rounds_mean=mean,
                rounds_sd=sd,
                damage_mean=statistics.fmean(damage) if damage else 0.0,
                faults=faults,
                damage=mean_ci(damage, floor=0),
            )
        )
    return out


@dataclass
class CombatantStats:
    """One combatant over a batch (the fights whose rows have its record)."""

    id: str
    side: str
    policies: list[str]
    """The policies it fought with (one in a batch; both in a duel)."""
    fights: int
    survived: int
    """Fights it was never defeated in (one that fled survived)."""
    interval: tuple[float, float]
    """Wilson's 95% interval for its survival rate."""
    dealt: Mean
    taken: Mean
    kills: int
    kills_mean: float
    fell: Mean
    """The round it was defeated in, over the fights it was."""

    @property
    def survival(self) -> float:
        return self.survived / self.fights if self.fights else 0.0


def combatant_stats_by_policy(
    encounter: EncounterSpec, results: Sequence[Summary], policies: Sequence[str]
) -> list[CombatantStats]:
    """:func:`combatant_stats` apart for each policy a combatant played (a duel's each
    combatant plays both): per combatant in the encounter's order, a row for each of
    ``policies`` it played, over the fights it played that policy in."""
    out = []
    for c in encounter.combatants:
        for name in dict.fromkeys(policies):
            out += [
                s for s in combatant_stats(encounter, results, policy=name, only=c.id) if s.fights
            ]
    return out


def combatant_stats(
    encounter: EncounterSpec,
    results: Sequence[Summary],
    *,
    policy: str | None = None,
    only: str | None = None,
) -> list[CombatantStats]:
    """Survival (with Wilson's interval), damage dealt and taken (means with intervals),
    kills and the round of the first fall, for each combatant, in the encounter's order
    (``only`` one of them; with ``policy``, over the fights it played that policy in)."""
    out = []
    for c in encounter.combatants:
        if only is not None and c.id != only:
            continue
        rows = [
            (r, r.combatants[c.id])
            for r in results
            if c.id in r.combatants and policy in (None, r.policies.get(c.id, c.policy))
        ]
        survived = sum(1 for _, rec in rows if rec.fell is None)
        kills = sum(rec.kills for _, rec in rows)
        out.append(
            CombatantStats(
                id=c.id,
                side=c.side,
                policies=sorted({r.policies.get(c.id, c.policy) for r, _ in rows}),
                fights=len(rows),
                survived=survived,
                interval=wilson(survived, len(rows)),
                dealt=mean_ci([rec.dealt for _, rec in rows], floor=0),
                taken=mean_ci([rec.taken for _, rec in rows], floor=0),
                kills=kills,
                kills_mean=kills / len(rows) if rows else 0.0,
                fell=mean_ci(
                    [rec.fell for _, rec in rows if rec.fell is not None],
                    floor=1,
                    ceiling=encounter.max_rounds,
                ),
            )
        )
    return out


@dataclass(frozen=True)
class Outcomes:
    """How a batch's fights ended: won by some side, stalemates, and the other undecided."""

    won: int
    stalemates: int
    undecided: int
    """Neither won nor a stalemate (every side down at once, the round limit with hit points
    still changing, nobody acting any more)."""
    rounds: Mean


def outcomes(results: Sequence[Summary], max_rounds: float = math.inf) -> Outcomes:
    """How the fights ended, and their rounds' mean (its interval inside 1 to
    ``max_rounds``, the encounter's limit)."""
    won = sum(1 for r in results if r.winner is not None)
    stalemates = sum(1 for r in results if r.winner is None and r.stalemate)
    return Outcomes(
        won=won,
        stalemates=stalemates,
        undecided=len(results) - won - stalemates,
        rounds=mean_ci([r.rounds for r in results], floor=1, ceiling=max_rounds),
    )


def combatants_json(stats: Iterable[CombatantStats]) -> list[dict[str, object]]:
    """The per-combatant statistics as ``--json`` prints them."""
    return [
        {
            "id": s.id,
            "side": s.side,
            "policies": s.policies,
            "fights": s.fights,
            "survived": s.survived,
            "survival": round(s.survival, 4),
            "survival_ci95": [round(s.interval[0], 4), round(s.interval[1], 4)],
            "damage_dealt": s.dealt.as_json(),
            "damage_taken": s.taken.as_json(),
            "kills": s.kills,
            "kills_mean": round(s.kills_mean, 4),
            "fell": s.fell.n,
            "fell_round": s.fell.as_json(),
        }
        for s in stats
    ]


def faults_by_policy(results: Iterable[Summary]) -> dict[str, int]:
    """Total faults of each policy used in the batch (0 for those without any)."""
    total: dict[str, int] = {}
    for r in results:
        for name in r.policies.values():
            total.setdefault(name, 0)
        for name, n in r.faults.items():
            total[name] = total.get(name, 0) + n
    return dict(sorted(total.items()))
