"""What one does for oneself: Defensive Stance, Disengage, Ready Weapon, Aim, Hide and Drink
Potion, one unit each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import HIDDEN, ReadyWeaponUnit, Say, distance
from initiative.events import Action, Offer, ReadyWeapon, Window

from ._actions import Aim, DefensiveStance, Disengage, DrinkPotion, Hide
from ._conditions import dropped_at, loaded, sees
from ._marks import (
    AIM,
    DEFENSIVE_STANCE,
    DISENGAGED,
    UNCONSCIOUS,
    Disarmed,
    Dropped,
    Reload,
    Sheathed,
    UsedItem,
)
from ._movement import provoke
from ._options import is_potion, spells_of
from ._percentile import test
from ._unit import TacticalUnit, legal

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules


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

    def perform(self, fight: Rules, who: str, action: ReadyWeapon, window: Window) -> Hook:
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
        """Seed 002 Aim: "Stacks up to 3 times (+30 max) across consecutive aims." """
        fight.set_counter(who, AIM, min(fight.options.aim_max, fight.count(who, AIM) + 1))

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
        """Seed 002 Drink Potion (2 AP); provokes the AoO trigger Ready ("drinks a potion")."""
        yield from provoke(fight, who, "ready", set(), action.potion)
        if not fight.standing(who):
            return None
        item = next(i for i in fight.spec(who).items if i.name == action.potion)
        fight.set_counter(who, UsedItem(item.name), fight.count(who, UsedItem(item.name)) + 1)
        if item.heal:
            fight.heal(who, fight.roll(who, f"{item.name} heals", item.heal).total)
        return None

    def told(self, action: DrinkPotion, say: Say) -> str:
        return f"drinks the {action.potion}"
