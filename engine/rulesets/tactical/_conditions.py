"""Conditions, tallies and how they end: Prone, Hidden, Blinded, Restrained, Unconscious,
Defensive Stance, Disengaged, Feint, Delay, the attack count and the aim chain.

State lives only in events: conditions and counters are the typed values of ``_marks``
(``BlindedBy(who)``, ``Dropped(weapon, at)`` ...), read and written through ``Rules``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from initiative.engine.kit import HIDDEN, UNARMED, Condition
from initiative.events import APChanged, Position, Weapon

from ._marks import (
    ADVANTAGE,
    AIM,
    ATTACKS,
    BLINDED,
    DASHES,
    DEFENSIVE_STANCE,
    DELAYING,
    DISENGAGED,
    MOVED,
    PRONE,
    RESTRAINED,
    UNCONSCIOUS,
    WITHDRAWN,
    BlindedBy,
    DelayOn,
    Disarmed,
    Dropped,
    Feinted,
    Reload,
    RestrainedBy,
    Sheathed,
)
from ._options import combatant_options

if TYPE_CHECKING:
    from initiative.engine.kit import Rules
    from initiative.events import Action

#: The wire forms of the conditions :func:`sees` reads.
_BLINDED, _HIDDEN = BLINDED.wire(), HIDDEN.wire()


def helpless(fight: Rules, who: str) -> bool:
    """Seed 002: helpless is "unconscious, or both restrained and prone"."""
    return fight.has(who, UNCONSCIOUS) or (fight.has(who, RESTRAINED) and fight.has(who, PRONE))


def sees(fight: Rules, viewer: str, other: str) -> bool:
    """A Blinded viewer sees no one; a Hidden combatant is unseen by its enemies.

    (Asked for every pair of combatants in every offers pass: it compares the conditions' wire
    forms itself, as ``fight.has`` would.)"""
    combatants = fight.state.combatants
    seer = combatants[viewer]
    if viewer != other and _BLINDED in seer.conditions:
        return False
    seen = combatants[other]
    return _HIDDEN not in seen.conditions or seen.side == seer.side


def attack_limit(fight: Rules, who: str) -> int:
    """Seed 002: 2 attacks a round; "Attack limit is reduced to 0" in Defensive Stance."""
    if fight.has(who, DEFENSIVE_STANCE):
        return 0
    return int(fight.options.attack_limit)


def may_attack(fight: Rules, who: str) -> str | None:
    """Why ``who`` may make no more attacks this round, or ``None``."""
    limit = attack_limit(fight, who)
    if fight.count(who, ATTACKS) >= limit:
        if limit == 0:
            return f"{who} is in Defensive Stance: attack limit 0 until its next turn"
        return f"{who} has made {limit} attacks this round (the limit)"
    return None


def count_attack(fight: Rules, who: str) -> None:
    fight.set_counter(who, ATTACKS, fight.count(who, ATTACKS) + 1)


def usable_weapons(fight: Rules, who: str) -> tuple[Weapon, ...]:
    """Weapons ``who`` holds in hand (not disarmed, not sheathed); fists when it holds none.

    Asked for every offer and every check, so it reads the conditions' wire forms at once
    (``fight.has`` would make a ``Disarmed`` and a ``Sheathed`` for each weapon each time):
    with no conditions at all, every weapon is in hand."""
    held = fight.spec(who).weapons
    conditions = fight.state.combatants[who].conditions
    if conditions:
        held = tuple(w for w in held if not _out_of_hand(w.name, conditions))
    return held or (UNARMED,)


def _out_of_hand(weapon: str, conditions: tuple[str, ...]) -> bool:
    """Whether ``conditions`` (wire forms) say ``weapon`` is disarmed or sheathed."""
    disarmed, sheathed = _out_of_hand_wires(weapon)
    return disarmed in conditions or sheathed in conditions


@functools.lru_cache(maxsize=1024)
def _out_of_hand_wires(weapon: str) -> tuple[str, str]:
    """The wire forms of ``Disarmed(weapon)`` and ``Sheathed(weapon)``, made once a name."""
    return Disarmed(weapon).wire(), Sheathed(weapon).wire()


def melee_weapons(fight: Rules, who: str) -> tuple[Weapon, ...]:
    return tuple(w for w in usable_weapons(fight, who) if not w.ranged) or (UNARMED,)


def reach(fight: Rules, who: str) -> float:
    """``who``'s melee (engagement) range: its longest melee reach (fists' when it holds no
    melee weapon, as :func:`melee_weapons` says)."""
    held = usable_weapons(fight, who)
    return max((w.reach for w in held if not w.ranged), default=UNARMED.reach)


def loaded(fight: Rules, who: str, weapon: Weapon) -> bool:
    return fight.count(who, Reload(weapon.name)) == 0


def dropped_at(fight: Rules, who: str, weapon: str) -> Position | None:
    """Where ``who``'s flung ``weapon`` lies, if it was flung."""
    for dropped in fight.conditions(who, Dropped):
        if dropped.weapon == weapon:
            return dropped.at
    return None


def start_of_turn(fight: Rules, who: str) -> None:
    """What ends at ``who``'s turn start: a lapsed delay, its Defensive Stance, the
    blindness it caused, its movement."""
    lapse_delay(fight, who, "delayed turn not taken: AP lost")
    fight.remove_condition(who, DEFENSIVE_STANCE)
    for other in sorted(fight.state.combatants):
        if fight.has(other, BlindedBy(who)):
            unblind(fight, other)
    fight.set_counter(who, MOVED, 0)
    fight.set_counter(who, DASHES, 0)


def end_of_turn(fight: Rules, who: str) -> None:
    """What ends with ``who``'s turn: Disengage (and the withdrawal it allowed) and Feint."""
    fight.remove_condition(who, DISENGAGED)
    fight.remove_condition(who, WITHDRAWN)
    fight.remove_condition(who, ADVANTAGE)
    for feinted in fight.conditions(who, Feinted):
        fight.remove_condition(who, feinted)


def lapse_delay(fight: Rules, who: str, reason: str) -> None:
    """Seed 002: "If not triggered in time, the AP are lost." """
    if not fight.has(who, DELAYING):
        return
    clear_delay(fight, who)
    if fight.get(who).ap:
        fight.emit(APChanged(who=who, ap=0, reason=reason))


def _lift(fight: Rules, who: str, flag: Condition, by: type[Condition]) -> None:
    """``flag`` ends for ``who``, and with it every ``by`` that says what it holds to."""
    fight.remove_condition(who, flag)
    for held in fight.conditions(who, by):
        fight.remove_condition(who, held)


def clear_delay(fight: Rules, who: str) -> None:
    _lift(fight, who, DELAYING, DelayOn)


def unblind(fight: Rules, who: str) -> None:
    _lift(fight, who, BLINDED, BlindedBy)


def unrestrain(fight: Rules, who: str) -> None:
    _lift(fight, who, RESTRAINED, RestrainedBy)


def reveal(fight: Rules, who: str) -> None:
    """Hidden ends when the character attacks, casts or acts against someone."""
    fight.remove_condition(who, HIDDEN)


def break_aim(fight: Rules, who: str) -> None:
    """Seed 002: "The chain breaks if the character takes any other action or reaction"."""
    fight.set_counter(who, AIM, 0)


def defensive(fight: Rules, who: str) -> int:
    """Seed 002 Defensive Stance: "Gain +10 on all defensive tests"."""
    return fight.options.defensive_bonus if fight.has(who, DEFENSIVE_STANCE) else 0


def by_advantage(fight: Rules, who: str, action: Action) -> bool:
    """Seed 002: "Special actions are most often taken when a character gains Advantage and
    has the action listed in their Combat Style's Special Advantages. Otherwise, they function
    as the action type noted below." Whether ``action`` is taken that way now."""
    return (
        fight.has(who, ADVANTAGE)
        and type(action).__name__ in combatant_options(fight.spec(who)).special_advantages
    )
