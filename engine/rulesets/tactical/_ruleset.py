"""The ``tactical`` ruleset class: hooks, and the rules every action shares (its class,
Advantage, the aim chain); each action's own are its unit's (``_units``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from initiative.engine.kit import Hook, Odds, Ruleset, SearchProfile, parse_dice
from initiative.events import (
    Attack,
    CombatantSpec,
    EncounterFileError,
    Offer,
    Window,
    did_you_mean,
)

from . import _attacks
from ._conditions import (
    break_aim,
    by_advantage,
    end_of_turn,
    sees,
    start_of_turn,
    unblind,
)
from ._marks import (
    ADVANTAGE,
    ATTACKS,
    DECLARED_CONDITIONS,
    DECLARED_COUNTERS,
    DELAYING,
    NAMED,
    RESTRAINED,
    UNCONSCIOUS,
    BlindedBy,
)
from ._movement import delayed, withdrawn
from ._options import (
    CONDITIONS,
    SKILL_BASES,
    SPECIALS,
    STATS,
    CombatantOptions,
    TacticalOptions,
    combatant_options,
)
from ._units import UNITS, TacticalUnit

if TYPE_CHECKING:
    from initiative.engine.kit import Rules
    from initiative.events import Action

#: The wire forms of the conditions every check reads.
_ADVANTAGE, _RESTRAINED, _UNCONSCIOUS = ADVANTAGE.wire(), RESTRAINED.wire(), UNCONSCIOUS.wire()


class Tactical(Ruleset):
    """Seed 002: action points, action classes, reactions and special actions, d100 tests."""

    CombatantOptions = CombatantOptions
    name = "tactical"
    version = 2
    seed_file = "002_ef1e1defd7d41b68.txt"
    #: ``search``'s settings here (tuned on seeds of the bundled examples apart from the
    #: benchmark's: docs/policies.md, *Settings per ruleset*), the weights of its learned value
    #: (``benchmarks/train_value.py``: 500 fights of tactical-bridge, seeds 100,001 on; held-out
    #: log loss 0.349) and a review's default rollouts (docs/review.md, *Cost*).
    search_profile = SearchProfile(
        rollouts=20,
        evaluate="value",
        rounds=0,
        value=(0.650885, 0.701685, 2.242741, -1.447326),
        review=24,
    )
    Options = TacticalOptions
    conditions = DECLARED_CONDITIONS
    counters = DECLARED_COUNTERS
    units = UNITS
    _units: ClassVar[Mapping[type[Action], TacticalUnit[Any]]]
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

    def odds(self, fight: Rules, who: str, action: Action) -> Odds | None:
        """An ``Attack``'s test and damage (see ``_attacks.odds``)."""
        if not isinstance(action, Attack):
            return None
        return _attacks.odds(fight, who, action)

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
    # What every action shares is here (its class, Advantage, the aim chain); the rest is its
    # unit's (``_units``).

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if fight.has(who, UNCONSCIOUS):
            return []
        return super().offers(fight, who, window)

    def check(self, fight: Rules, who: str, action: Action, window: Window) -> str | None:
        """Seed 002: "Primary actions can only be taken during the character's own Turn."
        "Secondary actions can be taken during the character's own Turn or as reactions to
        events." Reactions are taken in openings only."""
        # (Asked for every offer: the conditions are read once, as their wire forms.)
        unit = self._units.get(type(action))
        if unit is None:
            return f"{type(action).__name__} is not an action of the tactical ruleset"
        conditions = fight.state.combatants[who].conditions
        kind = unit.action_class(fight, who, action)
        if kind == "primary" and _ADVANTAGE in conditions and by_advantage(fight, who, action):
            kind = "secondary"  # with Advantage, a Special Advantage is taken at any moment
        is_turn = window.is_turn
        if _UNCONSCIOUS in conditions:
            return f"{who} is unconscious"
        if kind in ("primary", "move") and not (is_turn and fight.state.active == who):
            return f"{type(action).__name__} is a primary action: only in one's own turn"
        if kind == "reaction" and is_turn:
            return f"{type(action).__name__} is a reaction: only in an opening"
        if unit.needs_moving and _RESTRAINED in conditions:
            return f"{who} is restrained"
        return unit.check(fight, who, action, window)

    def cost(self, fight: Rules, who: str, action: Action, window: Window) -> int:
        """Seed 002: "Every non-free action costs at least 1 AP." Moving within one's base
        movement, Delay Turn (0 AP) and taking a delayed turn are free."""
        unit = self._units[type(action)]
        if unit.free or by_advantage(fight, who, action):
            return 0
        return unit.cost(fight, who, action, window)

    def perform(self, fight: Rules, who: str, action: Action, window: Window) -> Hook:
        unit = self._units[type(action)]
        if not unit.keeps_aim(fight, who, action):
            break_aim(fight, who)
        if by_advantage(fight, who, action):
            fight.remove_condition(who, ADVANTAGE)
        return unit.perform(fight, who, action, window)

    def can_see(self, fight: Rules, viewer: str, other: str) -> bool:
        return sees(fight, viewer, other)
