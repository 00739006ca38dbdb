"""The ``percentile`` ruleset class: initiative, turns, attacks and reactions."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from initiative.engine.kit import (
    Hook,
    Odds,
    Ruleset,
    SearchProfile,
    chance_at_most,
    mean_damage,
    parse_dice,
    weapon_named,
)
from initiative.events import (
    Action,
    Attack,
    CombatantSpec,
    EncounterFileError,
    EncounterSpec,
)

from ._checks import SKILL_BASE, STATS
from ._marks import ATTACKS, CONDITIONS, COUNTERS, REACTIONS, SURPRISED
from ._options import CombatantOptions, CombatantOptions as PercentileCombatant, PercentileOptions
from ._surprise import decide_surprise
from ._units import UNITS, attack_skill, damage_terms

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


class Percentile(Ruleset):
    CombatantOptions = CombatantOptions
    name = "percentile"
    version = 2
    seed_file = "001_269bc9c9643bf2dd.txt"
    #: ``search``'s settings here (tuned on seeds of the bundled examples apart from the
    #: benchmark's: docs/policies.md, *Settings per ruleset*), the weights of its learned value
    #: (``benchmarks/train_value.py``: 500 fights of percentile-wilhelm, seeds 100,001 on; held-out
    #: log loss 0.540) and a review's default rollouts (docs/review.md, *Cost*).
    search_profile = SearchProfile(
        rollouts=150,
        evaluate="value",
        rounds=0,
        steps=4500,
        confidence=0.75,
        value=(0.320721, 0.339193, 1.151695, -0.913437),
        review=32,
    )
    Options = PercentileOptions
    stats = STATS
    required_stats = frozenset({"agility"})
    # "To determine Initiative, 1d10 is rolled and the result is added to the character's
    # Agility Characteristic."
    initiative_die = 10
    roll_off_die = 10
    # "GMs can make one Initiative roll for each group of like characters."
    group_initiative = True
    skills: ClassVar[frozenset[str] | None] = frozenset(SKILL_BASE)
    #: Skills are percentages, tested with 1d100.
    skill_range = (0, 100)
    options: PercentileOptions
    conditions = CONDITIONS
    counters = COUNTERS

    def odds(self, fight: Rules, who: str, action: Action) -> Odds | None:
        """An attack's d100 test against its skill (before a Parry or Dodge); a hit's mean
        damage with the strength bonus, less armour and the toughness bonus."""
        if not isinstance(action, Attack) or action.target not in fight.state.combatants:
            return None
        weapon = weapon_named(fight, who, action.weapon)
        if weapon is None:
            return None
        plus, less = damage_terms(fight, who, action.target, melee=not weapon.ranged)
        return Odds(
            hit=chance_at_most("1d100", attack_skill(fight, who, weapon)),
            damage=mean_damage(weapon.damage, plus=plus, less=less, least=fight.options.min_damage),
        )

    def __init__(self, encounter: EncounterSpec) -> None:
        super().__init__(encounter)
        self._combatant_options: dict[str, PercentileCombatant] = {
            c.id: self.decode_combatant_options(c, name="encounter") for c in encounter.combatants
        }

    # --- the encounter file -------------------------------------------------------------------

    @classmethod
    def check_combatant(cls, c: CombatantSpec, *, name: str) -> None:
        super().check_combatant(c, name=name)
        where = f"{name}: combatant {c.id!r}"
        for stat, value in sorted(c.stats.items()):
            if not 0 <= value <= 100:
                raise EncounterFileError(f"{where}: {stat} is a percentage (0-100), got {value}")
        if any(w.ranged for w in c.weapons) and "ballistic_skill" not in c.stats:
            raise EncounterFileError(f"{where}: carries a ranged weapon but has no ballistic_skill")
        for w in c.weapons:
            parse_dice(w.damage)

    def combatant_options(self, c: CombatantSpec) -> PercentileCombatant:
        return self._combatant_options[c.id]

    def max_ap(self, c: CombatantSpec) -> int:
        return c.ap if c.ap is not None else self.options.half_actions

    # --- initiative and surprise ----------------------------------------------------------------

    def initiative_modifier(self, c: CombatantSpec) -> int:
        return c.stats.get("agility", 0)

    def tie_keys(self, fight: Rules, who: str) -> tuple[int, ...]:
        # "If more than one character has the same Initiative, they act in Agility order
        # (from highest to lowest)." A recorded roll-off follows if Agility ties too.
        return (fight.spec(who).stats.get("agility", 0),)

    def start(self, fight: Rules) -> Hook:
        # "You only need to determine Initiative at the start of the combat, however. Once the
        # Initiative order has been established, it remains the same from round to round."
        fight.roll_initiative(fight.present_ids())
        decide_surprise(fight, self)
        return
        yield  # pragma: no cover

    def arrive(self, fight: Rules, arrivals: list[str]) -> Hook:
        # "If new combatants join in the midst of the encounter, simply roll Initiative for
        # them and add them to the order."
        fight.roll_initiative(arrivals, insert=True, drop_defeated=True)
        return
        yield  # pragma: no cover

    # --- rounds and turns -----------------------------------------------------------------------

    def round_started(self, fight: Rules) -> Hook:
        for cid in fight.present_ids():
            fight.set_counter(cid, REACTIONS, 0)
        return
        yield  # pragma: no cover

    def round_ended(self, fight: Rules) -> Hook:
        # "Surprise only affects the first round of a combat."
        if fight.state.round == 1:
            for cid in fight.present_ids():
                fight.remove_condition(cid, SURPRISED)
        return
        yield  # pragma: no cover

    def turn_started(self, fight: Rules, who: str) -> Hook:
        if fight.has(who, SURPRISED):
            return "surprised"
        fight.set_ap(who, self.max_ap(fight.spec(who)), "turn start")
        fight.set_counter(who, ATTACKS, 0)
        return None
        yield  # pragma: no cover

    units = UNITS
