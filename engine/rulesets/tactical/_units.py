"""One unit per action: when it is offered, its own conditions, its cost, what it does, its words.

What every action shares (its class, primary, secondary, reaction or move, and the rules of
each class; Advantage; the aim chain) is the ruleset's, in ``_rules``; the rest is here. Offers
are a small, useful list for the built-in policies, each checked with the same ``check`` the
scheduler uses, so an offer is always legal. Actions not offered (Hide, Feint, Delay Turn ...)
are still legal when a policy sends them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from initiative.engine.kit import (
    HIDDEN,
    ActionUnit,
    AttackUnit,
    MoveUnit,
    ParryUnit,
    ReadyWeaponUnit,
    Say,
    approach,
    away,
    check_move,
    check_target,
    distance,
    listed,
    words,
)
from initiative.events import (
    Action,
    Attack,
    Move,
    Offer,
    Parry,
    ReadyWeapon,
    Window,
)

from . import _attacks, _reactions, _specials
from ._actions import (
    Aim,
    Arise,
    Bash,
    BlindOpponent,
    Block,
    CastMagic,
    CounterAttack,
    Dash,
    DefensiveStance,
    DelayTurn,
    Disarm,
    Disengage,
    DrinkPotion,
    Evade,
    Feint,
    ForceMovement,
    Hide,
    OpportunityAttack,
    Resist,
    TakeDelayedTurn,
    Trip,
)
from ._checks import (
    attacked,
    check_aoo,
    check_attack,
    check_cast,
    check_counter,
    check_delay,
    check_ready,
    close,
)
from ._conditions import loaded, reach, sees, usable_weapons
from ._marks import (
    BLINDED,
    DASHES,
    DEFENSIVE_STANCE,
    DELAYING,
    DISENGAGED,
    PRONE,
    RESTRAINED,
    UsedItem,
)
from ._movement import budget, move
from ._options import AOO_TRIGGERS, is_potion, shield_of, spells_of
from ._reactions import delay_turn, take_delayed_turn
from ._specials import disarm_target, not_larger, within

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules

A = TypeVar("A", bound=Action)


class TacticalUnit(ActionUnit[A]):
    """An action of the tactical ruleset: its class, and the rules the class brings."""

    kind: ClassVar[str] = "primary"
    """``primary``, ``secondary``, ``reaction`` or ``move`` (seed 002's action classes)."""
    free: ClassVar[bool] = False
    """It costs no AP (moving within one's base movement, Delay Turn, a delayed turn)."""
    needs_moving: ClassVar[bool] = False
    """The Restrained cannot take it."""

    def action_class(self, fight: Rules, who: str, action: A) -> str:
        """Its class for this combatant now (Cast Magic's depends on the spell)."""
        return self.kind

    def keeps_aim(self, fight: Rules, who: str, action: A) -> bool:
        """Seed 002 Aim: the chain survives only "continuing to aim or firing the aimed
        weapon/spell" (firing resets it)."""
        return False

    def check(self, fight: Rules, who: str, action: A, window: Window) -> str | None:
        return None


def legal(fight: Rules, who: str, window: Window, wanted: Sequence[Action]) -> list[Offer]:
    """The offers of ``wanted`` that the ruleset accepts and ``who`` can pay for."""
    R = fight.ruleset
    ap = fight.get(who).ap
    out = []
    for action in wanted:
        if R.check(fight, who, action, window) is None:
            cost = R.cost(fight, who, action, window)
            if cost <= ap:
                out.append(Offer(action=action, cost=cost))
    return out


def nearest_enemy(fight: Rules, who: str) -> str | None:
    """The nearest enemy ``who`` sees (ties by id)."""
    me = fight.get(who).position
    seen = [e for e in fight.enemies_of(who) if sees(fight, who, e.id)]
    best = min(seen, key=lambda e: (distance(me, e.position), e.id), default=None)
    return best.id if best else None


# --- primary actions ----------------------------------------------------------------------------


class Attacking(TacticalUnit[Attack], AttackUnit):
    """Seed 002 Attack, with All Out Attack (2 AP), Precision Strike and Coup de Grâce."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        wanted: list[Action] = []
        check = fight.ruleset.check
        for enemy in fight.enemies_of(who):
            for w in usable_weapons(fight, who):
                action = Attack(target=enemy.id, weapon=w.name)
                if check(fight, who, action, window) is None:
                    wanted.append(action)
                    break
        return legal(fight, who, window, wanted)

    def check(self, fight: Rules, who: str, action: Attack, window: Window) -> str | None:
        return check_attack(fight, who, action)

    def cost(self, fight: Rules, who: str, action: Attack, window: Window) -> int:
        return 2 if action.variant == "all_out" else 1

    def keeps_aim(self, fight: Rules, who: str, action: Attack) -> bool:
        weapon = _attacks.weapon_of(fight, who, action.weapon)
        return weapon is not None and weapon.ranged

    def perform(self, fight: Rules, who: str, action: Attack, window: Window) -> Hook:
        return _attacks.attack(fight, who, action)


class Stance(TacticalUnit[DefensiveStance]):
    """Seed 002 Defensive Stance: +10 on defensive tests, no attacks, until one's next turn."""

    action = DefensiveStance
    implies = (DEFENSIVE_STANCE.name,)

    def resolve(self, fight: Rules, who: str, action: DefensiveStance, window: Window) -> None:
        fight.add_condition(who, DEFENSIVE_STANCE, until=f"{who}'s next turn")

    def told(self, action: DefensiveStance, say: Say) -> str:
        return "takes a defensive stance"


class Disengaging(TacticalUnit[Disengage]):
    """Seed 002 Disengage: moving out of reach this turn provokes nothing."""

    action = Disengage
    implies = (DISENGAGED.name,)

    def resolve(self, fight: Rules, who: str, action: Disengage, window: Window) -> None:
        fight.add_condition(who, DISENGAGED, until="end of turn")

    def told(self, action: Disengage, say: Say) -> str:
        return "disengages"


class Delaying(TacticalUnit[DelayTurn]):
    """Seed 002 Delay Turn (0 AP): declare triggers, skip the turn, insert it later."""

    action = DelayTurn
    free = True
    implies = (DELAYING.name,)

    def check(self, fight: Rules, who: str, action: DelayTurn, window: Window) -> str | None:
        return check_delay(fight, who, action.triggers)

    def resolve(self, fight: Rules, who: str, action: DelayTurn, window: Window) -> None:
        delay_turn(fight, who, action)

    def told(self, action: DelayTurn, say: Say) -> str:
        until = action.triggers
        return "delays their turn" + (
            f" until {listed([words(str(x)) for x in until])}" if until else ""
        )


class Bashing(TacticalUnit[Bash]):
    """Seed 002 Bash: knock a target not larger than oneself back 1 m; it loses 1 AP."""

    action = Bash

    def check(self, fight: Rules, who: str, action: Bash, window: Window) -> str | None:
        t = action.target
        return check_target(fight, who, t) or close(fight, who, t) or not_larger(fight, who, t)

    def resolve(self, fight: Rules, who: str, action: Bash, window: Window) -> None:
        _specials.bash(fight, who, action)

    def told(self, action: Bash, say: Say) -> str:
        return f"bashes {say.name(action.target)}"


class Disarming(TacticalUnit[Disarm]):
    """Seed 002 Disarm: take or fling a target's weapon."""

    action = Disarm

    def check(self, fight: Rules, who: str, action: Disarm, window: Window) -> str | None:
        t = action.target
        reason = check_target(fight, who, t) or close(fight, who, t)
        if reason or (reason := not_larger(fight, who, t)):
            return reason
        if disarm_target(fight, t, action.weapon) is None:
            return f"{t} holds no weapon that can be disarmed (natural weapons cannot be)"
        return None

    def resolve(self, fight: Rules, who: str, action: Disarm, window: Window) -> None:
        _specials.disarm(fight, who, action)

    def told(self, action: Disarm, say: Say) -> str:
        held = f" of the {action.weapon}" if action.weapon else ""
        return f"tries to disarm {say.name(action.target)}{held}"


class Feinting(TacticalUnit[Feint]):
    """Seed 002 Feint: one's next melee attack on the target comes unseen."""

    action = Feint

    def check(self, fight: Rules, who: str, action: Feint, window: Window) -> str | None:
        return check_target(fight, who, action.target) or close(fight, who, action.target)

    def resolve(self, fight: Rules, who: str, action: Feint, window: Window) -> None:
        _specials.feint(fight, who, action)

    def told(self, action: Feint, say: Say) -> str:
        return f"feints at {say.name(action.target)}"


class Forcing(TacticalUnit[ForceMovement]):
    """Seed 002 Force Movement: push a target up to 3 m and go with it."""

    action = ForceMovement
    needs_moving = True

    def check(self, fight: Rules, who: str, action: ForceMovement, window: Window) -> str | None:
        t = action.target
        reason = check_target(fight, who, t) or within(fight, who, t, reach(fight, who))
        return reason or check_move(fight, t, action.to, fight.options.force_distance)

    def resolve(self, fight: Rules, who: str, action: ForceMovement, window: Window) -> None:
        _specials.force_movement(fight, who, action)

    def told(self, action: ForceMovement, say: Say) -> str:
        return f"tries to force {say.name(action.target)} back"


class Casting(TacticalUnit[CastMagic]):
    """Seed 002 Cast Magic: a Magic skill test; the spell's AP; an instant spell is a
    secondary action, any other a primary one."""

    action = CastMagic
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        spell = next((s for s in spells_of(fight.spec(who)) if s.damage), None)
        nearest = nearest_enemy(fight, who) if spell is not None else None
        if spell is None or nearest is None:
            return []
        wanted = [CastMagic(spell=spell.name, target=nearest)]
        return legal(fight, who, window, wanted)

    def action_class(self, fight: Rules, who: str, action: CastMagic) -> str:
        spell = _attacks.spell_of(fight, who, action.spell)
        return "secondary" if spell is not None and spell.instant else "primary"

    def check(self, fight: Rules, who: str, action: CastMagic, window: Window) -> str | None:
        return check_cast(fight, who, action)

    def cost(self, fight: Rules, who: str, action: CastMagic, window: Window) -> int:
        spell = _attacks.spell_of(fight, who, action.spell)
        return max(1, spell.ap if spell else 1)

    def keeps_aim(self, fight: Rules, who: str, action: CastMagic) -> bool:
        spell = _attacks.spell_of(fight, who, action.spell)
        return spell is not None and spell.bolt

    def perform(self, fight: Rules, who: str, action: CastMagic, window: Window) -> Hook:
        return _attacks.cast(fight, who, action)

    def told(self, action: CastMagic, say: Say) -> str:
        at = f" at {say.name(action.target)}" if action.target else ""
        return f"casts {action.spell}{at}"


# --- moving -------------------------------------------------------------------------------------


def _toward(fight: Rules, who: str) -> tuple[str, float, float] | None:
    """The nearest enemy seen, how far it is, and where to stop short of it."""
    nearest = nearest_enemy(fight, who)
    if nearest is None:
        return None
    gap = distance(fight.get(who).position, fight.get(nearest).position)
    return nearest, gap, max(0.5, reach(fight, who) - 0.25)


class Moving(TacticalUnit[Move], MoveUnit):
    """Move within the turn's base movement (free): toward the nearest enemy (stopping in
    reach) and away from it."""

    kind = "move"
    free = True
    needs_moving = True
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        left = budget(fight, who)
        found = _toward(fight, who) if left >= 0.5 else None
        if found is None:
            return []
        nearest, gap, stop = found
        here, there = fight.get(who).position, fight.get(nearest).position
        wanted: list[Action] = []
        if gap > reach(fight, who):
            wanted.append(Move(to=approach(here, there, left, stop)))
        wanted.append(Move(to=away(here, there, left)))
        return legal(fight, who, window, wanted)

    def check(self, fight: Rules, who: str, action: Move, window: Window) -> str | None:
        return check_move(fight, who, action.to, budget(fight, who))

    def perform(self, fight: Rules, who: str, action: Move, window: Window) -> Hook:
        return move(fight, who, action.to)


class Dashing(TacticalUnit[Dash]):
    """Seed 002 Dash: move again, up to one's speed (offered when the base movement is spent)."""

    action = Dash
    kind = "secondary"
    needs_moving = True
    moving = True
    to_point = True
    when = ("turn",)

    def aimed_reach(self, offered: float, speed: float) -> float:
        # Offered toward the nearest enemy only; a Dash adds one's speed to what is left.
        return max(offered, speed)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        found = _toward(fight, who) if budget(fight, who) < 0.5 else None
        if found is None:
            return []
        nearest, gap, stop = found
        if gap <= reach(fight, who):
            return []
        here, there = fight.get(who).position, fight.get(nearest).position
        speed = fight.spec(who).speed
        return legal(fight, who, window, [Dash(to=approach(here, there, speed, stop))])

    def check(self, fight: Rules, who: str, action: Dash, window: Window) -> str | None:
        extra = budget(fight, who) if window.is_turn else 0.0
        return check_move(fight, who, action.to, fight.spec(who).speed + extra)

    def perform(self, fight: Rules, who: str, action: Dash, window: Window) -> Hook:
        if window.is_turn:
            fight.set_counter(who, DASHES, fight.count(who, DASHES) + 1)
        return (yield from move(fight, who, action.to))

    def told(self, action: Dash, say: Say) -> str:
        return "dashes"


# --- secondary actions --------------------------------------------------------------------------


class Readying(TacticalUnit[ReadyWeapon], ReadyWeaponUnit):
    """Seed 002 Ready Weapon: draw, sheathe, withdraw or reload (offered: reload)."""

    kind = "secondary"
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        weapons = fight.spec(who).weapons
        wanted: list[Action] = [
            ReadyWeapon(weapon=w.name) for w in weapons if w.ranged and not loaded(fight, who, w)
        ]
        return legal(fight, who, window, wanted)

    def check(self, fight: Rules, who: str, action: ReadyWeapon, window: Window) -> str | None:
        return check_ready(fight, who, action)

    def perform(self, fight: Rules, who: str, action: ReadyWeapon, window: Window) -> Hook:
        return _specials.ready_weapon(fight, who, action)


class Aiming(TacticalUnit[Aim]):
    """Seed 002 Aim: +10 to the next ranged attack, stacking up to 3 times."""

    action = Aim
    kind = "secondary"

    def check(self, fight: Rules, who: str, action: Aim, window: Window) -> str | None:
        spec = fight.spec(who)
        ranged = [w for w in spec.weapons if w.ranged and loaded(fight, who, w)]
        if not ranged and not any(s.bolt for s in spells_of(spec)):
            return "Aim needs a loaded ranged weapon or a Bolt spell"
        return None

    def keeps_aim(self, fight: Rules, who: str, action: Aim) -> bool:
        return True

    def resolve(self, fight: Rules, who: str, action: Aim, window: Window) -> None:
        _specials.aim(fight, who)

    def told(self, action: Aim, say: Say) -> str:
        return f"takes aim at {say.name(action.target) if action.target else ''}".rstrip()


class Hiding(TacticalUnit[Hide]):
    """Seed 002 Hide: a Stealth test against everyone who might detect one."""

    action = Hide
    kind = "secondary"
    implies = (HIDDEN.name,)

    def check(self, fight: Rules, who: str, action: Hide, window: Window) -> str | None:
        return f"{who} is already Hidden" if fight.has(who, HIDDEN) else None

    def resolve(self, fight: Rules, who: str, action: Hide, window: Window) -> None:
        _specials.hide(fight, who)

    def told(self, action: Hide, say: Say) -> str:
        return "hides"


class Drinking(TacticalUnit[DrinkPotion]):
    """Seed 002 Drink Potion (``potion_cost`` AP), offered at half one's hit points or less."""

    action = DrinkPotion
    kind = "secondary"
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        me, spec = fight.get(who), fight.spec(who)
        if me.hp * 2 > me.max_hp:
            return []
        wanted = [DrinkPotion(potion=i.name) for i in spec.items if is_potion(spec, i)][:1]
        return legal(fight, who, window, wanted)

    def check(self, fight: Rules, who: str, action: DrinkPotion, window: Window) -> str | None:
        name, spec = action.potion, fight.spec(who)
        item = next((i for i in spec.items if i.name == name), None)
        if item is None or not is_potion(spec, item):
            return f"{who} carries no potion named {name!r}"
        if fight.count(who, UsedItem(name)) >= item.count:
            return f"{who} has no {name} left"
        return None

    def cost(self, fight: Rules, who: str, action: DrinkPotion, window: Window) -> int:
        return max(1, int(fight.options.potion_cost))

    def perform(self, fight: Rules, who: str, action: DrinkPotion, window: Window) -> Hook:
        return _specials.drink_potion(fight, who, action)

    def told(self, action: DrinkPotion, say: Say) -> str:
        return f"drinks the {action.potion}"


class Arising(TacticalUnit[Arise]):
    """Seed 002 Arise: stand up from prone carefully (offered when Prone)."""

    action = Arise
    kind = "secondary"
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return legal(fight, who, window, [Arise()]) if fight.has(who, PRONE) else []

    def check(self, fight: Rules, who: str, action: Arise, window: Window) -> str | None:
        return None if fight.has(who, PRONE) else f"{who} is not Prone"

    def resolve(self, fight: Rules, who: str, action: Arise, window: Window) -> None:
        fight.remove_condition(who, PRONE)

    def told(self, action: Arise, say: Say) -> str:
        return "gets up"


class Blinding(TacticalUnit[BlindOpponent]):
    """Seed 002 Blind Opponent: blinded for a round, by "a reasonable method"."""

    action = BlindOpponent
    kind = "secondary"

    def check(self, fight: Rules, who: str, action: BlindOpponent, window: Window) -> str | None:
        if not action.method.strip():
            # Seed 002 Blind Opponent: "Requires a reasonable method (thrown sand, etc.)."
            return "Blind Opponent requires a reasonable method: say how in `method`"
        return check_target(fight, who, action.target) or close(fight, who, action.target)

    def resolve(self, fight: Rules, who: str, action: BlindOpponent, window: Window) -> None:
        _specials.blind(fight, who, action)

    def told(self, action: BlindOpponent, say: Say) -> str:
        how = f" ({action.method})" if action.method else ""
        return f"tries to blind {say.name(action.target)}{how}"


class Resisting(TacticalUnit[Resist]):
    """Seed 002 Resist: break free of a restraint or blindness (offered when held or blind)."""

    action = Resist
    kind = "secondary"
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if not (fight.has(who, RESTRAINED) or fight.has(who, BLINDED)):
            return []
        return legal(fight, who, window, [Resist()])

    def check(self, fight: Rules, who: str, action: Resist, window: Window) -> str | None:
        if not (fight.has(who, RESTRAINED) or fight.has(who, BLINDED)):
            return f"{who} is neither restrained nor blinded"
        return None

    def resolve(self, fight: Rules, who: str, action: Resist, window: Window) -> None:
        _specials.resist(fight, who, action)

    def told(self, action: Resist, say: Say) -> str:
        return "resists"


class Tripping(TacticalUnit[Trip]):
    """Seed 002 Trip: knock a target not larger than oneself prone."""

    action = Trip
    kind = "secondary"

    def check(self, fight: Rules, who: str, action: Trip, window: Window) -> str | None:
        t = action.target
        return check_target(fight, who, t) or close(fight, who, t) or not_larger(fight, who, t)

    def resolve(self, fight: Rules, who: str, action: Trip, window: Window) -> None:
        _specials.trip(fight, who, action)

    def told(self, action: Trip, say: Say) -> str:
        return f"tries to trip {say.name(action.target)}"


# --- reactions ----------------------------------------------------------------------------------


def _attacked(window: Window, who: str) -> bool:
    t = window.trigger
    return t is not None and t.kind == "attacked" and t.target == who


class TakingDelayedTurn(TacticalUnit[TakeDelayedTurn]):
    """Seed 002: insert one's delayed turn as a free reaction when a declared trigger happens."""

    action = TakeDelayedTurn
    kind = "reaction"
    free = True
    when = ("opening",)
    answers = ("delayed",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        t = window.trigger
        if t is None or t.kind != "delayed":
            return []
        return legal(fight, who, window, [TakeDelayedTurn()])

    def check(self, fight: Rules, who: str, action: TakeDelayedTurn, window: Window) -> str | None:
        t = window.trigger
        if t is None or t.kind != "delayed" or not fight.has(who, DELAYING):
            return "no delayed turn of yours is triggered here"
        return None

    def perform(self, fight: Rules, who: str, action: TakeDelayedTurn, window: Window) -> Hook:
        return take_delayed_turn(fight, who)

    def told(self, action: TakeDelayedTurn, say: Say) -> str:
        return "takes their delayed turn"


class Opportunity(TacticalUnit[OpportunityAttack]):
    """Seed 002 Attack of Opportunity: a melee attack on whoever made a trigger of the table."""

    action = OpportunityAttack
    kind = "reaction"
    when = ("opening",)
    answers = AOO_TRIGGERS

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        t = window.trigger
        if t is None or t.kind not in AOO_TRIGGERS or t.by is None:
            return []
        return legal(fight, who, window, [OpportunityAttack(target=t.by)])

    def check(
        self, fight: Rules, who: str, action: OpportunityAttack, window: Window
    ) -> str | None:
        return check_aoo(fight, who, action, window)

    def perform(self, fight: Rules, who: str, action: OpportunityAttack, window: Window) -> Hook:
        return _attacks.opportunity_attack(fight, who, action)

    def offered(self, action: OpportunityAttack, say: Say) -> str:
        return (
            f"Strike {say.name(action.target)} at the opening, with the {say.weapon(action.weapon)}"
        )

    def told(self, action: OpportunityAttack, say: Say) -> str:
        return self._deed("attacks", action, say)

    def told_resolved(self, action: OpportunityAttack, say: Say, *, hit: bool) -> str:
        return self._deed("hits" if hit else "misses", action, say)

    def _deed(self, verb: str, action: OpportunityAttack, say: Say) -> str:
        target, weapon = say.name(action.target), say.weapon(action.weapon)
        return f"{verb} {target} with the {weapon} as they move away"


class Countering(TacticalUnit[CounterAttack]):
    """Seed 002 Counter-Attack: meet a melee attack with one's own; the higher DoS hits."""

    action = CounterAttack
    kind = "reaction"
    when = ("opening",)
    answers = ("attacked",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return legal(fight, who, window, [CounterAttack()]) if _attacked(window, who) else []

    def check(self, fight: Rules, who: str, action: CounterAttack, window: Window) -> str | None:
        return check_counter(fight, who, window)

    def resolve(self, fight: Rules, who: str, action: CounterAttack, window: Window) -> Any:
        return _reactions.counter_attack(fight, who, window)

    def told(self, action: CounterAttack, say: Say) -> str:
        return "counter-attacks"


class Blocking(TacticalUnit[Block]):
    """Seed 002 Block: take a melee or ranged attack on a shield."""

    action = Block
    kind = "reaction"
    when = ("opening",)
    answers = ("attacked",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return legal(fight, who, window, [Block()]) if _attacked(window, who) else []

    def check(self, fight: Rules, who: str, action: Block, window: Window) -> str | None:
        if shield_of(fight.spec(who)) is None:
            return "Block requires a shield"
        if window.trigger is not None and window.trigger.detail == "area":
            # Seed 002 Block "Works against melee and ranged attacks" (Evade: "and AoE").
            return "Block works against melee and ranged attacks, not an area"
        return attacked(fight, who, window)

    def resolve(self, fight: Rules, who: str, action: Block, window: Window) -> Any:
        return _reactions.block(fight, who, window)

    def told(self, action: Block, say: Say) -> str:
        return "blocks with the shield"


class Parrying(TacticalUnit[Parry], ParryUnit):
    """Seed 002 Parry: a Combat Style test using Str or Ag, against melee attacks."""

    kind = "reaction"
    when = ("opening",)
    answers = ("attacked",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return legal(fight, who, window, [Parry()]) if _attacked(window, who) else []

    def check(self, fight: Rules, who: str, action: Parry, window: Window) -> str | None:
        return attacked(fight, who, window, melee=True)

    def resolve(self, fight: Rules, who: str, action: Parry, window: Window) -> Any:
        return _reactions.parry(fight, who, window)


class Evading(TacticalUnit[Evade]):
    """Seed 002 Evade: negate an attack (and AoE), stepping 1 m freely on success."""

    action = Evade
    kind = "reaction"
    when = ("opening",)
    answers = ("attacked",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return legal(fight, who, window, [Evade()]) if _attacked(window, who) else []

    def check(self, fight: Rules, who: str, action: Evade, window: Window) -> str | None:
        reason = attacked(fight, who, window)
        if reason is None and action.to is not None:
            return check_move(fight, who, action.to, fight.options.evade_step)
        return reason

    def resolve(self, fight: Rules, who: str, action: Evade, window: Window) -> Any:
        return _reactions.evade(fight, who, action, window)

    def told(self, action: Evade, say: Say) -> str:
        return "tries to evade"


#: In the order offers are made: a turn's (attacks, a spell, moves, reloads, standing up,
#: breaking free, a potion), then an opening's (a delayed turn, an AoO, the defences).
UNITS: tuple[TacticalUnit[Any], ...] = (
    Attacking(),
    Casting(),
    Moving(),
    Dashing(),
    Readying(),
    Arising(),
    Resisting(),
    Drinking(),
    Stance(),
    Disengaging(),
    Delaying(),
    Bashing(),
    Disarming(),
    Feinting(),
    Forcing(),
    Aiming(),
    Hiding(),
    Blinding(),
    Tripping(),
    TakingDelayedTurn(),
    Opportunity(),
    Countering(),
    Blocking(),
    Parrying(),
    Evading(),
)
