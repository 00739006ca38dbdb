"""The offered actions: a small, useful list for the built-in policies.

Every offer is checked with the same ``check`` the scheduler uses, so an offer is always legal.
Actions not offered (Hide, Feint, Delay Turn, ...) are still legal when a policy sends them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import (
    Attack,
    Move,
    Offer,
    Parry,
    ReadyWeapon,
    Window,
)

from ..._geometry import approach, away, distance
from ._actions import (
    Arise,
    Block,
    CastMagic,
    CounterAttack,
    Dash,
    DrinkPotion,
    Evade,
    OpportunityAttack,
    Resist,
    TakeDelayedTurn,
)
from ._conditions import loaded, reach, sees, usable_weapons
from ._marks import BLINDED, PRONE, RESTRAINED, UNCONSCIOUS
from ._movement import budget
from ._options import AOO_TRIGGERS, is_potion, spells_of

if TYPE_CHECKING:
    from initiative.events import Action

    from ..._rules import Rules


def offers(fight: Rules, who: str, window: Window) -> list[Offer]:
    if fight.has(who, UNCONSCIOUS):
        return []
    wanted = turn_actions(fight, who) if window.is_turn else reactions(fight, who, window)
    R = fight.ruleset
    out = []
    for action in wanted:
        if R.check(fight, who, action, window) is None:
            cost = R.cost(fight, who, action, window)
            if cost <= fight.get(who).ap:
                out.append(Offer(action=action, cost=cost))
    return out


def reactions(fight: Rules, who: str, window: Window) -> list[Action]:
    t = window.trigger
    assert t is not None
    if t.kind == "delayed":
        return [TakeDelayedTurn()]
    if t.kind in AOO_TRIGGERS and t.by is not None:
        return [OpportunityAttack(target=t.by)]
    if t.kind == "attacked" and t.target == who:
        return [CounterAttack(), Block(), Parry(), Evade()]
    return []


def nearest_enemy(fight: Rules, who: str) -> str | None:
    me = fight.get(who).position
    seen = [e for e in fight.enemies_of(who) if sees(fight, who, e.id)]
    best = min(seen, key=lambda e: (distance(me, e.position), e.id), default=None)
    return best.id if best else None


def turn_actions(fight: Rules, who: str) -> list[Action]:
    me = fight.get(who)
    spec = fight.spec(who)
    wanted: list[Action] = []
    for enemy in fight.enemies_of(who):
        for w in usable_weapons(fight, who):
            action = Attack(target=enemy.id, weapon=w.name)
            if fight.ruleset.check(fight, who, action, Window(kind="turn")) is None:
                wanted.append(action)
                break
    nearest = nearest_enemy(fight, who)
    if nearest is not None:
        wanted += [CastMagic(spell=s.name, target=nearest) for s in spells_of(spec) if s.damage][:1]
        wanted += moves(fight, who, nearest)
    wanted += [
        ReadyWeapon(weapon=w.name) for w in spec.weapons if w.ranged and not loaded(fight, who, w)
    ]
    if fight.has(who, PRONE):
        wanted.append(Arise())
    if fight.has(who, RESTRAINED) or fight.has(who, BLINDED):
        wanted.append(Resist())
    if me.hp * 2 <= me.max_hp:
        wanted += [DrinkPotion(potion=i.name) for i in spec.items if is_potion(spec, i)][:1]
    return wanted


def moves(fight: Rules, who: str, nearest: str) -> list[Action]:
    """Toward the nearest enemy (stopping in reach) and away from it; a Dash toward it when
    the base movement is spent."""
    here = fight.get(who).position
    there = fight.get(nearest).position
    stop = max(0.5, reach(fight, who) - 0.25)
    left = budget(fight, who)
    wanted: list[Action] = []
    if left >= 0.5:
        if distance(here, there) > reach(fight, who):
            wanted.append(Move(to=approach(here, there, left, stop)))
        wanted.append(Move(to=away(here, there, left)))
    elif distance(here, there) > reach(fight, who):
        wanted.append(Dash(to=approach(here, there, fight.spec(who).speed, stop)))
    return wanted
