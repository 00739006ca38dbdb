"""The defensive reactions (Evade, Parry, Block, Counter-Attack): one unit each.

Each is rolled when it is taken and returns a :class:`~._attacks.Defence` that the attack it
answers reads (see ``_attacks.land``). Defensive Stance adds ``defensive_bonus`` (10) to these
tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from initiative.engine.kit import ParryUnit, Say, check_move
from initiative.events import CheckResolved, Offer, Parry, Window

from ._actions import Block, CounterAttack, Evade
from ._attacks import Defence
from ._conditions import count_attack, defensive, may_attack, melee_weapons, reach
from ._options import shield_of
from ._percentile import margin, roll_test, skill, test
from ._unit import TacticalUnit, legal

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


def _attacked(window: Window, who: str) -> bool:
    t = window.trigger
    return t is not None and t.kind == "attacked" and t.target == who


def attacked(fight: Rules, who: str, window: Window, *, melee: bool = False) -> str | None:
    t = window.trigger
    if t is None or t.kind != "attacked" or t.target != who:
        return "only a reaction to an attack on oneself"
    if melee and t.detail != "melee":
        return "Parry works against melee attacks only"
    return None


def attacker(window: Window) -> str:
    assert window.trigger is not None and window.trigger.by is not None
    return window.trigger.by


def using(fight: Rules, who: str, stats: tuple[str, ...]) -> int:
    """What a Combat Style test "using" one characteristic adds: the skill's base is Str + Ag
    (see ``SKILL_BASES``); a test using Str (or the better of Str and Ag) counts that one
    characteristic twice instead. 0 when the sheet gives neither characteristic."""
    s = fight.spec(who).stats
    base = s.get("str", 0) + s.get("ag", 0)
    return 2 * max(s.get(stat, 0) for stat in stats) - base


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
        """Seed 002: "On success, the attack is negated entirely and the character may move 1 m
        freely (no AoO)." """
        t = test(fight, who, "evade", "evade", defensive(fight, who), attacker(window))
        if t.success and action.to is not None:
            fight.move(who, action.to)
        return Defence(kind="evade", success=t.success, dos=t.dos)

    def told(self, action: Evade, say: Say) -> str:
        return "tries to evade"


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
        """Seed 002 Parry: "Combat Style test using Str or Ag. Melee attacks only." The better of
        the two characteristics backs the test."""
        modifier = defensive(fight, who) + using(fight, who, ("str", "ag"))
        t = test(fight, who, "combat_style", "parry", modifier, attacker(window))
        return Defence(kind="parry", success=t.success, dos=t.dos)


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
        """Seed 002 Block: "Combat Style test using Str. Requires a shield." Strength alone backs
        the test."""
        modifier = defensive(fight, who) + using(fight, who, ("str",))
        t = test(fight, who, "combat_style", "block", modifier, attacker(window))
        return Defence(kind="block", success=t.success, dos=t.dos)

    def told(self, action: Block, say: Say) -> str:
        return "blocks with the shield"


class Countering(TacticalUnit[CounterAttack]):
    """Seed 002 Counter-Attack: meet a melee attack with one's own; the higher DoS hits."""

    action = CounterAttack
    kind = "reaction"
    when = ("opening",)
    answers = ("attacked",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return legal(fight, who, window, [CounterAttack()]) if _attacked(window, who) else []

    def check(self, fight: Rules, who: str, action: CounterAttack, window: Window) -> str | None:
        if reason := attacked(fight, who, window, melee=True):
            return reason.replace("Parry", "Counter-Attack")
        assert window.trigger is not None and window.trigger.by is not None
        by = window.trigger.by
        if fight.dist(who, by) > reach(fight, who) + 1e-9:
            return f"{by} is out of melee reach"
        return may_attack(fight, who)

    def resolve(self, fight: Rules, who: str, action: CounterAttack, window: Window) -> Any:
        """Seed 002 Counter-Attack: "Both characters make melee attack tests." The counter counts
        as an attack of the one who makes it."""
        by = attacker(window)
        weapon = melee_weapons(fight, who)[0]
        count_attack(fight, who)
        t = roll_test(
            fight, who, skill(fight, who, "combat_style") + weapon.bonus, "counter-attack"
        )
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

    def told(self, action: CounterAttack, say: Say) -> str:
        return "counter-attacks"
