"""The ``openings`` ruleset (seed ``003_bddf491e387d04a2.txt``): priority and openings.

From the seed (quoted in the tests that check each rule):

- "Initiative is rolled by using a d12 then adding a character's initiative stat, with the order
  determined by the amounts rolled (high to low). Initiative is rolled before the encounter
  starts." The initiative stat "when not being added to by other modifiers is equal to a
  character's Agility": stat ``initiative`` if given, else ``agility``.
- "A player regains all expended action points at the start of their turn." "All action points
  remaining are retained when a turn ends." "A turn ends when the current turn taker chooses to
  end it."
- Priority: the active player has it in its turn; openings pass it to others, "in order of their
  initiative (highest first)"; "Only actions which are marked as being 'reactions' can be
  performed during an opening"; "Only one action can be performed in any single opening";
  then priority "returns to the current player".
- "there are two primary ways in which an opening is made: ending a turn, and leaving a
  creature's space."
- "Upon the final blows being dealt, with all combatants rendered unable or unwilling to fight,
  that encounter ends." / "Encounters may also end abruptly when combatants flee": a creature
  that moves beyond ``escape_distance`` of every enemy has fled; ``idle_rounds`` rounds in which
  nobody acts end the encounter as "unable or unwilling to fight".

Defaults where the seed is silent (each an option of ``[options]``; see docs/rulesets.md):

- 3 AP when full (``ap``; a combatant's own ``ap`` wins). Attack costs 2 AP (``attack_cost``),
  Move 1 AP up to one's speed (``move_cost``).
- Reactions: Attack (``attack_cost``). A reaction Move is off unless ``reaction_move`` > 0 (the
  metres it may cover).
- Attack test: 1d20 + strength (melee) or agility (ranged) + weapon bonus against
  ``10 + defense`` of the target (``defense_base``); a hit deals the weapon's damage dice less the
  target's armor (at least ``min_damage``).
- A creature's space is its melee reach: a creature that moves from within another's reach to
  outside it leaves that creature's space. The opening resolves before the move, and its only
  legal reaction is an attack on the creature leaving.
- After a turn ends, every other creature gets an opening; its reactions may target any enemy
  in reach.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import (
    Hook,
    Odds,
    Ruleset,
    SearchProfile,
    chance_at_least,
    mean_damage,
    weapon_named,
)
from initiative.events import (
    Action,
    Attack,
    CombatantSpec,
    Trigger,
)

from ._options import OpeningsOptions
from ._units import UNITS, attack_test

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


class Openings(Ruleset):
    name = "openings"
    version = 2
    seed_file = "003_bddf491e387d04a2.txt"
    Options = OpeningsOptions
    stats = frozenset({"agility", "strength", "defense", "initiative"})
    #: The seed gives no scale; a plain one: 0 to 100 (0 when left out).
    stat_ranges = dict.fromkeys(stats, (0, 100))
    initiative_die = 12
    roll_off_die = 12
    options: OpeningsOptions
    units = UNITS
    #: ``search``'s settings here (tuned on seeds of the bundled examples apart from the
    #: benchmark's: docs/policies.md, *Settings per ruleset*), the weights of its learned value
    #: (``benchmarks/train_value.py``: 1000 fights of openings-duel and openings-skirmish, seeds 100,001 on; held-out
    #: log loss 0.456) and a review's default rollouts (docs/review.md, *Cost*).
    search_profile = SearchProfile(
        rollouts=60,
        evaluate="value",
        rounds=0,
        steps=1800,
        value=(5.677552, 1.648237, -0.188595, 0.977277),
        review=96,
    )

    def max_ap(self, c: CombatantSpec) -> int:
        return c.ap if c.ap is not None else self.options.ap

    def initiative_modifier(self, c: CombatantSpec) -> int:
        # "Initiative is a Stat ... which when not being added to by other modifiers is equal
        # to a character's Agility."
        return c.stats.get("initiative", c.stats.get("agility", 0))

    def tie_keys(self, fight: Rules, who: str) -> tuple[int, ...]:
        # The seed breaks no ties; the plain default compares the initiative stat itself.
        return (self.initiative_modifier(fight.spec(who)),)

    def odds(self, fight: Rules, who: str, action: Action) -> Odds | None:
        """An attack's chance: ``1d20 + bonus`` reaching the target's defence; a hit's damage:
        the weapon's dice less the target's armour, at least ``min_damage``."""
        if not isinstance(action, Attack) or action.target not in fight.state.combatants:
            return None
        weapon = weapon_named(fight, who, action.weapon)
        if weapon is None:
            return None
        bonus, against = attack_test(fight, who, action.target, weapon)
        armor = fight.spec(action.target).armor
        return Odds(
            hit=chance_at_least("1d20", against - bonus),
            damage=mean_damage(weapon.damage, less=armor, least=fight.options.min_damage),
        )

    def idle_end(self, fight: Rules, rounds: int) -> str:
        """Seed 003: "Upon the final blows being dealt, with all combatants rendered unable or
        unwilling to fight, that encounter ends." Nobody acting for ``idle_rounds`` rounds is
        what "unable or unwilling" looks like to the engine."""
        return f"everyone left is unable or unwilling to fight (nobody acted for {rounds} rounds)"

    def turn_ended(self, fight: Rules, who: str) -> Hook:
        if not self.options.turn_end_openings or fight.decided():
            return
        # Only those with the AP for a reaction can have one (see ``offers``): a cheap test
        # first, so a turn's end among hundreds does not ask everyone for offers.
        o = self.options
        least = min(o.attack_cost, o.move_cost) if o.reaction_move > 0 else o.attack_cost
        # Those in the initiative order with the AP, asked of the state's AP index rather
        # than of everyone (this runs at every turn's end); the opening puts them in order.
        rank = fight.state.rank
        others = [c for c in fight.state.with_ap(least) if c != who and c in rank]
        trigger = Trigger(kind="turn_ended", by=who, event=fight.cause)
        yield from fight.opening(trigger, others)
