"""The ``percentile`` ruleset class: initiative, turns, attacks and reactions."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from initiative.events import (
    Attack,
    AttackResolved,
    CombatantSpec,
    Dodge,
    EncounterFileError,
    EncounterSpec,
    Move,
    Offer,
    Parry,
    Trigger,
    Window,
)

from ..._dice import parse_dice
from ..._rules import Counter
from ..._ruleset import Hook, Ruleset
from .._common import (
    attack_offers,
    check_move,
    check_plain_attack,
    move_offers,
    weapon_named,
)
from ._checks import SKILL_BASE, STATS, percent_test, skill_value
from ._options import CombatantOptions, CombatantOptions as PercentileCombatant, PercentileOptions
from ._surprise import SURPRISED, Surprised, decide_surprise

if TYPE_CHECKING:
    from initiative.events import Action

    from ..._rules import Rules


class Attacks(Counter, frozen=True):
    """Attacks made this turn."""

    name = "percentile.attacks"


class Reactions(Counter, frozen=True):
    """Parries and Dodges made this round."""

    name = "percentile.reactions"


ATTACKS = Attacks()
REACTIONS = Reactions()


class Percentile(Ruleset):
    CombatantOptions = CombatantOptions
    name = "percentile"
    version = 2
    seed_file = "001_269bc9c9643bf2dd.txt"
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
    conditions = (Surprised,)
    counters = (Attacks, Reactions)

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

    # --- offers and checks ----------------------------------------------------------------------

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        o = self.options
        me = fight.get(who)
        if window.is_turn:
            offers: list[Offer] = []
            if me.ap >= o.attack_cost and fight.count(who, ATTACKS) < o.attacks_per_turn:
                offers += attack_offers(fight, who, o.attack_cost)
            if me.ap >= o.move_cost:
                offers += move_offers(fight, who, o.move_cost, fight.spec(who).speed)
            return offers
        reactions: list[Offer] = []
        for action in (Parry(), Dodge()):
            if self._reaction_reason(fight, who, action, window) is None:
                reactions.append(Offer(action=action, cost=0))
        return reactions

    def check(self, fight: Rules, who: str, action: Action, window: Window) -> str | None:
        match action:
            case Attack():
                if not window.is_turn:
                    return "Attack is not a reaction in the percentile ruleset"
                return self._attack_reason(fight, who, action)
            case Move(to=to):
                if not window.is_turn:
                    return "Move is not a reaction in the percentile ruleset"
                return check_move(fight, who, to, fight.spec(who).speed)
            case Parry() | Dodge():
                return self._reaction_reason(fight, who, action, window)
        return f"{type(action).__name__} is not an action of the percentile ruleset"

    def _attack_reason(self, fight: Rules, who: str, action: Attack) -> str | None:
        if fight.count(who, ATTACKS) >= self.options.attacks_per_turn:
            return f"already made {self.options.attacks_per_turn} attack(s) this turn"
        return check_plain_attack(fight, who, action)

    def _reaction_reason(
        self, fight: Rules, who: str, action: Action, window: Window
    ) -> str | None:
        o = self.options
        name = type(action).__name__
        trigger = window.trigger
        if trigger is None or trigger.kind != "attacked" or trigger.target != who:
            return f"{name} is a reaction to an attack on oneself"
        if fight.has(who, SURPRISED):
            return "surprised combatants take no action in round 1"
        if fight.count(who, REACTIONS) >= o.reactions_per_round:
            return f"already made {o.reactions_per_round} Parry or Dodge this round"
        if isinstance(action, Parry):
            if not o.parry:
                return "Parry is turned off in this encounter's options"
            if trigger.detail != "melee":
                return "only a melee attack can be parried"
            if not any(not w.ranged for w in fight.spec(who).weapons):
                return f"{who} has no melee weapon to parry with"
        elif not o.dodge:
            return "Dodge is turned off in this encounter's options"
        return None

    def cost(self, fight: Rules, who: str, action: Action, window: Window) -> int:
        if isinstance(action, Attack):
            return self.options.attack_cost
        if isinstance(action, Move):
            return self.options.move_cost
        return 0

    # --- resolution -----------------------------------------------------------------------------

    def perform(self, fight: Rules, who: str, action: Action, window: Window) -> Hook:
        match action:
            case Attack():
                yield from self.attack(fight, who, action)
                return None
            case Move(to=to):
                fight.move(who, to)
                return None
            case Parry() | Dodge():
                return self.react(fight, who, action)
        return None  # pragma: no cover - check() let nothing else through

    def react(self, fight: Rules, who: str, action: Parry | Dodge) -> bool:
        """A Parry (a Weapon Skill test) or a Dodge (a Dodge skill test); True on success."""
        fight.set_counter(who, REACTIONS, fight.count(who, REACTIONS) + 1)
        spec = fight.spec(who)
        if isinstance(action, Parry):
            return percent_test(fight, who, "Parry", spec.stats.get("weapon_skill", 0)).success
        return percent_test(fight, who, "Dodge", skill_value(spec, "Dodge")).success

    def attack(self, fight: Rules, who: str, action: Attack) -> Hook:
        """A d100 test against Weapon Skill (Ballistic Skill at range); a hit makes an
        ``attacked`` opening for the target, whose Parry or Dodge may turn it aside."""
        weapon = weapon_named(fight, who, action.weapon)
        assert weapon is not None
        target = action.target
        fight.set_counter(who, ATTACKS, fight.count(who, ATTACKS) + 1)
        stat, check = (
            ("ballistic_skill", "Ballistic Skill")
            if weapon.ranged
            else ("weapon_skill", "Weapon Skill")
        )
        value = fight.spec(who).stats.get(stat, 0) + weapon.bonus
        test = percent_test(
            fight, who, check, value, purpose=f"attack on {target}", against_who=target
        )
        averted = ""
        if test.success:
            trigger = Trigger(
                kind="attacked",
                by=who,
                target=target,
                event=fight.cause,
                detail="ranged" if weapon.ranged else "melee",
            )
            reactions = yield from fight.opening(trigger, [target])
            for r in reactions:
                if r.result:
                    averted = "parried" if isinstance(r.action, Parry) else "dodged"
        hit = test.success and not averted
        detail = f"{weapon.name}; {averted} by {target}" if averted else weapon.name
        fight.emit(
            AttackResolved(
                who=who, target=target, hit=hit, roll=test.roll, against=value, detail=detail
            )
        )
        if hit:
            self.deal_damage(fight, who, target, weapon.damage, melee=not weapon.ranged)

    def deal_damage(self, fight: Rules, who: str, target: str, dice: str, *, melee: bool) -> None:
        """Weapon dice (+ strength bonus in melee) - toughness bonus - armor (defaults)."""
        o = self.options
        rolled = fight.roll(who, f"damage to {target}", dice).total
        if melee and o.strength_bonus:
            rolled += fight.spec(who).stats.get("strength", 0) // 10
        reduction = fight.spec(target).armor
        if o.toughness_bonus:
            reduction += fight.spec(target).stats.get("toughness", 0) // 10
        fight.damage(target, max(o.min_damage, rolled - reduction), source=who)
