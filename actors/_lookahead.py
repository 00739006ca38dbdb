"""``lookahead``: a policy that tries each candidate decision on a fork of the fight.

For each legal action it asks the view for a fork (:attr:`engine.View.fork`), a private copy
of the fight positioned at this very decision, takes the action there, and plays on with a
cheap policy (:func:`~actors.aggressive` for everyone) for a few decisions. Each copy rolls dice
from a fresh stream seeded from the policy's own random stream, so the look-ahead never sees
the real fight's dice; every candidate is tried against the same dice samples (common random
numbers), which makes the comparison fair and the choice deterministic for a seed. The action
whose copies end with the best hit-point balance for its side is chosen.

Nothing done to a fork reaches the real fight: it is a separate :class:`engine.Fight` with its
own state, dice counter and events, and no log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import EncounterState, Rng, View
from events import Action, Offer

from ._policies import PolicyContext, aggressive


def hp_balance(state: EncounterState, side: str) -> float:
    """The score of a position for ``side``: its share of hit points left minus the enemies',
    plus 10 for a won fight and minus 10 for a lost one."""
    score = 0.0
    for c in state.combatants.values():
        share = max(c.hp, 0) / c.max_hp if c.max_hp > 0 else 0.0
        score += share if c.side == side else -share
    if state.ended and state.winner is not None:
        score += 10.0 if state.winner == side else -10.0
    return score


class Lookahead:
    """Try every candidate on ``samples`` forks, play ``horizon`` decisions on, keep the best."""

    def __init__(
        self,
        ctx: PolicyContext | None = None,
        *,
        samples: int = 2,
        horizon: int = 24,
        rollout: Callable[[View], Action] = aggressive,
    ) -> None:
        self.rng = ctx.rng if ctx is not None else Rng(0, "policy/lookahead")
        self.samples = samples
        self.horizon = horizon
        self.rollout = rollout
        self.forks = 0
        """How many forks it has made (for tests and curiosity)."""

    def decide(self, view: View) -> Action:
        if view.fork is None or len(view.legal) == 1:
            return self.rollout(view)
        dice = [self.rng.next64() for _ in range(self.samples)]
        best: tuple[float, int] | None = None
        for index, offer in enumerate(view.legal):
            score = sum(self._try(view, offer, d) for d in dice)
            if best is None or score > best[0] + 1e-9:
                best = (score, index)
        assert best is not None
        return view.legal[best[1]].action

    def _try(self, view: View, offer: Offer, dice: int) -> float:
        assert view.fork is not None
        branch: Any = view.fork(dice=dice)
        self.forks += 1
        branch.send(offer.action)
        branch.play(self.rollout, limit=self.horizon)
        return hp_balance(branch.state, view.me.side)
