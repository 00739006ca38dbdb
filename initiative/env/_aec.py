"""The PettingZoo AEC environment of an encounter: every combatant an agent."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import msgspec
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from initiative.events import DamageDealt, EncounterEnded, EncounterSpec, Event, InitiativeError

from .._logging import ensure_configured
from .._stepping import SteppedFight
from ._encoder import Encoder, _spec, kept_offers

Reward = Callable[[Event, str], float]


class EpisodeEndedError(InitiativeError, gymnasium.error.ResetNeeded):
    """``step()`` on an environment whose episode has ended (or never started): call
    ``reset()`` first. Both one of initiative's errors and Gymnasium's ``ResetNeeded``."""


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

    # The only events it scores: the environment skips the rest (most of them) unasked.
    score.reads = frozenset(  # type: ignore[attr-defined]
        ({EncounterEnded} if "win" in parts else set())
        | ({DamageDealt} if "damage" in parts else set())
    )
    return score


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
        self.encoder = Encoder(self.spec, max_offers, max_combatants=max_combatants)
        self.reward_of = _reward_fn(reward, self.spec)
        self._reads: frozenset[type] | None = (
            getattr(self.reward_of, "reads", None) if isinstance(reward, str) else None
        )
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.render_mode = render_mode
        self.possible_agents = list(self.encoder.ids)
        self._obs_space = self.encoder.observation_space()
        self._act_space = spaces.Discrete(max_offers)
        self.episode = 0
        self.seed: int | None = None
        self.stepper: SteppedFight | None = None
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
        self.stepper = SteppedFight(self.spec, self.seed, out=self.log_path, quiet=True)
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
        reads = self._reads
        if reads is not None:  # a built-in reward: only the events it scores
            fresh = [e for e in fresh if type(e) in reads]
        score, rewards = self.reward_of, self.rewards
        for agent in self.agents:
            rewards[agent] = float(sum(score(e, agent) for e in fresh)) if fresh else 0.0
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
    """The AEC environment of ``encounter`` (options: ``max_offers``, ``max_combatants``,
    ``reward``, ``log_dir``, ``render_mode``), wrapped in PettingZoo's order-enforcing checks."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(encounter, **options))  # type: ignore[no-any-return]
