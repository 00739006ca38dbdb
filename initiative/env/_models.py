"""From a trained model back to a policy that plays wherever a policy does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from initiative.actors import PolicyContext
from initiative.engine import Decision, View
from initiative.events import Action

from ._encoder import Encoder

Model = Callable[[np.ndarray, np.ndarray], Any]
"""A trained model as a policy sees it: ``model(observation, action_mask) -> action index``
(anything ``int()`` takes: a Python or numpy integer, a 0-d array)."""


def model_policy(model: Model, *, max_offers: int = 32, max_combatants: int | None = None) -> type:
    """A policy class from a trained model, ``model(observation, action_mask) -> index``.

    The class is what :func:`initiative.run`, :func:`initiative.step`'s callers, ``batch``,
    ``duel`` and ``--policy ID=file.py:NAME`` take: each combatant gets an instance that encodes
    its view as the environments do (with the same ``max_offers`` and ``max_combatants``) and
    sends the offer the index stands for; an index outside the mask is a recorded invalid decision.
    """
    name = str(getattr(model, "__name__", None) or type(model).__name__)

    class ModelPolicy:
        def __init__(self, ctx: PolicyContext) -> None:
            self.encoder = Encoder(ctx.encounter, max_offers, max_combatants=max_combatants)

        def decide(self, view: View) -> Action | Decision:
            observation, mask = self.encoder(view)
            return self.encoder.action(view, int(model(observation, mask)))

    ModelPolicy.__name__ = ModelPolicy.__qualname__ = name
    ModelPolicy.__doc__ = f"The policy of model {name!r} (see initiative.env.model_policy)."
    return ModelPolicy
