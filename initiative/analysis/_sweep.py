"""Sweeps: one value of an encounter varied over a range, and each side's win rate across it.

A sweep answers "what makes this encounter fair?". It changes one number of the encounter file
(:func:`vary`), checks the changed encounter through the same path a loaded file takes
(:func:`~initiative.engine.decode_encounter`: a value that makes it invalid, hp 0 say, fails
before any fighting), and fights each value on the same seeds with the batch machinery
(:func:`initiative._league.fight`, over :func:`~initiative.batch.iter_batch`). The same seeds
for every value keep the dice the same, so the differences between values are the value's.

The key names where the number lives:

- ``combatants.ID.FIELD``: a combatant's field, by the id its entry has in the file
  (``combatants.boss.hp``); deeper keys walk tables and lists (``combatants.boss.stats.agility``,
  ``combatants.boss.weapons.0.reach``);
- ``options.NAME`` and any other top-level key (``max_rounds``);
- ``sides.SIDE.count``: how many combatants the side has (copies counted). A larger count adds
  copies of the side's last entry: its ``count`` grows when the file gives one, otherwise new
  entries are appended with fresh ids ``ID-2``, ``ID-3``, ... (names ``NAME 2``, ...; each 1 m
  further along y). A smaller count drops copies and then entries from the side's end.

:func:`find_crossing` looks for the value where a side's win rate crosses a target by bisection
over an integer range. It assumes what the user says: the win rate is monotone in the value
(it only reads the rate at the ends to learn the direction). Each probe fights the same seeds.

Standard library only (the changed file is written as TOML by :func:`toml_text`).
"""

from __future__ import annotations

import copy
import json
import math
import re
import tempfile
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from initiative.actors import check_policies, make_runners
from initiative.batch import Summary, Task, wilson
from initiative.engine import decode_encounter
from initiative.events import EncounterFileError, EncounterSpec, InitiativeError

Number = int | float
Value = Number | tuple[Number, ...]
V = TypeVar("V", bound=Value)
"""A value of a sweep: one number, or one per key for a grid."""


class SweepError(InitiativeError):
    """A sweep cannot be made as asked (a bad key, a value that is not a number, a bad range)."""


# --- what is varied ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Range:
    """``KEY=LO..HI`` as given to ``--vary``."""

    key: str
    low: Number
    high: Number

    @property
    def integer(self) -> bool:
        return isinstance(self.low, int) and isinstance(self.high, int)


_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


def _number(text: str) -> Number:
    return int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)


def parse_range(text: str) -> Range:
    """``KEY=LO..HI`` (integers, or numbers with a decimal point) as a :class:`Range`."""
    key, sep, span = text.partition("=")
    key = key.strip()
    match = re.fullmatch(rf"\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*", span)
    if not sep or not key or match is None:
        raise SweepError(f"--vary {text!r}: expected KEY=LO..HI, e.g. combatants.boss.hp=10..40")
    low, high = _number(match.group(1)), _number(match.group(2))
    if low >= high:
        raise SweepError(f"--vary {text!r}: the range must go up (LO below HI)")
    return Range(key, low, high)


def values_of(
    span: Range, *, step: Number | None = None, points: int | None = None
) -> list[Number]:
    """The values a sweep fights: from LO by ``step`` up to HI (HI included when a step lands on
    it), or ``points`` values evenly spread from LO to HI (rounded, and not repeated, for an
    integer range). By default every integer of an integer range of at most 11 values, otherwise
    5 points."""
    if step is not None and points is not None:
        raise SweepError("give --step or --points, not both")
    if step is not None:
        if not (step > 0 and math.isfinite(step)):
            raise SweepError(f"--step {step}: must be a positive number")
        whole = span.integer and float(step).is_integer()
        count = math.floor((span.high - span.low) / step + 1e-9) + 1
        if count > 1000:
            raise SweepError(f"--step {step}: {count} values; a sweep takes at most 1000")
        if whole:
            return [int(span.low) + i * int(step) for i in range(count)]
        return [round(span.low + i * step, 10) for i in range(count)]
    if points is None:
        points = int(span.high - span.low) + 1 if span.integer and span.high - span.low <= 10 else 5
    if not 2 <= points <= 1000:
        raise SweepError(f"--points {points}: must be from 2 to 1000")
    spread = [span.low + (span.high - span.low) * i / (points - 1) for i in range(points)]
    if span.integer:
        return sorted({round(v) for v in spread})
    return [round(v, 10) for v in spread]


def _walk_error(key: str, at: str, why: str) -> SweepError:
    return SweepError(f"--vary {key}: {at}: {why}")


def vary(data: Mapping[str, Any], key: str, value: Number) -> dict[str, Any]:
    """A copy of the encounter's parsed file ``data`` with ``key`` set to ``value`` (see the
    module's docstring for the keys). Raises :class:`SweepError` for a key that names nothing
    or a value that is not a number."""
    out = copy.deepcopy(dict(data))
    parts = key.split(".")
    if any(not p for p in parts):
        raise SweepError(f"--vary {key}: a key is names joined by '.', none of them empty")
    if parts[0] == "sides":
        if len(parts) < 3 or parts[-1] != "count":
            raise SweepError(f"--vary {key}: a side is varied by its count: sides.SIDE.count")
        _set_count(out, key, key.removeprefix("sides.").removesuffix(".count"), value)
        return out
    where: Any = out
    at = ""
    rest = parts
    if parts[0] == "combatants":
        if len(parts) < 3:
            raise SweepError(f"--vary {key}: name a combatant and a field: combatants.ID.FIELD")
        # Ids may hold dots: the longest id the key starts with is the combatant.
        ids = [c.get("id") for c in out.get("combatants", []) if isinstance(c, dict)]
        named = [i for i in ids if isinstance(i, str) and key.startswith(f"combatants.{i}.")]
        cid = max(named, key=len) if named else parts[1]
        where = _combatant(out, key, cid)
        at, rest = f"combatants.{cid}", key.removeprefix(f"combatants.{cid}.").split(".")
    for i, part in enumerate(rest):
        last = i == len(rest) - 1
        at = f"{at}.{part}" if at else part
        if isinstance(where, list):
            if not part.isdigit() or int(part) >= len(where):
                raise _walk_error(key, at, f"a list of {len(where)}; give an index from 0")
            index: Any = int(part)
        elif isinstance(where, dict):
            index = part
            if index not in where and not last:
                where[index] = {}  # a table the file leaves out (options, stats): its defaults
        else:
            raise _walk_error(key, at, f"{_shown(where)} has no fields")
        if last:
            current = where[index] if isinstance(where, list) or index in where else None
            if current is not None and (
                isinstance(current, bool) or not isinstance(current, int | float)
            ):
                raise _walk_error(key, at, f"is {_shown(current)}, not a number")
            where[index] = value
        else:
            where = where[index]
    return out


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _combatant(data: dict[str, Any], key: str, cid: str) -> dict[str, Any]:
    entries = [c for c in data.get("combatants", []) if isinstance(c, dict)]
    for c in entries:
        if c.get("id") == cid:
            return c
    ids = ", ".join(str(c.get("id")) for c in entries)
    raise SweepError(f"--vary {key}: no combatant {cid!r} in the file (its ids: {ids})")


def _set_count(data: dict[str, Any], key: str, side: str, value: Number) -> None:
    if isinstance(value, float):
        raise SweepError(f"--vary {key}: a count is a whole number, got {value}")
    entries = [c for c in data.get("combatants", []) if isinstance(c, dict)]
    mine = [c for c in entries if c.get("side") == side]
    if not mine:
        sides = ", ".join(sorted({str(c.get("side")) for c in entries}))
        raise SweepError(f"--vary {key}: no side {side!r} in the file (its sides: {sides})")
    if value < 1:
        raise SweepError(f"--vary {key}={value}: a side needs at least 1 combatant")

    def count(c: dict[str, Any]) -> int:
        n = c.get("count", 1)
        return n if isinstance(n, int) and not isinstance(n, bool) else 1

    have = sum(count(c) for c in mine)
    if value > have:
        last = mine[-1]
        if "count" in last:
            last["count"] = count(last) + value - have
            return
        used = {str(c.get("id")) for c in entries}
        clones: list[dict[str, Any]] = []
        k = 1
        while have + len(clones) < value:
            k += 1
            cid = f"{last.get('id')}-{k}"
            if cid in used:
                continue
            clone = copy.deepcopy(last)
            clone["id"] = cid
            clone["name"] = f"{last.get('name') or last.get('id')} {k}"
            position = last.get("position")
            if isinstance(position, list) and len(position) == 2:
                x, y = position
                if isinstance(y, int | float) and not isinstance(y, bool):
                    clone["position"] = [x, round(y + (k - 1), 2)]
            clones.append(clone)
        at = data["combatants"].index(last) + 1
        data["combatants"][at:at] = clones
        return
    for c in reversed(mine):
        if have == value:
            break
        drop = min(count(c), have - value)
        if drop == count(c):
            data["combatants"].remove(c)
        else:
            c["count"] = count(c) - drop
        have -= drop


def check(data: Mapping[str, Any], name: str) -> EncounterSpec:
    """The changed encounter, checked and normalized as a loaded file is; its policies must
    load. Raises :class:`~initiative.events.EncounterFileError` naming ``name``."""
    spec = decode_encounter(dict(data), name=name)
    check_policies(spec, {}, where=name)  # a misspelled name, with its file and key
    make_runners(spec, 1, {})  # an unknown policy fails here, before any fighting
    return spec


def read_data(path: str | Path) -> dict[str, Any]:
    """The encounter file parsed as TOML (errors as the loader words them)."""
    p = Path(path)
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EncounterFileError(f"{p}: no such encounter file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise EncounterFileError(f"{p}: cannot read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise EncounterFileError(f"{p}: not valid TOML: {err}") from None


# --- writing the changed file --------------------------------------------------------------------


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_string(key)


def _toml_string(text: str) -> str:
    # JSON's escapes are TOML's basic-string escapes; TOML also wants DEL escaped.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }"
    return str(value.isoformat())  # the dates and times tomllib reads


def toml_text(data: Mapping[str, Any]) -> str:
    """``data`` (as :mod:`tomllib` reads a file) written back as TOML: every table inline.
    Reading it back gives ``data`` again (checked)."""
    text = "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in data.items())
    if tomllib.loads(text) != data:
        raise SweepError("the changed encounter could not be written as TOML that reads back")
    return text


# --- fighting a value ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SideRate:
    side: str
    wins: int
    fights: int

    @property
    def rate(self) -> float:
        return self.wins / self.fights if self.fights else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson's 95% interval."""
        return wilson(self.wins, self.fights)


@dataclass(frozen=True)
class Point:
    """One value of a sweep and what its fights gave."""

    value: Value
    """The value fought, or its values (one per key) in a grid."""
    fights: int
    sides: tuple[SideRate, ...]
    no_winner: int
    stalemates: int

    def side(self, name: str) -> SideRate:
        return next(s for s in self.sides if s.side == name)


def point_of(value: Value, sides: Sequence[str], results: Sequence[Summary]) -> Point:
    return Point(
        value=value,
        fights=len(results),
        sides=tuple(
            SideRate(s, sum(1 for r in results if r.winner == s), len(results)) for s in sides
        ),
        no_winner=sum(1 for r in results if r.winner is None),
        stalemates=sum(1 for r in results if r.winner is None and r.stalemate),
    )


OnResult = Callable[[Value, int, Summary], None]
"""Called as each fight of a value finishes: ``(value, index, summary)``."""


class Sweeper:
    """Fights changed copies of one encounter file: :meth:`check` a value, :meth:`fight` it.

    The changed files are written in a temporary folder (closed with the sweeper), so that the
    worker processes load them as they load any encounter file."""

    def __init__(
        self,
        path: str | Path,
        key: str | tuple[str, ...],
        *,
        runs: int,
        seed_start: int = 1,
        jobs: int = 1,
        timeout: float | None = None,
    ) -> None:
        if runs < 1:
            raise SweepError(f"--runs {runs}: must be at least 1")
        if jobs < 1:
            raise SweepError(f"--jobs {jobs}: must be at least 1")
        self.path = Path(path)
        self.key = key
        self.runs = runs
        self.seed_start = seed_start
        self.jobs = jobs
        self.timeout = timeout
        self.data = read_data(self.path)
        self.base = check(self.data, str(self.path))
        self.tasks = tuple(Task(seed=seed_start + i) for i in range(runs))
        self._folder = tempfile.TemporaryDirectory(prefix="initiative-sweep-")
        self._checked: dict[Value, tuple[EncounterSpec, Path]] = {}

    def close(self) -> None:
        self._folder.cleanup()

    def __enter__(self) -> Sweeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def sides(self) -> tuple[str, ...]:
        return self.base.sides

    def check(self, value: Value) -> EncounterSpec:
        """The encounter with the key set to ``value`` (each key of a grid to its own value),
        checked (and its file written)."""
        if value not in self._checked:
            changed = self.data
            for key, number in pairs_of(self.key, value):
                changed = vary(changed, key, number)
            spec = check(changed, f"{self.path} with {label(self.key, value)}")
            if spec.sides != self.base.sides:
                raise SweepError(
                    f"--vary {label(self.key, value)}: the sides change ({', '.join(spec.sides)}"
                    f" instead of {', '.join(self.base.sides)}); a sweep keeps them"
                )
            file = Path(self._folder.name) / f"{self.path.stem}.{len(self._checked)}.toml"
            file.write_text(toml_text(changed), encoding="utf-8")
            self._checked[value] = (spec, file)
        return self._checked[value][0]

    def file(self, value: Value) -> Path:
        """The changed encounter file of ``value`` (checked first)."""
        self.check(value)
        return self._checked[value][1]

    def fight(self, value: Value, on_result: OnResult | None = None) -> Point:
        """Fight ``value`` on the sweep's seeds (Ctrl-C stops the workers)."""
        from ._league import fight

        done = None if on_result is None else (lambda i, s: on_result(value, i, s))
        results = fight(
            self.file(value), self.tasks, jobs=self.jobs, timeout=self.timeout, on_result=done
        )
        return point_of(value, self.sides, results)

    def fight_each(
        self,
        values: Sequence[V],
        on_value: Callable[[V], None] | None = None,
        on_result: OnResult | None = None,
    ) -> tuple[Point, ...]:
        """Check every value first (a bad one fails before any fighting), then fight each in
        turn; ``on_value(value)`` before a value's fights, ``on_result`` as each finishes."""
        for value in values:
            self.check(value)
        points = []
        for value in values:
            if on_value is not None:
                on_value(value)
            points.append(self.fight(value, on_result))
        return tuple(points)


def pairs_of(key: str | tuple[str, ...], value: Value) -> list[tuple[str, Number]]:
    keys = (key,) if isinstance(key, str) else key
    values = value if isinstance(value, tuple) else (value,)
    if len(keys) != len(values):
        raise SweepError(f"{len(keys)} key(s) but {len(values)} value(s)")
    return list(zip(keys, values, strict=True))


def label(key: str | tuple[str, ...], value: Value) -> str:
    """``combatants.tomas.hp=25``, or ``combatants.tomas.hp=25, combatants.ilse.hp=30``."""
    return ", ".join(f"{k}={v}" for k, v in pairs_of(key, value))


@dataclass(frozen=True)
class Sweep:
    key: str
    encounter: str
    sides: tuple[str, ...]
    runs: int
    seed_start: int
    points: tuple[Point, ...]


def sweep(
    path: str | Path,
    key: str,
    values: Sequence[Number],
    runs: int,
    *,
    seed_start: int = 1,
    jobs: int = 1,
    timeout: float | None = None,
    on_result: OnResult | None = None,
    on_value: Callable[[Number], None] | None = None,
) -> Sweep:
    """Fight the encounter at ``path`` with ``key`` set to each of ``values``, each on the seeds
    ``seed_start`` .. ``seed_start + runs - 1``. Every value is checked before any fighting;
    ``on_value(value)`` before each value's fights, ``on_result`` as each finishes."""
    with Sweeper(path, key, runs=runs, seed_start=seed_start, jobs=jobs, timeout=timeout) as s:
        points = s.fight_each(values, on_value, on_result)
        return Sweep(key, str(path), s.sides, runs, seed_start, points)


@dataclass(frozen=True)
class Grid:
    """Two values varied at once: every pair of a value of ``keys[0]`` (a row) and one of
    ``keys[1]`` (a column), each fought on the same seeds."""

    keys: tuple[str, str]
    encounter: str
    sides: tuple[str, ...]
    runs: int
    seed_start: int
    rows: tuple[Number, ...]
    columns: tuple[Number, ...]
    points: tuple[Point, ...]
    """Row by row: the point of ``(rows[i], columns[j])`` is ``points[i * len(columns) + j]``."""

    def at(self, row: Number, column: Number) -> Point:
        return self.points[self.rows.index(row) * len(self.columns) + self.columns.index(column)]


def grid(
    path: str | Path,
    keys: tuple[str, str],
    rows: Sequence[Number],
    columns: Sequence[Number],
    runs: int,
    *,
    seed_start: int = 1,
    jobs: int = 1,
    timeout: float | None = None,
    on_result: OnResult | None = None,
    on_value: Callable[[Value], None] | None = None,
) -> Grid:
    """Fight the encounter at ``path`` at every pair of ``rows`` (values of ``keys[0]``) and
    ``columns`` (of ``keys[1]``), each on the same seeds; every pair is checked before any
    fighting."""
    if keys[0] == keys[1]:
        raise SweepError(f"--vary {keys[0]} is given twice; a grid varies two different keys")
    pairs = [(r, c) for r in rows for c in columns]
    with Sweeper(path, keys, runs=runs, seed_start=seed_start, jobs=jobs, timeout=timeout) as s:
        points = s.fight_each(pairs, on_value, on_result)
        return Grid(keys, str(path), s.sides, runs, seed_start, tuple(rows), tuple(columns), points)


# --- where a rate crosses a target ---------------------------------------------------------------


@dataclass(frozen=True)
class Crossing:
    """What a bisection found.

    ``below`` and ``above`` are neighbouring values (``above == below + 1``) with the target
    between their rates: ``below`` has not reached it, ``above`` has (a rate equal to the target
    has reached it). ``found`` is ``"crossed"``, ``"at-low"`` (already reached at the range's
    low end: ``above`` is LO and ``below`` ``None``) or ``"never"`` (not reached by the high
    end: ``below`` is HI and ``above`` ``None``)."""

    target: float
    rising: bool
    """The rate grows with the value (read from the two ends)."""
    found: str
    below: int | None
    above: int | None
    probes: tuple[tuple[int, float], ...] = field(default=())
    """Each probe in the order made: (value, rate)."""

    @property
    def closer(self) -> int | None:
        """Of ``below`` and ``above``, the value whose rate is nearer the target (``above`` on
        a tie); the one there is when only one is."""
        rates = dict(self.probes)
        if self.below is None or self.above is None:
            return self.above if self.below is None else self.below
        gap_below = abs(rates[self.below] - self.target)
        gap_above = abs(rates[self.above] - self.target)
        return self.below if gap_below < gap_above else self.above


def find_crossing(rate: Callable[[int], float], low: int, high: int, target: float) -> Crossing:
    """Bisect ``[low, high]`` for the neighbouring values whose rates bracket ``target``.

    Assumes ``rate`` is monotone in the value (the caller's word: nothing here checks it). The
    ends are probed first (low, then high) to learn the direction; then the midpoint of the
    bracket, rounded down, until the bracket is two neighbours. Each value is probed once."""
    if low >= high:
        raise SweepError(f"a bisection needs LO below HI, got {low}..{high}")
    probes: dict[int, float] = {}

    def probe(value: int) -> float:
        if value not in probes:
            probes[value] = rate(value)
        return probes[value]

    at_low, at_high = probe(low), probe(high)
    rising = at_high >= at_low

    def reached(r: float) -> bool:
        return r >= target if rising else r <= target

    made = tuple(probes.items())
    if reached(at_low):
        return Crossing(target, rising, "at-low", None, low, made)
    if not reached(at_high):
        return Crossing(target, rising, "never", high, None, made)
    while high - low > 1:
        mid = (low + high) // 2
        if reached(probe(mid)):
            high = mid
        else:
            low = mid
    return Crossing(target, rising, "crossed", low, high, tuple(probes.items()))


@dataclass(frozen=True)
class Search:
    """A bisection over an encounter: its crossing and the probes' points in the order made."""

    key: str
    encounter: str
    side: str
    sides: tuple[str, ...]
    runs: int
    seed_start: int
    crossing: Crossing
    points: tuple[Point, ...]
    fair: tuple[int, int] | None = None
    """The fair range: the values next to the crossing (or the end that reached the target)
    whose 95% interval holds the target, walked outward one value at a time until an interval
    does not (or the range ends); ``None`` when no value's interval there holds it."""
    fair_cut: tuple[bool, bool] = (False, False)
    """Whether the fair range was cut by the low (high) end of the range, beyond which more
    values may be fair."""

    @property
    def fights(self) -> int:
        return sum(p.fights for p in self.points)

    @property
    def walked(self) -> int:
        """The probes made after the bisection, to find the fair range's ends."""
        return len(self.points) - len(self.crossing.probes)


def search(
    path: str | Path,
    key: str,
    low: int,
    high: int,
    target: float,
    runs: int,
    *,
    side: str | None = None,
    seed_start: int = 1,
    jobs: int = 1,
    timeout: float | None = None,
    on_result: OnResult | None = None,
    on_value: Callable[[Number], None] | None = None,
) -> Search:
    """Find where ``side``'s win rate (the first side by default) crosses ``target`` as the
    integer ``key`` goes from ``low`` to ``high`` (:func:`find_crossing`; each probe fights
    ``runs`` seeds from ``seed_start``). ``on_value(value)`` before each probe's fights."""
    if not 0 <= target <= 1:
        raise SweepError(f"--target {target:g}: a win rate is from 0 to 1")
    with Sweeper(path, key, runs=runs, seed_start=seed_start, jobs=jobs, timeout=timeout) as s:
        chosen = side if side is not None else s.sides[0]
        if chosen not in s.sides:
            raise SweepError(f"--side {chosen}: not a side of {path} ({', '.join(s.sides)})")
        s.check(low)
        s.check(high)
        points: list[Point] = []

        def rate(value: int) -> float:
            if on_value is not None:
                on_value(value)
            points.append(s.fight(value, on_result))
            return points[-1].side(chosen).rate

        crossing = find_crossing(rate, low, high, target)
        fair, cut = _fair_range(crossing, points, rate, chosen, low, high)
        return Search(
            key, str(path), chosen, s.sides, runs, seed_start, crossing, tuple(points), fair, cut
        )


def _fair_range(
    crossing: Crossing,
    points: list[Point],
    rate: Callable[[int], float],
    side: str,
    low: int,
    high: int,
) -> tuple[tuple[int, int] | None, tuple[bool, bool]]:
    """Walk outward from the crossing's bracket (or from the end that decided it), probing each
    next value not yet fought, while the value's 95% interval holds the target: the fair range
    and whether each end of it met the end of the range. Under the bisection's assumption (the
    rate is monotone) the values whose intervals hold the target are one run of neighbours."""
    target = crossing.target

    def holds(value: int) -> bool:
        if not any(p.value == value for p in points):
            rate(value)
        point = next(p for p in points if p.value == value)
        first, last = point.side(side).interval
        return first <= target <= last

    starts = [v for v in (crossing.below, crossing.above) if v is not None]
    found = [v for v in starts if holds(v)]
    if not found:
        return None, (False, False)
    lowest, highest = min(found), max(found)
    while lowest > low and holds(lowest - 1):
        lowest -= 1
    while highest < high and holds(highest + 1):
        highest += 1
    return (lowest, highest), (lowest == low, highest == high)
