"""What every unit of the tactical ruleset shares: :class:`TacticalUnit` (an action's class and
the rules the class brings), offers checked as the scheduler checks them (:func:`legal`), and
the reasons several actions' checks give (out of range, larger than oneself).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, TypeVar

from initiative.engine.kit import ActionUnit, distance
from initiative.events import Action, Offer, Window

from ._conditions import sees

if TYPE_CHECKING:
    from initiative.engine.kit import Rules


A = TypeVar("A", bound=Action)


def legal(fight: Rules, who: str, window: Window, wanted: Sequence[Action]) -> list[Offer]:
    """The offers of ``wanted`` that the ruleset accepts and ``who`` can pay for."""
    check = fight.ruleset.check
    accepted = [a for a in wanted if check(fight, who, a, window) is None]
    return affordable(fight, who, window, accepted)


def affordable(fight: Rules, who: str, window: Window, accepted: Sequence[Action]) -> list[Offer]:
    """The offers of ``accepted`` that ``who`` can pay for: actions the ruleset's check has
    just passed (a check changes nothing, so checking them again would say the same)."""
    cost_of = fight.ruleset.cost
    ap = fight.get(who).ap
    out = []
    for action in accepted:
        cost = cost_of(fight, who, action, window)
        if cost <= ap:
            out.append(Offer(action=action, cost=cost))
    return out


def nearest_enemy(fight: Rules, who: str) -> str | None:
    """The nearest enemy ``who`` sees (ties by id)."""
    me = fight.get(who).position
    seen = [e for e in fight.enemies_of(who) if sees(fight, who, e.id)]
    best = min(seen, key=lambda e: (distance(me, e.position), e.id), default=None)
    return best.id if best else None


def within(fight: Rules, who: str, target: str, metres: float) -> str | None:
    gap = fight.dist(who, target)
    return None if gap <= metres + 1e-9 else f"{target} is {gap:g} m away (needs {metres:g} m)"


def close(fight: Rules, who: str, target: str) -> str | None:
    return within(fight, who, target, fight.options.special_range)


def not_larger(fight: Rules, who: str, target: str) -> str | None:
    if fight.spec(target).size > fight.spec(who).size:
        return f"{target} (size {fight.spec(target).size}) is larger than {who}"
    return None


class TacticalUnit(ActionUnit[A]):
    """An action of the tactical ruleset: its class, and the rules the class brings."""

    kind: ClassVar[str] = "primary"
    """``primary``, ``secondary``, ``reaction`` or ``move`` (seed 002's action classes)."""
    free: ClassVar[bool] = False
    """It costs no AP (moving within one's base movement, Delay Turn, a delayed turn)."""
    needs_moving: ClassVar[bool] = False
    """The Restrained cannot take it."""

    def action_class(self, fight: Rules, who: str, action: A) -> str:
        """Its class for this combatant now (Cast Magic's depends on the spell)."""
        return self.kind

    def keeps_aim(self, fight: Rules, who: str, action: A) -> bool:
        """Seed 002 Aim: the chain survives only "continuing to aim or firing the aimed
        weapon/spell" (firing resets it)."""
        return False

    def check(self, fight: Rules, who: str, action: A, window: Window) -> str | None:
        return None
