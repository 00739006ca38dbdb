"""What one fight gives beyond its totals: each side's hit points and damage by round, and the
kind of each attack test (its weapon), read from the fight's events in the worker that fought it
(so ``--jobs`` and ``--cluster`` carry them back with the summary)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from initiative.events import EncounterSpec, Weapon


class _Record(Protocol):
    side: str
    fell: int | None


class Curves:
    """One fight's figures by round: ``hp[side][r - 1]`` is the side's hit points at the end of
    round ``r`` (those of its combatants still standing; one who fled keeps his), ``damage[side]
    [r - 1]`` the damage its combatants dealt in round ``r`` (the last round is the one the fight
    ended in, whole or not)."""

    def __init__(self, encounter: EncounterSpec | None = None) -> None:
        sides = encounter.sides if encounter is not None else ()
        self.start: dict[str, int] = dict.fromkeys(sides, 0)
        """Each side's hit points at the start: its combatants' (late arrivals too)."""
        for c in encounter.combatants if encounter is not None else ():
            self.start[c.side] = self.start.get(c.side, 0) + c.hp
        self.hp: dict[str, list[int]] = {s: [] for s in sides}
        self.damage: dict[str, list[int]] = {s: [] for s in sides}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Curves):
            return NotImplemented
        return (self.start, self.hp, self.damage) == (other.start, other.hp, other.damage)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return f"Curves(start={self.start}, hp={self.hp}, damage={self.damage})"

    def dealt(self, side: str, round_: int, amount: int) -> None:
        """``side`` dealt ``amount`` in round ``round_`` (before round 1: counted in round 1)."""
        row = self.damage.setdefault(side, [])
        at = max(round_, 1)
        while len(row) < at:
            row.append(0)
        row[at - 1] += amount

    def standing(
        self,
        round_: int,
        hp: Mapping[str, tuple[int, bool]],
        records: Mapping[str, _Record],
    ) -> None:
        """The end of round ``round_`` (or of the fight): each side's hit points now (of its
        combatants not defeated; one who fled keeps his)."""
        if round_ < 1:
            return
        totals = dict.fromkeys(self.hp, 0)
        for who, (points, _) in hp.items():
            record = records.get(who)
            if record is not None and record.fell is None and points > 0:
                totals[record.side] = totals.get(record.side, 0) + points
        for side, total in totals.items():
            row = self.hp.setdefault(side, [])
            while len(row) < round_:
                row.append(row[-1] if row else self.start.get(side, 0))
            row[round_ - 1] = total
            damage = self.damage.setdefault(side, [])
            while len(damage) < round_:
                damage.append(0)


def attack_kind(weapons: Sequence[Weapon], detail: str, declared: str | None) -> str:
    """The kind of an attack test, as designers count hits and misses: the weapon.

    It is the weapon of the attacker whose name starts the ``AttackResolved``'s ``detail``
    (``"longbow"``, ``"axe, -5 DoS"``, ``"spear; parried by gertrude"``); else the weapon the
    action it came from names (an attack whose target moved out of reach); else the detail's
    first clause (``"counter-attack"``, ``"coup de grace"``); else ``"attack"``.
    """
    best = ""
    for weapon in weapons:
        name = weapon.name
        if len(name) > len(best) and (
            detail == name or detail.startswith((name + ",", name + ";"))
        ):
            best = name
    if best:
        return best
    if declared:
        return declared
    for stop in ",;:":
        detail = detail.split(stop, 1)[0]
    return detail.strip() or "attack"
