"""When each action is legal: its class (primary, secondary, reaction, free) and its conditions.

Seed 002: "Primary actions can only be taken during the character's own Turn." "Secondary
actions can be taken during the character's own Turn or as reactions to events." Reactions are
taken in openings only (one per creature per opening: "Only one reaction per threat").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import (
    Attack,
    Move,
    Parry,
    ReadyWeapon,
    Window,
)

from ..._geometry import distance
from ..._rules import HIDDEN
from .._common import check_move, check_target, reaches
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
from ._attacks import spell_of, weapon_of
from ._conditions import (
    dropped_at,
    helpless,
    loaded,
    may_attack,
    melee_weapons,
    reach,
)
from ._marks import (
    ADVANTAGE,
    BLINDED,
    DELAYING,
    INSERTED,
    PRONE,
    RESTRAINED,
    UNCONSCIOUS,
    Disarmed,
    Sheathed,
    UsedItem,
)
from ._movement import budget
from ._options import (
    AOO_TRIGGERS,
    DELAY_TRIGGERS,
    LOCATIONS,
    combatant_options,
    is_potion,
    shield_of,
    spells_of,
)
from ._specials import disarm_target, not_larger, within

if TYPE_CHECKING:
    from initiative.events import Action

    from ..._rules import Rules

PRIMARY = (Attack, DefensiveStance, Disengage, DelayTurn, Bash, Disarm, Feint, ForceMovement)
SECONDARY = (Aim, Dash, Hide, ReadyWeapon, DrinkPotion, Arise, BlindOpponent, Resist, Trip)
REACTIONS = (OpportunityAttack, Evade, Parry, Block, CounterAttack, TakeDelayedTurn)
FREE = (Move, DelayTurn, TakeDelayedTurn)
NEEDS_MOVING = (Move, Dash, ForceMovement)


def action_class(fight: Rules, who: str, action: Action) -> str:
    """``primary``, ``secondary``, ``reaction``, ``move`` or ``unknown``."""
    if isinstance(action, CastMagic):
        spell = spell_of(fight, who, action.spell)
        return "secondary" if spell is not None and spell.instant else "primary"
    for kind, classes in (("primary", PRIMARY), ("secondary", SECONDARY), ("reaction", REACTIONS)):
        if isinstance(action, classes):
            return kind
    return "move" if isinstance(action, Move) else "unknown"


def by_advantage(fight: Rules, who: str, action: Action) -> bool:
    """Seed 002: "Special actions are most often taken when a character gains Advantage and
    has the action listed in their Combat Style's Special Advantages. Otherwise, they function
    as the action type noted below." Whether ``action`` is taken that way now."""
    return (
        fight.has(who, ADVANTAGE)
        and type(action).__name__ in combatant_options(fight.spec(who)).special_advantages
    )


def check(fight: Rules, who: str, action: Action, window: Window) -> str | None:
    name = type(action).__name__
    kind = action_class(fight, who, action)
    if kind == "primary" and by_advantage(fight, who, action):
        kind = "secondary"  # with Advantage, a Special Advantage is taken at any moment
    own_turn = window.is_turn and fight.state.active == who
    if kind == "unknown":
        return f"{name} is not an action of the tactical ruleset"
    if fight.has(who, UNCONSCIOUS):
        return f"{who} is unconscious"
    if kind in ("primary", "move") and not own_turn:
        return f"{name} is a primary action: only in one's own turn"
    if kind == "reaction" and window.is_turn:
        return f"{name} is a reaction: only in an opening"
    if isinstance(action, NEEDS_MOVING) and fight.has(who, RESTRAINED):
        return f"{who} is restrained"
    return specific(fight, who, action, window)


def specific(fight: Rules, who: str, action: Action, window: Window) -> str | None:
    o = fight.options
    match action:
        case Attack():
            return check_attack(fight, who, action)
        case Move(to=to):
            return check_move(fight, who, to, budget(fight, who))
        case Dash(to=to):
            extra = budget(fight, who) if window.is_turn else 0.0
            return check_move(fight, who, to, fight.spec(who).speed + extra)
        case CastMagic():
            return check_cast(fight, who, action)
        case DelayTurn(triggers=triggers):
            return check_delay(fight, who, triggers)
        case TakeDelayedTurn():
            t = window.trigger
            if t is None or t.kind != "delayed" or not fight.has(who, DELAYING):
                return "no delayed turn of yours is triggered here"
        case Aim():
            ranged = [w for w in fight.spec(who).weapons if w.ranged and loaded(fight, who, w)]
            if not ranged and not any(s.bolt for s in spells_of(fight.spec(who))):
                return "Aim needs a loaded ranged weapon or a Bolt spell"
        case Hide():
            if fight.has(who, HIDDEN):
                return f"{who} is already Hidden"
        case ReadyWeapon():
            return check_ready(fight, who, action)
        case DrinkPotion(potion=name):
            item = next((i for i in fight.spec(who).items if i.name == name), None)
            if item is None or not is_potion(fight.spec(who), item):
                return f"{who} carries no potion named {name!r}"
            if fight.count(who, UsedItem(name)) >= item.count:
                return f"{who} has no {name} left"
        case Arise():
            if not fight.has(who, PRONE):
                return f"{who} is not Prone"
        case Resist():
            if not (fight.has(who, RESTRAINED) or fight.has(who, BLINDED)):
                return f"{who} is neither restrained nor blinded"
        case Bash(target=t) | Trip(target=t):
            return check_target(fight, who, t) or close(fight, who, t) or not_larger(fight, who, t)
        case BlindOpponent(target=t, method=method):
            if not method.strip():
                # Seed 002 Blind Opponent: "Requires a reasonable method (thrown sand, etc.)."
                return "Blind Opponent requires a reasonable method: say how in `method`"
            return check_target(fight, who, t) or close(fight, who, t)
        case Feint(target=t):
            return check_target(fight, who, t) or close(fight, who, t)
        case Disarm(target=t):
            reason = check_target(fight, who, t) or close(fight, who, t)
            if reason or (reason := not_larger(fight, who, t)):
                return reason
            if disarm_target(fight, t, action.weapon) is None:
                return f"{t} holds no weapon that can be disarmed (natural weapons cannot be)"
        case ForceMovement(target=t, to=to):
            reason = check_target(fight, who, t) or within(fight, who, t, reach(fight, who))
            return reason or check_move(fight, t, to, o.force_distance)
        case OpportunityAttack():
            return check_aoo(fight, who, action, window)
        case Evade(to=to):
            reason = attacked(fight, who, window)
            if reason is None and to is not None:
                return check_move(fight, who, to, o.evade_step)
            return reason
        case Parry():
            return attacked(fight, who, window, melee=True)
        case Block():
            if shield_of(fight.spec(who)) is None:
                return "Block requires a shield"
            if window.trigger is not None and window.trigger.detail == "area":
                # Seed 002 Block "Works against melee and ranged attacks" (Evade: "and AoE").
                return "Block works against melee and ranged attacks, not an area"
            return attacked(fight, who, window)
        case CounterAttack():
            return check_counter(fight, who, window)
    return None


def close(fight: Rules, who: str, target: str) -> str | None:
    return within(fight, who, target, fight.options.special_range)


def check_attack(fight: Rules, who: str, action: Attack) -> str | None:
    if action.variant not in (None, "all_out", "precision", "coup_de_grace"):
        return f"unknown attack variant {action.variant!r} (all_out, precision, coup_de_grace)"
    if action.location is not None and action.variant != "precision":
        return "only a Precision Strike chooses the hit location"
    if action.location is not None and action.location not in LOCATIONS:
        return f"unknown hit location {action.location!r} (known: {', '.join(sorted(LOCATIONS))})"
    if reason := check_target(fight, who, action.target) or may_attack(fight, who):
        return reason
    weapon = weapon_of(fight, who, action.weapon)
    if weapon is None:
        return f"{who} holds no weapon named {action.weapon!r}"
    gap = fight.dist(who, action.target)
    if not reaches(weapon, gap):
        return f"{action.target} is {gap:g} m away, out of the {weapon.name}'s reach"
    if weapon.ranged and not loaded(fight, who, weapon):
        return f"the {weapon.name} must be reloaded first (Ready Weapon)"
    if action.variant == "all_out" and weapon.ranged:
        return "All Out Attack is melee only"
    if action.variant == "coup_de_grace":
        if not helpless(fight, action.target):
            return f"{action.target} is not helpless (unconscious, or restrained and prone)"
        if combatant_options(fight.spec(action.target)).coup_de_grace_immune:
            return f"{action.target} is immune to Coup de Grace"
    return None


def check_cast(fight: Rules, who: str, action: CastMagic) -> str | None:
    spell = spell_of(fight, who, action.spell)
    if spell is None:
        return f"{who} knows no spell named {action.spell!r}"
    target = action.target or who
    if target not in fight.state.combatants or not fight.standing(target):
        return f"no standing combatant {target!r} to cast at"
    if target != who and not fight.ruleset.can_see(fight, who, target):
        return f"cannot see {target}"
    if spell.damage and (reason := check_target(fight, who, target) or may_attack(fight, who)):
        return reason
    gap = fight.dist(who, target)
    if gap > spell.range + 1e-9:
        return f"{target} is {gap:g} m away, out of {spell.name}'s range ({spell.range:g} m)"
    return None


def check_delay(fight: Rules, who: str, triggers: tuple[str, ...]) -> str | None:
    if fight.count(who, INSERTED):
        return "a delayed turn cannot be delayed again"
    if not triggers:
        return "Delay Turn must declare at least one trigger condition"
    for t in triggers:
        if t not in DELAY_TRIGGERS:
            return f"unknown trigger {t!r} (known: {', '.join(sorted(DELAY_TRIGGERS))})"
    return None


def check_ready(fight: Rules, who: str, action: ReadyWeapon) -> str | None:
    """Seed 002 Ready Weapon: "Draw, sheathe, withdraw, or reload a weapon." Each mode needs
    something to do: a sheathed weapon to draw, a weapon in hand to sheathe, a flung one within
    reach to withdraw, an unloaded one to reload."""
    weapon = next((w for w in fight.spec(who).weapons if w.name == action.weapon), None)
    if weapon is None:
        return f"{who} carries no weapon named {action.weapon!r}"
    me = fight.get(who)
    name = weapon.name
    spot = dropped_at(fight, who, name)
    match action.mode:
        case "reload":
            if loaded(fight, who, weapon):
                return f"the {name} needs no reloading"
        case "draw":
            if not fight.has(who, Sheathed(name)):
                return f"the {name} is not sheathed"
        case "sheathe":
            if fight.has(who, Disarmed(name)):
                return f"the {name} is not in {who}'s hand"
            if fight.has(who, Sheathed(name)):
                return f"the {name} is already sheathed"
        case "withdraw":
            if spot is None:
                return f"the {name} was not flung away: there is nothing to withdraw"
            gap = distance(me.position, spot)
            if gap > fight.options.pickup_range + 1e-9:
                return f"the {name} lies {gap:g} m away at {spot}"
        case _:
            return f"unknown mode {action.mode!r} (draw, sheathe, withdraw, reload)"
    if action.mode in ("reload", "draw") and fight.has(who, Disarmed(name)):
        return f"the {name} was taken away"
    return None


def attacked(fight: Rules, who: str, window: Window, *, melee: bool = False) -> str | None:
    t = window.trigger
    if t is None or t.kind != "attacked" or t.target != who:
        return "only a reaction to an attack on oneself"
    if melee and t.detail != "melee":
        return "Parry works against melee attacks only"
    return None


def check_aoo(fight: Rules, who: str, action: OpportunityAttack, window: Window) -> str | None:
    t = window.trigger
    if t is None or t.kind not in AOO_TRIGGERS:
        return "an Attack of Opportunity needs a trigger of the AoO table"
    if action.target != t.by:
        return f"this opening is made by {t.by}"
    if not any(action.weapon in (None, w.name) for w in melee_weapons(fight, who)):
        return f"{who} holds no melee weapon named {action.weapon!r}"
    return may_attack(fight, who)


def check_counter(fight: Rules, who: str, window: Window) -> str | None:
    if reason := attacked(fight, who, window, melee=True):
        return reason.replace("Parry", "Counter-Attack")
    assert window.trigger is not None and window.trigger.by is not None
    by = window.trigger.by
    if fight.dist(who, by) > reach(fight, who) + 1e-9:
        return f"{by} is out of melee reach"
    return may_attack(fight, who)
