"""Diff: the first event where two logs differ, the fields that differ, and context around it.

Logs are compared line by line as decoded JSON, field by field, with nested values flattened to
dotted paths (``action.target``). Two fields are derived from where a log came from rather than
from what happened in it, and are left out of the comparison: the header's ``parent`` (a fork
names its parent) and ``EncounterEnded.chain`` (a digest over every earlier line, which differs
whenever the header does). Their difference is reported as a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
from initiative.events import LogContents

#: (event type, field) pairs that describe a log's origin, not the fight; compared separately.
ORIGIN_FIELDS = {("EncounterStarted", "parent"), ("EncounterEnded", "chain")}

_MISSING = "<absent>"


@dataclass(frozen=True)
class FieldDiff:
    """One field that differs: its dotted path and the two values (``<absent>`` if missing)."""

    path: str
    a: Any
    b: Any


@dataclass
class LogDiff:
    """How two logs compare."""

    events_a: int
    events_b: int
    seq: int | None = None
    """The first seq where they differ (``None`` when they are the same)."""
    fields: list[FieldDiff] = field(default_factory=list)
    """The differing fields at ``seq`` (empty when one log simply ends there)."""
    ended: str | None = None
    """``"a"`` or ``"b"``: which log ended first, when the difference is that one is shorter."""
    notes: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return self.seq is None


def _decode(line: bytes) -> dict[str, Any]:
    obj = msgspec.json.decode(line)
    return obj if isinstance(obj, dict) else {"line": obj}


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts and lists as ``{dotted.path: leaf}`` (list items by index)."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{index}]"))
        return out
    return {prefix: value}


def field_diffs(a: dict[str, Any], b: dict[str, Any]) -> list[FieldDiff]:
    """The leaf fields that differ between two decoded events, in the order of their fields."""
    fa, fb = flatten(a), flatten(b)
    paths = list(dict.fromkeys([*fa, *fb]))
    return [
        FieldDiff(p, fa.get(p, _MISSING), fb.get(p, _MISSING))
        for p in paths
        if fa.get(p, _MISSING) != fb.get(p, _MISSING)
    ]


def _without_origin(obj: dict[str, Any]) -> dict[str, Any]:
    kind = obj.get("type")
    return {k: v for k, v in obj.items() if (kind, k) not in ORIGIN_FIELDS}


def diff_logs(a: LogContents, b: LogContents) -> LogDiff:
    """Compare two logs event by event; stop at the first difference."""
    result = LogDiff(events_a=len(a.lines), events_b=len(b.lines))
    for seq, (la, lb) in enumerate(zip(a.lines, b.lines, strict=False)):
        if la == lb:
            continue
        da, db = _decode(la), _decode(lb)
        origin = [d for d in field_diffs(da, db) if (da.get("type"), d.path) in ORIGIN_FIELDS]
        fields = field_diffs(_without_origin(da), _without_origin(db))
        if not fields:
            for d in origin:
                result.notes.append(f"seq {seq}: {d.path} differs (where the log came from)")
            continue
        result.seq, result.fields = seq, fields
        return result
    if len(a.lines) != len(b.lines):
        shorter = min(len(a.lines), len(b.lines))
        result.seq = shorter
        result.ended = "a" if len(a.lines) < len(b.lines) else "b"
    return result
