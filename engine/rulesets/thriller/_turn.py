"""Actions in one's own turn: standard (1 AP), full-round (all AP), free (0 AP), special (2+ AP).

Seed 000: "Most combat actions cost 1 AP, though some require more." "When performing a
full-round action, you gain enhanced defense or extended movement, but forgo all other actions
that turn." "The GM may limit free actions to one or two per turn for balance." "These are
typically 2+ AP or span multiple turns, at the GM's discretion. Many require appropriate skill
checks (e.g., operating heavy machinery or rigging explosives)."
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from initiative.engine.kit import (
    ActionUnit,
    AttackUnit,
    MoveUnit,
    ReadyWeaponUnit,
    Say,
    at,
    attack_offers,
    away,
    check_move,
    check_plain_attack,
    check_target,
    distance,
    move_offers,
    occupant,
    third_person,
    weapon_named,
    words,
)
from initiative.events import (
    Attack,
    CombatantLeft,
    Move,
    Offer,
    ReadyWeapon,
    Window,
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
from ._combat import attack
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
    from initiative.engine.kit import Hook, Rules
    from initiative.events import Action

    from ._ruleset import Thriller

A = TypeVar("A", bound="Action")


def unloaded(fight: Rules, who: str, weapon: str) -> bool:
    return fight.count(who, Unloaded(weapon)) > 0


def uses_left(fight: Rules, who: str, item: str) -> int:
    spec = next((i for i in fight.spec(who).items if i.name == item), None)
    return 0 if spec is None else spec.count - fight.count(who, Used(item))


def special_named(fight: Rules, who: str, name: str) -> SpecialAction | None:
    return next((s for s in specials_of(fight.spec(who)) if s.name == name), None)


def free_left(fight: Rules, who: str) -> bool:
    limit: int = fight.options.free_actions
    return fight.count(who, FREE) < limit


def whole_turn(fight: Rules, who: str) -> bool:
    """Whether ``who`` may still take a full-round action: it has AP, all of its turn's, and
    has taken no action (what :meth:`FullRoundUnit.check` asks, and cheaper)."""
    ap = fight.state.combatants[who].ap
    if ap < 1 or fight.count(who, FREE):
        return False
    R: Thriller = fight.ruleset  # type: ignore[assignment]
    return ap == R.turn_ap(fight, who)  # (then no AP is spent: nothing was done yet)


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


def acted(R: Thriller, fight: Rules, who: str) -> bool:
    """Whether ``who`` has taken any action this turn: AP spent, or a free action (Quick
    Draw's 0-AP reload or draw counts as one) taken."""
    spent = R.turn_ap(fight, who) - fight.get(who).ap
    return spent > 0 or fight.count(who, FREE) > 0


# --- the units: one per action taken in one's own turn -----------------------------------------


class Attacking(AttackUnit):
    """Attack (1 AP) with a loaded weapon; the target may Dodge, an ally Intercept."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if fight.state.combatants[who].ap < 1:
            return []
        return attack_offers(fight, who, 1, usable=lambda w: not unloaded(fight, who, w.name))

    def check(self, fight: Rules, who: str, action: Attack, window: Window) -> str | None:
        if reason := check_plain_attack(fight, who, action):
            return reason
        weapon = weapon_named(fight, who, action.weapon)
        if weapon is not None and unloaded(fight, who, weapon.name):
            return f"the {weapon.name} is unloaded: reload it first (ReadyWeapon)"
        return None

    def perform(self, fight: Rules, who: str, action: Attack, window: Window) -> Hook:
        weapon = weapon_named(fight, who, action.weapon)
        assert weapon is not None
        R: Thriller = fight.ruleset  # type: ignore[assignment]
        return (yield from attack(R, fight, who, action.target, weapon, retaliation=False))


class Moving(MoveUnit):
    """Move (1 AP) up to one's speed."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if fight.state.combatants[who].ap < 1:
            return []
        return move_offers(fight, who, 1, fight.spec(who).speed)

    def check(self, fight: Rules, who: str, action: Move, window: Window) -> str | None:
        return check_move(fight, who, action.to, fight.spec(who).speed)

    def resolve(self, fight: Rules, who: str, action: Move, window: Window) -> None:
        fight.move(who, at(action.to.x, action.to.y))


class TakingCover(ActionUnit[TakeCover]):
    """Take Cover (1 AP): harder to hit until the start of one's next turn."""

    action = TakeCover
    when = ("turn",)
    implies = (IN_COVER.name,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if fight.state.combatants[who].ap < 1 or fight.has(who, IN_COVER):
            return []
        return [Offer(action=TakeCover(), cost=1)]

    def check(self, fight: Rules, who: str, action: TakeCover, window: Window) -> str | None:
        return "already in cover" if fight.has(who, IN_COVER) else None

    def resolve(self, fight: Rules, who: str, action: TakeCover, window: Window) -> None:
        fight.add_condition(who, IN_COVER, until="start of its next turn")

    def told(self, action: TakeCover, say: Say) -> str:
        return "takes cover"


class UsingItem(ActionUnit[UseItem]):
    """Use an item (1 AP): a medkit on oneself or an ally, a grenade on an enemy in range."""

    action = UseItem
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if fight.state.combatants[who].ap < 1:
            return []
        return [Offer(action=a, cost=1) for a in _item_actions(fight, who)]

    def check(self, fight: Rules, who: str, action: UseItem, window: Window) -> str | None:
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

    def resolve(self, fight: Rules, who: str, action: UseItem, window: Window) -> None:
        item = next(i for i in fight.spec(who).items if i.name == action.item)
        fight.set_counter(who, Used(item.name), fight.count(who, Used(item.name)) + 1)
        target = action.target or who
        if item.heal:
            fight.heal(target, fight.roll(who, f"{item.name} heals {target}", item.heal).total)
        if item.damage:
            fight.damage(
                target, fight.roll(who, f"{item.name} on {target}", item.damage).total, source=who
            )

    def told(self, action: UseItem, say: Say) -> str:
        target = action.target
        on = f" on {say.name(target)}" if target and target != say.actor else ""
        return f"uses the {action.item}{on}"


class Readying(ReadyWeaponUnit):
    """Ready Weapon (1 AP, or a free action with Quick Draw while free actions are left):
    draw or reload."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        found = []
        ap = fight.state.combatants[who].ap
        for w in fight.spec(who).weapons:
            reload = ReadyWeapon(weapon=w.name, mode="reload")
            if (
                unloaded(fight, who, w.name)
                and (cost := self.cost(fight, who, reload, window)) <= ap
            ):
                found.append(Offer(action=reload, cost=cost))
        return found

    def check(self, fight: Rules, who: str, action: ReadyWeapon, window: Window) -> str | None:
        name, mode = action.weapon, action.mode
        weapon = next((w for w in fight.spec(who).weapons if w.name == name), None)
        if weapon is None:
            return f"{who} carries no weapon named {name!r}"
        if mode not in ("draw", "reload"):
            return f"ReadyWeapon mode {mode!r} is not one of 'draw', 'reload'"
        if mode == "reload" and not unloaded(fight, who, name):
            return f"the {name} does not need reloading"
        return None

    def cost(self, fight: Rules, who: str, action: ReadyWeapon, window: Window) -> int:
        free = has_perk(fight.spec(who), QUICK_DRAW) and free_left(fight, who)
        return 0 if free else 1

    def resolve(self, fight: Rules, who: str, action: ReadyWeapon, window: Window) -> None:
        if action.mode == "reload":
            fight.set_counter(who, Unloaded(action.weapon), 0)
        # The free-action tally has not moved since the declaration, so ``cost`` still says
        # whether it was taken as a free action.
        if self.cost(fight, who, action, window) == 0:
            fight.set_counter(who, FREE, fight.count(who, FREE) + 1)


class Specials(ActionUnit[Special]):
    """A special action of the encounter file: its AP each turn worked on, a skill check when
    done."""

    action = Special
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        found = []
        ap = fight.state.combatants[who].ap
        for s in specials_of(fight.spec(who)):
            special = Special(name=s.name, target=_special_target(fight, who, s))
            if s.ap <= ap and fight.ruleset.check(fight, who, special, window) is None:
                found.append(Offer(action=special, cost=s.ap))
        return found

    def check(self, fight: Rules, who: str, action: Special, window: Window) -> str | None:
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

    def cost(self, fight: Rules, who: str, action: Special, window: Window) -> int:
        special = special_named(fight, who, action.name)
        return special.ap if special is not None else 1

    def resolve(self, fight: Rules, who: str, action: Special, window: Window) -> None:
        R: Thriller = fight.ruleset  # type: ignore[assignment]
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

    def told(self, action: Special, say: Say) -> str:
        target = f" on {say.name(action.target)}" if action.target else ""
        return f"attempts {action.name}{target}"


class FullRoundUnit(ActionUnit[A]):
    """A full-round action: all one's AP, only as the turn's first action, and the turn ends."""

    def check(self, fight: Rules, who: str, action: A, window: Window) -> str | None:
        """Seed 000: "When performing a full-round action, you ... forgo all other actions that
        turn": any action earlier in the turn, even a free one, makes it illegal."""
        R: Thriller = fight.ruleset  # type: ignore[assignment]
        if acted(R, fight, who) or fight.get(who).ap < 1:
            return "a full-round action takes the whole turn: another action was already taken"
        if isinstance(action, Flee):
            return check_move(
                fight, who, action.to, fight.spec(who).speed * R.options.flee_multiplier
            )
        return None

    def cost(self, fight: Rules, who: str, action: A, window: Window) -> int:
        return fight.get(who).ap


class Defending(FullRoundUnit[FullDefense]):
    """Full Defense (full round): harder to hit until the start of one's next turn."""

    action = FullDefense
    when = ("turn",)
    implies = (FULL_DEFENSE.name,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if not whole_turn(fight, who):
            return []
        return [Offer(action=FullDefense(), cost=fight.get(who).ap)]

    def resolve(self, fight: Rules, who: str, action: FullDefense, window: Window) -> None:
        fight.add_condition(who, FULL_DEFENSE, until="start of its next turn")
        fight.set_counter(who, FULL_ROUND, 1)

    def told(self, action: FullDefense, say: Say) -> str:
        return "goes on full defence"


class Fleeing(FullRoundUnit[Flee]):
    """Flee (full round): run up to ``flee_multiplier`` times one's speed away; beyond
    ``escape_distance`` of every enemy, one has left the fight."""

    action = Flee
    when = ("turn",)
    moving = True

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if not whole_turn(fight, who):
            return []
        enemies = fight.enemies_of(who)
        if not enemies:
            return []
        me = fight.get(who)
        nearest = min(enemies, key=lambda e: (distance(me.position, e.position), e.id))
        speed = fight.spec(who).speed * fight.options.flee_multiplier
        to = away(me.position, nearest.position, speed)
        if occupant(fight, who, to) is not None:  # an offer is always legal (see check)
            return []
        return [Offer(action=Flee(to=to), cost=me.ap)]

    def resolve(self, fight: Rules, who: str, action: Flee, window: Window) -> None:
        fight.move(who, at(action.to.x, action.to.y))
        me = fight.get(who)
        if all(
            distance(me.position, e.position) > fight.options.escape_distance
            for e in fight.enemies_of(who)
        ):
            fight.emit(CombatantLeft(who=who, reason="fled"))
        fight.set_counter(who, FULL_ROUND, 1)

    def told(self, action: Flee, say: Say) -> str:
        return "flees"


class FreeActing(ActionUnit[FreeAction]):
    """A free action (0 AP), at most ``free_actions`` a turn."""

    action = FreeAction
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if not free_left(fight, who):
            return []
        return [Offer(action=FreeAction(name="shout"), cost=0)]

    def check(self, fight: Rules, who: str, action: FreeAction, window: Window) -> str | None:
        if not free_left(fight, who):
            limit = fight.options.free_actions
            return f"the limit of {limit} free actions this turn is reached"
        return None

    def cost(self, fight: Rules, who: str, action: FreeAction, window: Window) -> int:
        return 0

    def resolve(self, fight: Rules, who: str, action: FreeAction, window: Window) -> None:
        fight.set_counter(who, FREE, fight.count(who, FREE) + 1)

    def told(self, action: FreeAction, say: Say) -> str:
        return third_person(words(action.name or "act"))


class Assisting(ActionUnit[Assist]):
    """Assist (1 AP): an ally within ``assist_reach`` adds ``assist_bonus`` to its next test."""

    action = Assist

    def check(self, fight: Rules, who: str, action: Assist, window: Window) -> str | None:
        ally, reach = action.ally, fight.options.assist_reach
        if ally not in fight.state.combatants or ally == who or not fight.standing(ally):
            return f"{ally!r} is not an ally in the fight"
        if fight.get(ally).side != fight.get(who).side:
            return f"{ally} is not an ally"
        if fight.dist(who, ally) > reach + 1e-9:
            return f"{ally} is {fight.dist(who, ally):g} m away, farther than {reach:g} m"
        return None

    def resolve(self, fight: Rules, who: str, action: Assist, window: Window) -> None:
        fight.set_counter(action.ally, ASSISTED, fight.options.assist_bonus)

    def told(self, action: Assist, say: Say) -> str:
        return f"helps {say.name(action.ally)}"


class Interacting(ActionUnit[Interact]):
    """Interact with the surroundings (1 AP): the GM's story; no rule follows from it."""

    action = Interact

    def check(self, fight: Rules, who: str, action: Interact, window: Window) -> str | None:
        return None if action.what.strip() else "Interact needs something to interact with"

    def told(self, action: Interact, say: Say) -> str:
        return f"interacts with {action.what}"
