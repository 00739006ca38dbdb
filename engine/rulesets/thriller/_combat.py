"""Attacks and the reactions to them: Dodge, Intercept, Retaliate.

An attack first makes an ``attacked`` opening (by the attacker, for the target): the target may
Dodge, an ally within ``intercept_reach`` of it may Intercept. Then the attack test is rolled
(2d20 keep the higher against a Surprised defender). After a melee attack, a
``melee_attacked`` opening lets the one attacked Retaliate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import (
    ActionUnit,
    DodgeUnit,
    Odds,
    Say,
    chance_at_least,
    mean_damage,
    reaches,
    weapons,
)
from initiative.events import (
    AttackResolved,
    Dodge,
    Offer,
    Trigger,
    Weapon,
    Window,
)

from ._actions import Intercept, Retaliate
from ._marks import ASSISTED, FULL_DEFENSE, IN_COVER, INTERCEPTED, SURPRISED, Unloaded

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules

    from ._ruleset import Thriller

ATTACKED = "attacked"
MELEE_ATTACKED = "melee_attacked"


def defence(R: Thriller, fight: Rules, who: str) -> int:
    """What an attack on ``who`` must reach: the base, its Agility modifier, cover, Full Defense."""
    o = R.options
    value = o.defense_base + R.mod(fight.spec(who), "agility")
    if fight.has(who, IN_COVER):
        value += o.cover_bonus
    if fight.has(who, FULL_DEFENSE):
        value += o.full_defense_bonus
    return value


def attack(
    R: Thriller, fight: Rules, who: str, target: str, weapon: Weapon, *, retaliation: bool
) -> Hook:
    """Resolve an attack with its openings; returns whether it hit."""
    trigger = Trigger(kind=ATTACKED, by=who, target=target, event=fight.cause, detail=weapon.name)
    near = [
        a.id
        for a in fight.allies_of(target)
        if fight.dist(a.id, target) <= R.options.intercept_reach + 1e-9
    ]
    reactions = yield from fight.opening(trigger, [target, *near])
    defender, dodge = target, None
    for r in reactions:
        if isinstance(r.action, Intercept) and defender == target:
            defender = r.who
        elif isinstance(r.action, Dodge):
            dodge = r.result
    fight.remove_condition(target, INTERCEPTED)
    if defender != target:
        dodge = None  # the interceptor took the hit in the target's place
    if not (fight.standing(who) and fight.standing(defender)):
        return False
    hit = _resolve(R, fight, who, defender, weapon, dodge)
    if not weapon.ranged and not retaliation and fight.standing(defender) and fight.standing(who):
        after = Trigger(
            kind=MELEE_ATTACKED, by=who, target=defender, event=fight.cause, detail=weapon.name
        )
        yield from fight.opening(after, [defender])
    return hit


def odds(R: Thriller, fight: Rules, who: str, target: str, weapon: Weapon) -> Odds:
    """:func:`_resolve` as probabilities: the attack test (``2d20kh1`` against the Surprised)
    with the Assist bonus it would use and the Shaken penalty, against the target's defence
    (cover, Full Defense) before any Dodge; a hit's mean damage after armour."""
    spec = fight.spec(who)
    bonus = R.mod(spec, "agility" if weapon.ranged else "strength") + weapon.bonus
    bonus += fight.count(who, ASSISTED) - R.shaken(fight, who)
    dice = "2d20kh1" if fight.has(target, SURPRISED) else "1d20"
    armor = fight.spec(target).armor
    return Odds(
        hit=chance_at_least(dice, defence(R, fight, target) - bonus),
        damage=mean_damage(weapon.damage, less=armor, least=R.options.min_damage),
    )


def _resolve(
    R: Thriller, fight: Rules, who: str, defender: str, weapon: Weapon, dodge: int | None
) -> bool:
    """The attack test: 1d20 (2d20kh1 against the Surprised) + modifier against the defence."""
    spec = fight.spec(who)
    bonus = R.mod(spec, "agility" if weapon.ranged else "strength") + weapon.bonus
    bonus += R.take_assist(fight, who) - R.shaken(fight, who)
    dice = "2d20kh1" if fight.has(defender, SURPRISED) else "1d20"
    roll = fight.roll(who, f"attack on {defender}", f"{dice}{bonus:+d}")
    against = defence(R, fight, defender)
    detail = weapon.name
    if dodge is not None and dodge > against:
        against, detail = dodge, f"{weapon.name}, dodge {dodge}"
    hit = roll.total >= against
    fight.emit(
        AttackResolved(
            who=who, target=defender, hit=hit, roll=roll.total, against=against, detail=detail
        )
    )
    if weapon.ranged and weapon.reload > 0:
        fight.set_counter(who, Unloaded(weapon.name), 1)
    if hit:
        dmg = fight.roll(who, f"damage to {defender}", weapon.damage)
        amount = max(R.options.min_damage, dmg.total - fight.spec(defender).armor)
        fight.damage(defender, amount, source=who)
    return hit


def dodge_roll(R: Thriller, fight: Rules, who: str) -> int:
    """Dodge: 1d20 + Agility modifier, -2 while Surprised, less the Shaken penalty."""
    bonus = R.mod(fight.spec(who), "agility") - R.shaken(fight, who)
    if fight.has(who, SURPRISED):
        bonus -= R.options.surprise_dodge_penalty
    return fight.roll(who, "dodge", f"1d20{bonus:+d}").total


def retaliation_weapon(fight: Rules, who: str, target: str) -> Weapon | None:
    """The first melee weapon of ``who`` that reaches ``target``."""
    gap = fight.dist(who, target)
    return next((w for w in weapons(fight, who) if not w.ranged and reaches(w, gap)), None)


def may_react(fight: Rules, who: str, window: Window) -> bool:
    """Whether ``who`` may react at all in this opening: reactions cost 1 AP of held AP.

    Seed 000: reactions are "performed outside your turn using saved AP", so the one whose
    turn it is (attacked by a Retaliation, say) is offered none.
    """
    return (
        window.trigger is not None
        and fight.state.combatants[who].ap >= 1
        and fight.standing(who)
        and who != fight.state.active
    )


class Dodging(DodgeUnit):
    """Dodge (1 AP held): the attacked one's 1d20 + Agility modifier becomes the defence to
    beat when it is higher. The Surprised may only Dodge ("able only to defend")."""

    when = ("opening",)
    answers = (ATTACKED,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        t = window.trigger
        assert t is not None
        if t.kind == ATTACKED and who == t.target and not fight.has(who, INTERCEPTED):
            return [Offer(action=Dodge(), cost=1)]
        return []

    def resolve(self, fight: Rules, who: str, action: Dodge, window: Window) -> int:
        R: Thriller = fight.ruleset  # type: ignore[assignment]
        return dodge_roll(R, fight, who)


class Intercepting(ActionUnit[Intercept]):
    """Intercept (1 AP held): an ally within ``intercept_reach`` of the attacked one takes the
    attack in its place (one Intercept an attack)."""

    action = Intercept
    when = ("opening",)
    answers = (ATTACKED,)
    implies = (INTERCEPTED.name,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        t = window.trigger
        assert t is not None
        if (
            t.kind == ATTACKED
            and t.target is not None
            and who != t.target
            and not fight.has(who, SURPRISED)
            and fight.get(who).side == fight.get(t.target).side
            and not fight.has(t.target, INTERCEPTED)
            and fight.dist(who, t.target) <= fight.options.intercept_reach + 1e-9
        ):
            return [Offer(action=Intercept(), cost=1)]
        return []

    def resolve(self, fight: Rules, who: str, action: Intercept, window: Window) -> str:
        t = window.trigger
        assert t is not None and t.target is not None
        fight.add_condition(t.target, INTERCEPTED, until="the attack resolves")
        return who

    def offered(self, action: Intercept, say: Say) -> str:
        t = say.trigger
        return f"Intercept: take the blow meant for {say.name(t.target) if t and t.target else 'an ally'}"

    def told(self, action: Intercept, say: Say) -> str:
        t = say.trigger
        meant = f" meant for {say.name(t.target)}" if t is not None and t.target else ""
        return f"steps in to take the blow{meant}"


class Retaliating(ActionUnit[Retaliate]):
    """Retaliate (1 AP held): strike back in melee at whoever just attacked one in melee."""

    action = Retaliate
    when = ("opening",)
    answers = (MELEE_ATTACKED,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        t = window.trigger
        assert t is not None
        if (
            t.kind == MELEE_ATTACKED
            and who == t.target
            and t.by
            and not fight.has(who, SURPRISED)
            and fight.standing(t.by)
        ) and retaliation_weapon(fight, who, t.by) is not None:
            return [Offer(action=Retaliate(target=t.by), cost=1)]
        return []

    def perform(self, fight: Rules, who: str, action: Retaliate, window: Window) -> Hook:
        weapon = retaliation_weapon(fight, who, action.target)
        assert weapon is not None
        R: Thriller = fight.ruleset  # type: ignore[assignment]
        return (yield from attack(R, fight, who, action.target, weapon, retaliation=True))

    def offered(self, action: Retaliate, say: Say) -> str:
        return f"Strike back at {say.name(action.target)}"

    def told(self, action: Retaliate, say: Say) -> str:
        return f"strikes back at {say.name(action.target)}"
