"""``lookahead``: a policy that tries each candidate decision on a fork of the fight.

For each legal action it asks the view for a fork (:attr:`engine.View.fork`), a private copy
of the fight positioned at this very decision, takes the action there, and plays on with a
cheap policy (:func:`~actors.aggressive` for everyone) to the end of the next round. Each copy rolls dice
from a fresh stream seeded from the policy's own random stream, so the look-ahead never sees
the real fight's dice; every candidate is tried against the same dice samples (common random
numbers), which makes the comparison fair and the choice deterministic for a seed. The action
whose copies end with the best hit-point balance for its side is chosen.

Nothing done to a fork reaches the real fight: it is a separate :class:`engine.Fight` with its
own state, dice counter and events, and no log.
"""

from __future__ import annotations

from collections.abc import Callable

from initiative.engine import Branch, EncounterState, LiveState, Rng, View
from initiative.events import Action, Offer

from ._context import PolicyContext
from ._policies import aggressive


def hp_balance(state: EncounterState | LiveState, side: str) -> float:
    """The score of a position for ``side``: its share of hit points left minus the enemies',
    plus one for a won fight and minus one for a lost one."""
    score = 0.0
    for c in state.combatants.values():
        share = max(c.hp, 0) / c.max_hp if c.max_hp > 0 else 0.0
        score += share if c.side == side else -share
    if state.ended and state.winner is not None:
        score += 1.0 if state.winner == side else -1.0
    return score


class Lookahead:
    """Try every candidate on ``samples`` forks, play on to the end of round ``rounds`` after
    this one (at most ``horizon`` decisions), keep the best; keep ``rollout``'s own choice
    unless another scores ``margin`` better."""

    def __init__(
        self,
        ctx: PolicyContext | None = None,
        *,
        samples: int = 3,
        horizon: int = 200,
        rollout: Callable[[View], Action] = aggressive,
        margin: float = 0.2,
        rounds: int = 1,
    ) -> None:
        self.rng = ctx.rng if ctx is not None else Rng(0, "policy/lookahead")
        self.samples = samples
        self.horizon = horizon
        self.rollout = rollout
        self.margin = margin
        self.rounds = rounds
        self.forks = 0
        """How many forks it has made (for tests and curiosity)."""

    def decide(self, view: View) -> Action:
        if view.fork is None or len(view.legal) == 1:
            return self.rollout(view)
        dice = [self.rng.next64() for _ in range(self.samples)]
        default = self.rollout(view)
        scores = [sum(self._try(view, offer, d) for d in dice) / len(dice) for offer in view.legal]
        actions = [o.action for o in view.legal]
        base = scores[actions.index(default)] if default in actions else float("-inf")
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        # Leave the rollout policy's own choice only for one that is clearly better.
        if scores[best] > base + self.margin:
            return actions[best]
        return default

    def _try(self, view: View, offer: Offer, dice: int) -> float:
        assert view.fork is not None
        branch: Branch = view.fork(dice=dice)
        self.forks += 1
        branch.send(offer.action)
        # The horizon is game time (the end of the next round), not a count of decisions: a
        # candidate that makes many decisions (openings) must not look better for letting
        # less of the fight happen.
        branch.play(self.rollout, limit=self.horizon, through=view.round + self.rounds)
        return hp_balance(branch.state, view.me.side)
