"""Attack, Attack of Opportunity and Cast Magic: one unit each, with its offers, check, cost,
performance and words. The test, the target's opening and the blow's landing they share are
in ``_attacks``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import AttackUnit, Say, check_target, out_of_reach, reaches
from initiative.events import Action, Attack, AttackResolved, Offer, Window

from ._actions import CastMagic, OpportunityAttack
from ._attacks import attack_modifier, spell_effects, spell_of, strike, weapon_of
from ._conditions import (
    count_attack,
    helpless,
    loaded,
    may_attack,
    melee_weapons,
    reveal,
    sees,
    usable_weapons,
)
from ._marks import AIM, Feinted, Reload
from ._movement import delayed, provoke
from ._options import AOO_TRIGGERS, LOCATIONS, combatant_options, spells_of
from ._percentile import test
from ._unit import TacticalUnit, affordable, legal, nearest_enemy

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules


class Attacking(TacticalUnit[Attack], AttackUnit):
    """Seed 002 Attack, with All Out Attack (2 AP), Precision Strike and Coup de Grâce."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        """For each enemy, an Attack with the first weapon in hand the ruleset accepts."""
        if may_attack(fight, who) is not None:
            return []  # (every Attack's check would refuse it)
        accepted: list[Action] = []
        check = fight.ruleset.check
        held = usable_weapons(fight, who)
        for enemy in fight.enemies_of(who):
            for w in held:
                action = Attack(target=enemy.id, weapon=w.name)
                if check(fight, who, action, window) is None:
                    accepted.append(action)
                    break
        return affordable(fight, who, window, accepted)

    def check(self, fight: Rules, who: str, action: Attack, window: Window) -> str | None:
        if action.variant not in (None, "all_out", "precision", "coup_de_grace"):
            return f"unknown attack variant {action.variant!r} (all_out, precision, coup_de_grace)"
        if action.location is not None and action.variant != "precision":
            return "only a Precision Strike chooses the hit location"
        if action.location is not None and action.location not in LOCATIONS:
            return (
                f"unknown hit location {action.location!r} (known: {', '.join(sorted(LOCATIONS))})"
            )
        if reason := check_target(fight, who, action.target) or may_attack(fight, who):
            return reason
        weapon = weapon_of(fight, who, action.weapon)
        if weapon is None:
            return f"{who} holds no weapon named {action.weapon!r}"
        if reason := out_of_reach(fight, who, action.target, weapon):
            return reason
        if weapon.ranged and not loaded(fight, who, weapon):
            return f"the {weapon.name} must be reloaded first (Ready Weapon)"
        if action.variant == "all_out" and weapon.ranged:
            return "All Out Attack is melee only"
        if action.variant == "coup_de_grace":
            if not helpless(fight, action.target):
                return f"{action.target} is not helpless (unconscious, or restrained and prone)"
            if combatant_options(fight.spec(action.target)).coup_de_grace_immune:
                return f"{action.target} is immune to Coup de Grace"
        return None

    def cost(self, fight: Rules, who: str, action: Attack, window: Window) -> int:
        return 2 if action.variant == "all_out" else 1

    def keeps_aim(self, fight: Rules, who: str, action: Attack) -> bool:
        weapon = weapon_of(fight, who, action.weapon)
        return weapon is not None and weapon.ranged

    def perform(self, fight: Rules, who: str, action: Attack, window: Window) -> Hook:
        """Seed 002 Attack, with All Out Attack, Precision Strike and Coup de Grâce."""
        weapon = weapon_of(fight, who, action.weapon)
        assert weapon is not None
        target = action.target
        count_attack(fight, who)
        # Seed 002: "Only one reaction per threat": whoever reacts to this attack in one window
        # (an AoO, a delayed turn) is not offered another (an Evade) for the same attack.
        reacted: set[str] = set()
        if weapon.ranged:
            yield from provoke(fight, who, "ranged_attack", reacted, weapon.name)
        yield from delayed(fight, who, {"attack": [e.id for e in fight.enemies_of(who)]}, reacted)
        if not (fight.standing(who) and fight.standing(target)):
            return None
        if not reaches(weapon, fight.dist(who, target)):
            # A delayed turn taken first may have carried the target out of reach.
            fight.emit(
                AttackResolved(
                    who=who,
                    target=target,
                    hit=False,
                    roll=0,
                    against=0,
                    detail=f"{target} moved out of the {weapon.name}'s reach",
                )
            )
            return None
        if action.variant == "coup_de_grace":
            fight.emit(
                AttackResolved(
                    who=who, target=target, hit=True, roll=0, against=0, detail="coup de grace"
                )
            )
            fight.defeat(target, "coup de grace")
            reveal(fight, who)
            return None
        modifier = attack_modifier(fight, who, weapon, action.variant)
        if weapon.ranged:
            fight.set_counter(who, AIM, 0)
            if weapon.reload:
                fight.set_counter(who, Reload(weapon.name), weapon.reload)
        feinted = not weapon.ranged and fight.has(who, Feinted(target))
        if feinted:
            fight.remove_condition(who, Feinted(target))
        unseen = feinted or not sees(fight, target, who)
        kind = "area" if weapon.area > 0 else "ranged" if weapon.ranged else "melee"
        # One reaction per threat: a target that already reacted to this attack gets no opening.
        unseen = unseen or target in reacted
        yield from strike(
            fight, who, target, weapon, modifier, kind, action.location, unseen, reacted
        )
        reveal(fight, who)
        return None


class Opportunity(TacticalUnit[OpportunityAttack]):
    """Seed 002 Attack of Opportunity: a melee attack on whoever made a trigger of the table."""

    action = OpportunityAttack
    kind = "reaction"
    when = ("opening",)
    answers = AOO_TRIGGERS

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        t = window.trigger
        if t is None or t.kind not in AOO_TRIGGERS or t.by is None:
            return []
        return legal(fight, who, window, [OpportunityAttack(target=t.by)])

    def check(
        self, fight: Rules, who: str, action: OpportunityAttack, window: Window
    ) -> str | None:
        t = window.trigger
        if t is None or t.kind not in AOO_TRIGGERS:
            return "an Attack of Opportunity needs a trigger of the AoO table"
        if action.target != t.by:
            return f"this opening is made by {t.by}"
        if not any(action.weapon in (None, w.name) for w in melee_weapons(fight, who)):
            return f"{who} holds no melee weapon named {action.weapon!r}"
        return may_attack(fight, who)

    def perform(self, fight: Rules, who: str, action: OpportunityAttack, window: Window) -> Hook:
        """Seed 002: "Make a melee attack against an opponent who presents an opening." """
        weapon = next(w for w in melee_weapons(fight, who) if action.weapon in (None, w.name))
        count_attack(fight, who)
        unseen = not sees(fight, action.target, who)
        yield from strike(fight, who, action.target, weapon, weapon.bonus, "melee", None, unseen)
        reveal(fight, who)
        return None

    def offered(self, action: OpportunityAttack, say: Say) -> str:
        return (
            f"Strike {say.name(action.target)} at the opening, with the {say.weapon(action.weapon)}"
        )

    def told(self, action: OpportunityAttack, say: Say) -> str:
        return self._deed("attacks", action, say)

    def told_resolved(self, action: OpportunityAttack, say: Say, *, hit: bool) -> str:
        return self._deed("hits" if hit else "misses", action, say)

    def _deed(self, verb: str, action: OpportunityAttack, say: Say) -> str:
        target, weapon = say.name(action.target), say.weapon(action.weapon)
        return f"{verb} {target} with the {weapon} as they move away"


class Casting(TacticalUnit[CastMagic]):
    """Seed 002 Cast Magic: a Magic skill test; the spell's AP; an instant spell is a
    secondary action, any other a primary one."""

    action = CastMagic
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        spell = next((s for s in spells_of(fight.spec(who)) if s.damage), None)
        nearest = nearest_enemy(fight, who) if spell is not None else None
        if spell is None or nearest is None:
            return []
        wanted = [CastMagic(spell=spell.name, target=nearest)]
        return legal(fight, who, window, wanted)

    def action_class(self, fight: Rules, who: str, action: CastMagic) -> str:
        spell = spell_of(fight, who, action.spell)
        return "secondary" if spell is not None and spell.instant else "primary"

    def check(self, fight: Rules, who: str, action: CastMagic, window: Window) -> str | None:
        spell = spell_of(fight, who, action.spell)
        if spell is None:
            return f"{who} knows no spell named {action.spell!r}"
        target = action.target or who
        if target not in fight.state.combatants or not fight.standing(target):
            return f"no standing combatant {target!r} to cast at"
        if target != who and not fight.ruleset.can_see(fight, who, target):
            return f"cannot see {target}"
        if spell.damage and (reason := check_target(fight, who, target) or may_attack(fight, who)):
            return reason
        gap = fight.dist(who, target)
        if gap > spell.range + 1e-9:
            return f"{target} is {gap:g} m away, out of {spell.name}'s range ({spell.range:g} m)"
        return None

    def cost(self, fight: Rules, who: str, action: CastMagic, window: Window) -> int:
        spell = spell_of(fight, who, action.spell)
        return max(1, spell.ap if spell else 1)

    def keeps_aim(self, fight: Rules, who: str, action: CastMagic) -> bool:
        spell = spell_of(fight, who, action.spell)
        return spell is not None and spell.bolt

    def perform(self, fight: Rules, who: str, action: CastMagic, window: Window) -> Hook:
        """Seed 002 Cast Magic: a Magic skill test; a damaging spell "Counts as an attack"."""
        spell = spell_of(fight, who, action.spell)
        assert spell is not None
        target = action.target or who
        if spell.damage:
            count_attack(fight, who)
        reacted: set[str] = set()
        if not spell.melee:
            # "Opponent casts a spell within melee range (unless it counts as a melee attack)".
            yield from provoke(fight, who, "spellcast", reacted, spell.name)
        if spell.damage:
            yield from delayed(
                fight, who, {"attack": [e.id for e in fight.enemies_of(who)]}, reacted
            )
        if not (fight.standing(who) and fight.standing(target)):
            return None
        modifier = 0
        if spell.bolt:
            modifier = fight.options.aim_bonus * fight.count(who, AIM)
            fight.set_counter(who, AIM, 0)
        t = test(fight, who, "magic", f"cast {spell.name}", modifier, against_who=target)
        if target != who and fight.get(target).side != fight.get(who).side:
            reveal(fight, who)
        if t.success:
            yield from spell_effects(fight, who, target, spell, t.dos, reacted)
        return None

    def told(self, action: CastMagic, say: Say) -> str:
        at = f" at {say.name(action.target)}" if action.target else ""
        return f"casts {action.spell}{at}"
