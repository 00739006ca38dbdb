"""Movement, the Attack of Opportunity table, and the triggers of delayed turns.

Seed 002: an Attack of Opportunity "Resolves before the triggering action", so every trigger
makes its opening first and the action goes on only if the actor still stands. Melee range
(engagement range) is a creature's longest melee reach. Moving (``Move``) within the turn's base
movement (one's speed) is free; each Dash adds one's speed to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import distance
from initiative.events import Position, Trigger

from ._conditions import reach, sees
from ._marks import (
    DASHES,
    DELAYING,
    DISENGAGED,
    MOVED,
    PRONE,
    UNCONSCIOUS,
    WITHDRAWN,
    DelayOn,
)

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules


def in_melee_range(fight: Rules, who: str, at: Position | None = None) -> list[str]:
    """Enemies (who see ``who``) within whose melee range ``who`` stands (at ``at``)."""
    where = at or fight.get(who).position
    return [
        e.id
        for e in fight.enemies_of(who)
        if distance(where, e.position) <= reach(fight, e.id) + 1e-9 and sees(fight, e.id, who)
    ]


def budget(fight: Rules, who: str) -> float:
    """Metres ``who`` may still move this turn without a Dash."""
    allowed = fight.spec(who).speed * (1 + fight.count(who, DASHES))
    return round(allowed - fight.count(who, MOVED) / 100, 2)


def aoo(
    fight: Rules,
    who: str,
    kind: str,
    candidates: list[str],
    reacted: set[str],
    detail: str = "",
) -> Hook:
    """An Attack of Opportunity opening for ``candidates`` (before the action resolves).

    ``reacted`` holds who has already reacted to the same deed: seed 002, "Only one reaction
    per threat", so they are left out, and those who react here are added.
    """
    if withdrawn(fight, who):
        return
    wanted = [c for c in candidates if c not in reacted]
    if wanted and fight.standing(who):
        trigger = Trigger(kind=kind, by=who, event=fight.cause, detail=detail or None)
        reactions = yield from fight.opening(trigger, wanted)
        reacted.update(r.who for r in reactions)


def withdrawn(fight: Rules, who: str) -> bool:
    """Seed 002 Disengage: "If the character moves out of an enemy's engagement range this
    Turn, no Attacks of Opportunity or other delayed reactions may be taken against them." """
    return fight.has(who, WITHDRAWN)


def delayers(fight: Rules, who: str, kind: str) -> list[str]:
    """Enemies of ``who`` holding a delayed turn that waits for ``kind``."""
    return [
        e.id
        for e in fight.enemies_of(who)
        if fight.has(e.id, DELAYING)
        and fight.has(e.id, DelayOn(kind))
        and not fight.has(e.id, UNCONSCIOUS)
    ]


def delayed(
    fight: Rules, who: str, kinds: dict[str, list[str]], reacted: set[str] | None = None
) -> Hook:
    """Seed 002: "If the conditions are met before the character's next Turn, they may insert
    their delayed Turn as a free reaction." One opening for every delayer whose declared
    trigger (a key of ``kinds``) is met; ``kinds`` maps a trigger to whom it concerns. Those in
    ``reacted`` already reacted to this deed ("Only one reaction per threat")."""
    if withdrawn(fight, who):
        return
    done = reacted if reacted is not None else set()
    wanted: list[str] = []
    met: list[str] = []
    for kind, concerned in kinds.items():
        for d in delayers(fight, who, kind):
            if d in concerned and d not in wanted and d not in done:
                wanted.append(d)
                met.append(kind)
    if wanted and fight.standing(who):
        trigger = Trigger(kind="delayed", by=who, event=fight.cause, detail=",".join(met))
        reactions = yield from fight.opening(trigger, wanted)
        done.update(r.who for r in reactions)


def provoke(fight: Rules, who: str, kind: str, reacted: set[str], detail: str = "") -> Hook:
    """A deed of the AoO table done within melee range: AoO first, then delayed turns."""
    yield from aoo(fight, who, kind, in_melee_range(fight, who), reacted, detail)
    everyone = [e.id for e in fight.enemies_of(who)]
    yield from delayed(fight, who, {kind: everyone}, reacted)


def move(fight: Rules, who: str, to: Position) -> Hook:
    """A voluntary move: standing up first if Prone (provoking), then the AoO triggers
    Retreat (unless Disengaged) and Approach, then delayed turns, then the move.

    A Disengaged character whose move takes it out of an enemy's engagement range has
    withdrawn: from then to the end of its turn nothing (AoO or delayed turn) is taken against
    it. Each creature reacts at most once to the move, whatever windows it opens.
    """
    reacted: set[str] = set()
    if fight.has(who, PRONE):
        # Seed 002 "Standing up: Prone opponent stands within melee range without using Arise".
        yield from aoo(fight, who, "standing_up", in_melee_range(fight, who), reacted)
        if not fight.standing(who):
            return
        fight.remove_condition(who, PRONE)
    start = fight.get(who).position
    engaged = in_melee_range(fight, who)
    before = set(engaged)
    after = set(in_melee_range(fight, who, to))
    disengaged = fight.has(who, DISENGAGED)
    if disengaged and before - after:
        fight.add_condition(who, WITHDRAWN, until="end of turn")
    retreat = [] if disengaged else [e for e in engaged if e not in after]
    approach = [
        e.id
        for e in fight.enemies_of(who)
        if e.id in after and distance(to, e.position) < distance(start, e.position)
    ]
    yield from aoo(fight, who, "retreat", retreat, reacted)
    yield from aoo(fight, who, "approach", [e for e in approach if e not in retreat], reacted)
    enemies = fight.enemies_of(who)
    closer = [e.id for e in enemies if distance(to, e.position) < distance(start, e.position)]
    everyone = [e.id for e in enemies]
    left = [] if disengaged else sorted(before - after)
    yield from delayed(fight, who, {"retreat": left, "approach": closer, "move": everyone}, reacted)
    if fight.standing(who):
        fight.move(who, to)
        spent = round(distance(start, to) * 100)
        fight.set_counter(who, MOVED, fight.count(who, MOVED) + spent)
