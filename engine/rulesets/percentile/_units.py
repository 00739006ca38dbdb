"""The ``percentile`` ruleset's units, one per action (Attack, Move, Parry, Dodge), in the order
offers are asked of them: each with its offers, check, cost, performance and words."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar

from initiative.engine.kit import (
    ActionUnit,
    AttackUnit,
    DodgeUnit,
    Hook,
    MoveUnit,
    ParryUnit,
    attack_offers,
    check_move,
    check_plain_attack,
    move_offers,
    weapon_named,
)
from initiative.events import (
    Attack,
    AttackResolved,
    CombatantSpec,
    Dodge,
    Move,
    Offer,
    Parry,
    Trigger,
    Weapon,
    Window,
)

from ._checks import percent_test, skill_value
from ._marks import ATTACKS, REACTIONS, SURPRISED

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


def reaction_reason(fight: Rules, who: str, action: Parry | Dodge, window: Window) -> str | None:
    """Why ``who`` may not Parry or Dodge now: only against an attack on oneself, not while
    surprised, ``reactions_per_round`` a round, and Parry only against melee, with a melee
    weapon."""
    o = fight.options
    name = type(action).__name__
    trigger = window.trigger
    if trigger is None or trigger.kind != "attacked" or trigger.target != who:
        return f"{name} is a reaction to an attack on oneself"
    if fight.has(who, SURPRISED):
        return "surprised combatants take no action in round 1"
    if fight.count(who, REACTIONS) >= o.reactions_per_round:
        return f"already made {o.reactions_per_round} Parry or Dodge this round"
    if isinstance(action, Parry):
        if not o.parry:
            return "Parry is turned off in this encounter's options"
        if trigger.detail != "melee":
            return "only a melee attack can be parried"
        if not any(not w.ranged for w in fight.spec(who).weapons):
            return f"{who} has no melee weapon to parry with"
    elif not o.dodge:
        return "Dodge is turned off in this encounter's options"
    return None


def deal_damage(fight: Rules, who: str, target: str, dice: str, *, melee: bool) -> None:
    """Weapon dice (+ strength bonus in melee) - toughness bonus - armor (defaults)."""
    rolled = fight.roll(who, f"damage to {target}", dice).total
    plus, less = damage_terms(fight, who, target, melee=melee)
    fight.damage(target, max(fight.options.min_damage, rolled + plus - less), source=who)


def damage_terms(fight: Rules, who: str, target: str, *, melee: bool) -> tuple[int, int]:
    """What a hit's dice gain (strength // 10 in melee) and lose (armour, toughness // 10)."""
    o = fight.options
    plus = fight.spec(who).stats.get("strength", 0) // 10 if melee and o.strength_bonus else 0
    less = fight.spec(target).armor
    if o.toughness_bonus:
        less += fight.spec(target).stats.get("toughness", 0) // 10
    return plus, less


def attack_skill(fight: Rules, who: str, weapon: Weapon) -> int:
    """What an attack's d100 must roll at most: Weapon Skill (Ballistic Skill at range) plus
    the weapon's bonus."""
    stat = "ballistic_skill" if weapon.ranged else "weapon_skill"
    return fight.spec(who).stats.get(stat, 0) + weapon.bonus


class Attacking(AttackUnit):
    """An attack (``attack_cost`` half actions, ``attacks_per_turn`` a turn): a d100 test
    against Weapon Skill (Ballistic Skill at range); a hit makes an ``attacked`` opening for
    the target, whose Parry or Dodge may turn it aside."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        o = fight.options
        if (
            fight.state.combatants[who].ap < o.attack_cost
            or fight.count(who, ATTACKS) >= o.attacks_per_turn
        ):
            return []
        return attack_offers(fight, who, o.attack_cost)

    def check(self, fight: Rules, who: str, action: Attack, window: Window) -> str | None:
        if not window.is_turn:
            return "Attack is not a reaction in the percentile ruleset"
        if fight.count(who, ATTACKS) >= fight.options.attacks_per_turn:
            return f"already made {fight.options.attacks_per_turn} attack(s) this turn"
        return check_plain_attack(fight, who, action)

    def cost(self, fight: Rules, who: str, action: Attack, window: Window) -> int:
        return int(fight.options.attack_cost)

    def perform(self, fight: Rules, who: str, action: Attack, window: Window) -> Hook:
        weapon = weapon_named(fight, who, action.weapon)
        assert weapon is not None
        target = action.target
        fight.set_counter(who, ATTACKS, fight.count(who, ATTACKS) + 1)
        check = "Ballistic Skill" if weapon.ranged else "Weapon Skill"
        value = attack_skill(fight, who, weapon)
        test = percent_test(
            fight, who, check, value, purpose=f"attack on {target}", against_who=target
        )
        averted = ""
        if test.success:
            trigger = Trigger(
                kind="attacked",
                by=who,
                target=target,
                event=fight.cause,
                detail="ranged" if weapon.ranged else "melee",
            )
            reactions = yield from fight.opening(trigger, [target])
            for r in reactions:
                if r.result:
                    averted = "parried" if isinstance(r.action, Parry) else "dodged"
        hit = test.success and not averted
        detail = f"{weapon.name}; {averted} by {target}" if averted else weapon.name
        fight.emit(
            AttackResolved(
                who=who, target=target, hit=hit, roll=test.roll, against=value, detail=detail
            )
        )
        if hit:
            deal_damage(fight, who, target, weapon.damage, melee=not weapon.ranged)
        return None


class Moving(MoveUnit):
    """A move (``move_cost`` half actions) up to one's speed, in one's turn."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        cost = fight.options.move_cost
        if fight.state.combatants[who].ap < cost:
            return []
        return move_offers(fight, who, cost, fight.spec(who).speed)

    def check(self, fight: Rules, who: str, action: Move, window: Window) -> str | None:
        if not window.is_turn:
            return "Move is not a reaction in the percentile ruleset"
        return check_move(fight, who, action.to, fight.spec(who).speed)

    def cost(self, fight: Rules, who: str, action: Move, window: Window) -> int:
        return int(fight.options.move_cost)

    def resolve(self, fight: Rules, who: str, action: Move, window: Window) -> None:
        fight.move(who, action.to)


R = TypeVar("R", Parry, Dodge)


class _SkillReaction(ActionUnit[R]):
    """A reaction that is a skill test against an attack that hit (no half action): offered
    free while the opening allows it, counted as one of the round's reactions."""

    when = ("opening",)
    answers = ("attacked",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        reaction = self.action()
        assert isinstance(reaction, (Parry, Dodge))  # (the two subclasses' actions)
        return (
            [Offer(action=reaction, cost=0)]
            if reaction_reason(fight, who, reaction, window) is None
            else []
        )

    def check(self, fight: Rules, who: str, action: R, window: Window) -> str | None:
        return reaction_reason(fight, who, action, window)

    def cost(self, fight: Rules, who: str, action: R, window: Window) -> int:
        return 0

    def resolve(self, fight: Rules, who: str, action: R, window: Window) -> bool:
        fight.set_counter(who, REACTIONS, fight.count(who, REACTIONS) + 1)
        return percent_test(fight, who, self.skill, self.value(fight.spec(who))).success

    skill: ClassVar[str]

    def value(self, spec: CombatantSpec) -> int:
        raise NotImplementedError


class Parrying(_SkillReaction[Parry], ParryUnit):
    """Parry: a Weapon Skill test."""

    skill = "Parry"

    def value(self, spec: CombatantSpec) -> int:
        return spec.stats.get("weapon_skill", 0)


class Dodging(_SkillReaction[Dodge], DodgeUnit):
    """Dodge: a Dodge skill test."""

    skill = "Dodge"

    def value(self, spec: CombatantSpec) -> int:
        return skill_value(spec, "Dodge")


#: In the order offers are asked of them.
UNITS = (Attacking(), Moving(), Parrying(), Dodging())
