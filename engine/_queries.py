"""What the fight's rules and flow read: :class:`Queries`, the state as the ruleset sees it.

Who is who (``spec``), who is present and who stands (the ruleset's ``standing``), who is near
whom and who is nearest (the position grid, and the ruleset's ``can_see``), in what order
(``by_initiative``), and whether the fight is decided. Nothing here records an event or changes
the state: these are reads of the live state and the encounter, with the answers they keep.

Two answers are kept, both only while they still hold:

- the last :meth:`Queries.nearest_enemy` answer, for the state's ``seq`` it was found at (a
  view asks again for the same state: see :meth:`Queries._nearest_at_grant`);
- with the plain standing and sight rules, each combatant's nearest enemy for the state's
  ``layout`` count (who stands where changes only with it). A fight that has been forked, and
  its forks, swap this map (:attr:`Queries.nearest_by`) for the one their layout shares
  (``engine/_forks.py``).

A :class:`~engine.Fight` holds one :class:`Queries` (``fight.queries``), as OpenSpiel leaves
observation to its own object: the flow reads through it, and :class:`~engine.Rules` binds its
methods once, so a ruleset's ``fight.get(who)`` costs one call, as it always did.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from initiative.events import CombatantSpec, EncounterSpec

from ._geometry import distance
from ._live import CELL, LiveState
from ._ruleset import Ruleset
from ._state import CombatantState

if TYPE_CHECKING:
    from ._rules import Rules


_Tables = tuple[dict[str, CombatantSpec], list[CombatantSpec]]

_TABLES: tuple[EncounterSpec, _Tables] | None = None
"""The last encounter's spec tables (see :func:`_tables`); the entry holds the encounter, so
its identity is not reused while the entry stands."""


def _tables(encounter: EncounterSpec) -> _Tables:
    """Every combatant's spec by id, and those that arrive after the first round: kept for the
    last encounter (an immutable value), so that a fork, made at about every decision of a
    look-ahead, does not build them anew from every combatant."""
    global _TABLES
    kept = _TABLES
    if kept is not None and kept[0] is encounter:
        return kept[1]
    tables = (
        {c.id: c for c in encounter.combatants},
        [c for c in encounter.combatants if c.arrives > 1],
    )
    _TABLES = (encounter, tables)
    return tables


class Queries:
    """Reads of one fight's live state through its ruleset, with the answers they keep."""

    state: LiveState
    """The live state, changed in place by every event (read it, never change it)."""
    rules: Rules
    """What the ruleset's hooks receive (the ruleset's ``standing`` and ``can_see`` take it;
    the fight sets it once its :class:`Rules` is made)."""

    def __init__(self, encounter: EncounterSpec, ruleset: Ruleset, state: LiveState) -> None:
        self.encounter = encounter
        self.ruleset = ruleset
        self.state = state
        self.specs_by_id, self._late = _tables(encounter)
        """Every combatant's spec by id (and those arriving after the first round): tables
        every fight of the encounter shares (forks among them), never changed in place (the
        GM's joiner makes its fight a new :attr:`specs_by_id`)."""
        self.plain_standing = type(ruleset).standing is Ruleset.standing
        self.plain_sight = type(ruleset).can_see is Ruleset.can_see
        """Whether the ruleset keeps the base ``standing`` and ``can_see`` hooks: the queries
        (and :class:`Rules`) then answer from the state's indexes without calling them."""
        self._nearest: tuple[int, str, CombatantState | None] = (-2, "", None)
        """The last :meth:`nearest_enemy` answer, with the seq of the state it was found in."""
        self.nearest_by: dict[str, tuple[int, str | None]] = {}
        """Each combatant's nearest enemy's id, with the state's ``layout`` it was found at."""

    # --- who is who, who stands ---------------------------------------------------------------

    def spec(self, who: str) -> CombatantSpec:
        return self.specs_by_id[who]

    def specs(self) -> list[CombatantSpec]:
        return list(self.encounter.combatants)

    def get(self, who: str) -> CombatantState:
        return self.state.combatants[who]

    def standing(self, who: str) -> bool:
        return who in self.state.combatants and self.ruleset.standing(self.rules, who)

    def present_ids(self) -> list[str]:
        return list(self.state.combatants)

    def enemies_of(self, who: str) -> list[CombatantState]:
        """Standing enemies of ``who``, in initiative order then join order."""
        return self.state.others_standing(self.get(who).side)

    def allies_of(self, who: str) -> list[CombatantState]:
        """Standing allies of ``who`` (not ``who``), in initiative order then join order."""
        return self.state.allies_standing(who, self.get(who).side)

    # --- who is where -------------------------------------------------------------------------

    def dist(self, a: str, b: str) -> float:
        return distance(self.get(a).position, self.get(b).position)

    def near(self, who: str, radius: float) -> list[str]:
        """Ids of the other combatants present within ``radius`` metres of ``who`` (standing
        or not), in initiative order then join order: a query of the position grid, so it
        costs the same among 8 combatants as among 1,000."""
        here = self.get(who).position
        c = self.state.combatants
        x, y, lim = here.x, here.y, radius + 0.01  # a square first (distances are to the cm)
        found = [
            k
            for k in self.state.near(here, radius)
            if -lim <= (p := c[k].position).x - x <= lim
            and -lim <= p.y - y <= lim
            and k != who
            and distance(here, p) <= radius + 1e-9
        ]
        return self.state.sort_ids(found)

    def nearest_enemy(self, who: str) -> CombatantState | None:
        """The nearest standing enemy ``who`` can see (ties by id), as ``min`` over
        :meth:`enemies_of` would find it, but asked of the position grid in growing circles."""
        memo = self._nearest
        state = self.state
        if memo[0] == state.seq and memo[1] == who:
            return memo[2]
        if self.plain_standing and self.plain_sight:
            # Who is nearest changes only when someone moves, joins, falls, leaves or hides:
            # kept per combatant until the layout changes (the value read fresh, for its hp).
            kept = self.nearest_by.get(who)
            if kept is not None and kept[0] == state.layout:
                found = None if kept[1] is None else state.combatants[kept[1]]
            else:
                found = self._nearest_enemy(who)
                self.nearest_by[who] = (state.layout, None if found is None else found.id)
        else:
            found = self._nearest_enemy(who)
        self._nearest = (state.seq, who, found)
        return found

    def _nearest_enemy(self, who: str) -> CombatantState | None:
        me = self.get(who)
        c = self.state.combatants
        see = self.ruleset.can_see
        rules = self.rules
        radius = CELL / 2  # the lines of a melee are a metre or two apart: look close first
        if self.state.covers(radius):  # few enough to look at every standing enemy at once
            here = me.position
            everyone = self.plain_sight and not self.state.holding.get("hidden")
            gaps = [
                (distance(here, e.position), e.id)
                for e in self.state.others_standing(me.side)
                if everyone or see(rules, who, e.id)
            ]
            return c[min(gaps)[1]] if gaps else None
        x, y = me.position.x, me.position.y
        while True:
            wide = self.state.covers(radius)  # everyone is looked at: the nearest is found
            # Unless everyone is looked at, a square first (distances are to the centimetre).
            lim = math.inf if wide else radius + 0.01
            found = [
                (gap, k)
                for k in self.state.near(me.position, radius)
                if -lim <= (p := c[k].position).x - x <= lim
                and -lim <= p.y - y <= lim
                and c[k].side != me.side
                and c[k].standing
                and ((gap := distance(me.position, c[k].position)) <= radius or wide)
                and see(rules, who, k)
            ]
            if found:
                return c[min(found)[1]]
            if wide:
                return None
            radius *= 2

    def _nearest_at_grant(self, who: str, granted: int) -> CombatantState | None:
        """:meth:`nearest_enemy` for the view of the grant ``granted``: the answer found for
        the offers just before it still holds when the grant is all that happened since (it
        changes only who holds priority, which nothing in the search reads)."""
        memo = self._nearest
        if memo[0] == granted - 1 and memo[1] == who and self.state.seq == granted:
            return memo[2]
        return self.nearest_enemy(who)

    def by_initiative(self, ids: Iterable[str]) -> list[str]:
        """``ids`` in initiative order (highest first); those not yet ordered go last."""
        rank = self.state.rank
        wanted = dict.fromkeys(ids)
        # Ranks are distinct, so the ranked sort by rank alone; the rest keep their order.
        ranked = sorted(filter(rank.__contains__, wanted), key=rank.__getitem__)
        if len(ranked) == len(wanted):
            return ranked
        return ranked + [c for c in wanted if c not in rank]

    # --- who is still in it -------------------------------------------------------------------

    def sides_standing(self) -> list[str]:
        """Sides with someone still fighting or still to arrive, in the encounter's order."""
        if self.plain_standing:
            alive = {
                self.state.combatants[ids[0]].side
                for ids in self.state.standing_ids().values()
                if ids
            }
        else:
            alive = {c.side for c in self.state.combatants.values() if self.standing(c.id)}
        alive |= {
            c.side
            for c in self._late
            if c.id not in self.state.combatants and c.arrives > self.state.round
        }
        return [s for s in self.encounter.sides if s in alive]

    def decided(self) -> bool:
        """Whether at most one side is left (standing, or still to arrive)."""
        if self.plain_standing and not self._late:
            # Asked after every action: the sides with someone standing, counted by the index.
            return self.state.standing_side_count() <= 1
        return len(self.sides_standing()) <= 1
