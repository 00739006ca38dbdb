"""Actions in one's own turn: standard (1 AP), full-round (all AP), free (0 AP), special (2+ AP).

Seed 000: "Most combat actions cost 1 AP, though some require more." "When performing a
full-round action, you gain enhanced defense or extended movement, but forgo all other actions
that turn." "The GM may limit free actions to one or two per turn for balance." "These are
typically 2+ AP or span multiple turns, at the GM's discretion. Many require appropriate skill
checks (e.g., operating heavy machinery or rigging explosives)."
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import (
    Attack,
    CombatantLeft,
    Move,
    Offer,
    ReadyWeapon,
)

from ..._geometry import at, away, distance
from .._common import (
    attack_offers,
    check_move,
    check_plain_attack,
    check_target,
    move_offers,
    occupant,
    weapon_named,
)
from ._actions import (
    Assist,
    Flee,
    FreeAction,
    FullDefense,
    Interact,
    Special,
    TakeCover,
    UseItem,
)
from ._marks import (
    ASSISTED,
    FREE,
    FULL_DEFENSE,
    FULL_ROUND,
    IN_COVER,
    Progress,
    SpecialCondition,
    Unloaded,
    Used,
    Worked,
)
from ._options import QUICK_DRAW, SpecialAction, has_perk, resolve_check, specials_of

if TYPE_CHECKING:
    from initiative.events import Action

    from ..._rules import Rules
    from ._ruleset import Thriller


def unloaded(fight: Rules, who: str, weapon: str) -> bool:
    return fight.count(who, Unloaded(weapon)) > 0


def uses_left(fight: Rules, who: str, item: str) -> int:
    spec = next((i for i in fight.spec(who).items if i.name == item), None)
    return 0 if spec is None else spec.count - fight.count(who, Used(item))


def special_named(fight: Rules, who: str, name: str) -> SpecialAction | None:
    return next((s for s in specials_of(fight.spec(who)) if s.name == name), None)


def free_left(R: Thriller, fight: Rules, who: str) -> bool:
    return fight.count(who, FREE) < R.options.free_actions


def cost(R: Thriller, fight: Rules, who: str, action: Action) -> int:
    """1 AP for a standard action; 0 for a free one (and Quick Draw's reload or draw while free
    actions are left); all AP for a full-round action; the declared AP for a special."""
    match action:
        case FreeAction():
            return 0
        case ReadyWeapon():
            return 0 if has_perk(fight.spec(who), QUICK_DRAW) and free_left(R, fight, who) else 1
        case Flee() | FullDefense():
            return fight.get(who).ap
        case Special(name=name):
            special = special_named(fight, who, name)
            return special.ap if special is not None else 1
    return 1


def offers(R: Thriller, fight: Rules, who: str) -> list[Offer]:
    """What a policy is offered in its turn (scripts may send anything ``check`` accepts)."""
    me, spec = fight.get(who), fight.spec(who)
    found: list[Offer] = []
    if me.ap >= 1:
        found += attack_offers(fight, who, 1, usable=lambda w: not unloaded(fight, who, w.name))
        found += move_offers(fight, who, 1, spec.speed)
        if not fight.has(who, IN_COVER):
            found.append(Offer(action=TakeCover(), cost=1))
        found += [Offer(action=a, cost=1) for a in _item_actions(fight, who)]
    for w in spec.weapons:
        reload = ReadyWeapon(weapon=w.name, mode="reload")
        if unloaded(fight, who, w.name) and cost(R, fight, who, reload) <= me.ap:
            found.append(Offer(action=reload, cost=cost(R, fight, who, reload)))
    for s in specials_of(spec):
        special = Special(name=s.name, target=_special_target(fight, who, s))
        if s.ap <= me.ap and check(R, fight, who, special) is None:
            found.append(Offer(action=special, cost=s.ap))
    if me.ap >= 1 and me.ap == R.turn_ap(fight, who) and not acted(R, fight, who):
        found.append(Offer(action=FullDefense(), cost=me.ap))
        enemies = fight.enemies_of(who)
        if enemies:
            nearest = min(enemies, key=lambda e: (distance(me.position, e.position), e.id))
            to = away(me.position, nearest.position, spec.speed * R.options.flee_multiplier)
            if occupant(fight, who, to) is None:  # an offer is always legal (see check)
                found.append(Offer(action=Flee(to=to), cost=me.ap))
    if free_left(R, fight, who):
        found.append(Offer(action=FreeAction(name="shout"), cost=0))
    return found


def _item_actions(fight: Rules, who: str) -> list[Action]:
    me = fight.get(who)
    actions: list[Action] = []
    for item in fight.spec(who).items:
        if uses_left(fight, who, item.name) <= 0:
            continue
        if item.heal and me.hp < me.max_hp:
            actions.append(UseItem(item=item.name))
        if item.damage:
            for e in fight.enemies_of(who):
                if distance(me.position, e.position) <= item.range + 1e-9:
                    actions.append(UseItem(item=item.name, target=e.id))
                    break
    return actions


def _special_target(fight: Rules, who: str, s: SpecialAction) -> str | None:
    if not (s.damage or s.condition):
        return None
    me = fight.get(who)
    near = [e for e in fight.enemies_of(who) if distance(me.position, e.position) <= s.range + 1e-9]
    return near[0].id if near else None


def check(R: Thriller, fight: Rules, who: str, action: Action) -> str | None:
    """Why a turn action is illegal now, or ``None``."""
    me = fight.get(who)
    if fight.count(who, FULL_ROUND):
        # Seed 000: a full-round action means you "forgo all other actions that turn".
        return "a full-round action was taken this turn: nothing else may follow it"
    match action:
        case Attack(weapon=name):
            if reason := check_plain_attack(fight, who, action):
                return reason
            weapon = weapon_named(fight, who, name)
            if weapon is not None and unloaded(fight, who, weapon.name):
                return f"the {weapon.name} is unloaded: reload it first (ReadyWeapon)"
            return None
        case Move(to=to):
            return check_move(fight, who, to, fight.spec(who).speed)
        case UseItem():
            return _check_item(fight, who, action)
        case ReadyWeapon(weapon=name, mode=mode):
            weapon = next((w for w in fight.spec(who).weapons if w.name == name), None)
            if weapon is None:
                return f"{who} carries no weapon named {name!r}"
            if mode not in ("draw", "reload"):
                return f"ReadyWeapon mode {mode!r} is not one of 'draw', 'reload'"
            if mode == "reload" and not unloaded(fight, who, name):
                return f"the {name} does not need reloading"
            return None
        case Assist(ally=ally):
            if ally not in fight.state.combatants or ally == who or not fight.standing(ally):
                return f"{ally!r} is not an ally in the fight"
            if fight.get(ally).side != me.side:
                return f"{ally} is not an ally"
            if fight.dist(who, ally) > R.options.assist_reach + 1e-9:
                return f"{ally} is {fight.dist(who, ally):g} m away, farther than {R.options.assist_reach:g} m"
            return None
        case TakeCover():
            return "already in cover" if fight.has(who, IN_COVER) else None
        case Interact(what=what):
            return None if what.strip() else "Interact needs something to interact with"
        case FreeAction():
            if not free_left(R, fight, who):
                return f"the limit of {R.options.free_actions} free actions this turn is reached"
            return None
        case Flee() | FullDefense():
            return _check_full_round(R, fight, who, action)
        case Special():
            return _check_special(fight, who, action)
    return f"{type(action).__name__} is not an action of the thriller ruleset in one's own turn"


def _check_item(fight: Rules, who: str, action: UseItem) -> str | None:
    item = next((i for i in fight.spec(who).items if i.name == action.item), None)
    if item is None:
        return f"{who} carries no item named {action.item!r}"
    if uses_left(fight, who, item.name) <= 0:
        return f"the {item.name} is used up"
    target = action.target or who
    if target not in fight.state.combatants or not fight.standing(target):
        return f"{target!r} is not in the fight"
    friendly = fight.get(target).side == fight.get(who).side
    if item.damage and friendly:
        return f"the {item.name} is used on an enemy"
    if not item.damage and not friendly:
        return f"the {item.name} is used on oneself or an ally"
    if fight.dist(who, target) > item.range + 1e-9:
        return f"{target} is out of the {item.name}'s range ({item.range:g} m)"
    return None


def acted(R: Thriller, fight: Rules, who: str) -> bool:
    """Whether ``who`` has taken any action this turn: AP spent, or a free action (Quick
    Draw's 0-AP reload or draw counts as one) taken."""
    spent = R.turn_ap(fight, who) - fight.get(who).ap
    return spent > 0 or fight.count(who, FREE) > 0


def _check_full_round(R: Thriller, fight: Rules, who: str, action: Action) -> str | None:
    """Seed 000: "When performing a full-round action, you ... forgo all other actions that
    turn": any action earlier in the turn, even a free one, makes it illegal."""
    if acted(R, fight, who) or fight.get(who).ap < 1:
        return "a full-round action takes the whole turn: another action was already taken"
    if isinstance(action, Flee):
        return check_move(fight, who, action.to, fight.spec(who).speed * R.options.flee_multiplier)
    return None


def _check_special(fight: Rules, who: str, action: Special) -> str | None:
    s = special_named(fight, who, action.name)
    if s is None:
        return f"{who} has no special action named {action.name!r} in the encounter file"
    if s.turns > 1 and fight.count(who, Worked(s.name)):
        return f"{s.name} has already been worked on this turn"
    if s.damage or s.condition:
        if action.target is None:
            return f"{s.name} needs a target"
        if reason := check_target(fight, who, action.target):
            return reason
        if fight.dist(who, action.target) > s.range + 1e-9:
            return f"{action.target} is out of {s.name}'s range ({s.range:g} m)"
    return None


def perform(R: Thriller, fight: Rules, who: str, action: Action) -> None:
    """Resolve a turn action other than an attack."""
    match action:
        case Move(to=to):
            fight.move(who, at(to.x, to.y))
        case UseItem():
            _use_item(fight, who, action)
        case ReadyWeapon(weapon=name, mode=mode):
            if mode == "reload":
                fight.set_counter(who, Unloaded(name), 0)
        case Assist(ally=ally):
            fight.set_counter(ally, ASSISTED, R.options.assist_bonus)
        case TakeCover():
            fight.add_condition(who, IN_COVER, until="start of its next turn")
        case FullDefense():
            fight.add_condition(who, FULL_DEFENSE, until="start of its next turn")
        case Flee(to=to):
            fight.move(who, at(to.x, to.y))
            me = fight.get(who)
            if all(
                distance(me.position, e.position) > R.options.escape_distance
                for e in fight.enemies_of(who)
            ):
                fight.emit(CombatantLeft(who=who, reason="fled"))
        case Special():
            _special(R, fight, who, action)
    # The free-action tally has not moved since the declaration, so ``cost`` still says whether
    # a Quick Draw reload was taken as a free action.
    if isinstance(action, FreeAction | ReadyWeapon) and cost(R, fight, who, action) == 0:
        fight.set_counter(who, FREE, fight.count(who, FREE) + 1)
    if isinstance(action, Flee | FullDefense):
        fight.set_counter(who, FULL_ROUND, 1)


def _use_item(fight: Rules, who: str, action: UseItem) -> None:
    item = next(i for i in fight.spec(who).items if i.name == action.item)
    fight.set_counter(who, Used(item.name), fight.count(who, Used(item.name)) + 1)
    target = action.target or who
    if item.heal:
        fight.heal(target, fight.roll(who, f"{item.name} heals {target}", item.heal).total)
    if item.damage:
        fight.damage(
            target, fight.roll(who, f"{item.name} on {target}", item.damage).total, source=who
        )


def _special(R: Thriller, fight: Rules, who: str, action: Special) -> None:
    s = special_named(fight, who, action.name)
    assert s is not None
    progress = fight.count(who, Progress(s.name)) + 1
    if s.turns > 1:
        fight.set_counter(who, Worked(s.name), 1)
    if progress < s.turns:
        fight.set_counter(who, Progress(s.name), progress)
        return
    fight.set_counter(who, Progress(s.name), 0)
    success = True
    if s.skill is not None:
        bonus = (
            fight.spec(who).skills.get(s.skill, 0)
            + R.take_assist(fight, who)
            - R.shaken(fight, who)
        )
        roll = fight.roll(who, f"{s.name} ({s.skill})", f"1d20{bonus:+d}")
        success = resolve_check(fight, who, f"{s.name} ({s.skill})", roll.total, s.difficulty)
    if success and action.target is not None and fight.standing(action.target):
        if s.condition:
            fight.add_condition(action.target, SpecialCondition(s.condition))
        if s.damage:
            amount = fight.roll(who, f"{s.name} on {action.target}", s.damage).total
            fight.damage(action.target, amount, source=who)
