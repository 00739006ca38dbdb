"""The Gymnasium environment: one combatant learns, every other plays a policy."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np

from initiative.actors import PolicyChoice, PolicyContext, check_names, load_policy
from initiative.engine import Decision, View, policy_rng
from initiative.events import Action, EncounterSpec, InitiativeError, did_you_mean

from ._aec import EpisodeEndedError, draw_seed, raw_env
from ._models import Model

SELF = "self"
"""The opponent policy that is the learner's own current policy (see :class:`SingleAgentEnv`)."""


class SingleAgentEnv(gymnasium.Env):
    """One combatant learns; every other combatant plays a policy.

    Observations are the AEC environment's vector (``Box``), or with ``observation="dict"``
    its whole observation (the vector under ``observation`` and ``observations``, the mask
    under ``action_mask``); the action mask is :meth:`action_masks` (what sb3-contrib's
    ``MaskablePPO`` asks for) and ``info["action_mask"]``, never all 0 (action 0 alone once
    the episode has ended); ``info["view"]`` is the typed view, ``info["seed"]`` the fight's
    seed; the reward is the learner's.

    ``policies`` maps combatant ids or sides (the encounter file's policy otherwise) to:

    - any policy choice :func:`initiative.run` takes (a name, a function, an object, a class,
      a :func:`model_policy`);
    - ``"self"``: the learner's own current policy, ``self_play(observation, mask) -> index``
      (an argument, or the attribute of that name, which a training loop updates as it learns:
      ``envs.set_attr("self_play", fn)`` on a vector environment). The opponent sees its own
      observation and mask, encoded as the learner's are;
    - a list or tuple of those: a pool (of snapshots, say), one drawn per episode and key from
      a generator seeded by the episode's seed, so ``reset(seed=s)`` always meets the same
      opponents. ``info["opponents"]`` after ``reset`` names each opponent's policy.
    """

    # A frame rate for Gymnasium's checks (what its text environments declare); the text is
    # returned by render(), never shown at any rate.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}  # type: ignore[misc]

    def __init__(
        self,
        encounter: str | os.PathLike[str] | EncounterSpec,
        learner: str,
        *,
        policies: Mapping[str, PolicyChoice] | None = None,
        self_play: Model | None = None,
        observation: str = "vector",
        **options: Any,
    ) -> None:
        if observation not in ("vector", "dict"):
            raise ValueError(f"observation={observation!r}: use 'vector' or 'dict'")
        self.aec = raw_env(encounter, **options)
        if learner not in self.aec.possible_agents:
            raise InitiativeError(
                f"learner={learner!r}: no such combatant in {self.aec.name}"
                + did_you_mean(learner, self.aec.possible_agents)
            )
        self.learner = learner
        self.policies = dict(policies or {})
        check_names(self.aec.spec, self.policies, where=repr(self.aec.name))
        for key, choice in self.policies.items():
            if isinstance(choice, (list, tuple)) and not choice:
                raise InitiativeError(f"policies[{key!r}]: an empty pool of policies")
        self.self_play = self_play
        """The learner's current policy, ``(observation, mask) -> index``, for ``"self"``."""
        self.render_mode = self.aec.render_mode
        self.observation = observation
        space = self.aec.observation_space(learner)
        self.observation_space = space if observation == "dict" else space["observation"]  # type: ignore[index]
        self.action_space = self.aec.action_space(learner)
        self._over = True
        # The mask after the end: only action 0, a placeholder (Gymnasium's next-step
        # autoreset sends one more action, which it never steps with).
        self._end_mask = np.zeros(self.aec.encoder.actions, np.int8)
        self._end_mask[0] = 1
        self._end_mask.flags.writeable = False

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the fight under way and its opponents' deciders: a copy (in
        another process, say) needs ``reset()`` first."""
        state = self.__dict__.copy()
        state.pop("_deciders", None)
        state["_over"] = True
        return state

    def _observe(self, observed: dict[str, np.ndarray]) -> Any:
        return observed if self.observation == "dict" else observed["observation"]

    def _others(self, seed: int) -> tuple[dict[str, Any], dict[str, str]]:
        """Each opponent's decider for the episode of ``seed``, and its policy's label."""
        draw = np.random.default_rng([seed, 0x5E1F])
        picked: dict[str, PolicyChoice] = {}
        for key in sorted(self.policies):  # a pool is drawn once per key, in a fixed order
            choice = self.policies[key]
            if isinstance(choice, (list, tuple)):
                choice = choice[int(draw.integers(len(choice)))]
            picked[key] = choice
        deciders, labels = {}, {}
        for c in self.aec.spec.combatants:
            if c.id == self.learner:
                continue
            choice = picked.get(c.id, picked.get(c.side, c.policy))
            if isinstance(choice, str) and choice == SELF:
                deciders[c.id], labels[c.id] = self._self_decider(), SELF
                continue
            ctx = PolicyContext(combatant=c, encounter=self.aec.spec, rng=policy_rng(seed, c.id))
            loaded = load_policy(choice, ctx)
            deciders[c.id] = getattr(loaded.policy, "decide", loaded.policy)
            labels[c.id] = loaded.name
        return deciders, labels

    def _self_decider(self) -> Callable[[View], Action | Decision]:
        if self.self_play is None:
            raise InitiativeError(
                'an opponent plays "self", but no self_play(observation, mask) -> index was'
                " given: single_agent(..., self_play=fn) or env.unwrapped.self_play = fn"
            )
        encoder = self.aec.encoder

        def decide(view: View) -> Action | Decision:
            assert self.self_play is not None
            observation, mask = encoder(view)
            return encoder.action(view, int(self.self_play(observation, mask)))

        return decide

    def _advance(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Let the others play until the learner holds priority or the fight ends."""
        aec = self.aec
        reward = 0.0
        while True:
            reward += aec.rewards.get(self.learner, 0.0)
            stepper = aec.stepper
            assert stepper is not None
            if stepper.over:
                self._over = True
                observed = aec.observe(self.learner)
                observed["action_mask"] = self._end_mask
                return (
                    self._observe(observed),
                    reward,
                    aec.terminations[self.learner],
                    aec.truncations[self.learner],
                    {
                        "seed": aec.seed,
                        "action_mask": self._end_mask,
                        "winner": stepper.winner,
                        "log": aec.log_path,
                    },
                )
            who = aec.agent_selection
            if who == self.learner:
                info = dict(aec.infos[who])
                return self._observe(aec.observe(who)), reward, False, False, info
            assert stepper.view is not None
            stepper.send(self._deciders[who](stepper.view))
            aec._settle()

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)  # seeds self.np_random (from the system's entropy if never)
        fight = int(seed) if seed is not None else draw_seed(self.np_random)
        self._deciders, opponents = self._others(fight)
        self.aec._start(fight)
        self._over = False
        obs, _, _, _, info = self._advance()
        info["opponents"] = opponents
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise EpisodeEndedError(
                "step() after the episode ended: call reset() first"
                if self.aec.stepper is not None
                else "step() before reset(): call reset() first"
            )
        self.aec.step(action)
        return self._advance()

    def action_masks(self) -> np.ndarray:
        """The learner's valid action indices now, as booleans: what sb3-contrib's
        ``MaskablePPO`` calls ``action_masks()`` for. Never all ``False``: once the episode
        has ended (or before the first reset) only action 0 is valid, a placeholder that
        Gymnasium's next-step autoreset sends and never steps with."""
        stepper = self.aec.stepper
        if self._over or stepper is None or stepper.who != self.learner:
            return self._end_mask.astype(bool)
        return self.aec._mask(self.learner).astype(bool)

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the events since the last render, one line each."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def single_agent(
    encounter: str | os.PathLike[str] | EncounterSpec,
    learner: str,
    *,
    policies: Mapping[str, PolicyChoice] | None = None,
    self_play: Model | None = None,
    **options: Any,
) -> SingleAgentEnv:
    """A Gymnasium environment where ``learner`` (a combatant id) learns and the others play
    ``policies`` (by combatant id or side; the encounter file's otherwise; ``"self"`` for
    ``self_play``, a list for a pool drawn per episode: see :class:`SingleAgentEnv`)."""
    return SingleAgentEnv(encounter, learner, policies=policies, self_play=self_play, **options)
