"""The state transition: the live state a fight changes in place, and the fold of a log.

What each event changes is written once, here: one small function per event type
(:data:`CHANGES`), applied to a :class:`LiveState`. A fight being played keeps a live state
and applies each event as it records it; :func:`fold` (what ``state``, ``verify`` and ``why``
rebuild a log with) applies the same functions to a fresh live state and freezes it into an
:class:`EncounterState`. A change replaces one combatant's value (or one scalar) rather than
copying the whole table, and keeps up the indexes the rules ask for on every decision:

- the initiative rank of each combatant (``rank``), so ordering ids is a dict lookup;
- who is standing, per side, in the order :meth:`EncounterState.standing` gives (built on
  first use: a replay's fold never pays for it);
- a grid of positions (cells of :data:`CELL` metres), so "who is within ``r`` of here" looks
  at the cells around a point instead of at every combatant;
- who holds each condition, and (built on first use) who has how many AP.

The tests hold this transition, event by event, to a second, independent writing of the same
facts (``apply`` in ``tests/oracle.py``; ``tests/engine/test_fold.py``).
The digest recorded at each round's end is taken from :meth:`LiveState.freeze`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from itertools import takewhile
from typing import Any, NamedTuple

from initiative.events import (
    AddCombatant,
    AddCondition,
    AddMarker,
    APChanged,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    EncounterEnded,
    EncounterStarted,
    EndCondition,
    Event,
    GmNote,
    GmOverride,
    GmRoll,
    Healed,
    InitiativeOrdered,
    InitiativeRolled,
    InsertedTurnEnded,
    MarkerAdded,
    MarkerRemoved,
    Moved,
    MoveToken,
    OpeningClosed,
    OpeningOpened,
    Override,
    Position,
    PriorityGranted,
    RemoveCombatant,
    RemoveMarker,
    Reorder,
    RoundStarted,
    SetHp,
    TurnEnded,
    TurnInserted,
    TurnStarted,
    Undo,
)
from msgspec.structs import replace

from ._rng import PairedDice
from ._state import CombatantState, EncounterState

CELL = 4.0
"""Side of a grid cell in metres; queries wider than :data:`WIDE` cells scan everyone."""

WIDE = 6

HAIR = 0.02
"""How much wider than asked :meth:`LiveState.near` looks: more than the centimetre a caller's
square around the point allows for (distances are rounded to centimetres), and more than a
float's error in where the square's edges fall."""

_ALL = "\0all"
"""The key of every standing id in :meth:`LiveState.standing_ids` (no side is called that)."""

# What a copy shares with its original until one of them writes to it (:meth:`LiveState.copy`):
# one bit per group of containers, set in both on a copy, cleared by the first write.
_COMBATANTS = 1
_JOINED = 2
_STANDING = 4  # ``_standing``, ``_states`` and ``_pos``
_CELLS = 8  # the grid's outer dict (a cell's dict of ids is replaced, never changed)
_AP = 16  # ``_by_ap``'s outer dict (a bucket is copied on its first write: ``_own_ap``)
_HOLDING = 32
_TIMED = 64
_EVERYTHING = 127


def _cell(p: Position) -> tuple[int, int]:
    return (math.floor(p.x / CELL), math.floor(p.y / CELL))


def _set_counter(
    counters: tuple[tuple[str, int], ...], name: str, value: int
) -> tuple[tuple[str, int], ...]:
    """``counters`` with tally ``name`` at ``value`` (gone at zero), sorted by name."""
    kept = [(k, v) for k, v in counters if k != name]
    if value:
        kept.append((name, value))
    return tuple(sorted(kept))


class LiveState:
    """A fight's state, changed in place; reads like :class:`EncounterState`.

    ``combatants`` maps id to an immutable :class:`CombatantState` (a view handed to a policy
    can never change under it); only the map and the scalars change.
    """

    __slots__ = (
        "_by_ap",
        "_cells",
        "_joined",
        "_own_ap",
        "_pos",
        "_shared",
        "_standing",
        "_states",
        "active",
        "combatants",
        "depth",
        "ended",
        "holding",
        "layout",
        "order",
        "priority",
        "rank",
        "round",
        "ruleset",
        "seq",
        "timed",
        "undo",
        "winner",
    )

    def __init__(self) -> None:
        self.seq = -1
        self.ruleset = ""
        self.round = 0
        self.active: str | None = None
        self.priority: str | None = None
        self.order: tuple[str, ...] = ()
        self.combatants: dict[str, CombatantState] = {}
        self.depth = 0
        self.ended = False
        self.winner: str | None = None
        self.rank: dict[str, int] = {}
        """Index of each ordered combatant in ``order``."""
        self._joined: dict[str, int] = {}
        self._standing: dict[str, list[str]] | None = None
        """Standing ids per side, in standing order (rebuilt after a join or an order; a fall
        or a departure takes one id out)."""
        self._states: dict[str, list[CombatantState]] = {}
        """The values of ``_standing``'s ids per side, kept current as they change, so a view's
        allies and enemies are a copy of a list rather than a lookup per combatant."""
        self._pos: dict[str, int] = {}
        """Each standing id's index in its side's lists."""
        self._cells: dict[tuple[int, int], dict[str, None]] = {}
        self._by_ap: dict[int, dict[str, None]] | None = None
        """Ids of those present by their AP (so "who has the AP for a reaction?" looks at a
        few buckets rather than at everyone); built on the first such question (a replay's
        fold never pays for it), dropped when someone joins."""
        self.layout = 0
        """Counts the changes to who stands where and who can be seen (moves, joins, falls,
        departures, conditions): an answer found at one count holds while it is the same."""
        self.holding: dict[str, set[str]] = {}
        """Ids holding each condition (so "is anyone hidden?" is one lookup)."""
        self.timed: dict[tuple[str, str], int] = {}
        """Conditions the GM gave for a number of rounds: ``(who, condition)`` to the round
        at whose end it ends (the fight ends it then; not part of the frozen state)."""
        self.undo: tuple[Undoable, ...] = ()
        """The GM's overrides not yet undone, last on top, each with what its undoing needs
        (see :mod:`engine._gm`; not part of the frozen state)."""
        self._shared = 0
        """The containers this state shares with a copy (bits such as ``_CELLS``): copied on
        the first write to them, by whichever of the two writes first."""
        self._own_ap: set[int] = set()
        """The AP buckets of ``_by_ap`` this state copied since it last shared them."""

    # --- reading ------------------------------------------------------------------------------

    def get(self, who: str) -> CombatantState:
        return self.combatants[who]

    def _key(self, who: str) -> tuple[int, int]:
        """Standing order: initiative order first, then join order."""
        rank = self.rank.get(who)
        return (0, rank) if rank is not None else (1, self._joined[who])

    def standing_ids(self) -> dict[str, list[str]]:
        """Standing combatants' ids per side, in initiative order then join order (and all of
        them under a key no side has)."""
        if self._standing is None:
            ids = sorted((k for k, c in self.combatants.items() if c.standing), key=self._key)
            by_side: dict[str, list[str]] = {}
            for k in ids:
                by_side.setdefault(self.combatants[k].side, []).append(k)
            self._states = {
                side: list(map(self.combatants.__getitem__, members))
                for side, members in by_side.items()
            }
            self._pos = {k: i for members in by_side.values() for i, k in enumerate(members)}
            self._standing = by_side
            by_side[_ALL] = ids
            self._shared &= ~_STANDING
        return self._standing

    def standing_side_count(self) -> int:
        """How many sides have someone standing."""
        if self._standing is None:
            self.standing_ids()
        return len(self._states)  # (a side whose last one falls leaves the index)

    def standing(self) -> list[CombatantState]:
        """Combatants still in the fight, in initiative order, then by join order."""
        return list(map(self.combatants.__getitem__, self.standing_ids()[_ALL]))

    def side_standing(self, side: str) -> list[CombatantState]:
        self.standing_ids()
        return list(self._states.get(side, ()))

    def allies_standing(self, who: str, side: str) -> list[CombatantState]:
        """Standing combatants of ``side`` but ``who``, in standing order."""
        self.standing_ids()
        states = self._states.get(side, [])
        at = self._pos.get(who)
        if at is not None and self.combatants[who].side == side:
            return states[:at] + states[at + 1 :]
        return list(states)

    def others_standing(self, side: str) -> list[CombatantState]:
        """Standing combatants of every side but ``side``, in standing order."""
        sides = self._standing
        if sides is None:
            sides = self.standing_ids()
        states = self._states  # (the same sides as the index, none of them empty)
        others = len(states) - (side in states)
        if others == 1:  # one other side (most fights): its list as it stands
            for s, values in states.items():
                if s != side:
                    return list(values)
        if others == 0:
            return []
        c = self.combatants
        groups = [ids for s, ids in sides.items() if s != side and s != _ALL]
        return [c[k] for k in sorted((k for g in groups for k in g), key=self._key)]

    def with_ap(self, least: int) -> list[str]:
        """Ids of those present with at least ``least`` AP, in no particular order (callers
        sort)."""
        by_ap = self._by_ap
        if by_ap is None:
            self._by_ap = by_ap = {}
            for c in self.combatants.values():
                by_ap.setdefault(c.ap, {})[c.id] = None
            self._shared &= ~_AP
            self._own_ap = set(by_ap)
        found: list[str] = []
        for ap, ids in by_ap.items():
            if ap >= least:
                found.extend(ids)
        return found

    def covers(self, radius: float) -> bool:
        """Whether :meth:`near` with ``radius`` lists everyone present (then it is exact only
        in the sense of a superset: callers must test the distance themselves)."""
        span = math.floor(radius / CELL) + 1
        return span > WIDE or (2 * span + 1) ** 2 > len(self.combatants)

    def near(self, where: Position, radius: float) -> list[str]:
        """Ids of combatants (standing or not) whose cell is within ``radius`` of ``where``:
        a superset of those within ``radius``, in no particular order (callers sort).

        The cells are those the square of ``radius`` and :data:`HAIR` around ``where``
        touches (callers test that square first, then the distance, both to the centimetre),
        not a whole ring of cells around its cell: among 1,000 in a melee's lines, a
        question within a sword's reach looks at a third as many."""
        span = math.floor(radius / CELL) + 1
        if span > WIDE or (2 * span + 1) ** 2 > len(self.combatants):
            # More cells to look at than combatants to list: everyone is the cheaper superset.
            return list(self.combatants)
        reach = radius + HAIR
        floor = math.floor
        x, y = where.x, where.y
        get = self._cells.get
        ids: list[str] = []
        ys = range(floor((y - reach) / CELL), floor((y + reach) / CELL) + 1)
        for cx in range(floor((x - reach) / CELL), floor((x + reach) / CELL) + 1):
            for cy in ys:
                found = get((cx, cy))
                if found:
                    ids.extend(found)
        return ids

    def sort_ids(self, ids: list[str]) -> list[str]:
        """``ids`` (distinct, present) in standing order."""
        try:  # all in the initiative order (after the first round's start, everyone): by rank
            return sorted(ids, key=self.rank.__getitem__)
        except KeyError:  # someone not yet ordered: they go after, in join order
            return sorted(ids, key=self._key)

    def freeze(self) -> EncounterState:
        """The state as an immutable :class:`EncounterState` value (what the fold gives)."""
        return EncounterState(
            seq=self.seq,
            ruleset=self.ruleset,
            round=self.round,
            active=self.active,
            priority=self.priority,
            order=self.order,
            combatants=dict(self.combatants),
            depth=self.depth,
            ended=self.ended,
            winner=self.winner,
        )

    def __eq__(self, other: object) -> bool:
        """Equal to an :class:`EncounterState` (or a live state) holding the same facts."""
        if isinstance(other, LiveState):
            other = other.freeze()
        if isinstance(other, EncounterState):
            return self.freeze() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Live{self.freeze()!r}"

    def copy(self) -> LiveState:
        """An independent copy (the combatant values are immutable and shared).

        Copy on write: the copy shares every container with this state, and whichever of the
        two first writes to one copies it then (a fork, and the place a forked fight keeps at
        each turn decision, copy the state, which at 1,000 combatants meant copying the grid's
        cells and the AP buckets one by one, though the next event changes one or two)."""
        new = LiveState.__new__(LiveState)
        # Every slot, each set once (a fork copies the state at least once).
        new.seq = self.seq
        new.ruleset = self.ruleset
        new.round = self.round
        new.active = self.active
        new.priority = self.priority
        new.order = self.order
        new.depth = self.depth
        new.ended = self.ended
        new.winner = self.winner
        new.layout = self.layout
        new.combatants = self.combatants
        new.rank = self.rank  # (replaced whole by an order, never changed)
        new._joined = self._joined
        new._standing = self._standing
        new._states = self._states
        new._pos = self._pos
        new._cells = self._cells
        new._by_ap = self._by_ap
        new.holding = self.holding
        new.timed = self.timed
        new.undo = self.undo  # (a tuple: replaced, never changed)
        new._own_ap = set()
        self._own_ap = set()
        new._shared = self._shared = _EVERYTHING
        return new

    def _unshare(self, what: int) -> None:
        """Copy the containers of ``what`` (bits) this state shares with a copy."""
        shared = self._shared & what
        self._shared ^= shared
        if shared & _COMBATANTS:
            self.combatants = self.combatants.copy()
        if shared & _JOINED:
            self._joined = self._joined.copy()
        if shared & _STANDING and self._standing is not None:
            self._standing = {k: v.copy() for k, v in self._standing.items()}
            self._states = {k: v.copy() for k, v in self._states.items()}
            self._pos = self._pos.copy()
        if shared & _CELLS:
            self._cells = self._cells.copy()
        if shared & _AP and self._by_ap is not None:
            self._by_ap = self._by_ap.copy()
        if shared & _HOLDING:
            self.holding = {k: v.copy() for k, v in self.holding.items()}
        if shared & _TIMED:
            self.timed = self.timed.copy()

    # --- changing -----------------------------------------------------------------------------

    def _reindex(self) -> None:
        """Drop the standing index (rebuilt on the next read)."""
        self._standing = None
        self._states = {}
        self._pos = {}
        self._shared &= ~_STANDING

    def _put(self, new: CombatantState) -> None:
        """Make ``new`` the value of its combatant (in the standing index too)."""
        if self._shared & (_COMBATANTS | _STANDING):
            self._unshare(_COMBATANTS | _STANDING)
        self.combatants[new.id] = new
        at = self._pos.get(new.id)
        if at is not None:
            self._states[new.side][at] = new

    def _place(self, who: str, old: Position | None, new: Position | None) -> None:
        """Move ``who`` in the grid. A cell's dict is replaced, not changed, so a copy of the
        state shares the cells it has not moved anyone in."""
        if self._shared & _CELLS:
            self._unshare(_CELLS)
        cells = self._cells
        if old is not None:
            key = _cell(old)
            cell = cells.get(key)
            if cell is not None and who in cell:
                cell = cell.copy()
                del cell[who]
                cells[key] = cell
        if new is not None:
            key = _cell(new)
            cell = cells.get(key)
            cell = {} if cell is None else cell.copy()
            cell[who] = None
            cells[key] = cell

    def apply(self, event: Event) -> None:
        """Change the state as ``event`` says (the fight runs this in line in ``emit``)."""
        self.seq = event.seq
        change = CHANGES.get(type(event))
        if change is not None:
            change(self, event)


# The state transition: one small function per event type that changes anything, found by type
# (cheaper than a ``match`` over every class). A combatant's value is replaced, never changed
# (a policy may hold the old one); the indexes follow in the same function. :func:`fold` runs
# these same functions, so the engine's state and a replay's cannot disagree.


def _ap(s: LiveState, e: APChanged) -> None:
    c = s.combatants[e.who]
    by_ap = s._by_ap
    if by_ap is not None and c.ap != e.ap:
        if s._shared & _AP:
            s._unshare(_AP)
            by_ap = s._by_ap
            assert by_ap is not None
        own = s._own_ap
        bucket = by_ap[c.ap]
        if c.ap not in own:  # shared with a copy: this state's own copy of it first
            bucket = by_ap[c.ap] = bucket.copy()
            own.add(c.ap)
        del bucket[e.who]
        if not bucket:
            del by_ap[c.ap]
            own.discard(c.ap)
        found = by_ap.get(e.ap)
        if found is None:
            found = by_ap[e.ap] = {}
            own.add(e.ap)
        elif e.ap not in own:
            found = by_ap[e.ap] = found.copy()
            own.add(e.ap)
        found[e.who] = None
    s._put(replace(c, ap=e.ap))


def _priority(s: LiveState, e: PriorityGranted) -> None:
    s.priority = e.who


def _hp(s: LiveState, e: DamageDealt | Healed) -> None:
    s._put(replace(s.combatants[e.who], hp=e.hp))


def _moved(s: LiveState, e: Moved) -> None:
    s.layout += 1
    c = s.combatants[e.who]
    s._place(e.who, c.position, e.to)
    s._put(replace(c, position=e.to))


def _turn(s: LiveState, e: TurnStarted | TurnInserted) -> None:
    s.active = e.who
    s.priority = None


def _turn_ended(s: LiveState, e: TurnEnded) -> None:
    s.active = None
    s.priority = None


def _inserted_ended(s: LiveState, e: InsertedTurnEnded) -> None:
    s.active = e.returns_to
    s.priority = None


def _opened(s: LiveState, e: OpeningOpened) -> None:
    s.depth += 1


def _closed(s: LiveState, e: OpeningClosed) -> None:
    s.depth = max(0, s.depth - 1)
    s.priority = e.returns_to


def _condition_added(s: LiveState, e: ConditionAdded) -> None:
    s.layout += 1
    c = s.combatants[e.who]
    if s._shared & _HOLDING:
        s._unshare(_HOLDING)
    if e.condition not in c.conditions:
        s._put(replace(c, conditions=(*c.conditions, e.condition)))
        s.holding.setdefault(e.condition, set()).add(e.who)


def _condition_removed(s: LiveState, e: ConditionRemoved) -> None:
    s.layout += 1
    c = s.combatants[e.who]
    if s._shared & (_HOLDING | _TIMED):
        s._unshare(_HOLDING | _TIMED)
    s._put(replace(c, conditions=tuple(k for k in c.conditions if k != e.condition)))
    s.holding.get(e.condition, set()).discard(e.who)
    if s.timed:
        s.timed.pop((e.who, e.condition), None)


class Undoable(NamedTuple):
    """An override of the GM's that can still be undone, and what undoing it needs to know
    of the state just before it (the events it made follow, each with its own change)."""

    seq: int
    """Its ``GmOverride``."""
    override: Override
    before: int | Position | str | None = None
    """``SetHp``: the hit points before; ``MoveToken``: where the token stood; ``Reorder``: who
    came next in the order (``None``: it was last); ``EndCondition``: the round at whose end
    a condition given for some rounds was to end; ``RemoveMarker``: the marker that came after
    it (``None``: it was last)."""
    gap: float = math.inf
    """``MoveToken``: how near the nearest other standing combatant stood to where the token
    stood (the rules may let two stand closer than the GM's clearance: nobody standing that
    near since the move keeps the undo from putting the token back)."""


def _undoable(s: LiveState, seq: int, o: Override) -> Undoable | None:
    """What undoing ``o`` needs, read from the state before it (``None``: nothing to undo)."""
    c = s.combatants.get(getattr(o, "who", ""))
    match o:
        case SetHp() if c is not None:
            return Undoable(seq, o, c.hp)
        case MoveToken() if c is not None:
            here = c.position
            gaps = [
                math.hypot(k.position.x - here.x, k.position.y - here.y)
                for k in s.combatants.values()
                if k.id != c.id and k.standing
            ]
            return Undoable(seq, o, here, min(gaps, default=math.inf))
        case Reorder(who=who) if who in s.order:
            order = s.order
            at = order.index(who)
            return Undoable(seq, o, order[at + 1] if at + 1 < len(order) else None)
        case EndCondition(who=who, condition=condition):
            return Undoable(seq, o, s.timed.get((who, condition)))
        case RemoveMarker(text=text) if c is not None and text in c.markers:
            after = c.markers[c.markers.index(text) + 1 :]
            return Undoable(seq, o, after[0] if after else None)
        case AddCondition() | AddCombatant() | RemoveCombatant() | AddMarker() | RemoveMarker():
            return Undoable(seq, o)
    return None  # GmRoll, GmNote: records, not changes; Undo


def _gm(s: LiveState, e: GmOverride) -> None:
    """The GM stepped in: the override goes on the undo stack (an ``Undo`` takes its own off),
    and a condition the GM gives for some rounds has the round it ends with (its
    ``ConditionAdded`` and the other events the override makes follow, each with its own
    change)."""
    o = e.override
    if isinstance(o, AddCondition) and o.rounds is not None:
        if s._shared & _TIMED:
            s._unshare(_TIMED)
        s.timed[(o.who, o.condition)] = max(s.round, 1) + o.rounds - 1
    if isinstance(o, Undo):
        if s.undo:
            undone, s.undo = s.undo[-1], s.undo[:-1]
            ended, last = undone.override, undone.before
            if (
                isinstance(ended, EndCondition)
                and isinstance(last, int)
                and ended.condition not in s.combatants[ended.who].conditions
            ):
                # back with the rounds it had left (its ``ConditionAdded`` follows)
                if s._shared & _TIMED:
                    s._unshare(_TIMED)
                s.timed[(ended.who, ended.condition)] = last
        return
    if not isinstance(o, (GmRoll, GmNote)):
        entry = _undoable(s, e.seq, o)
        if entry is not None:
            s.undo = (*s.undo, entry)


def _marker_added(s: LiveState, e: MarkerAdded) -> None:
    c = s.combatants[e.who]
    if e.text not in c.markers:
        held = c.markers
        at = held.index(e.before) if e.before in held else len(held)
        s._put(replace(c, markers=(*held[:at], e.text, *held[at:])))


def _marker_removed(s: LiveState, e: MarkerRemoved) -> None:
    c = s.combatants[e.who]
    s._put(replace(c, markers=tuple(m for m in c.markers if m != e.text)))


def _returned(s: LiveState, e: CombatantReturned) -> None:
    s.layout += 1
    s._put(replace(s.combatants[e.who], left=False))
    s._reindex()


def _revived(s: LiveState, e: CombatantRevived) -> None:
    s.layout += 1
    s._put(replace(s.combatants[e.who], defeated=False))
    s._reindex()


def _counter(s: LiveState, e: CounterChanged) -> None:
    c = s.combatants[e.who]
    s._put(replace(c, counters=_set_counter(c.counters, e.name, e.value)))


def _unstand(s: LiveState, who: str) -> None:
    """Take ``who`` out of the standing index (kept in order, so no re-sort is needed)."""
    if s._shared & _STANDING:
        s._unshare(_STANDING)
    standing = s._standing
    c = s.combatants[who]
    if standing is not None and c.standing:
        ids = standing[c.side]
        at = s._pos.pop(who)
        del ids[at]
        del s._states[c.side][at]
        for k in ids[at:]:
            s._pos[k] -= 1
        if not ids:
            del standing[c.side]
            del s._states[c.side]
        standing[_ALL].remove(who)


def _defeated(s: LiveState, e: CombatantDefeated) -> None:
    s.layout += 1
    _unstand(s, e.who)
    s._put(replace(s.combatants[e.who], defeated=True))


def _left(s: LiveState, e: CombatantLeft) -> None:
    s.layout += 1
    _unstand(s, e.who)
    s._put(replace(s.combatants[e.who], left=True))


def _joined(s: LiveState, e: CombatantJoined) -> None:
    """A new value even for an id that joined before (the key keeps its place)."""
    s.layout += 1
    if s._shared & (_COMBATANTS | _JOINED | _HOLDING):
        s._unshare(_COMBATANTS | _JOINED | _HOLDING)
    old = s.combatants.get(e.who)
    if old is not None:
        for held in s.holding.values():
            held.discard(e.who)
    s._by_ap = None
    s._shared &= ~_AP
    s.combatants[e.who] = CombatantState(
        id=e.who, side=e.side, hp=e.hp, max_hp=e.hp, ap=e.ap, position=e.position
    )
    s._joined.setdefault(e.who, len(s._joined))
    s._place(e.who, old.position if old is not None else None, e.position)
    s._reindex()


def _rolled(s: LiveState, e: InitiativeRolled) -> None:
    for member in e.who:
        c = s.combatants.get(member)
        if c is not None:
            s._put(replace(c, initiative=e.total))


def _ordered(s: LiveState, e: InitiativeOrdered) -> None:
    s.layout += 1
    s.order = e.order
    s.rank = {}
    for i, cid in enumerate(e.order):
        s.rank.setdefault(cid, i)
    s._reindex()


def _round(s: LiveState, e: RoundStarted) -> None:
    s.round = e.round


def _started(s: LiveState, e: EncounterStarted) -> None:
    s.ruleset = e.ruleset


def _ended(s: LiveState, e: EncounterEnded) -> None:
    s.ended = True
    s.winner = e.winner
    s.active = None
    s.priority = None


CHANGES: dict[type, Callable[[LiveState, Any], None]] = {
    APChanged: _ap,
    PriorityGranted: _priority,
    DamageDealt: _hp,
    Healed: _hp,
    Moved: _moved,
    TurnStarted: _turn,
    TurnInserted: _turn,
    TurnEnded: _turn_ended,
    InsertedTurnEnded: _inserted_ended,
    OpeningOpened: _opened,
    OpeningClosed: _closed,
    ConditionAdded: _condition_added,
    ConditionRemoved: _condition_removed,
    CounterChanged: _counter,
    CombatantDefeated: _defeated,
    CombatantLeft: _left,
    CombatantJoined: _joined,
    InitiativeRolled: _rolled,
    InitiativeOrdered: _ordered,
    RoundStarted: _round,
    EncounterStarted: _started,
    EncounterEnded: _ended,
    GmOverride: _gm,
    MarkerAdded: _marker_added,
    MarkerRemoved: _marker_removed,
    CombatantReturned: _returned,
    CombatantRevived: _revived,
}


class _Folding(LiveState):
    """A live state that is only folded and frozen: the same changes (:data:`CHANGES`), but
    no position grid and no standing index kept up, which nothing asks of a fold (about a
    seventh of a replay's fold; the lazy indexes are never built in one anyway)."""

    __slots__ = ()

    def _put(self, new: CombatantState) -> None:
        self.combatants[new.id] = new

    def _place(self, who: str, old: Position | None, new: Position | None) -> None:
        pass


def fold(events: Iterable[Event], upto: int | None = None) -> EncounterState:
    """The state after event ``upto`` (the last event when ``None``): what ``state``,
    ``verify`` and ``why`` rebuild a log with.

    The live state's own transition (:data:`CHANGES`) run over the events, then frozen: one
    definition of what each event changes, whether a fight is being played or a log is read.
    (The tests hold this to an independent oracle, ``fold_pure`` in ``tests/oracle.py``.)"""
    if upto is not None:
        events = takewhile(lambda e: e.seq <= upto, events)
    state = _Folding()
    changes = CHANGES
    last: Event | None = None
    for last in events:
        change = changes.get(type(last))
        if change is not None:
            change(state, last)
    if last is not None:
        state.seq = last.seq
    return state.freeze()


class Snapshot:
    """A fight at the start of a round: its live state and dice position, and where its log
    and its decisions stood. :meth:`engine.Fight.run` can resume from one, which is how forks
    skip replaying the fight from its header."""

    __slots__ = (
        "chain",
        "decisions",
        "digested",
        "last_line",
        "next_seq",
        "paired",
        "retreats",
        "rng",
        "state",
    )

    def __init__(
        self,
        *,
        state: LiveState,
        rng: tuple[int, str, int],
        next_seq: int,
        chain: bytes,
        last_line: bytes,
        digested: int,
        decisions: int,
        paired: PairedDice | None = None,
        retreats: tuple[tuple[tuple[str, int], ...], tuple[float | None, bool]] = (
            (),
            (None, False),
        ),
    ) -> None:
        self.state = state
        """A copy of the live state (copied again on each resume, so one serves many forks)."""
        self.rng = rng
        """The dice stream's ``(seed, stream, counter)``."""
        self.paired = paired
        """A paired fork's dice by key, a copy (copied again on each resume)."""
        self.next_seq = next_seq
        self.chain = chain
        self.last_line = last_line
        self.digested = digested
        self.decisions = decisions
        """How many decisions the fight had been sent before this round."""
        self.retreats = retreats
        """The withdrawal rule's memory (see ``Options.withdraw_turns``): each combatant's
        turns in a row of retreat, and the current turn's start."""
