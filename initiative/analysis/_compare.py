"""Variants of an encounter side by side: each fought on the same seeds with the same policies,
so a seed's fights in two variants share their dice, and every difference is read pair by pair
(seed by seed).

Win/loss outcomes are compared with an exact McNemar test: over the seeds where a side won in
one variant and not in the other (the discordant seeds), an exact two-sided sign test; the
difference of the two rates has Newcombe's interval for paired proportions (method 10 of
Newcombe 1998: Wilson's intervals of the two rates joined with the seeds' correlation), which
stays inside [-1, 1]. Means (damage, hit points left, rounds) are compared by the mean of the
per-seed differences with its 95% t interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from initiative.batch import Mean, Summary, Task, mean_ci, sign_test
from initiative.events import EncounterSpec, InitiativeError

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

TEST = (
    "exact McNemar test: a two-sided sign test over the seeds where the side won in one"
    " variant and not in the other"
)
INTERVALS = (
    "differences are the second variant's figure less the first's, with 95% intervals:"
    " Newcombe's paired score interval (method 11, continuity corrected) for rates, a t interval of the per-seed"
    " differences for means"
)


class CompareError(InitiativeError):
    """Variants that cannot be compared (too few, or sides that differ)."""


@dataclass(frozen=True)
class Variant:
    label: str
    """``A``, ``B``, ... in the order the files were given."""
    path: str
    spec: EncounterSpec


def plan_compare(paths: Sequence[Path], specs: Sequence[EncounterSpec]) -> list[Variant]:
    """The variants, labelled; refused when fewer than two, or when their sides differ."""
    if len(paths) < 2:
        raise CompareError("compare needs two encounter files or more (A.toml B.toml ...)")
    if len(paths) > len(LABELS):
        raise CompareError(f"compare takes at most {len(LABELS)} files, not {len(paths)}")
    first = specs[0]
    for path, spec in zip(paths[1:], specs[1:], strict=True):
        if set(spec.sides) != set(first.sides):
            raise CompareError(
                f"{path}: its sides ({', '.join(spec.sides)}) are not those of {paths[0]}"
                f" ({', '.join(first.sides)}); compare matches sides by name"
            )
    return [
        Variant(LABELS[i], str(path), spec)
        for i, (path, spec) in enumerate(zip(paths, specs, strict=True))
    ]


def compare_tasks(policies: dict[str, str], runs: int, seed_start: int = 1) -> list[Task]:
    """The tasks every variant fights: the same seeds, the same policy overrides."""
    return [Task(seed=seed_start + i, policies=tuple(policies.items())) for i in range(runs)]


@dataclass(frozen=True)
class PairedRate:
    """A yes/no outcome on the same seeds in two variants: the 2x2 table and what it says."""

    both: int
    first_only: int
    """Seeds where it happened in the first variant only (discordant)."""
    second_only: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.first_only + self.second_only + self.neither

    @property
    def first(self) -> int:
        return self.both + self.first_only

    @property
    def second(self) -> int:
        return self.both + self.second_only

    @property
    def difference(self) -> float:
        """The second rate less the first."""
        return (self.second_only - self.first_only) / self.n if self.n else 0.0

    @property
    def p(self) -> float:
        """Exact McNemar: the sign test over the discordant seeds."""
        return sign_test(self.first_only, self.second_only)

    @property
    def interval(self) -> tuple[float, float]:
        """Newcombe's interval for the paired difference ``second - first``, continuity
        corrected (his method 11), so that it agrees with the exact test: an interval that
        leaves out 0 comes with a small ``p``, not with one over 0.05 as the uncorrected one
        can on few discordant seeds."""
        n = self.n
        if n == 0:
            return (-1.0, 1.0)
        p1, p2 = self.first / n, self.second / n
        l1, u1 = wilson_cc(self.first, n)
        l2, u2 = wilson_cc(self.second, n)
        a, b, c, d = self.both, self.second_only, self.first_only, self.neither
        # The table of (second, first): a both, b second only, c first only, d neither.
        rows = (a + b) * (c + d) * (a + c) * (b + d)
        cross = float(a * d - b * c)
        if cross > 0:
            cross = max(cross - n / 2, 0.0)
        phi = cross / math.sqrt(rows) if rows else 0.0
        diff = p2 - p1
        low = diff - math.sqrt(
            max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
        )
        high = diff + math.sqrt(
            max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2)
        )
        return (max(-1.0, min(low, diff)), min(1.0, max(high, diff)))


def wilson_cc(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's score interval with continuity correction (Newcombe 1998, method 4)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    low = (
        0.0
        if k == 0
        else (2 * n * p + z2 - 1 - z * math.sqrt(z2 - 2 - 1 / n + 4 * p * (n * (1 - p) + 1)))
        / (2 * (n + z2))
    )
    high = (
        1.0
        if k == n
        else (2 * n * p + z2 + 1 + z * math.sqrt(z2 + 2 - 1 / n + 4 * p * (n * (1 - p) - 1)))
        / (2 * (n + z2))
    )
    return (max(0.0, low), min(1.0, high))


def paired_rate(first: Sequence[bool], second: Sequence[bool]) -> PairedRate:
    """The 2x2 table of an outcome over the same seeds (``first[i]``, ``second[i]``)."""
    pairs = list(zip(first, second, strict=True))
    return PairedRate(
        both=sum(1 for x, y in pairs if x and y),
        first_only=sum(1 for x, y in pairs if x and not y),
        second_only=sum(1 for x, y in pairs if y and not x),
        neither=sum(1 for x, y in pairs if not x and not y),
    )


def paired_mean(first: Sequence[float], second: Sequence[float]) -> Mean:
    """The mean of the per-seed differences ``second - first``, with its 95% t interval."""
    return mean_ci([y - x for x, y in zip(first, second, strict=True)])


@dataclass(frozen=True)
class SideDifference:
    side: str
    wins: PairedRate
    any_fell: PairedRate
    """Seeds where at least one of the side was defeated."""
    damage: Mean
    """Damage the side dealt, second less first, per seed."""
    hp_left: Mean
    """Hit points the side had left at the end, second less first, per seed."""


@dataclass(frozen=True)
class CombatantDifference:
    id: str
    side: str
    present: str
    """``both``, or the label of the only variant that has it."""
    survived: PairedRate | None
    dealt: Mean | None
    taken: Mean | None


@dataclass(frozen=True)
class PairDifference:
    first: Variant
    second: Variant
    seeds: int
    sides: list[SideDifference]
    rounds: Mean
    combatants: list[CombatantDifference]


def _hp_left(summary: Summary, spec: EncounterSpec, side: str) -> int:
    return sum(
        summary.combatants[c.id].hp or 0
        for c in spec.combatants
        if c.side == side and c.id in summary.combatants
    )


def _any_fell(summary: Summary, spec: EncounterSpec, side: str) -> bool:
    return any(
        summary.combatants[c.id].fell is not None
        for c in spec.combatants
        if c.side == side and c.id in summary.combatants
    )


def difference(
    first: Variant, second: Variant, one: Sequence[Summary], two: Sequence[Summary]
) -> PairDifference:
    """What changes from ``first`` to ``second``, seed by seed (``one[i]`` and ``two[i]`` are
    the same seed)."""
    sides = [
        SideDifference(
            side=side,
            wins=paired_rate([r.winner == side for r in one], [r.winner == side for r in two]),
            any_fell=paired_rate(
                [_any_fell(r, first.spec, side) for r in one],
                [_any_fell(r, second.spec, side) for r in two],
            ),
            damage=paired_mean(
                [r.damage.get(side, 0) for r in one], [r.damage.get(side, 0) for r in two]
            ),
            hp_left=paired_mean(
                [_hp_left(r, first.spec, side) for r in one],
                [_hp_left(r, second.spec, side) for r in two],
            ),
        )
        for side in first.spec.sides
    ]
    in_first = {c.id: c.side for c in first.spec.combatants}
    in_second = {c.id: c.side for c in second.spec.combatants}
    combatants = []
    for cid in [*in_first, *(c for c in in_second if c not in in_first)]:
        if cid not in in_second or cid not in in_first:
            present = first.label if cid in in_first else second.label
            side = in_first.get(cid) or in_second[cid]
            combatants.append(CombatantDifference(cid, side, present, None, None, None))
            continue
        pairs = [
            (x.combatants[cid], y.combatants[cid])
            for x, y in zip(one, two, strict=True)
            if cid in x.combatants and cid in y.combatants
        ]
        combatants.append(
            CombatantDifference(
                id=cid,
                side=in_first[cid],
                present="both",
                survived=paired_rate(
                    [x.fell is None for x, _ in pairs], [y.fell is None for _, y in pairs]
                ),
                dealt=paired_mean([x.dealt for x, _ in pairs], [y.dealt for _, y in pairs]),
                taken=paired_mean([x.taken for x, _ in pairs], [y.taken for _, y in pairs]),
            )
        )
    return PairDifference(
        first=first,
        second=second,
        seeds=len(one),
        sides=sides,
        rounds=paired_mean([r.rounds for r in one], [r.rounds for r in two]),
        combatants=combatants,
    )


def differences(
    variants: Sequence[Variant], results: Sequence[Sequence[Summary]]
) -> list[PairDifference]:
    """Every pair of variants, in the order given: A-B, A-C, B-C, ..."""
    return [
        difference(variants[i], variants[j], results[i], results[j])
        for i in range(len(variants))
        for j in range(i + 1, len(variants))
    ]


def rate_json(rate: PairedRate) -> dict[str, object]:
    low, high = rate.interval
    return {
        "first": rate.first,
        "second": rate.second,
        "both": rate.both,
        "first_only": rate.first_only,
        "second_only": rate.second_only,
        "neither": rate.neither,
        "difference": round(rate.difference, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "p": rate.p,
    }


def pair_json(pair: PairDifference) -> dict[str, object]:
    return {
        "first": pair.first.label,
        "second": pair.second.label,
        "seeds": pair.seeds,
        "sides": [
            {
                "side": s.side,
                "wins": rate_json(s.wins),
                "any_fell": rate_json(s.any_fell),
                "damage": s.damage.as_json(),
                "hp_left": s.hp_left.as_json(),
            }
            for s in pair.sides
        ],
        "rounds": pair.rounds.as_json(),
        "combatants": [
            {
                "id": c.id,
                "side": c.side,
                "in": c.present,
                "survived": rate_json(c.survived) if c.survived is not None else None,
                "damage_dealt": c.dealt.as_json() if c.dealt is not None else None,
                "damage_taken": c.taken.as_json() if c.taken is not None else None,
            }
            for c in pair.combatants
        ],
    }
