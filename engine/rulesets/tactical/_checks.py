"""When each action is legal: its class (primary, secondary, reaction, free) and its conditions.

Seed 002: "Primary actions can only be taken during the character's own Turn." "Secondary
actions can be taken during the character's own Turn or as reactions to events." Reactions are
taken in openings only (one per creature per opening: "Only one reaction per threat").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import check_target, distance, reaches
from initiative.events import (
    Attack,
    ReadyWeapon,
    Window,
)

from ._actions import (
    CastMagic,
    OpportunityAttack,
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
    INSERTED,
    Disarmed,
    Sheathed,
)
from ._options import (
    AOO_TRIGGERS,
    DELAY_TRIGGERS,
    LOCATIONS,
    combatant_options,
)
from ._specials import within

if TYPE_CHECKING:
    from initiative.engine.kit import Rules
    from initiative.events import Action


def by_advantage(fight: Rules, who: str, action: Action) -> bool:
    """Seed 002: "Special actions are most often taken when a character gains Advantage and
    has the action listed in their Combat Style's Special Advantages. Otherwise, they function
    as the action type noted below." Whether ``action`` is taken that way now."""
    return (
        fight.has(who, ADVANTAGE)
        and type(action).__name__ in combatant_options(fight.spec(who)).special_advantages
    )


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
