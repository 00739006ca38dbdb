"""Special actions (Arise, Bash, Blind Opponent, Disarm, Feint, Force Movement, Resist, Trip)
and the secondary actions Hide, Ready Weapon, Drink Potion and Aim.

Opposed tests pick each side's best listed skill (the seed's "or"); Defensive Stance adds its
bonus to the resisting side (a defensive test).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from initiative.engine.kit import HIDDEN, Condition, at, away
from initiative.events import APChanged, ReadyWeapon

from ._actions import (
    Bash,
    BlindOpponent,
    Disarm,
    DrinkPotion,
    Feint,
    ForceMovement,
    Resist,
    Trip,
)
from ._conditions import (
    reveal,
    sees,
    unblind,
    unrestrain,
)
from ._marks import (
    AIM,
    BLINDED,
    PRONE,
    RESTRAINED,
    UNCONSCIOUS,
    BlindedBy,
    Disarmed,
    Dropped,
    Feinted,
    Reload,
    RestrainedBy,
    Sheathed,
    UsedItem,
)
from ._movement import provoke
from ._options import is_natural, shield_of
from ._percentile import best_skill, opposed, test
from ._reactions import defensive

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules

GRAPPLE = ("athletics", "unarmed")


def against(
    fight: Rules,
    who: str,
    target: str,
    skills: tuple[str, ...],
    resist: tuple[str, ...],
    check: str,
) -> bool:
    won = opposed(fight, who, skills, target, resist, check, defensive(fight, target))
    reveal(fight, who)
    return won


def bash(fight: Rules, who: str, action: Bash) -> None:
    """Seed 002 Bash: "On success: target is knocked back 1 m, loses 1 AP, and must test
    Acrobatics or fall Prone." """
    t = action.target
    if not against(fight, who, t, GRAPPLE, (*GRAPPLE, "evade"), "bash"):
        return
    me, them = fight.get(who).position, fight.get(t).position
    fight.move(t, away(them, me, fight.options.knockback))
    if fight.get(t).ap:
        fight.emit(APChanged(who=t, ap=fight.get(t).ap - 1, reason="bashed"))
    if not test(fight, t, "acrobatics", "keep footing").success:
        fight.add_condition(t, PRONE, until="it stands up")


def blind(fight: Rules, who: str, action: BlindOpponent) -> None:
    """Seed 002: "Combat Style test opposed by the target's Evade or Combat Style (shield). On
    success: target is Blinded for 1 round" (until the blinder's next turn starts)."""
    t = action.target
    resist = ("evade", "combat_style") if shield_of(fight.spec(t)) else ("evade",)
    if against(fight, who, t, ("combat_style",), resist, "blind opponent"):
        fight.add_condition(t, BLINDED, until=f"start of {who}'s next turn")
        fight.add_condition(t, BlindedBy(who))


def disarm_target(fight: Rules, who: str, name: str | None) -> str | None:
    """The weapon a Disarm aims at: named, or the first held one that is not natural."""
    spec = fight.spec(who)
    for w in spec.weapons:
        if (
            fight.has(who, Disarmed(w.name))
            or fight.has(who, Sheathed(w.name))
            or is_natural(spec, w)
        ):
            continue
        if name in (None, w.name):
            return w.name
    return None


def free_hand(fight: Rules, who: str) -> bool:
    """A hand not holding a weapon or shield (``hands`` hands each)."""
    spec = fight.spec(who)
    held = [
        w
        for w in spec.weapons
        if not fight.has(who, Disarmed(w.name)) and not fight.has(who, Sheathed(w.name))
    ]
    return len(held) + (1 if shield_of(spec) else 0) < int(fight.options.hands)


def disarm(fight: Rules, who: str, action: Disarm) -> None:
    """Seed 002 Disarm: "take the target's weapon (if free hand available) or fling it 1d4 m
    in a random direction" (1d8: one of eight compass directions, north first, clockwise)."""
    t = action.target
    weapon = disarm_target(fight, t, action.weapon)
    assert weapon is not None
    if not against(fight, who, t, GRAPPLE, ("unarmed", "athletics"), "disarm"):
        return
    if free_hand(fight, who):
        fight.add_condition(t, Disarmed(weapon), until=f"taken by {who}")
        return
    metres = fight.roll(who, f"{weapon} flung: metres", fight.options.fling_dice).total
    angle = math.radians((fight.roll(who, f"{weapon} flung: direction", "1d8").total - 1) * 45)
    here = fight.get(t).position
    lands = at(here.x + metres * math.sin(angle), here.y + metres * math.cos(angle))
    fight.add_condition(t, Disarmed(weapon), until=f"drawn again at {lands}")
    fight.add_condition(t, Dropped(weapon, lands))


def feint(fight: Rules, who: str, action: Feint) -> None:
    """Seed 002 Feint: "the character's next melee attack against the target (before end of
    current Turn) is treated as if Hidden" (the target cannot react to it)."""
    t = action.target
    if against(fight, who, t, ("combat_style", "deceive"), ("observe", "combat_style"), "feint"):
        fight.add_condition(who, Feinted(t), until="its next melee attack or turn end")


def force_movement(fight: Rules, who: str, action: ForceMovement) -> None:
    """Seed 002: "On success: move both characters up to 3 m in the same direction." """
    t = action.target
    if not against(fight, who, t, ("combat_style",), ("combat_style", "athletics"), "force"):
        return
    start, me = fight.get(t).position, fight.get(who).position
    fight.move(t, action.to)
    fight.move(who, at(me.x + action.to.x - start.x, me.y + action.to.y - start.y))


def resisted_by(fight: Rules, who: str) -> tuple[str, str | None]:
    """What a Resist escapes (restraint first, then blindness) and who caused it."""
    causes: tuple[tuple[Condition, type[BlindedBy | RestrainedBy]], ...] = (
        (RESTRAINED, RestrainedBy),
        (BLINDED, BlindedBy),
    )
    for condition, caused in causes:
        if fight.has(who, condition):
            for c in fight.conditions(who, caused):
                if fight.standing(c.by):
                    return condition.name, c.by
            return condition.name, None
    return "", None


def resist(fight: Rules, who: str, action: Resist) -> None:
    """Seed 002 Resist: "opposed by the restrainer's Athletics or unarmed Combat Style. On
    success: escape from being restrained, grappled, or blinded." With no restrainer standing,
    the test is unopposed."""
    condition, by = resisted_by(fight, who)
    if by is not None:
        won = opposed(fight, who, GRAPPLE, by, GRAPPLE, f"resist {condition}")
    else:
        won = test(fight, who, best_skill(fight, who, GRAPPLE), f"resist {condition}").success
    if won:
        (unrestrain if condition == "restrained" else unblind)(fight, who)


def trip(fight: Rules, who: str, action: Trip) -> None:
    """Seed 002 Trip: "On success: target falls Prone." """
    t = action.target
    if against(fight, who, t, GRAPPLE, (*GRAPPLE, "evade"), "trip"):
        fight.add_condition(t, PRONE, until="it stands up")


def hide(fight: Rules, who: str) -> None:
    """Seed 002 Hide: "If anyone might detect the character, make a Stealth test opposed by
    Observe. On success, gain the Hidden condition." Everyone who might detect it (enemies who
    see it and are conscious) rolls Observe; Stealth must beat the best of them in DoS. When
    nobody might detect it, it hides without a test."""
    watchers = [
        e.id
        for e in fight.enemies_of(who)
        if sees(fight, e.id, who) and not fight.has(e.id, UNCONSCIOUS)
    ]
    if watchers:
        mine = test(fight, who, "stealth", "hide")
        best = max(test(fight, w, "observe", "spot", against_who=who).dos for w in watchers)
        if mine.dos <= best:
            return
    fight.add_condition(who, HIDDEN, until="it attacks, casts or acts against someone")


def ready_weapon(fight: Rules, who: str, action: ReadyWeapon) -> Hook:
    """Seed 002 Ready Weapon: "Draw, sheathe, withdraw, or reload a weapon. Some weapons
    require multiple AP to reload (extended over multiple uses)": each reload spends 1 of the
    weapon's ``reload`` AP. Sheathing puts a weapon away (``sheathed:W``: not usable, its hand
    free); drawing takes a sheathed one in hand; withdrawing recovers a flung weapon lying
    within ``pickup_range``. Provokes the AoO trigger Ready."""
    yield from provoke(fight, who, "ready", set(), action.weapon)
    if not fight.standing(who):
        return None
    name = action.weapon
    if action.mode == "reload":
        left = fight.count(who, Reload(name))
        fight.set_counter(who, Reload(name), max(0, left - 1))
    elif action.mode == "sheathe":
        fight.add_condition(who, Sheathed(name), until="it is drawn")
    elif action.mode == "draw":
        fight.remove_condition(who, Sheathed(name))
    elif action.mode == "withdraw":
        for dropped in fight.conditions(who, Dropped):
            if dropped.weapon == name:
                fight.remove_condition(who, dropped)
        fight.remove_condition(who, Disarmed(name))
    return None


def drink_potion(fight: Rules, who: str, action: DrinkPotion) -> Hook:
    """Seed 002 Drink Potion (2 AP); provokes the AoO trigger Ready ("drinks a potion")."""
    yield from provoke(fight, who, "ready", set(), action.potion)
    if not fight.standing(who):
        return None
    item = next(i for i in fight.spec(who).items if i.name == action.potion)
    fight.set_counter(who, UsedItem(item.name), fight.count(who, UsedItem(item.name)) + 1)
    if item.heal:
        fight.heal(who, fight.roll(who, f"{item.name} heals", item.heal).total)
    return None


def aim(fight: Rules, who: str) -> None:
    """Seed 002 Aim: "Stacks up to 3 times (+30 max) across consecutive aims." """
    fight.set_counter(who, AIM, min(fight.options.aim_max, fight.count(who, AIM) + 1))


def within(fight: Rules, who: str, target: str, metres: float) -> str | None:
    gap = fight.dist(who, target)
    return None if gap <= metres + 1e-9 else f"{target} is {gap:g} m away (needs {metres:g} m)"


def not_larger(fight: Rules, who: str, target: str) -> str | None:
    if fight.spec(target).size > fight.spec(who).size:
        return f"{target} (size {fight.spec(target).size}) is larger than {who}"
    return None
