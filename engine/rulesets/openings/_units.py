"""The ``openings`` ruleset's units, one per action (Attack, Move), in the order offers are
asked of them: each with its offers, check, cost, performance and words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import (
    AttackUnit,
    Hook,
    MoveUnit,
    at,
    attack_offers,
    check_move,
    check_plain_attack,
    distance,
    leaving_space,
    move_offers,
    resolve_attack,
    weapon_named,
)
from initiative.events import (
    Attack,
    CombatantLeft,
    Move,
    Offer,
    Trigger,
    Weapon,
    Window,
)

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


class Attacking(AttackUnit):
    """Attack (``attack_cost`` AP): in one's turn, any enemy in reach; in an opening, the same,
    but only the creature leaving when the opening is its leaving one's space."""

    when = ("turn", "opening")

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        cost = fight.options.attack_cost
        if fight.state.combatants[who].ap < cost:
            return []
        attacks = attack_offers(fight, who, cost)
        trigger = window.trigger
        if trigger is not None and trigger.kind == "left_space":
            attacks = [a for a in attacks if a.action.target == trigger.by]  # type: ignore[attr-defined]
        return attacks

    def check(self, fight: Rules, who: str, action: Attack, window: Window) -> str | None:
        if reason := check_plain_attack(fight, who, action):
            return reason
        trigger = window.trigger
        if trigger is not None and trigger.kind == "left_space" and action.target != trigger.by:
            return f"this opening allows only an attack on {trigger.by}, who is leaving"
        return None

    def cost(self, fight: Rules, who: str, action: Attack, window: Window) -> int:
        return int(fight.options.attack_cost)

    def resolve(self, fight: Rules, who: str, action: Attack, window: Window) -> bool:
        weapon = weapon_named(fight, who, action.weapon)
        assert weapon is not None
        bonus, against = attack_test(fight, who, action.target, weapon)
        return resolve_attack(
            fight,
            who,
            action.target,
            weapon,
            bonus=bonus,
            against=against,
            min_damage=fight.options.min_damage,
        )


def attack_test(fight: Rules, who: str, target: str, weapon: Weapon) -> tuple[int, int]:
    """The attack test's bonus and what it must reach: ``1d20`` + strength (melee) or agility
    (ranged) + the weapon's bonus against ``defense_base`` + the target's defense."""
    stat = "agility" if weapon.ranged else "strength"
    bonus = fight.spec(who).stats.get(stat, 0) + weapon.bonus
    return bonus, fight.options.defense_base + fight.spec(target).stats.get("defense", 0)


class Moving(MoveUnit):
    """Move (``move_cost`` AP) up to one's speed; in the opening a turn's end makes, up to
    ``reaction_move`` metres when that is above 0. Leaving a creature's space makes an opening
    for it first."""

    when = ("turn", "opening")
    answers = ("turn_ended",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        o = fight.options
        if window.kind == "turn":
            limit = fight.spec(who).speed
        else:
            trigger = window.trigger
            if o.reaction_move <= 0 or trigger is None or trigger.kind != "turn_ended":
                return []
            limit = o.reaction_move
        if fight.state.combatants[who].ap < o.move_cost:
            return []
        return move_offers(fight, who, o.move_cost, limit)

    def check(self, fight: Rules, who: str, action: Move, window: Window) -> str | None:
        o = fight.options
        if window.is_turn:
            return check_move(fight, who, action.to, fight.spec(who).speed)
        trigger = window.trigger
        if trigger is None or trigger.kind != "turn_ended" or o.reaction_move <= 0:
            return "Move is not a reaction in this opening"
        return check_move(fight, who, action.to, o.reaction_move)

    def cost(self, fight: Rules, who: str, action: Move, window: Window) -> int:
        return int(fight.options.move_cost)

    def perform(self, fight: Rules, who: str, action: Move, window: Window) -> Hook:
        """Move, first making an opening for every creature whose space ``who`` leaves."""
        to = at(action.to.x, action.to.y)
        if fight.options.leave_space_openings:
            left = leaving_space(fight, who, to)
            if left:
                trigger = Trigger(kind="left_space", by=who, event=fight.cause)
                yield from fight.opening(trigger, left)
        if fight.standing(who):
            fight.move(who, to)
            flee_check(fight, who)
        return None


def flee_check(fight: Rules, who: str) -> None:
    """Seed 003: "Encounters may also end abruptly when combatants flee through various
    means": a creature that moved beyond ``escape_distance`` of every enemy has fled."""
    far = fight.options.escape_distance
    here = fight.get(who).position
    enemies = fight.enemies_of(who)
    if far > 0 and enemies and all(distance(here, e.position) > far for e in enemies):
        fight.emit(CombatantLeft(who=who, reason="fled"))


#: In the order offers are asked of them.
UNITS = (Attacking(), Moving())
