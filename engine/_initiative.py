"""Initiative: one roll per group, ties broken by the ruleset's keys, then recorded roll-offs.

Functions of a fight's rules table (:class:`~engine.Rules`, whose ``roll_initiative`` is
:func:`roll_initiative` bound to it); they change the state only by emitting events through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import InitiativeOrdered, InitiativeRolled

if TYPE_CHECKING:
    from ._rules import Rules


def groups(fight: Rules, ids: list[str]) -> list[list[str]]:
    """Split ``ids`` into initiative groups: one roll each (a ``group`` shares one, in a ruleset
    that declares ``group_initiative``; in any other, every participant rolls its own)."""
    grouped = fight.ruleset.group_initiative
    groups: dict[str, list[str]] = {}
    for cid in ids:
        key = (grouped and fight.spec(cid).group) or f"\0{cid}"
        groups.setdefault(key, []).append(cid)
    return list(groups.values())


def roll_initiative(
    fight: Rules, ids: list[str], *, insert: bool = False, drop_defeated: bool = False
) -> None:
    """Roll (or take as given) one initiative per group, then record the order.

    Ties break by the ruleset's ``tie_keys``, then by a recorded roll-off. With ``insert``,
    those already in the order keep their places, in the order as it stands (the GM's
    ``Reorder`` included: it is never re-sorted), and each newcomer is slotted in just before
    the first one placed whose result is lower than its own (after those placed when tied);
    with ``drop_defeated`` too, those no longer standing leave the recorded order.
    """
    rolled: dict[str, int] = {}
    for group in groups(fight, ids):
        lead = fight.spec(group[0])
        modifier = fight.ruleset.initiative_modifier(lead)
        if lead.initiative_roll is not None:
            die, given = lead.initiative_roll, True
        else:
            roll = fight.roll(group[0], "initiative", fight.ruleset.initiative_dice(lead))
            die, given = roll.total, False
        total = die + modifier
        fight.emit(
            InitiativeRolled(who=tuple(group), total=total, die=die, modifier=modifier, given=given)
        )
        for cid in group:
            rolled[cid] = total
    placed = (
        [
            c
            for c in fight.state.order
            if c in fight.state.combatants and (not drop_defeated or fight.standing(c))
        ]
        if insert
        else []
    )
    everyone = placed + [c for c in ids if c not in placed]
    ties: list[str] = []
    keys = {
        cid: (fight.get(cid).initiative or 0, *fight.ruleset.tie_keys(fight, cid))
        for cid in everyone
    }
    order = _order(fight, everyone, keys, placed, ties)
    fight.emit(InitiativeOrdered(order=tuple(order), ties=tuple(ties)))


def _order(
    fight: Rules,
    everyone: list[str],
    keys: dict[str, tuple[int, ...]],
    placed: list[str],
    ties: list[str],
) -> list[str]:
    # Units that act together: a group keeps its members together, in their listed order.
    # A member that arrived later rolled on its own, so it only joins its group's place
    # when its result is the same.
    units: dict[tuple[str, tuple[int, ...]], list[str]] = {}
    for cid in everyone:
        group = fight.spec(cid).group if fight.ruleset.group_initiative else None
        units.setdefault((group or cid, keys[cid]), []).append(cid)
    unit_list = list(units.values())
    unit_key = {id(u): keys[u[0]] for u in unit_list}
    roll_offs: dict[int, tuple[int, ...]] = {}
    by_key: dict[tuple[int, ...], list[list[str]]] = {}
    for u in unit_list:
        by_key.setdefault(unit_key[id(u)], []).append(u)
    for key in sorted(by_key, reverse=True):
        tied = by_key[key]
        if len(tied) < 2:
            continue
        old = [u for u in tied if u[0] in placed]
        new = [u for u in tied if u[0] not in placed]
        for rank, u in enumerate(old):
            # Those already placed keep their relative order, ahead of newcomers.
            roll_offs[id(u)] = (10_000 - rank,)
        if old and new:
            names = ", ".join(u[0] for u in old)
            ties.append(f"tie at {key[0]}: {names} already placed, act before newcomers")
        if len(new) > 1:
            # A lone newcomer tied only with those already placed needs no roll-off.
            _roll_off(fight, new, roll_offs, ties, key)
    ranked = sorted(
        unit_list, key=lambda u: (unit_key[id(u)], roll_offs.get(id(u), ())), reverse=True
    )
    if not placed:
        return [cid for u in ranked for cid in u]
    placed_set = set(placed)
    arriving = [u for u in ranked if any(cid not in placed_set for cid in u)]
    return _slot_in(placed, placed_set, arriving, keys)


def _slot_in(
    placed: list[str],
    placed_set: set[str],
    newcomers: list[list[str]],
    keys: dict[str, tuple[int, ...]],
) -> list[str]:
    """The order as it stands (``placed``, which may be the GM's, never re-sorted) with each
    newcomer unit (highest first) slotted in just before the first one placed whose result
    is lower than its own; a tie goes after those placed, as above. A newcomer that joins its
    group's place (same group, same result) goes right after the group's last member."""
    order = list(placed)
    for unit in newcomers:
        key = keys[unit[0]]
        fellows = [i for i, cid in enumerate(order) if cid in unit]  # its group, placed already
        if fellows:
            at = fellows[-1] + 1
            order[at:at] = [cid for cid in unit if cid not in placed_set]
            continue
        at = next(
            (i for i, cid in enumerate(order) if cid in placed_set and keys[cid] < key),
            len(order),
        )
        order[at:at] = unit
    return order


def _roll_off(
    fight: Rules,
    units: list[list[str]],
    roll_offs: dict[int, tuple[int, ...]],
    ties: list[str],
    key: tuple[int, ...],
) -> None:
    """Roll off among tied units until every one has a distinct result (recorded)."""
    pending = [units]
    depth = 0
    while pending:
        depth += 1
        tied = pending.pop(0)
        results: dict[int, list[list[str]]] = {}
        for u in tied:
            roll = fight.roll(u[0], "initiative roll-off", f"1d{fight.ruleset.roll_off_die}")
            roll_offs[id(u)] = (*roll_offs.get(id(u), ()), roll.total)
            results.setdefault(roll.total, []).append(u)
        names = ", ".join(f"{u[0]} {roll_offs[id(u)][-1]}" for u in tied)
        ties.append(f"tie at {key[0]} broken by roll-off: {names}")
        pending.extend(group for group in results.values() if len(group) > 1)
        if depth > 50:  # pragma: no cover - would need 50 identical roll-offs in a row
            break


# --- the flow -----------------------------------------------------------------------------
