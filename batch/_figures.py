"""A batch's figures for designers beyond who wins: each side's hit points and damage by round
(mean and 95% interval over the fights), group outcomes (how often any of a side falls, or all
of it, and the hit points it has left) and the hit rate of each combatant's attacks by kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from initiative.events import EncounterSpec

from ._fight import Summary
from ._stats import Mean, mean_ci, wilson


def bounded(values: Sequence[float], low: float, high: float) -> Mean:
    """The mean of ``values`` with its 95% t interval, the interval cut to ``[low, high]``, the
    range the quantity can take (hit points between none and all a side had)."""
    m = mean_ci(values)
    if m.low is None or m.high is None:
        return m
    return Mean(
        m.n, m.mean, float(min(max(m.low, low), m.mean)), float(max(min(m.high, high), m.mean))
    )


@dataclass(frozen=True)
class RoundFigure:
    """One side in one round, over the fights that have per-round figures."""

    round: int
    running: int
    """Fights that were still going in this round (the others count with their end)."""
    hp: Mean
    """Hit points at the end of the round: a fight over by then counts with its end."""
    damage: Mean
    """Damage dealt in the round (0 in a fight already over)."""


@dataclass(frozen=True)
class SideCurves:
    side: str
    start: int
    """Its hit points at the start (the largest over the fights, for a varying count)."""
    fights: int
    rounds: list[RoundFigure]


def round_curves(sides: Sequence[str], results: Sequence[Summary]) -> list[SideCurves]:
    """Each side's hit points and damage by round, from round 1 to the longest fight's last."""
    fought = [r.curves for r in results if r.curves is not None]
    longest = max((len(c.hp.get(s, ())) for c in fought for s in sides), default=0)
    out = []
    for side in sides:
        start = max((c.start.get(side, 0) for c in fought), default=0)
        rows = []
        for at in range(longest):
            hp, damage, running = [], [], 0
            for c in fought:
                line = c.hp.get(side, [])
                hp.append(line[min(at, len(line) - 1)] if line else c.start.get(side, 0))
                dealt = c.damage.get(side, [])
                damage.append(dealt[at] if at < len(dealt) else 0)
                running += at < len(line)
            rows.append(
                RoundFigure(
                    round=at + 1,
                    running=running,
                    hp=bounded(hp, 0, start),
                    damage=bounded(damage, 0, float("inf")),
                )
            )
        out.append(SideCurves(side=side, start=start, fights=len(fought), rounds=rows))
    return out


def curves_json(curves: Sequence[SideCurves]) -> list[dict[str, object]]:
    return [
        {
            "side": c.side,
            "start_hp": c.start,
            "fights": c.fights,
            "rounds": [
                {
                    "round": r.round,
                    "running": r.running,
                    "hp": r.hp.as_json(),
                    "damage": r.damage.as_json(),
                }
                for r in c.rounds
            ],
        }
        for c in curves
    ]


@dataclass(frozen=True)
class Group:
    """A side's group outcomes over a batch (the fights whose rows have hit points)."""

    side: str
    fights: int
    any_fell: int
    """Fights in which at least one of its combatants was defeated."""
    all_fell: int
    """Fights in which every one of its combatants was defeated."""
    hp_left: Mean
    """Hit points its combatants had left at the end (0 for the defeated)."""
    start: int

    def rate(self, count: int) -> float:
        return count / self.fights if self.fights else 0.0


def group_outcomes(encounter: EncounterSpec, results: Sequence[Summary]) -> list[Group]:
    """Per side: how often any of it falls, how often all of it, and its hit points left."""
    out = []
    for side in encounter.sides:
        ids = [c.id for c in encounter.combatants if c.side == side]
        start = sum(c.hp for c in encounter.combatants if c.side == side)
        any_fell = all_fell = 0
        left: list[float] = []
        for r in results:
            records = [r.combatants[i] for i in ids if i in r.combatants]
            if not records or any(rec.hp is None for rec in records):
                continue
            fell = [rec.fell is not None for rec in records]
            any_fell += any(fell)
            all_fell += all(fell)
            left.append(sum(rec.hp or 0 for rec in records))
        out.append(
            Group(
                side=side,
                fights=len(left),
                any_fell=any_fell,
                all_fell=all_fell,
                hp_left=bounded(left, 0, start),
                start=start,
            )
        )
    return out


def groups_json(found: Sequence[Group]) -> list[dict[str, object]]:
    def rate(count: int, n: int) -> dict[str, object]:
        low, high = wilson(count, n)
        return {
            "fights": count,
            "rate": round(count / n, 4) if n else None,
            "ci95": [round(low, 4), round(high, 4)] if n else None,
        }

    return [
        {
            "side": g.side,
            "fights": g.fights,
            "start_hp": g.start,
            "any_fell": rate(g.any_fell, g.fights),
            "all_fell": rate(g.all_fell, g.fights),
            "hp_left": g.hp_left.as_json(),
        }
        for g in found
    ]


@dataclass(frozen=True)
class AttackRate:
    """One combatant's attack tests of one kind over a batch."""

    combatant: str
    side: str
    kind: str
    attacks: int
    hits: int

    @property
    def rate(self) -> float:
        return self.hits / self.attacks if self.attacks else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.hits, self.attacks)


def attack_rates(encounter: EncounterSpec, results: Sequence[Summary]) -> list[AttackRate]:
    """Each combatant's hits and attack tests by kind (its weapon), in the encounter's order of
    combatants and the order the kinds were first met."""
    out = []
    for c in encounter.combatants:
        totals: dict[str, list[int]] = {}
        for r in results:
            record = r.combatants.get(c.id)
            for kind, (hits, misses) in (record.attacks if record is not None else {}).items():
                tally = totals.setdefault(kind, [0, 0])
                tally[0] += hits
                tally[1] += misses
        for kind, (hits, misses) in totals.items():
            out.append(AttackRate(c.id, c.side, kind, hits + misses, hits))
    return out


def attacks_json(rates: Sequence[AttackRate]) -> list[dict[str, object]]:
    return [
        {
            "combatant": a.combatant,
            "side": a.side,
            "kind": a.kind,
            "attacks": a.attacks,
            "hits": a.hits,
            "rate": round(a.rate, 4),
            "ci95": [round(a.interval[0], 4), round(a.interval[1], 4)],
        }
        for a in rates
    ]


def figures_json(encounter: EncounterSpec, results: Sequence[Summary]) -> dict[str, object]:
    """The three as ``--json`` prints them: ``curves``, ``groups`` and ``attacks``."""
    return {
        "curves": curves_json(round_curves(encounter.sides, results)),
        "groups": groups_json(group_outcomes(encounter, results)),
        "attacks": attacks_json(attack_rates(encounter, results)),
    }
