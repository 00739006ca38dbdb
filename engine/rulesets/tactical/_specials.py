"""The special actions (Arise, Bash, Blind Opponent, Disarm, Feint, Force Movement, Resist,
Trip): one unit each, with its check, performance and words.

Opposed tests pick each side's best listed skill (the seed's "or"); Defensive Stance adds its
bonus to the resisting side (a defensive test).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from initiative.engine.kit import Condition, Say, at, away, check_move, check_target
from initiative.events import APChanged, Offer, Window

from ._actions import Arise, Bash, BlindOpponent, Disarm, Feint, ForceMovement, Resist, Trip
from ._conditions import defensive, reach, reveal, unblind, unrestrain
from ._marks import (
    BLINDED,
    PRONE,
    RESTRAINED,
    BlindedBy,
    Disarmed,
    Dropped,
    Feinted,
    RestrainedBy,
    Sheathed,
)
from ._options import is_natural, shield_of
from ._percentile import best_skill, opposed, test
from ._unit import TacticalUnit, close, legal, not_larger, within

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


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


class Bashing(TacticalUnit[Bash]):
    """Seed 002 Bash: knock a target not larger than oneself back 1 m; it loses 1 AP."""

    action = Bash

    def check(self, fight: Rules, who: str, action: Bash, window: Window) -> str | None:
        t = action.target
        return check_target(fight, who, t) or close(fight, who, t) or not_larger(fight, who, t)

    def resolve(self, fight: Rules, who: str, action: Bash, window: Window) -> None:
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

    def told(self, action: Bash, say: Say) -> str:
        return f"bashes {say.name(action.target)}"


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
        """Seed 002: "Combat Style test opposed by the target's Evade or Combat Style (shield). On
        success: target is Blinded for 1 round" (until the blinder's next turn starts)."""
        t = action.target
        resist = ("evade", "combat_style") if shield_of(fight.spec(t)) else ("evade",)
        if against(fight, who, t, ("combat_style",), resist, "blind opponent"):
            fight.add_condition(t, BLINDED, until=f"start of {who}'s next turn")
            fight.add_condition(t, BlindedBy(who))

    def told(self, action: BlindOpponent, say: Say) -> str:
        how = f" ({action.method})" if action.method else ""
        return f"tries to blind {say.name(action.target)}{how}"


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

    def told(self, action: Disarm, say: Say) -> str:
        held = f" of the {action.weapon}" if action.weapon else ""
        return f"tries to disarm {say.name(action.target)}{held}"


class Feinting(TacticalUnit[Feint]):
    """Seed 002 Feint: one's next melee attack on the target comes unseen."""

    action = Feint

    def check(self, fight: Rules, who: str, action: Feint, window: Window) -> str | None:
        return check_target(fight, who, action.target) or close(fight, who, action.target)

    def resolve(self, fight: Rules, who: str, action: Feint, window: Window) -> None:
        """Seed 002 Feint: "the character's next melee attack against the target (before end of
        current Turn) is treated as if Hidden" (the target cannot react to it)."""
        t = action.target
        if against(
            fight, who, t, ("combat_style", "deceive"), ("observe", "combat_style"), "feint"
        ):
            fight.add_condition(who, Feinted(t), until="its next melee attack or turn end")

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
        """Seed 002: "On success: move both characters up to 3 m in the same direction." """
        t = action.target
        if not against(fight, who, t, ("combat_style",), ("combat_style", "athletics"), "force"):
            return
        start, me = fight.get(t).position, fight.get(who).position
        fight.move(t, action.to)
        fight.move(who, at(me.x + action.to.x - start.x, me.y + action.to.y - start.y))

    def told(self, action: ForceMovement, say: Say) -> str:
        return f"tries to force {say.name(action.target)} back"


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
        """Seed 002 Trip: "On success: target falls Prone." """
        t = action.target
        if against(fight, who, t, GRAPPLE, (*GRAPPLE, "evade"), "trip"):
            fight.add_condition(t, PRONE, until="it stands up")

    def told(self, action: Trip, say: Say) -> str:
        return f"tries to trip {say.name(action.target)}"
