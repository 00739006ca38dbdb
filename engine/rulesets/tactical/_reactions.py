"""Defensive reactions (Evade, Parry, Block, Counter-Attack) and Delay Turn.

Each defensive reaction is rolled when it is taken and returns a :class:`Defence` that the
attack it answers reads (see ``_attacks.land``). Defensive Stance adds ``defensive_bonus`` (10)
to these tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import CheckResolved, Window

from ._actions import DelayTurn, Evade
from ._attacks import Defence
from ._conditions import (
    clear_delay,
    count_attack,
    end_of_turn,
    melee_weapons,
)
from ._marks import (
    DASHES,
    DEFENSIVE_STANCE,
    DELAYING,
    INSERTED,
    MOVED,
    DelayOn,
)
from ._percentile import margin, roll_test, skill, test

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules


def defensive(fight: Rules, who: str) -> int:
    """Seed 002 Defensive Stance: "Gain +10 on all defensive tests"."""
    return fight.options.defensive_bonus if fight.has(who, DEFENSIVE_STANCE) else 0


def attacker(window: Window) -> str:
    assert window.trigger is not None and window.trigger.by is not None
    return window.trigger.by


def evade(fight: Rules, who: str, action: Evade, window: Window) -> Defence:
    """Seed 002: "On success, the attack is negated entirely and the character may move 1 m
    freely (no AoO)." """
    t = test(fight, who, "evade", "evade", defensive(fight, who), attacker(window))
    if t.success and action.to is not None:
        fight.move(who, action.to)
    return Defence(kind="evade", success=t.success, dos=t.dos)


def using(fight: Rules, who: str, stats: tuple[str, ...]) -> int:
    """What a Combat Style test "using" one characteristic adds: the skill's base is Str + Ag
    (see ``SKILL_BASES``); a test using Str (or the better of Str and Ag) counts that one
    characteristic twice instead. 0 when the sheet gives neither characteristic."""
    s = fight.spec(who).stats
    base = s.get("str", 0) + s.get("ag", 0)
    return 2 * max(s.get(stat, 0) for stat in stats) - base


def parry(fight: Rules, who: str, window: Window) -> Defence:
    """Seed 002 Parry: "Combat Style test using Str or Ag. Melee attacks only." The better of
    the two characteristics backs the test."""
    modifier = defensive(fight, who) + using(fight, who, ("str", "ag"))
    t = test(fight, who, "combat_style", "parry", modifier, attacker(window))
    return Defence(kind="parry", success=t.success, dos=t.dos)


def block(fight: Rules, who: str, window: Window) -> Defence:
    """Seed 002 Block: "Combat Style test using Str. Requires a shield." Strength alone backs
    the test."""
    modifier = defensive(fight, who) + using(fight, who, ("str",))
    t = test(fight, who, "combat_style", "block", modifier, attacker(window))
    return Defence(kind="block", success=t.success, dos=t.dos)


def counter_attack(fight: Rules, who: str, window: Window) -> Defence:
    """Seed 002 Counter-Attack: "Both characters make melee attack tests." The counter counts
    as an attack of the one who makes it."""
    by = attacker(window)
    weapon = melee_weapons(fight, who)[0]
    count_attack(fight, who)
    t = roll_test(fight, who, skill(fight, who, "combat_style") + weapon.bonus, "counter-attack")
    fight.emit(
        CheckResolved(
            who=who,
            check="counter-attack",
            success=t.success,
            roll=t.roll,
            against=t.target,
            margin=margin(fight, t),
            against_who=by,
        )
    )
    return Defence(kind="counter", success=t.success, dos=t.dos, weapon=weapon.name)


def delay_turn(fight: Rules, who: str, action: DelayTurn) -> None:
    """Seed 002: "Declare a set of trigger conditions, then skip the Turn without spending AP."
    The conditions ``delaying`` and ``delay_on:TRIGGER`` hold the declaration."""
    fight.add_condition(who, DELAYING, until=f"{who}'s next turn")
    for trigger in dict.fromkeys(action.triggers):
        fight.add_condition(who, DelayOn(trigger))


def take_delayed_turn(fight: Rules, who: str) -> Hook:
    """Seed 002: "they may insert their delayed Turn as a free reaction": an inserted turn
    with the AP kept, a fresh base movement, and no further delay."""
    clear_delay(fight, who)
    fight.set_counter(who, INSERTED, 1)
    fight.set_counter(who, MOVED, 0)
    fight.set_counter(who, DASHES, 0)
    yield from fight.inserted_turn(who, "delayed turn")
    fight.set_counter(who, INSERTED, 0)
    end_of_turn(fight, who)
    return None
