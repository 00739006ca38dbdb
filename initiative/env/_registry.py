"""Gymnasium ids for the bundled examples, registered when ``initiative.env`` is imported.

``gymnasium.make("initiative/openings-duel-v0", learner="ilse")`` is :func:`single_agent` of
the bundled example, wrapped in a ``TimeLimit`` of ``max_rounds * STEPS_PER_ROUND`` learner
steps; ``initiative/encounter-v0`` takes ``encounter=PATH`` (its ``TimeLimit`` is made from
that file's ``max_rounds``). PettingZoo has no registry: :func:`initiative.env.env` takes the
same ids (and the examples' names).
"""

from __future__ import annotations

import os
import tomllib
from typing import Any

import gymnasium

from initiative import engine
from initiative.events import EncounterSpec

from .._examples import examples
from ._encoder import ID_PREFIX, ID_VERSION
from ._gym import SingleAgentEnv

#: Learner steps a ``TimeLimit`` allows per round of ``max_rounds``: a bound the fight's own
#: round limit meets first (a learner takes a few decisions a round: its turn's actions, the
#: end of its turn and its reactions).
STEPS_PER_ROUND = 64

#: The id that takes an encounter file: ``gymnasium.make(ENCOUNTER_ID, encounter=PATH, ...)``.
ENCOUNTER_ID = f"{ID_PREFIX}encounter{ID_VERSION}"


def make_encounter(
    encounter: str | os.PathLike[str] | EncounterSpec, **options: Any
) -> gymnasium.Env[Any, Any]:
    """The entry point of :data:`ENCOUNTER_ID`: :class:`SingleAgentEnv` of ``encounter`` in a
    ``TimeLimit`` made from its ``max_rounds``."""
    env = SingleAgentEnv(encounter, **options)
    steps = env.aec.spec.max_rounds * STEPS_PER_ROUND
    return gymnasium.wrappers.TimeLimit(env, max_episode_steps=steps)


def example_ids() -> dict[str, str]:
    """The registered id of every bundled example, by the example's name."""
    return {name: f"{ID_PREFIX}{name}{ID_VERSION}" for name in examples()}


def register_examples() -> None:
    """Register every bundled example's id and :data:`ENCOUNTER_ID` (again: a no-op)."""
    registry = gymnasium.envs.registration.registry
    for name, env_id in example_ids().items():
        if env_id in registry:
            continue
        text = examples()[name].read_text(encoding="utf-8")
        rounds = engine.decode_encounter(tomllib.loads(text), name=name).max_rounds
        gymnasium.register(
            id=env_id,
            entry_point="initiative.env._gym:SingleAgentEnv",
            kwargs={"encounter": name},
            max_episode_steps=rounds * STEPS_PER_ROUND,
        )
    if ENCOUNTER_ID not in registry:
        gymnasium.register(
            id=ENCOUNTER_ID,
            entry_point="initiative.env._registry:make_encounter",
        )
