"""A PettingZoo AEC environment of an encounter, and a Gymnasium wrapper for one learner.

Needs the ``env`` extra (``pip install 'initiative[env]'``)::

    from initiative.env import env
    e = env("examples/openings-duel.toml", log_dir="logs")
    e.reset(seed=3)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)

**Agents** are the encounter's combatants (their ids), all present from ``reset``. The agent
selected is the one holding priority. A defeated combatant stays among the agents and is never
selected again, so at the end it gets its side's reward with the rest; every agent is
terminated when the encounter ends (truncated instead when it ended at the round limit).

**Actions** are ``Discrete(max_offers)``: action ``k`` is the ``k``-th legal offer of the
current priority token (``info["view"].legal[k]``, the engine's own order; the closing
``EndTurn``/``Pass`` is always the last valid one). ``observation["action_mask"]`` has a 1 for
each valid index. When a token has more offers than ``max_offers``, the first
``max_offers - 1`` and the closing one are kept. An index outside the mask is recorded in the
log as an invalid decision (``DecisionFailed``), as for any policy, and the combatant passes.

**Observations** are ``{"observation": float32 vector, "action_mask": int8 vector}``. The vector,
for the observing combatant ``me`` (``N`` combatants in the encounter's order, ``K =
max_offers``), is ``4 + 9*N + 6*K`` numbers:

- ``[0:4]`` round, 1 if priority is in a turn (0 in an opening), the opening's depth, 1 if
  ``me`` holds priority;
- then per combatant ``i`` (9 each): present (joined and not gone), standing, is me, is an
  ally, hp, max hp, AP, x and y relative to me; all 0 for an enemy ``me`` cannot see;
- then per offer slot ``k`` (6 each): valid, action kind (1 + index in :data:`ACTION_KINDS`,
  ``len(ACTION_KINDS) + 1`` for a ruleset's own action), 1 + the target's combatant index (0
  for none), AP cost, and for a move the destination's x and y relative to me (else 0).

``info["view"]`` is the typed :class:`engine.View` (without ``fork``) for the agent selected.
:class:`Encoder` gives the same observation and mask from any view (``encoder(view)``), and
:func:`model_policy` makes a policy of a model trained on them (``model(observation, mask) ->
index``), for ``initiative.run``, ``batch``, ``duel`` and ``--policy ID=file.py:NAME``.

**Rewards**: ``reward="win"`` (default) gives +1 to each combatant of the winning side and -1
to the others when the encounter ends (0 to all for no winner); ``reward="damage"`` gives each
combatant the damage it deals, as it deals it; ``"win+damage"`` both. A function
``reward(event, agent) -> float`` is called for every new event and agent.

**Seeds**: ``reset(seed=s)`` fights the encounter with seed ``s``, so the same seed and actions
give the same fight and the same log bytes; ``reset()`` without a seed takes the next seed
after the last (the encounter file's seed the first time).

**Rendering**: with ``render_mode="ansi"``, ``render()`` returns the events since the last
render as text; ``step()`` prints nothing. ``step()`` after the end raises
:class:`EpisodeEndedError` (PettingZoo's order-enforcing wrapper of :func:`env` warns first).

**Logs**: with ``log_dir``, every episode writes ``NAME.seedS.epN.jsonl`` there; a log is a
normal log that ``initiative verify`` accepts once its episode ended. Without it, the lines are
kept in memory (``env.unwrapped.stepper.lines``).
"""

from __future__ import annotations

import functools
import os
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"initiative.env needs the 'env' extra ({missing.name} is missing):"
        " pip install 'initiative[env]'"
    ) from None

import msgspec

from initiative import engine
from initiative.actors import PolicyChoice, PolicyContext, check_names, load_policy
from initiative.engine import Decision, View, policy_rng
from initiative.events import (
    Action,
    AnyAction,
    DamageDealt,
    EncounterEnded,
    EncounterSpec,
    Event,
    InitiativeError,
    Move,
    Offer,
    did_you_mean,
)

from ._logging import ensure_configured
from ._stepping import Stepper

__all__ = [
    "ACTION_KINDS",
    "Encoder",
    "EpisodeEndedError",
    "Model",
    "SingleAgentEnv",
    "env",
    "model_policy",
    "raw_env",
    "single_agent",
]

#: The shared action tags, in the order their codes number them (1 + index).
ACTION_KINDS: tuple[str, ...] = tuple(
    str(cls.__struct_config__.tag) for cls in typing.get_args(AnyAction)
)
_KIND = {tag: i + 1 for i, tag in enumerate(ACTION_KINDS)}
_GLOBAL, _PER_COMBATANT, _PER_OFFER = 4, 9, 6
_BOUND = 1e9

Reward = Callable[[Event, str], float]

Model = Callable[[np.ndarray, np.ndarray], Any]
"""A trained model as a policy sees it: ``model(observation, action_mask) -> action index``
(anything ``int()`` takes: a Python or numpy integer, a 0-d array)."""


class EpisodeEndedError(InitiativeError, gymnasium.error.ResetNeeded):
    """``step()`` on an environment whose episode has ended (or never started): call
    ``reset()`` first. Both one of initiative's errors and Gymnasium's ``ResetNeeded``."""


def _spec(encounter: str | os.PathLike[str] | EncounterSpec) -> EncounterSpec:
    return encounter if isinstance(encounter, EncounterSpec) else engine.load_encounter(encounter)


def _reward_fn(reward: str | Reward, spec: EncounterSpec) -> Reward:
    if callable(reward):
        return reward
    side = {c.id: c.side for c in spec.combatants}
    parts = reward.split("+")
    if not parts or any(p not in ("win", "damage") for p in parts):
        raise ValueError(f"reward={reward!r}: use 'win', 'damage', 'win+damage' or a function")

    def score(event: Event, agent: str) -> float:
        total = 0.0
        if "win" in parts and isinstance(event, EncounterEnded) and event.winner is not None:
            total += 1.0 if side[agent] == event.winner else -1.0
        if "damage" in parts and isinstance(event, DamageDealt) and event.source == agent:
            total += float(event.amount)
        return total

    return score


def kept_offers(offers: tuple[Offer, ...], size: int) -> tuple[Offer, ...]:
    """The offers the action indices stand for: all, or the first ``size - 1`` and the last."""
    if len(offers) <= size:
        return offers
    return (*offers[: size - 1], offers[-1])


class Encoder:
    """Observation vectors and action masks for one encounter: what the environments give a
    learner, from any :class:`engine.View` (see the module's docstring for the layout).

    A trained model comes back as a policy through it (or :func:`model_policy`)::

        encoder = Encoder("examples/openings-duel.toml")
        observation, mask = encoder(view)          # view.me's, as the environments encode it
        action = encoder.action(view, int(model(observation, mask)))
    """

    def __init__(
        self, encounter: str | os.PathLike[str] | EncounterSpec, max_offers: int = 32
    ) -> None:
        spec = _spec(encounter)
        self.ids = [c.id for c in spec.combatants]
        self.index = {cid: i for i, cid in enumerate(self.ids)}
        self.side = {c.id: c.side for c in spec.combatants}
        self.max_offers = max_offers
        self.size = _GLOBAL + _PER_COMBATANT * len(self.ids) + _PER_OFFER * max_offers

    def __call__(self, view: View) -> tuple[np.ndarray, np.ndarray]:
        """``(observation, action_mask)`` of ``view.me``: the vector and the mask the
        environments give that combatant (the mask is all 0 for a view without offers)."""
        encoded = self.encode(view.me.id, view, bool(view.legal))
        return encoded["observation"], encoded["action_mask"]

    def action(self, view: View, index: int) -> Action | Decision:
        """The action that index ``index`` stands for in ``view`` (the ``index``-th kept
        offer), or, outside the mask, a recorded invalid decision, as the environments make."""
        offers = kept_offers(view.legal, self.max_offers)
        if 0 <= index < len(offers):
            return offers[index].action
        return Decision(
            failure="invalid", detail=f"action {index} is not among the {len(offers)} offers"
        )

    def observation_space(self) -> spaces.Dict:
        return spaces.Dict(
            {
                "observation": spaces.Box(-_BOUND, _BOUND, (self.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.max_offers,), np.int8),
            }
        )

    def encode(self, who: str, view: View, holds: bool) -> dict[str, np.ndarray]:
        vec = np.zeros(self.size, np.float32)
        mask = np.zeros(self.max_offers, np.int8)
        me = view.me
        window = view.window
        vec[0:4] = (view.round, window.is_turn, window.depth, holds)
        seen = {c.id: c for c in (*view.allies, *view.enemies)}
        seen[me.id] = me
        for i, cid in enumerate(self.ids):
            c = seen.get(cid)
            if c is None:
                continue
            at = _GLOBAL + _PER_COMBATANT * i
            vec[at : at + _PER_COMBATANT] = (
                1.0,
                float(c.standing),
                float(cid == who),
                float(self.side[cid] == self.side[who] and cid != who),
                c.hp,
                c.max_hp,
                c.ap,
                c.position.x - me.position.x,
                c.position.y - me.position.y,
            )
        if holds:
            base = _GLOBAL + _PER_COMBATANT * len(self.ids)
            for k, offer in enumerate(kept_offers(view.legal, self.max_offers)):
                mask[k] = 1
                action = offer.action
                tag = str(type(action).__struct_config__.tag)
                target = getattr(action, "target", None)
                dx = dy = 0.0
                if isinstance(action, Move):
                    dx, dy = action.to.x - me.position.x, action.to.y - me.position.y
                at = base + _PER_OFFER * k
                vec[at : at + _PER_OFFER] = (
                    1.0,
                    _KIND.get(tag, len(ACTION_KINDS) + 1),
                    self.index[target] + 1 if target in self.index else 0,
                    offer.cost,
                    dx,
                    dy,
                )
        return {"observation": vec, "action_mask": mask}


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """The AEC environment of one encounter; see the module's docstring for the encoding."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "initiative_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        encounter: str | os.PathLike[str] | EncounterSpec,
        *,
        max_offers: int = 32,
        reward: str | Reward = "win",
        log_dir: str | os.PathLike[str] | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        ensure_configured()
        if max_offers < 2:
            raise ValueError(f"max_offers={max_offers}: must be at least 2")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: use None or 'ansi'")
        self.spec = _spec(encounter)
        self.name = (
            Path(str(encounter)).stem
            if not isinstance(encounter, EncounterSpec)
            else (self.spec.name or self.spec.ruleset)
        )
        self.encoder = Encoder(self.spec, max_offers)
        self.reward_of = _reward_fn(reward, self.spec)
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.render_mode = render_mode
        self.possible_agents = list(self.encoder.ids)
        self._obs_space = self.encoder.observation_space()
        self._act_space = spaces.Discrete(max_offers)
        self.episode = 0
        self.seed: int | None = None
        self.stepper: Stepper | None = None
        self.log_path: Path | None = None

    @functools.cache  # noqa: B019 - one space object per agent, as PettingZoo expects
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # --- the episode ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        if self.stepper is not None:
            self.stepper.close()
        if seed is not None:
            self.seed = int(seed)
        else:
            self.seed = self.spec.seed if self.seed is None else self.seed + 1
        self.episode += 1
        self.log_path = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            self.log_path = self.log_dir / f"{self.name}.seed{self.seed}.ep{self.episode}.jsonl"
        self.stepper = Stepper(self.spec, self.seed, out=self.log_path, quiet=True)
        self._seen = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._rendered = 0
        self._settle()

    def _settle(self) -> None:
        """Rewards for the events since the last step; whose turn; the end."""
        stepper = self.stepper
        assert stepper is not None
        fresh = stepper.events[self._seen :]
        self._seen = len(stepper.events)
        for agent in self.agents:
            self.rewards[agent] = float(sum(self.reward_of(e, agent) for e in fresh))
        for agent in self.agents:
            self.infos[agent] = {}
        if stepper.over:
            end = stepper.events[-1]
            cut = isinstance(end, EncounterEnded) and end.winner is None and "limit" in end.reason
            for agent in self.agents:
                self.terminations[agent] = not cut
                self.truncations[agent] = cut
            self.agent_selection = self.agents[0]
            self.infos[self.agent_selection] = {"log": self.log_path, "winner": stepper.winner}
        else:
            who = stepper.who
            assert who is not None and stepper.view is not None
            self.agent_selection = who
            self.infos[who] = {
                "view": msgspec.structs.replace(stepper.view, fork=None),
                "action_mask": self._mask(who),
            }

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.encoder.max_offers, np.int8)
        if self.stepper is not None and self.stepper.who == agent:
            mask[: len(kept_offers(self.stepper.offers, self.encoder.max_offers))] = 1
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        stepper = self.stepper
        assert stepper is not None
        holds = stepper.who == agent
        if agent not in stepper.state.combatants:  # not joined yet
            return {
                "observation": np.zeros(self.encoder.size, np.float32),
                "action_mask": np.zeros(self.encoder.max_offers, np.int8),
            }
        return self.encoder.encode(agent, stepper.view_of(agent), holds)

    def step(self, action: Any) -> None:
        stepper = self.stepper
        if stepper is None:
            raise EpisodeEndedError("step() before reset(): call reset() first")
        if not self.agents:
            raise EpisodeEndedError("step() after the episode ended: call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        assert stepper.view is not None
        stepper.send(self.encoder.action(stepper.view, int(action)))
        self._settle()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the events since the last render, one line each (the
        text is returned, never printed); ``None`` without a render mode."""
        if self.render_mode is None or self.stepper is None:
            return None
        from initiative.replays import summary

        lines = [
            f"{e.seq:>5} {type(e).__name__} {summary(e)}\n"
            for e in self.stepper.events[self._rendered :]
        ]
        self._rendered = len(self.stepper.events)
        return "".join(lines)

    def close(self) -> None:
        if self.stepper is not None:
            self.stepper.close()


def env(encounter: str | os.PathLike[str] | EncounterSpec, **options: Any) -> raw_env:
    """The AEC environment of ``encounter`` (options: ``max_offers``, ``reward``, ``log_dir``,
    ``render_mode``), wrapped in PettingZoo's order-enforcing checks."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(encounter, **options))  # type: ignore[no-any-return]


SELF = "self"
"""The opponent policy that is the learner's own current policy (see :class:`SingleAgentEnv`)."""


class SingleAgentEnv(gymnasium.Env):
    """One combatant learns; every other combatant plays a policy.

    Observations are the AEC environment's vector (``Box``); the action mask is
    :meth:`action_masks` (what sb3-contrib's ``MaskablePPO`` asks for) and
    ``info["action_mask"]``; ``info["view"]`` is the typed view; the reward is the learner's.

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
        **options: Any,
    ) -> None:
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
        self.observation_space = self.aec.observation_space(learner)["observation"]  # type: ignore[index]
        self.action_space = self.aec.action_space(learner)
        self._over = True

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
                obs = aec.observe(self.learner)["observation"]
                return (
                    obs,
                    reward,
                    aec.terminations[self.learner],
                    aec.truncations[self.learner],
                    {
                        "action_mask": np.zeros(aec.encoder.max_offers, np.int8),
                        "winner": stepper.winner,
                        "log": aec.log_path,
                    },
                )
            who = aec.agent_selection
            if who == self.learner:
                info = dict(aec.infos[who])
                return aec.observe(who)["observation"], reward, False, False, info
            assert stepper.view is not None
            stepper.send(self._deciders[who](stepper.view))
            aec._settle()

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        assert self.aec.seed is not None
        self._deciders, opponents = self._others(self.aec.seed)
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
        """The learner's valid action indices now, as booleans (all ``False`` once the episode
        has ended): what sb3-contrib's ``MaskablePPO`` calls ``action_masks()`` for."""
        stepper = self.aec.stepper
        if self._over or stepper is None or stepper.who != self.learner:
            return np.zeros(self.aec.encoder.max_offers, bool)
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


def model_policy(model: Model, *, max_offers: int = 32) -> type:
    """A policy class from a trained model, ``model(observation, action_mask) -> index``.

    The class is what :func:`initiative.run`, :func:`initiative.step`'s callers, ``batch``,
    ``duel`` and ``--policy ID=file.py:NAME`` take: each combatant gets an instance that encodes
    its view as the environments do (with the same ``max_offers``) and sends the offer the
    index stands for; an index outside the mask is a recorded invalid decision.
    """
    name = str(getattr(model, "__name__", None) or type(model).__name__)

    class ModelPolicy:
        def __init__(self, ctx: PolicyContext) -> None:
            self.encoder = Encoder(ctx.encounter, max_offers)

        def decide(self, view: View) -> Action | Decision:
            observation, mask = self.encoder(view)
            return self.encoder.action(view, int(model(observation, mask)))

    ModelPolicy.__name__ = ModelPolicy.__qualname__ = name
    ModelPolicy.__doc__ = f"The policy of model {name!r} (see initiative.env.model_policy)."
    return ModelPolicy
