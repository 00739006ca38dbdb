"""Surprise and the horrifying ambush, settled in the ``start`` hook after initiative.

Seed 000: "To determine this, the GM may call for a Perception or Insight check opposed by the
attacker's Stealth. Characters who fail this opposed roll are Surprised and lose their first
turn, able only to defend." "If the ambush is especially horrifying, the GM may also call for a
Sanity Check (Willpower vs. DC). Failure can cause the character to freeze, gaining the Shaken
condition."
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.events import DiceRolled

from ._marks import SHAKEN, SURPRISED
from ._options import resolve_check

if TYPE_CHECKING:
    from initiative.engine.kit import Rules

    from ._ruleset import Thriller

SURPRISED_UNTIL = "end of round 1"


def settle_surprise(R: Thriller, fight: Rules) -> None:
    """Mark the Surprised: as the encounter file says, else by the opposed check in an ambush."""
    ambush = R.options.ambush_by
    tested = []
    for who in fight.state.order:
        given = fight.spec(who).surprised
        if given is not None:
            if given:
                fight.add_condition(who, SURPRISED, until=SURPRISED_UNTIL)
        elif ambush is not None and fight.get(who).side != ambush:
            tested.append(who)
    if not tested:
        return
    stealth = _stealth_rolls(fight, ambush)
    if not stealth:
        return
    # The clumsiest ambusher gives the ambush away: a defender who notices anyone is not
    # surprised, so each check is opposed by the lowest Stealth result (first in order on a tie).
    lowest, against = min(stealth, key=lambda s: s[1])
    for who in tested:
        if _notices(R, fight, who, lowest, against):
            continue
        fight.add_condition(who, SURPRISED, until=SURPRISED_UNTIL)


def _stealth_rolls(fight: Rules, side: str | None) -> list[tuple[str, int]]:
    """Each ambusher's Stealth: 1d20 + its ``stealth`` skill."""
    rolls = []
    for who in fight.state.order:
        if fight.get(who).side == side:
            skill = fight.spec(who).skills.get("stealth", 0)
            rolls.append((who, fight.roll(who, "stealth", f"1d20{skill:+d}").total))
    return rolls


def _notices(R: Thriller, fight: Rules, who: str, ambusher: str, against: int) -> bool:
    """Perception or Insight (the better) + that skill, against the Stealth; ties notice."""
    spec = fight.spec(who)
    name = max(("perception", "insight"), key=lambda s: (R.mod(spec, s), s == "perception"))
    bonus = R.mod(spec, name) + spec.skills.get(name, 0)
    roll: DiceRolled = fight.roll(who, f"{name} against stealth", f"1d20{bonus:+d}")
    check = f"surprise: {name} vs stealth"
    return resolve_check(fight, who, check, roll.total, against, against_who=ambusher)


def horror(R: Thriller, fight: Rules) -> None:
    """A horrifying ambush: each ambushed combatant checks 1d20 + Willpower modifier vs the DC."""
    o = R.options
    if not o.horrifying:
        return
    for who in fight.state.order:
        if o.ambush_by is not None and fight.get(who).side == o.ambush_by:
            continue
        bonus = R.mod(fight.spec(who), "willpower")
        roll = fight.roll(who, "sanity check", f"1d20{bonus:+d}")
        if not resolve_check(fight, who, "sanity (willpower)", roll.total, o.sanity_dc):
            fight.add_condition(who, SHAKEN, until=f"end of round {o.shaken_rounds}")
