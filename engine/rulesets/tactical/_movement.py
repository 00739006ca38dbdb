"""Movement, the Attack of Opportunity table, and the triggers of delayed turns.

Seed 002: an Attack of Opportunity "Resolves before the triggering action", so every trigger
makes its opening first and the action goes on only if the actor still stands. Melee range
(engagement range) is a creature's longest melee reach. Moving (``Move``) within the turn's base
movement (one's speed) is free; each Dash adds one's speed to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from events import Position, Trigger

from ..._geometry import distance
from ._conditions import DASHES, MOVED, reach, sees

if TYPE_CHECKING:
    from ..._fight import Fight
    from ..._ruleset import Hook


def in_melee_range(fight: Fight, who: str, at: Position | None = None) -> list[str]:
    """Enemies (who see ``who``) within whose melee range ``who`` stands (at ``at``)."""
    where = at or fight.get(who).position
    return [
        e.id
        for e in fight.enemies_of(who)
        if distance(where, e.position) <= reach(fight, e.id) + 1e-9 and sees(fight, e.id, who)
    ]


def budget(fight: Fight, who: str) -> float:
    """Metres ``who`` may still move this turn without a Dash."""
    me = fight.get(who)
    allowed = fight.spec(who).speed * (1 + me.count(DASHES))
    return round(allowed - me.count(MOVED) / 100, 2)


def aoo(fight: Fight, who: str, kind: str, candidates: list[str], detail: str = "") -> Hook:
    """An Attack of Opportunity opening for ``candidates`` (before the action resolves)."""
    if candidates and fight.standing(who):
        trigger = Trigger(kind=kind, by=who, event=fight.cause, detail=detail or None)
        yield from fight.opening(trigger, candidates)


def delayers(fight: Fight, who: str, kind: str) -> list[str]:
    """Enemies of ``who`` holding a delayed turn that waits for ``kind``."""
    return [
        e.id
        for e in fight.enemies_of(who)
        if e.has("delaying") and e.has(f"delay_on:{kind}") and not e.has("unconscious")
    ]


def delayed(fight: Fight, who: str, kinds: dict[str, list[str]]) -> Hook:
    """Seed 002: "If the conditions are met before the character's next Turn, they may insert
    their delayed Turn as a free reaction." One opening for every delayer whose declared
    trigger (a key of ``kinds``) is met; ``kinds`` maps a trigger to whom it concerns."""
    wanted: list[str] = []
    met: list[str] = []
    for kind, concerned in kinds.items():
        for d in delayers(fight, who, kind):
            if d in concerned and d not in wanted:
                wanted.append(d)
                met.append(kind)
    if wanted and fight.standing(who):
        trigger = Trigger(kind="delayed", by=who, event=fight.cause, detail=",".join(met))
        yield from fight.opening(trigger, wanted)


def provoke(fight: Fight, who: str, kind: str, detail: str = "") -> Hook:
    """A deed of the AoO table done within melee range: AoO first, then delayed turns."""
    yield from aoo(fight, who, kind, in_melee_range(fight, who), detail)
    everyone = [e.id for e in fight.enemies_of(who)]
    yield from delayed(fight, who, {kind: everyone})


def move(fight: Fight, who: str, to: Position) -> Hook:
    """A voluntary move: standing up first if Prone (provoking), then the AoO triggers
    Retreat (unless Disengaged) and Approach, then delayed turns, then the move."""
    if fight.get(who).has("prone"):
        # Seed 002 "Standing up: Prone opponent stands within melee range without using Arise".
        yield from aoo(fight, who, "standing_up", in_melee_range(fight, who))
        if not fight.standing(who):
            return
        fight.remove_condition(who, "prone")
    start = fight.get(who).position
    before = set(in_melee_range(fight, who))
    after = set(in_melee_range(fight, who, to))
    disengaged = fight.get(who).has("disengaged")
    retreat = [] if disengaged else [e for e in in_melee_range(fight, who) if e not in after]
    approach = [
        e.id
        for e in fight.enemies_of(who)
        if e.id in after and distance(to, e.position) < distance(start, e.position)
    ]
    yield from aoo(fight, who, "retreat", retreat)
    yield from aoo(fight, who, "approach", [e for e in approach if e not in retreat])
    closer = [
        e.id
        for e in fight.enemies_of(who)
        if distance(to, e.position) < distance(start, e.position)
    ]
    everyone = [e.id for e in fight.enemies_of(who)]
    left = [] if disengaged else sorted(before - after)
    yield from delayed(fight, who, {"retreat": left, "approach": closer, "move": everyone})
    if fight.standing(who):
        fight.move(who, to)
        spent = round(distance(start, to) * 100)
        fight.set_counter(who, MOVED, fight.get(who).count(MOVED) + spent)
