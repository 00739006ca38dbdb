"""Conditions, tallies and how they end: Prone, Hidden, Blinded, Restrained, Unconscious,
Defensive Stance, Disengaged, Feint, Delay, the attack count and the aim chain.

State lives only in events: conditions are names (``blinded_by:ID``, ``feint:ID``,
``delay_on:TRIGGER``, ``disarmed:WEAPON``, ``dropped:WEAPON@X,Y``), tallies are counters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import APChanged, Position, Weapon

from .._common import UNARMED

if TYPE_CHECKING:
    from ..._fight import Fight

ATTACKS = "attacks"
AIM = "aim"
MOVED = "moved_cm"
DASHES = "dashes"
INSERTED = "in_delayed_turn"
WITHDRAWN = "disengaged_clear"
ADVANTAGE = "advantage"
"""Condition: won an exchange; a Special Advantage may be taken (see ``_attacks``)."""
"""Condition: Disengaged and moved out of an enemy's engagement range this turn."""


def conditions_with(fight: Fight, who: str, prefix: str) -> list[str]:
    """``who``'s conditions starting with ``prefix``, in the order gained."""
    return [c for c in fight.get(who).conditions if c.startswith(prefix)]


def helpless(fight: Fight, who: str) -> bool:
    """Seed 002: helpless is "unconscious, or both restrained and prone"."""
    c = fight.get(who)
    return c.has("unconscious") or (c.has("restrained") and c.has("prone"))


def sees(fight: Fight, viewer: str, other: str) -> bool:
    """A Blinded viewer sees no one; a Hidden combatant is unseen by its enemies."""
    me, them = fight.get(viewer), fight.get(other)
    if me.has("blinded") and viewer != other:
        return False
    return not them.has("hidden") or them.side == me.side


def attack_limit(fight: Fight, who: str) -> int:
    """Seed 002: 2 attacks a round; "Attack limit is reduced to 0" in Defensive Stance."""
    if fight.get(who).has("defensive_stance"):
        return 0
    return int(fight.options.attack_limit)


def may_attack(fight: Fight, who: str) -> str | None:
    """Why ``who`` may make no more attacks this round, or ``None``."""
    limit = attack_limit(fight, who)
    if fight.get(who).count(ATTACKS) >= limit:
        if limit == 0:
            return f"{who} is in Defensive Stance: attack limit 0 until its next turn"
        return f"{who} has made {limit} attacks this round (the limit)"
    return None


def count_attack(fight: Fight, who: str) -> None:
    fight.set_counter(who, ATTACKS, fight.get(who).count(ATTACKS) + 1)


def usable_weapons(fight: Fight, who: str) -> tuple[Weapon, ...]:
    """Weapons ``who`` holds in hand (not disarmed, not sheathed); fists when it holds none."""
    me = fight.get(who)
    held = tuple(
        w
        for w in fight.spec(who).weapons
        if not me.has(f"disarmed:{w.name}") and not me.has(f"sheathed:{w.name}")
    )
    return held or (UNARMED,)


def melee_weapons(fight: Fight, who: str) -> tuple[Weapon, ...]:
    return tuple(w for w in usable_weapons(fight, who) if not w.ranged) or (UNARMED,)


def reach(fight: Fight, who: str) -> float:
    """``who``'s melee (engagement) range: its longest melee reach."""
    return max(w.reach for w in melee_weapons(fight, who))


def loaded(fight: Fight, who: str, weapon: Weapon) -> bool:
    return fight.get(who).count(f"reload:{weapon.name}") == 0


def dropped_at(fight: Fight, who: str, weapon: str) -> Position | None:
    """Where ``who``'s flung ``weapon`` lies, if it was flung."""
    for c in conditions_with(fight, who, f"dropped:{weapon}@"):
        x, y = c.rpartition("@")[2].split(",")
        return Position(float(x), float(y))
    return None


def start_of_turn(fight: Fight, who: str) -> None:
    """What ends at ``who``'s turn start: a lapsed delay, its Defensive Stance, the
    blindness it caused, its movement."""
    lapse_delay(fight, who, "delayed turn not taken: AP lost")
    fight.remove_condition(who, "defensive_stance")
    for other in sorted(fight.state.combatants):
        if fight.get(other).has(f"blinded_by:{who}"):
            unblind(fight, other)
    fight.set_counter(who, MOVED, 0)
    fight.set_counter(who, DASHES, 0)


def end_of_turn(fight: Fight, who: str) -> None:
    """What ends with ``who``'s turn: Disengage (and the withdrawal it allowed) and Feint."""
    fight.remove_condition(who, "disengaged")
    fight.remove_condition(who, WITHDRAWN)
    fight.remove_condition(who, ADVANTAGE)
    for c in conditions_with(fight, who, "feint:"):
        fight.remove_condition(who, c)


def lapse_delay(fight: Fight, who: str, reason: str) -> None:
    """Seed 002: "If not triggered in time, the AP are lost." """
    if not fight.get(who).has("delaying"):
        return
    clear_delay(fight, who)
    if fight.get(who).ap:
        fight.emit(APChanged(who=who, ap=0, reason=reason))


def clear_delay(fight: Fight, who: str) -> None:
    fight.remove_condition(who, "delaying")
    for c in conditions_with(fight, who, "delay_on:"):
        fight.remove_condition(who, c)


def unblind(fight: Fight, who: str) -> None:
    fight.remove_condition(who, "blinded")
    for c in conditions_with(fight, who, "blinded_by:"):
        fight.remove_condition(who, c)


def unrestrain(fight: Fight, who: str) -> None:
    fight.remove_condition(who, "restrained")
    for c in conditions_with(fight, who, "restrained_by:"):
        fight.remove_condition(who, c)


def reveal(fight: Fight, who: str) -> None:
    """Hidden ends when the character attacks, casts or acts against someone."""
    fight.remove_condition(who, "hidden")


def break_aim(fight: Fight, who: str) -> None:
    """Seed 002: "The chain breaks if the character takes any other action or reaction"."""
    fight.set_counter(who, AIM, 0)
