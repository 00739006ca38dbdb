"""Surprise (seed 001): "Surprise only affects the first round of a combat."

"It is up to the GM to decide if any of the combatants are surprised." The GM decides in the
encounter file: ``surprised = true`` (or ``false``) on a combatant is used as given. Otherwise
surprise comes from the tests the file asks for:

- "Successful use of the Concealment skill before the combat may mean that some characters are
  hidden." / "Successful use of the Silent Move skill may have positioned some characters for an
  ambush." A combatant with ``options = { sneak = "Concealment" }`` (or ``"Silent Move"``) tests
  that skill, plus its ``sneak_modifier`` and the encounter's ``circumstance_modifier``.
- "Extremely wary opponents may oppose this with a Perception Test." A combatant with
  ``options = { wary = true }`` makes an opposed Perception test (plus its
  ``perception_modifier``, negative for a distraction) against each sneaking enemy in turn; it
  notices that enemy when its margin beats the sneaker's (default; ties go to the sneaker).

Default where the seed is silent: a combatant is surprised when every enemy present at the start
sneaks, and it notices none of them (a failed sneak test is noticed without a roll).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import CheckResolved, CombatantSpec

from ._checks import Test, percent_test, skill_value
from ._marks import SURPRISED

if TYPE_CHECKING:
    from initiative.engine.kit import Rules

    from ._ruleset import Percentile


UNTIL = "end of round 1"


def decide_surprise(fight: Rules, rules: Percentile) -> None:
    """Before round 1: mark the surprised, as given or from the tests the file asks for."""
    present = [fight.spec(cid) for cid in fight.present_ids()]
    for c in present:
        if c.surprised:
            fight.add_condition(c.id, SURPRISED, UNTIL)
    sneakers = [c for c in present if rules.combatant_options(c).sneak]
    if not sneakers:
        return
    sneaks = {c.id: _sneak_test(fight, rules, c) for c in sneakers}
    for observer in present:
        if observer.surprised is not None:
            continue
        enemies = [c for c in present if c.side != observer.side]
        if not enemies or any(c.id not in sneaks for c in enemies):
            continue
        unnoticed = True
        last = None
        for enemy in enemies:
            sneak = sneaks[enemy.id]
            if not sneak.success:
                unnoticed, last = False, None
                break
            last = sneak.seq
            if rules.combatant_options(observer).wary:
                noticed, last = _perception(fight, rules, observer, enemy.id, sneak)
                if noticed:
                    unnoticed = False
                    break
        if unnoticed:
            with fight.caused_by(last):
                fight.add_condition(observer.id, SURPRISED, UNTIL)


def _sneak_test(fight: Rules, rules: Percentile, c: CombatantSpec) -> Test:
    opts = rules.combatant_options(c)
    assert opts.sneak is not None
    target = skill_value(c, opts.sneak) + opts.sneak_modifier
    target += rules.options.circumstance_modifier
    return percent_test(fight, c.id, opts.sneak, target, purpose=f"{opts.sneak} before the combat")


def _perception(
    fight: Rules, rules: Percentile, observer: CombatantSpec, sneaker: str, sneak: Test
) -> tuple[bool, int]:
    """An opposed Perception test: noticed when the observer's margin beats the sneaker's.

    Recorded as ``CheckResolved`` with ``margin`` = own margin minus the sneaker's, so
    ``success`` is exactly ``margin > 0``. Returns (noticed, seq of that event).
    """
    target = (
        skill_value(observer, "Perception") + rules.combatant_options(observer).perception_modifier
    )
    roll = fight.roll(observer.id, f"Perception against {sneaker}", "1d100").total
    own = target - roll
    margin = own - sneak.margin  # the sneak succeeded, so its margin is at least 0
    seq = fight.emit(
        CheckResolved(
            who=observer.id,
            check="Perception",
            success=margin > 0,
            roll=roll,
            against=target,
            margin=margin,
            against_who=sneaker,
        )
    )
    return margin > 0, seq
