"""The ``thriller`` ruleset class: initiative, AP, the turn cycle, and dispatch of actions."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from initiative.engine.kit import Hook, Odds, Ruleset, SearchProfile, parse_dice, weapon_named
from initiative.events import (
    Action,
    Attack,
    CombatantSpec,
    EncounterFileError,
    EncounterSpec,
    Offer,
    Window,
    did_you_mean,
)

from . import _combat, _surprise
from ._marks import (
    ASSISTED,
    CONDITIONS,
    COUNTERS,
    FREE,
    FULL_DEFENSE,
    FULL_ROUND,
    IN_COVER,
    SHAKEN,
    SURPRISED,
    Worked,
)
from ._options import (
    COMBAT_REFLEXES,
    LIGHTNING_REFLEXES,
    CombatantOptions,
    ThrillerOptions,
    has_perk,
    modifier,
    specials_of,
    stat,
)
from ._units import UNITS

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


class Thriller(Ruleset):
    name = "thriller"
    version = 2
    seed_file = "000_d9d14e010805cf12.txt"
    #: ``search``'s settings here (tuned on seeds of the bundled examples apart from the
    #: benchmark's: docs/policies.md, *Settings per ruleset*), the weights of its learned value
    #: (``benchmarks/train_value.py``: 500 fights of thriller-ambush, seeds 100,001 on; held-out
    #: log loss 0.471) and a review's default rollouts (docs/review.md, *Cost*).
    search_profile = SearchProfile(
        rollouts=60,
        evaluate="value",
        turns=1,
        steps=3600,
        width=10,
        value=(-1.181474, -0.819571, 3.152964, -2.731679),
        review=48,
    )
    Options = ThrillerOptions
    conditions = CONDITIONS
    counters = COUNTERS
    CombatantOptions = CombatantOptions
    units = UNITS
    stats = frozenset({"agility", "strength", "perception", "insight", "willpower", "sanity"})
    required_stats = frozenset({"agility"})
    #: The 3-18 scale of the AP table ("AGI 6-7 -> 1 AP"); Sanity Points 0-99.
    stat_ranges: ClassVar[dict[str, tuple[int, int]]] = {
        **dict.fromkeys(("agility", "strength", "perception", "insight", "willpower"), (3, 18)),
        "sanity": (0, 99),
    }
    #: Skills read by the surprise check; special actions add the skills they name.
    skills = frozenset({"stealth", "perception", "insight"})
    #: A skill is a bonus added to a 1d20 check.
    skill_range = (-100, 100)
    perks = frozenset({"Lightning Reflexes", "Combat Reflexes", "Quick Draw"})
    initiative_die = 20
    roll_off_die = 20
    options: ThrillerOptions

    @classmethod
    def known_skills(cls, c: CombatantSpec) -> frozenset[str] | None:
        specials = specials_of(c)  # (decoded, and so checked, before the skills)
        return frozenset(cls.skills or ()) | {s.skill for s in specials if s.skill}

    @classmethod
    def check_combatant(cls, c: CombatantSpec, *, name: str) -> None:
        super().check_combatant(c, name=name)
        opts: CombatantOptions = cls.decode_combatant_options(c, name=name)
        cls.check_perks(c, opts.perks, name=name)
        for i, s in enumerate(opts.specials):
            if isinstance(s.damage, str):
                try:
                    parse_dice(s.damage)
                except EncounterFileError as err:
                    raise EncounterFileError(
                        f"{name}: combatant {c.id!r}: at key options.specials[{i}].damage:"
                        f" {s.name!r}: {err}"
                    ) from None

    @classmethod
    def normalize(cls, spec: EncounterSpec, *, name: str) -> EncounterSpec:
        spec = super().normalize(spec, name=name)
        ambush = spec.options.get("ambush_by")
        if ambush is not None and ambush not in spec.sides:
            raise EncounterFileError(
                f"{name}: in [options]: ambush_by = {ambush!r} is not a side (sides:"
                f" {list(spec.sides)}){did_you_mean(ambush, spec.sides)}"
            )
        if ambush is None:
            # Options that only mean something in an ambush would be silently ignored.
            if spec.options.get("horrifying"):
                raise EncounterFileError(
                    f"{name}: in [options]: horrifying = true needs ambush_by (the side that"
                    " springs the ambush)"
                )
            if spec.options.get("ambush_initiative") != "agility":
                raise EncounterFileError(
                    f"{name}: in [options]: ambush_initiative ="
                    f" {spec.options.get('ambush_initiative')!r} needs ambush_by (the side"
                    " that springs the ambush)"
                )
        for c in spec.combatants:
            for i, s in enumerate(specials_of(c)):
                if s.ap < 1 or s.turns < 1:
                    raise EncounterFileError(
                        f"{name}: combatant {c.id!r}: at key options.specials[{i}]: special"
                        f" action {s.name!r} needs ap >= 1"
                        f" and turns >= 1 (got ap = {s.ap}, turns = {s.turns})"
                    )
        return spec

    # --- stats --------------------------------------------------------------------------------

    def mod(self, spec: CombatantSpec, name: str) -> int:
        """The modifier of a 3-18 stat: (stat - 10) // 2."""
        return modifier(stat(spec, name, self.options.default_stat))

    def odds(self, fight: Rules, who: str, action: Action) -> Odds | None:
        """An ``Attack``'s test and damage (see ``_combat.odds``)."""
        if not isinstance(action, Attack) or action.target not in fight.state.combatants:
            return None
        weapon = weapon_named(fight, who, action.weapon)
        if weapon is None:
            return None
        return _combat.odds(self, fight, who, action.target, weapon)

    def shaken(self, fight: Rules, who: str) -> int:
        """The Shaken penalty ``who`` suffers now (0 when not Shaken)."""
        return self.options.shaken_penalty if fight.has(who, SHAKEN) else 0

    def take_assist(self, fight: Rules, who: str) -> int:
        """An ally's Assist bonus, used up by this test."""
        bonus = fight.count(who, ASSISTED)
        fight.set_counter(who, ASSISTED, 0)
        return bonus

    # --- AP -----------------------------------------------------------------------------------

    def max_ap(self, c: CombatantSpec) -> int:
        """Seed: "AP = (Agility - 6) / 2 (Minimum 1 AP per round.)", rounded down."""
        if c.ap is not None:
            return c.ap
        return max(1, (stat(c, "agility", self.options.default_stat) - 6) // 2)

    def turn_ap(self, fight: Rules, who: str) -> int:
        """AP at the start of ``who``'s turn: full, less the Shaken loss (never below 1)."""
        full = self.max_ap(fight.spec(who))
        if fight.has(who, SHAKEN):
            return max(1, full - self.options.shaken_ap)
        return full

    # --- initiative ---------------------------------------------------------------------------

    def initiative_dice(self, c: CombatantSpec) -> str:
        """Lightning Reflexes gives advantage: 2d20, keep the higher."""
        return "2d20kh1" if has_perk(c, LIGHTNING_REFLEXES) else "1d20"

    def initiative_modifier(self, c: CombatantSpec) -> int:
        """The Agility modifier (Perception's in an ambush if so chosen), + Combat Reflexes."""
        o = self.options
        name = "perception" if o.ambush_by and o.ambush_initiative == "perception" else "agility"
        bonus = o.combat_reflexes_bonus if has_perk(c, COMBAT_REFLEXES) else 0
        return self.mod(c, name) + bonus

    def tie_keys(self, fight: Rules, who: str) -> tuple[int, ...]:
        """Seed: "the GM may compare highest Agility, Perception, or even current Sanity Points"."""
        spec, default = fight.spec(who), self.options.default_stat
        return tuple(stat(spec, s, default) for s in ("agility", "perception", "sanity"))

    def start(self, fight: Rules) -> Hook:
        fight.roll_initiative(fight.present_ids())
        _surprise.settle_surprise(self, fight)
        _surprise.horror(self, fight)
        return
        yield  # pragma: no cover

    # --- rounds and turns ---------------------------------------------------------------------

    def turn_started(self, fight: Rules, who: str) -> Hook:
        """AP resets at the start of one's own turn; cover and Full Defense end; the Surprised
        lose their round-1 turn."""
        fight.remove_condition(who, IN_COVER)
        fight.remove_condition(who, FULL_DEFENSE)
        for name in (
            FREE,
            FULL_ROUND,
            *(Worked(s.name) for s in specials_of(fight.spec(who))),
        ):
            fight.set_counter(who, name, 0)
        fight.set_ap(who, self.turn_ap(fight, who), "turn start")
        if fight.has(who, SURPRISED):
            return "surprised"
        return None
        yield  # pragma: no cover

    def round_ended(self, fight: Rules) -> Hook:
        """Surprise lasts round 1 only ("Surprised characters cannot act in the first round");
        Shaken lasts until the end of round ``shaken_rounds``."""
        for who in fight.state.order:
            fight.remove_condition(who, SURPRISED)
            if fight.state.round >= self.options.shaken_rounds:
                fight.remove_condition(who, SHAKEN)
        return
        yield  # pragma: no cover

    def turn_over(self, fight: Rules, who: str) -> str | None:
        if fight.count(who, FULL_ROUND):
            return "full-round action"
        return None

    # --- actions ------------------------------------------------------------------------------

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if not window.is_turn and not _combat.may_react(fight, who, window):
            return []
        return super().offers(fight, who, window)

    def check(self, fight: Rules, who: str, action: Action, window: Window) -> str | None:
        if not window.is_turn:
            # A reaction is legal exactly when it is offered (each opening offers one at most).
            offered = [o.action for o in self.offers(fight, who, window)]
            if action in offered:
                return None
            kind = window.trigger.kind if window.trigger else "?"
            allowed = ", ".join(type(a).__name__ for a in offered) or "nothing"
            return f"in this opening ({kind}) {who} may take: {allowed}"
        unit = self.unit_of(type(action))
        if unit is not None and action.is_reaction:
            return f"{type(action).__name__} is a reaction, taken with held AP in an opening"
        if fight.count(who, FULL_ROUND):
            # Seed 000: a full-round action means you "forgo all other actions that turn".
            return "a full-round action was taken this turn: nothing else may follow it"
        if unit is None:
            name = type(action).__name__
            return f"{name} is not an action of the thriller ruleset in one's own turn"
        return unit.check(fight, who, action, window)
