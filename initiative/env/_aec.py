"""The PettingZoo AEC environment of an encounter: every combatant an agent."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from initiative.events import DamageDealt, EncounterEnded, EncounterSpec, Event, InitiativeError

from .._logging import ensure_configured
from .._stepping import SteppedFight
from ._encoder import Encoder, _name, _spec

Reward = Callable[[Event, str], float]


class EpisodeEndedError(InitiativeError, gymnasium.error.ResetNeeded):
    """``step()`` on an environment whose episode has ended (or never started): call
    ``reset()`` first. Both one of initiative's errors and Gymnasium's ``ResetNeeded``."""


class InvalidActionError(InitiativeError, ValueError):
    """An action index outside the mask, with ``invalid_action="refuse"`` (the default): the
    message names the index, the agent and its valid indices; nothing was sent to the fight."""


class _Score:
    """The built-in rewards (``"win"``, ``"damage"``, ``"win+damage"``): a class rather than a
    closure so that an environment pickles (``AsyncVectorEnv``, ``SubprocVecEnv``)."""

    def __init__(self, parts: tuple[str, ...], side: dict[str, str]) -> None:
        self.parts = parts
        self.side = side
        # The only events it scores: the environment skips the rest (most of them) unasked.
        self.reads = frozenset(
            ({EncounterEnded} if "win" in parts else set())
            | ({DamageDealt} if "damage" in parts else set())
        )

    def __call__(self, event: Event, agent: str) -> float:
        total = 0.0
        if "win" in self.parts and isinstance(event, EncounterEnded) and event.winner is not None:
            total += 1.0 if self.side[agent] == event.winner else -1.0
        if "damage" in self.parts and isinstance(event, DamageDealt) and event.source == agent:
            total += float(event.amount)
        return total


def _reward_fn(reward: str | Reward, spec: EncounterSpec) -> Reward:
    if callable(reward):
        return reward
    parts = tuple(reward.split("+"))
    if not parts or any(p not in ("win", "damage") for p in parts):
        raise ValueError(f"reward={reward!r}: use 'win', 'damage', 'win+damage' or a function")
    return _Score(parts, {c.id: c.side for c in spec.combatants})


InvalidAction = str | float
"""What an action outside the mask does: ``"refuse"`` (raise :class:`InvalidActionError`),
``"pass"`` (a recorded invalid decision: the agent passes, as any policy's would), or a number
``p`` (nothing happens, the same agent decides again, and its reward is ``-p``)."""


def _check_invalid_action(value: InvalidAction) -> InvalidAction:
    if isinstance(value, bool) or not (
        value in ("refuse", "pass")
        or (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0)
    ):
        raise ValueError(
            f"invalid_action={value!r}: use 'refuse', 'pass' or a penalty (a number >= 0)"
        )
    return value if isinstance(value, str) else float(value)


def draw_seed(generator: np.random.Generator) -> int:
    """A fight's seed drawn from an environment's generator (below 2**53, so a page's script
    reads it exactly)."""
    return int(generator.integers(SEED_BOUND))


#: Fights' seeds drawn by the environments lie in ``range(SEED_BOUND)``.
SEED_BOUND = 2**53


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
        max_combatants: int | None = None,
        reward: str | Reward = "win",
        log_dir: str | os.PathLike[str] | None = None,
        render_mode: str | None = None,
        invalid_action: InvalidAction = "refuse",
    ) -> None:
        super().__init__()
        ensure_configured()
        self._init_args = (
            encounter,
            {
                "max_offers": max_offers,
                "max_combatants": max_combatants,
                "reward": reward,
                "log_dir": log_dir,
                "render_mode": render_mode,
                "invalid_action": invalid_action,
            },
        )
        self.invalid_action = _check_invalid_action(invalid_action)
        if max_offers < 2:
            raise ValueError(f"max_offers={max_offers}: must be at least 2")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: use None or 'ansi'")
        self.spec = _spec(encounter)
        self.name = _name(encounter, self.spec)
        self.encoder = Encoder(self.spec, max_offers, max_combatants=max_combatants)
        self.reward_of = _reward_fn(reward, self.spec)
        self._reads: frozenset[type] | None = (
            getattr(self.reward_of, "reads", None) if isinstance(reward, str) else None
        )
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.render_mode = render_mode
        self.possible_agents = list(self.encoder.ids)
        self._obs_space = self.encoder.observation_space()
        self._act_space = spaces.Discrete(self.encoder.actions)
        self._held: dict[str, np.ndarray] | None = None  # the holder's encoded observation
        self.episode = 0
        self.seed: int | None = None
        """The seed of the fight under way (``None`` before the first ``reset``)."""
        self.seeds: np.random.Generator | None = None
        """The generator later resets draw their fights' seeds from (seeded by
        ``reset(seed=s)``; from the system's entropy at a first ``reset()`` without one)."""
        self.stepper: SteppedFight | None = None
        self.log_path: Path | None = None

    def __getstate__(self) -> dict[str, Any]:
        """What a copy needs: how it was made and its seed generator, not the fight under way
        (a fight's scheduler is a running generator): a copy needs ``reset()`` first."""
        return {"args": self._init_args, "seeds": self.seeds, "episode": self.episode}

    def __setstate__(self, state: dict[str, Any]) -> None:
        encounter, options = state["args"]
        self.__init__(encounter, **options)  # type: ignore[misc]
        self.seeds, self.episode = state["seeds"], state["episode"]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space  # one space object for every agent, as PettingZoo expects

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # --- the episode ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        if seed is not None:
            self.seeds = np.random.default_rng(int(seed))
            self._start(int(seed))
        else:
            if self.seeds is None:
                self.seeds = np.random.default_rng()  # the system's entropy, as Gymnasium does
            self._start(draw_seed(self.seeds))

    def _start(self, seed: int) -> None:
        """A new episode: the fight of ``seed``."""
        if self.stepper is not None:
            self.stepper.close()
        self.seed = seed
        self.episode += 1
        self.log_path = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            self.log_path = self.log_dir / f"{self.name}.seed{self.seed}.ep{self.episode}.jsonl"
        self.stepper = SteppedFight(self.spec, self.seed, out=self.log_path, quiet=True)
        self._seen = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {"seed": seed} for a in self.agents}
        self._told: str | None = None  # the agent whose info says more than the seed
        self._rewarded = False  # whether the last step's rewards were not all 0
        self._rendered = 0
        self._settle()

    def _settle(self) -> None:
        """Rewards for the events since the last step; whose turn; the end."""
        stepper = self.stepper
        assert stepper is not None
        fresh = stepper.events[self._seen :]
        self._seen = len(stepper.events)
        reads = self._reads
        if reads is not None:  # a built-in reward: only the events it scores
            fresh = [e for e in fresh if type(e) in reads]
        score, rewards = self.reward_of, self.rewards
        if fresh or self._rewarded:
            for agent in self.agents:
                rewards[agent] = float(sum(score(e, agent) for e in fresh)) if fresh else 0.0
            self._rewarded = bool(fresh)  # (all 0 now otherwise: the next step has none to clear)
        seed = self.seed
        if self._told is not None:  # every other info is {"seed": seed} already
            self.infos[self._told] = {"seed": seed}
        if stepper.over:
            end = stepper.events[-1]
            cut = isinstance(end, EncounterEnded) and end.winner is None and "limit" in end.reason
            for agent in self.agents:
                self.terminations[agent] = not cut
                self.truncations[agent] = cut
            self.agent_selection = self._told = self.agents[0]
            self.infos[self.agent_selection] = {
                "seed": seed,
                "log": self.log_path,
                "winner": stepper.winner,
            }
            self._held = None
        else:
            who = stepper.who
            view = stepper.view
            assert who is not None and view is not None
            self.agent_selection = self._told = who
            # The holder's observation, encoded once for the info's mask, observe() and step().
            self._held = self.encoder.encode(who, view, True)
            self.infos[who] = {
                "seed": seed,
                "view": view.plain(),
                "action_mask": self._held["action_mask"],
            }

    def _mask(self, agent: str) -> np.ndarray:
        if self._held is not None and self.stepper is not None and self.stepper.who == agent:
            return self._held["action_mask"]
        return np.zeros(self.encoder.actions, np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        stepper = self.stepper
        assert stepper is not None
        holds = stepper.who == agent
        if holds and self._held is not None:
            return dict(self._held)
        if agent not in stepper.state.combatants:  # not joined yet
            vector = np.zeros(self.encoder.size, np.float32)
            return {
                "observation": vector,
                "observations": vector,
                "action_mask": np.zeros(self.encoder.actions, np.int8),
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
        index = int(action)
        mask = self._mask(agent)
        if not (0 <= index < len(mask) and mask[index]) and self.invalid_action != "pass":
            if self.invalid_action == "refuse":
                valid = ", ".join(str(int(i)) for i in np.flatnonzero(mask))
                raise InvalidActionError(
                    f"action {index} for {agent}: not in its action mask (valid now: {valid});"
                    " invalid_action='pass' or a penalty allows it"
                )
            # A penalty: nothing is sent; the same agent decides again.
            for other in self.agents:
                self.rewards[other] = 0.0
            self.rewards[agent] = -float(self.invalid_action)
            self._rewarded = True  # (the next step clears it)
            self._accumulate_rewards()
            return
        stepper.send(self.encoder.action(stepper.view, index))
        self._settle()
        if self._rewarded:  # (otherwise every reward is 0: nothing to add)
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


def _read_through(name: str) -> property:
    """The wrapped environment's attribute ``name``, read (and set) straight, with the
    order-enforcing wrapper's refusal before ``reset``: what its ``__getattr__`` does, without
    the failed lookup (a raised and caught ``AttributeError``) that precedes it every time."""

    def get(self: OrderEnforcingWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    def put(self: OrderEnforcingWrapper, value: Any) -> None:
        setattr(self.env, name, value)

    return property(get, put)


class _Ordered(OrderEnforcingWrapper):  # type: ignore[misc]  # PettingZoo ships no types
    """PettingZoo's order-enforcing wrapper with the same checks, where the AEC loop reads
    the environment's attributes (``agent_iter``, ``last``, ``step``) through properties
    rather than its ``__getattr__``, and ``last`` asks the environment's own."""

    agents = _read_through("agents")
    agent_selection = _read_through("agent_selection")
    rewards = _read_through("rewards")
    terminations = _read_through("terminations")
    truncations = _read_through("truncations")
    infos = _read_through("infos")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:  # (as the wrapper's __getattr__ refuses agent_selection)
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)  # type: ignore[no-any-return]


def env(encounter: str | os.PathLike[str] | EncounterSpec, **options: Any) -> raw_env:
    """The AEC environment of ``encounter`` (a path, a bundled example's name or its registered
    id; options: ``max_offers``, ``max_combatants``, ``reward``, ``log_dir``, ``render_mode``,
    ``invalid_action``), wrapped in PettingZoo's order-enforcing checks."""
    return _Ordered(raw_env(encounter, **options))
