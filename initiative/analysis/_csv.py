"""Data out: the fights of ``batch``, ``duel``, ``compare``, ``sweep`` and ``league`` as CSV
files, one row a fight (``--csv``) and one row per combatant per fight (``--csv-combatants``),
for a spreadsheet, pandas or R. Columns are documented in docs/batch.md ("Data out")."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from initiative.batch import Summary
from initiative.events import EncounterSpec


class OutputPathProblem(Exception):
    """A file cannot be written where asked (said in one line before any fight)."""


def check_output(path: Path, option: str, example: str = "fights.csv") -> None:
    """Make sure ``path`` (given as ``option``: ``--csv``, ``--report``) can be written, before
    the fights: not a folder (``example`` is the file name suggested instead), in a folder that
    exists, and a file can be created there (tried, then removed unless it was there)."""
    shown = f"{option} {path}"
    if path.is_dir():
        raise OutputPathProblem(f"{shown}: that is a folder; give a file name such as {example}")
    if not path.parent.is_dir():
        raise OutputPathProblem(f"{shown}: there is no folder {path.parent}")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as problem:
        raise OutputPathProblem(f"{shown}: cannot write it ({problem.strerror})") from None
    if not existed:
        os.unlink(path)


@dataclass
class Fought:
    """One fight for the CSV files: the columns that say which fight it was in its command
    (``variant``, ``value``, ``a_side``, ...), its encounter and its summary."""

    context: dict[str, object]
    encounter: EncounterSpec
    summary: Summary


#: The columns every fight has, after its context's.
FIGHT_COLUMNS = ("seed", "winner", "rounds", "stalemate", "events", "faults")
#: Per side, after those: ``policy_SIDE``, ``damage_SIDE``, ``hp_left_SIDE``, ``fallen_SIDE``.
SIDE_COLUMNS = ("policy", "damage", "hp_left", "fallen")
#: The columns every combatant has, after its context's; then ``hits_KIND``, ``misses_KIND``.
COMBATANT_COLUMNS = (
    "seed",
    "combatant",
    "name",
    "side",
    "policy",
    "hp_start",
    "hp_left",
    "dealt",
    "taken",
    "kills",
    "fell_round",
    "attacks",
    "hits",
    "misses",
)


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    return value


def _union(groups: Iterable[Iterable[str]]) -> list[str]:
    seen: dict[str, None] = {}
    for group in groups:
        for item in group:
            seen.setdefault(item, None)
    return list(seen)


def _write(path: Path, header: Sequence[str], rows: Iterable[dict[str, object]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(header), restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(v) for k, v in row.items()})


def fight_rows(fights: Sequence[Fought]) -> tuple[list[str], list[dict[str, object]]]:
    """The header and the rows of ``--csv``."""
    context = _union(f.context for f in fights)
    sides = _union(f.encounter.sides for f in fights)
    header = [*context, *FIGHT_COLUMNS]
    header += [f"{what}_{side}" for side in sides for what in SIDE_COLUMNS]
    rows = []
    for f in fights:
        s = f.summary
        row: dict[str, object] = {
            **f.context,
            "seed": s.seed,
            "winner": s.winner,
            "rounds": s.rounds,
            "stalemate": s.stalemate,
            "events": s.events,
            "faults": sum(s.faults.values()),
        }
        for side in f.encounter.sides:
            ids = [c.id for c in f.encounter.combatants if c.side == side]
            records = [s.combatants[i] for i in ids if i in s.combatants]
            row[f"policy_{side}"] = ", ".join(sorted({s.policies.get(i, "") for i in ids} - {""}))
            row[f"damage_{side}"] = s.damage.get(side, 0)
            known = records and all(r.hp is not None for r in records)
            row[f"hp_left_{side}"] = sum(r.hp or 0 for r in records) if known else None
            row[f"fallen_{side}"] = sum(r.fell is not None for r in records) if records else None
        rows.append(row)
    return header, rows


def combatant_rows(fights: Sequence[Fought]) -> tuple[list[str], list[dict[str, object]]]:
    """The header and the rows of ``--csv-combatants``."""
    context = _union(f.context for f in fights)
    kinds = _union(r.attacks for f in fights for r in f.summary.combatants.values())
    header = [*context, *COMBATANT_COLUMNS]
    header += [f"{what}_{kind}" for kind in kinds for what in ("hits", "misses")]
    rows = []
    for f in fights:
        s = f.summary
        for c in f.encounter.combatants:
            record = s.combatants.get(c.id)
            if record is None:
                continue
            hits = sum(h for h, _ in record.attacks.values())
            misses = sum(m for _, m in record.attacks.values())
            row: dict[str, object] = {
                **f.context,
                "seed": s.seed,
                "combatant": c.id,
                "name": c.display,
                "side": c.side,
                "policy": s.policies.get(c.id, c.policy),
                "hp_start": c.hp,
                "hp_left": record.hp,
                "dealt": record.dealt,
                "taken": record.taken,
                "kills": record.kills,
                "fell_round": record.fell,
                "attacks": hits + misses,
                "hits": hits,
                "misses": misses,
            }
            row.update({f"{what}_{kind}": 0 for kind in kinds for what in ("hits", "misses")})
            for kind, (h, m) in record.attacks.items():
                row[f"hits_{kind}"] = h
                row[f"misses_{kind}"] = m
            rows.append(row)
    return header, rows


def write_fights(path: Path, fights: Sequence[Fought]) -> None:
    """``--csv``: one row a fight."""
    _write(path, *fight_rows(fights))


def write_combatants(path: Path, fights: Sequence[Fought]) -> None:
    """``--csv-combatants``: one row per combatant per fight."""
    _write(path, *combatant_rows(fights))
