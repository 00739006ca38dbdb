"""What attacks share (an Attack, an Attack of Opportunity, a damaging spell, a counter-attack's
hit): the test, the target's opening, the blow's landing, damage, and their odds.

An attack is a Combat Style test (d100, see ``_percentile``). A successful attack is the threat:
it makes an opening for the target, whose one reaction (Evade, Parry, Block, Counter-Attack) is
rolled when it is taken and returned as a :class:`Defence`; then the attack lands or not. The
actions themselves are units in ``_strikes`` and ``_defences``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from initiative.engine.kit import Odds, chance_at_most, distance, mean_damage
from initiative.events import (
    Attack,
    AttackResolved,
    CheckResolved,
    ConditionAdded,
    Trigger,
    Weapon,
)

from ._conditions import (
    melee_weapons,
    sees,
    usable_weapons,
)
from ._marks import (
    ADVANTAGE,
    AIM,
    BLINDED,
    RESTRAINED,
    UNCONSCIOUS,
    BlindedBy,
    RestrainedBy,
)
from ._options import HIT_LOCATIONS, combatant_options, is_magic, shield_of, spells_of
from ._percentile import margin, roll_test, skill

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules

    from ._options import Spell


@dataclass(frozen=True)
class Defence:
    """What a defensive reaction achieved, for the attack it answers."""

    kind: str
    """``evade``, ``parry``, ``block`` or ``counter``."""
    success: bool
    dos: int = 0
    weapon: str = ""
    """The counter-attacker's weapon."""


@dataclass(frozen=True)
class Blow:
    """An attack that may land: what it deals and how."""

    who: str
    target: str
    damage: str
    kind: str
    """``melee``, ``ranged`` or ``magic`` (the ``attacked`` opening's detail)."""
    dos: int
    location: str | None = None
    magic: bool = False


def weapon_of(fight: Rules, who: str, name: str | None) -> Weapon | None:
    held = usable_weapons(fight, who)
    if name is None:
        return held[0]
    return next((w for w in held if w.name == name), None)


def hit_location(fight: Rules, who: str) -> str:
    """A random hit location (1d20 on the humanoid table)."""
    roll = fight.roll(who, "hit location", "1d20").total
    return next(name for top, name in HIT_LOCATIONS if roll <= top)


def attack_modifier(fight: Rules, who: str, weapon: Weapon, variant: str | None) -> int:
    """What an attack's test adds to Combat Style: the weapon's bonus, All Out Attack's +20 or
    Precision Strike's -20, and with a ranged weapon the Aim taken."""
    o = fight.options
    modifier = weapon.bonus
    modifier += o.all_out_bonus if variant == "all_out" else 0
    modifier -= o.precision_penalty if variant == "precision" else 0
    if weapon.ranged:
        modifier += o.aim_bonus * fight.count(who, AIM)
    return modifier


def odds(fight: Rules, who: str, action: Attack) -> Odds | None:
    """An Attack (``_strikes.Attacking``) as probabilities: the d100 test against Combat Style and the modifiers,
    failing at ``fumble_from`` and above (before an Evade, Parry, Block or Counter-Attack); a
    hit's mean damage less armour. A Coup de Grâce always lands and defeats."""
    weapon = weapon_of(fight, who, action.weapon)
    if weapon is None or action.target not in fight.state.combatants:
        return None
    if action.variant == "coup_de_grace":
        return Odds(hit=1.0, damage=float(fight.get(action.target).hp))
    target = skill(fight, who, "combat_style") + attack_modifier(fight, who, weapon, action.variant)
    best = min(target, fight.options.fumble_from - 1)
    return Odds(
        hit=chance_at_most("1d100", best),
        damage=mean_damage(weapon.damage, less=fight.spec(action.target).armor),
    )


def strike(
    fight: Rules,
    who: str,
    target: str,
    weapon: Weapon,
    modifier: int,
    kind: str,
    location: str | None,
    unseen: bool,
    reacted: frozenset[str] | set[str] = frozenset(),
) -> Hook:
    """The attack test; on a hit the target's opening; then the blow lands or not. A weapon
    with an ``area`` threatens everyone else within it too, each with its own opening."""
    target_number = skill(fight, who, "combat_style") + modifier
    t = roll_test(fight, who, target_number, f"attack on {target}")
    fight.emit(
        AttackResolved(
            who=who,
            target=target,
            hit=t.success,
            roll=t.roll,
            against=t.target,
            detail=f"{weapon.name}, {margin(fight, t)} DoS",
        )
    )
    if not t.success:
        return None
    blow = Blow(
        who=who,
        target=target,
        damage=weapon.damage,
        kind=kind,
        dos=t.dos,
        location=location,
        magic=is_magic(fight.spec(who), weapon),
    )
    yield from threaten(fight, blow, unseen)
    for other in in_area(fight, who, target, weapon.area):
        hidden = not sees(fight, other, who) or other in reacted
        yield from threaten(fight, replace(blow, target=other), hidden)
    return None


def in_area(fight: Rules, who: str, target: str, area: float) -> list[str]:
    """Everyone but ``who`` and ``target`` standing within ``area`` metres of ``target`` (an
    area strikes friend and foe alike), in initiative order."""
    if area <= 0 or not fight.standing(target):
        return []
    centre = fight.get(target).position
    return fight.by_initiative(
        c.id
        for c in fight.state.standing()
        if c.id not in (who, target) and distance(c.position, centre) <= area + 1e-9
    )


def threaten(fight: Rules, blow: Blow, unseen: bool) -> Hook:
    """The target's opening (unless it cannot see the attacker), then the blow's outcome."""
    defence = None
    if not unseen:
        trigger = Trigger(
            kind="attacked", by=blow.who, target=blow.target, event=fight.cause, detail=blow.kind
        )
        reactions = yield from fight.opening(trigger, [blow.target])
        found = [r.result for r in reactions if isinstance(r.result, Defence)]
        defence = found[0] if found else None
    if fight.standing(blow.who) and fight.standing(blow.target):
        land(fight, blow, defence)


def land(fight: Rules, blow: Blow, defence: Defence | None) -> None:
    """The blow's outcome (see :func:`resolve`); whoever won the exchange gains Advantage."""
    winner = resolve(fight, blow, defence)
    if winner is not None:
        gain_advantage(fight, winner)


def gain_advantage(fight: Rules, who: str) -> None:
    """Seed 002: "Special actions are most often taken when a character gains Advantage and
    has the action listed in their Combat Style's Special Advantages." The seed does not say
    how Advantage is gained; the plain default: winning an exchange (a blow that lands, or a
    defence that stops it). Only a combatant with ``special_advantages`` can use it, so only
    they are given it; it lasts to the end of their next turn or until used."""
    if fight.standing(who) and combatant_options(fight.spec(who)).special_advantages:
        fight.add_condition(who, ADVANTAGE, until="it is used or its turn ends")


def resolve(fight: Rules, blow: Blow, defence: Defence | None) -> str | None:
    """Seed 002: Evade and Parry negate on success; Block compares damage with the shield's
    BR; Counter-Attack: "Higher DoS hits the other. Tied DoS = nothing resolves." Returns who
    won the exchange (``None`` on a tie, or when a counter-attack resolved it already)."""
    if defence is not None and defence.kind in ("evade", "parry") and defence.success:
        return blow.target
    if defence is not None and defence.kind == "counter":
        if defence.dos == blow.dos:
            return None
        if defence.dos > blow.dos:
            counter_hit(fight, blow, defence)
            return None
    location = blow.location or hit_location(fight, blow.who)
    amount = fight.roll(blow.who, f"damage to {blow.target}", blow.damage).total
    if defence is not None and defence.kind == "block" and defence.success:
        shield = shield_of(fight.spec(blow.target))
        assert shield is not None
        br = shield.br
        if blow.magic and not shield.magic_br:
            br = -(-br // 2)
        fight.emit(
            CheckResolved(
                who=blow.target,
                check="shield",
                success=amount <= br,
                roll=amount,
                against=br,
                against_who=blow.who,
            )
        )
        if amount <= br:
            return blow.target
        location = fight.options.shield_arm
    dealt = max(0, amount - fight.spec(blow.target).armor)
    fight.damage(blow.target, dealt, source=blow.who, location=location)
    return blow.who


def counter_hit(fight: Rules, blow: Blow, defence: Defence) -> None:
    """The counter-attacker's higher DoS hits the attacker instead."""
    weapon = weapon_of(fight, blow.target, defence.weapon) or melee_weapons(fight, blow.target)[0]
    fight.emit(
        AttackResolved(
            who=blow.target,
            target=blow.who,
            hit=True,
            roll=defence.dos,
            against=blow.dos,
            detail="counter-attack: DoS against DoS",
        )
    )
    countered = Blow(
        who=blow.target,
        target=blow.who,
        damage=weapon.damage,
        kind="melee",
        dos=defence.dos,
        magic=is_magic(fight.spec(blow.target), weapon),
    )
    land(fight, countered, None)


# --- Cast Magic ---------------------------------------------------------------------------------


def spell_of(fight: Rules, who: str, name: str) -> Spell | None:
    return next((s for s in spells_of(fight.spec(who)) if s.name == name), None)


def spell_effects(
    fight: Rules, who: str, target: str, spell: Spell, dos: int, reacted: set[str]
) -> Hook:
    if spell.damage:
        kind = "area" if spell.area > 0 else "melee" if spell.melee else "magic"
        blow = Blow(who=who, target=target, damage=spell.damage, kind=kind, dos=dos, magic=True)
        # A target that already reacted to this casting gets no second reaction to it.
        unseen = not sees(fight, target, who) or target in reacted
        others = in_area(fight, who, target, spell.area)
        yield from threaten(fight, blow, unseen)
        for other in others:
            hidden = not sees(fight, other, who) or other in reacted
            yield from threaten(fight, replace(blow, target=other), hidden)
    if spell.heal and fight.standing(target):
        fight.heal(target, fight.roll(who, f"{spell.name} heals {target}", spell.heal).total)
        if fight.get(target).hp > 0:
            fight.remove_condition(target, UNCONSCIOUS)
    if spell.condition and fight.standing(target):
        inflict(fight, who, target, spell.condition, spell.name)


def inflict(fight: Rules, who: str, target: str, condition: str, source: str) -> None:
    """A condition from a spell; Restrained and Blinded remember who caused them."""
    until = {"blinded": f"start of {who}'s next turn", "restrained": "it Resists"}
    fight.emit(
        ConditionAdded(
            who=target, condition=condition, until=until.get(condition, f"from {source}")
        )
    )
    if condition == BLINDED.name:
        fight.add_condition(target, BlindedBy(who))
    elif condition == RESTRAINED.name:
        fight.add_condition(target, RestrainedBy(who))
