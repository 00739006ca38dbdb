"""Move and Dash: one unit each. Moving itself (the base movement, the AoO triggers a move
makes) is in ``_movement``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import MoveUnit, Say, approach, away, check_move, distance
from initiative.events import Action, Move, Offer, Window

from ._actions import Dash
from ._conditions import reach
from ._marks import DASHES
from ._movement import budget, move
from ._unit import TacticalUnit, legal, nearest_enemy

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules


def _toward(fight: Rules, who: str) -> tuple[str, float, float] | None:
    """The nearest enemy seen, how far it is, and where to stop short of it."""
    nearest = nearest_enemy(fight, who)
    if nearest is None:
        return None
    gap = distance(fight.get(who).position, fight.get(nearest).position)
    return nearest, gap, max(0.5, reach(fight, who) - 0.25)


class Moving(TacticalUnit[Move], MoveUnit):
    """Move within the turn's base movement (free): toward the nearest enemy (stopping in
    reach) and away from it."""

    kind = "move"
    free = True
    needs_moving = True
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        left = budget(fight, who)
        found = _toward(fight, who) if left >= 0.5 else None
        if found is None:
            return []
        nearest, gap, stop = found
        here, there = fight.get(who).position, fight.get(nearest).position
        wanted: list[Action] = []
        if gap > reach(fight, who):
            wanted.append(Move(to=approach(here, there, left, stop)))
        wanted.append(Move(to=away(here, there, left)))
        return legal(fight, who, window, wanted)

    def check(self, fight: Rules, who: str, action: Move, window: Window) -> str | None:
        return check_move(fight, who, action.to, budget(fight, who))

    def perform(self, fight: Rules, who: str, action: Move, window: Window) -> Hook:
        return move(fight, who, action.to)


class Dashing(TacticalUnit[Dash]):
    """Seed 002 Dash: move again, up to one's speed (offered when the base movement is spent)."""

    action = Dash
    kind = "secondary"
    needs_moving = True
    moving = True
    to_point = True
    when = ("turn",)

    def aimed_reach(self, offered: float, speed: float) -> float:
        # Offered toward the nearest enemy only; a Dash adds one's speed to what is left.
        return max(offered, speed)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        found = _toward(fight, who) if budget(fight, who) < 0.5 else None
        if found is None:
            return []
        nearest, gap, stop = found
        if gap <= reach(fight, who):
            return []
        here, there = fight.get(who).position, fight.get(nearest).position
        speed = fight.spec(who).speed
        return legal(fight, who, window, [Dash(to=approach(here, there, speed, stop))])

    def check(self, fight: Rules, who: str, action: Dash, window: Window) -> str | None:
        extra = budget(fight, who) if window.is_turn else 0.0
        return check_move(fight, who, action.to, fight.spec(who).speed + extra)

    def perform(self, fight: Rules, who: str, action: Dash, window: Window) -> Hook:
        if window.is_turn:
            fight.set_counter(who, DASHES, fight.count(who, DASHES) + 1)
        return (yield from move(fight, who, action.to))

    def told(self, action: Dash, say: Say) -> str:
        return "dashes"
