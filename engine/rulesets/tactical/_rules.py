"""The ``tactical`` ruleset class: hooks, costs and the dispatch of actions to their modules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from initiative.events import (
    Attack,
    CombatantSpec,
    EncounterFileError,
    Move,
    Offer,
    Parry,
    ReadyWeapon,
    Window,
    did_you_mean,
)

from ..._dice import parse_dice
from ..._ruleset import Hook, Ruleset
from . import _attacks, _reactions, _specials
from ._actions import (
    ACTIONS,
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
from ._checks import FREE, by_advantage, check
from ._conditions import (
    break_aim,
    end_of_turn,
    sees,
    start_of_turn,
    unblind,
)
from ._marks import (
    ADVANTAGE,
    ATTACKS,
    DASHES,
    DECLARED_CONDITIONS,
    DECLARED_COUNTERS,
    DEFENSIVE_STANCE,
    DELAYING,
    DISENGAGED,
    NAMED,
    PRONE,
    UNCONSCIOUS,
    BlindedBy,
)
from ._movement import delayed, move, withdrawn
from ._offers import offers
from ._options import (
    CONDITIONS,
    SKILL_BASES,
    SPECIALS,
    STATS,
    CombatantOptions,
    TacticalOptions,
    combatant_options,
)
from ._reactions import delay_turn, take_delayed_turn

if TYPE_CHECKING:
    from initiative.events import Action

    from ..._rules import Rules


class Tactical(Ruleset):
    """Seed 002: action points, action classes, reactions and special actions, d100 tests."""

    CombatantOptions = CombatantOptions
    name = "tactical"
    version = 2
    seed_file = "002_ef1e1defd7d41b68.txt"
    Options = TacticalOptions
    conditions = DECLARED_CONDITIONS
    counters = DECLARED_COUNTERS
    actions = ACTIONS
    stats = STATS
    #: Characteristics: 3-18 for people, more for large creatures (the seed is silent).
    stat_ranges = dict.fromkeys(STATS, (1, 40))
    skills = frozenset(SKILL_BASES)
    #: Skills are percentages tested with 1d100; above 100 still counts against penalties.
    skill_range = (0, 300)
    initiative_die = 10
    roll_off_die = 10
    options: TacticalOptions

    # --- setting up ---------------------------------------------------------------------------

    @classmethod
    def check_combatant(cls, c: CombatantSpec, *, name: str) -> None:
        super().check_combatant(c, name=name)
        where = f"{name}: combatant {c.id!r}"
        opts: CombatantOptions = cls.decode_combatant_options(c, name=name)
        for index, condition in enumerate(opts.conditions):
            if condition not in CONDITIONS:
                known = ", ".join(sorted(CONDITIONS))
                raise EncounterFileError(
                    f"{where}: at key options.conditions[{index}]: unknown condition"
                    f" {condition!r} (known: {known})"
                    f"{did_you_mean(condition, CONDITIONS)}"
                )
        for index, special in enumerate(opts.special_advantages):
            if special not in SPECIALS:
                raise EncounterFileError(
                    f"{where}: at key options.special_advantages[{index}]: {special!r} is not a"
                    f" special action (known: {', '.join(sorted(SPECIALS))})"
                    f"{did_you_mean(special, SPECIALS)}"
                )
        weapons = {w.name for w in c.weapons}
        items = {i.name for i in c.items}
        for key, kind, carried in (
            ("natural_weapons", "weapon", weapons),
            ("magic_weapons", "weapon", weapons),
            ("potions", "item", items),
        ):
            for index, thing in enumerate(getattr(opts, key)):
                if thing not in carried:
                    raise EncounterFileError(
                        f"{where}: at key options.{key}[{index}]: it carries no {kind} named"
                        f" {thing!r}"
                    )
        for index, spell in enumerate(opts.spells):
            if spell.condition is not None and spell.condition not in CONDITIONS:
                raise EncounterFileError(
                    f"{where}: at key options.spells[{index}].condition: spell {spell.name!r}"
                    f" gives unknown condition {spell.condition!r}"
                )
        dice = [("", w.damage) for w in c.weapons] + [("", i.heal) for i in c.items if i.heal]
        dice += [
            (f"at key options.spells[{index}].{field}: ", rolled)
            for index, s in enumerate(opts.spells)
            for field, rolled in (("damage", s.damage), ("heal", s.heal))
            if rolled
        ]
        for key, expr in dice:
            try:
                parse_dice(expr)
            except EncounterFileError as err:
                raise EncounterFileError(f"{where}: {key}{err}") from None

    def max_ap(self, c: CombatantSpec) -> int:
        return c.ap if c.ap is not None else self.options.ap

    def initiative_modifier(self, c: CombatantSpec) -> int:
        """Default (the seed is silent): 1d10 plus the average of Ag and Int."""
        return (c.stats.get("ag", 0) + c.stats.get("int", 0)) // 2

    def start(self, fight: Rules) -> Hook:
        fight.roll_initiative(fight.present_ids())
        self.starting_conditions(fight, fight.present_ids())
        return
        yield  # pragma: no cover

    def arrive(self, fight: Rules, arrivals: list[str]) -> Hook:
        fight.roll_initiative(arrivals, insert=True)
        self.starting_conditions(fight, arrivals)
        return
        yield  # pragma: no cover

    def starting_conditions(self, fight: Rules, ids: list[str]) -> None:
        for who in ids:
            for condition in combatant_options(fight.spec(who)).conditions:
                fight.add_condition(who, NAMED[condition], until="as the encounter file says")

    # --- rounds and turns ---------------------------------------------------------------------

    def round_started(self, fight: Rules) -> Hook:
        """Seed 002: "no more than 2 attacks per round": the count restarts each round."""
        for who in sorted(fight.state.combatants):
            fight.set_counter(who, ATTACKS, 0)
        return
        yield  # pragma: no cover

    def round_ended(self, fight: Rules) -> Hook:
        """Blindness caused by someone no longer fighting ends with the round."""
        for who in sorted(fight.state.combatants):
            for blinded in fight.conditions(who, BlindedBy):
                if not fight.standing(blinded.by):
                    unblind(fight, who)
                    break
        return
        yield  # pragma: no cover

    def turn_started(self, fight: Rules, who: str) -> Hook:
        start_of_turn(fight, who)
        fight.set_ap(who, self.max_ap(fight.spec(who)), "turn start")
        if fight.has(who, UNCONSCIOUS):
            return "unconscious"
        return None
        yield  # pragma: no cover

    def turn_ended(self, fight: Rules, who: str) -> Hook:
        # Disengage protects to the end of "this Turn", its end included.
        clear = withdrawn(fight, who)
        end_of_turn(fight, who)
        if fight.standing(who) and not fight.decided() and not clear:
            yield from delayed(fight, who, {"turn_end": [e.id for e in fight.enemies_of(who)]})

    def turn_over(self, fight: Rules, who: str) -> str | None:
        if fight.has(who, DELAYING):
            return "turn delayed"
        return None

    # --- actions ------------------------------------------------------------------------------

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return offers(fight, who, window)

    def check(self, fight: Rules, who: str, action: Action, window: Window) -> str | None:
        return check(fight, who, action, window)

    def cost(self, fight: Rules, who: str, action: Action, window: Window) -> int:
        """Seed 002: "Every non-free action costs at least 1 AP." Moving within one's base
        movement, Delay Turn (0 AP) and taking a delayed turn are free."""
        if isinstance(action, FREE) or by_advantage(fight, who, action):
            return 0
        if isinstance(action, Attack) and action.variant == "all_out":
            return 2
        if isinstance(action, CastMagic):
            spell = _attacks.spell_of(fight, who, action.spell)
            return max(1, spell.ap if spell else 1)
        if isinstance(action, DrinkPotion):
            return max(1, self.options.potion_cost)
        return 1

    def perform(self, fight: Rules, who: str, action: Action, window: Window) -> Hook:
        if not keeps_aim(fight, who, action):
            break_aim(fight, who)
        if by_advantage(fight, who, action):
            fight.remove_condition(who, ADVANTAGE)
        result: Any = None
        match action:
            case Attack():
                yield from _attacks.attack(fight, who, action)
            case OpportunityAttack():
                yield from _attacks.opportunity_attack(fight, who, action)
            case CastMagic():
                yield from _attacks.cast(fight, who, action)
            case Move(to=to):
                yield from move(fight, who, to)
            case Dash(to=to):
                if window.is_turn:
                    fight.set_counter(who, DASHES, fight.count(who, DASHES) + 1)
                yield from move(fight, who, to)
            case ReadyWeapon():
                yield from _specials.ready_weapon(fight, who, action)
            case DrinkPotion():
                yield from _specials.drink_potion(fight, who, action)
            case TakeDelayedTurn():
                yield from take_delayed_turn(fight, who)
            case _:
                result = self.perform_simple(fight, who, action, window)
        return result

    def perform_simple(self, fight: Rules, who: str, action: Action, window: Window) -> Any:
        """The actions that open no openings of their own."""
        match action:
            case Evade():
                return _reactions.evade(fight, who, action, window)
            case Parry():
                return _reactions.parry(fight, who, window)
            case Block():
                return _reactions.block(fight, who, window)
            case CounterAttack():
                return _reactions.counter_attack(fight, who, window)
            case DefensiveStance():
                fight.add_condition(who, DEFENSIVE_STANCE, until=f"{who}'s next turn")
            case Disengage():
                fight.add_condition(who, DISENGAGED, until="end of turn")
            case DelayTurn():
                delay_turn(fight, who, action)
            case Aim():
                _specials.aim(fight, who)
            case Hide():
                _specials.hide(fight, who)
            case Arise():
                fight.remove_condition(who, PRONE)
            case Bash():
                _specials.bash(fight, who, action)
            case BlindOpponent():
                _specials.blind(fight, who, action)
            case Disarm():
                _specials.disarm(fight, who, action)
            case Feint():
                _specials.feint(fight, who, action)
            case ForceMovement():
                _specials.force_movement(fight, who, action)
            case Resist():
                _specials.resist(fight, who, action)
            case Trip():
                _specials.trip(fight, who, action)
        return None

    def can_see(self, fight: Rules, viewer: str, other: str) -> bool:
        return sees(fight, viewer, other)


def keeps_aim(fight: Rules, who: str, action: Action) -> bool:
    """Seed 002 Aim: the chain survives only "continuing to aim or firing the aimed
    weapon/spell" (firing resets it)."""
    if isinstance(action, Aim):
        return True
    if isinstance(action, Attack):
        weapon = _attacks.weapon_of(fight, who, action.weapon)
        return weapon is not None and weapon.ranged
    if isinstance(action, CastMagic):
        spell = _attacks.spell_of(fight, who, action.spell)
        return spell is not None and spell.bolt
    return False
