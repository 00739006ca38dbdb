"""The PettingZoo environment and its Gymnasium wrapper, checked by the ecosystem's own tests."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import initiative  # noqa: E402
from initiative.env import ACTION_KINDS, env, raw_env, single_agent  # noqa: E402

ROOT = Path(__file__).parents[1]
EXAMPLES = {
    "openings": ROOT / "examples" / "openings-duel.toml",
    "thriller": ROOT / "examples" / "thriller-ambush.toml",
    "percentile": ROOT / "examples" / "percentile-wilhelm.toml",
    "tactical": ROOT / "examples" / "tactical-bridge.toml",
}
# api_test's advice that does not fit this environment: dict observations (the action mask
# beside the vector, as PettingZoo's own board games do) and combatant ids as agent names.
ADVICE = ("Observation space for each", "We recommend agents", "Observation is not a NumPy")


def quietly(check, *args, **kwargs):
    with warnings.catch_warnings():
        for text in ADVICE:
            warnings.filterwarnings("ignore", message=text, category=UserWarning)
        check(*args, **kwargs)


def random_episode(aec, seed: int) -> dict[str, float]:
    """Play one episode with random legal actions; the final rewards."""
    rng = np.random.default_rng(seed)
    aec.reset(seed=seed)
    final = {}
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            final[agent] = reward
            aec.step(None)
        else:
            aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


@pytest.mark.parametrize("ruleset", sorted(EXAMPLES))
def test_pettingzoo_api_test_and_seed_test_pass(ruleset: str, capsys) -> None:
    """PettingZoo's ``api_test`` and ``seed_test`` pass for each of the four rulesets."""
    quietly(api_test, env(EXAMPLES[ruleset]), num_cycles=100)
    quietly(seed_test, lambda: env(EXAMPLES[ruleset]), num_cycles=30)
    assert "Passed API test" in capsys.readouterr().out


@pytest.mark.parametrize("ruleset", sorted(EXAMPLES))
def test_the_single_agent_wrapper_passes_check_env(ruleset: str) -> None:
    """Gymnasium's ``check_env`` passes with one learner and named policies for the rest."""
    learner = raw_env(EXAMPLES[ruleset]).possible_agents[0]
    check_env(single_agent(EXAMPLES[ruleset], learner), skip_render_check=True)


def test_every_episode_writes_a_log_that_verifies_and_reset_reproduces(tmp_path: Path) -> None:
    """Two episodes with the same seed and actions write byte-identical logs that verify."""
    aec = env(EXAMPLES["openings"], log_dir=tmp_path)
    random_episode(aec, 11)
    first = aec.unwrapped.log_path
    random_episode(aec, 11)
    second = aec.unwrapped.log_path
    assert first != second
    assert first.read_bytes() == second.read_bytes()
    assert initiative.verify(first).ok


def test_win_loss_rewards_follow_the_winner() -> None:
    """The winning side's agents end with +1, the others with -1."""
    aec = env(EXAMPLES["openings"])
    for seed in range(40):
        final = random_episode(aec, seed)
        winner = aec.unwrapped.stepper.winner
        if winner is not None:
            break
    else:
        pytest.fail("no random episode had a winner")
    sides = {c.id: c.side for c in aec.unwrapped.spec.combatants}
    assert final == {a: (1.0 if sides[a] == winner else -1.0) for a in sides}


def test_damage_rewards_add_up_to_the_damage_dealt() -> None:
    """With ``reward="damage"`` each agent's rewards over an episode are the damage it dealt."""
    aec = env(EXAMPLES["openings"], reward="damage")
    rng = np.random.default_rng(0)
    aec.reset(seed=7)  # a seed whose random episode has hits in it
    total = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        total[agent] += reward
        aec.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    dealt = dict.fromkeys(total, 0.0)
    for event in aec.unwrapped.stepper.events:
        if type(event).__name__ == "DamageDealt" and event.source in dealt:
            dealt[event.source] += event.amount
    assert total == dealt
    assert sum(dealt.values()) > 0


def test_the_observation_follows_the_documented_layout() -> None:
    """The offer slots name each legal action's kind and cost; the mask covers them."""
    aec = env(EXAMPLES["openings"])
    aec.reset(seed=1)
    who = aec.agent_selection
    obs, _, _, _, info = aec.last()
    view = info["view"]
    n = len(aec.possible_agents)
    base = 4 + 9 * n
    assert obs["action_mask"].sum() == len(view.legal)
    for k, offer in enumerate(view.legal):
        slot = obs["observation"][base + 6 * k : base + 6 * k + 6]
        tag = type(offer.action).__struct_config__.tag
        assert slot[0] == 1 and slot[1] == ACTION_KINDS.index(tag) + 1 and slot[3] == offer.cost
    me = aec.possible_agents.index(who)
    assert obs["observation"][4 + 9 * me + 2] == 1  # is me
    assert obs["observation"][4 + 9 * me + 4] == view.me.hp


def test_an_action_outside_the_mask_is_a_recorded_invalid_decision() -> None:
    """An index past the offers is logged as ``DecisionFailed`` (invalid), not an exception."""
    aec = env(EXAMPLES["openings"])
    aec.reset(seed=2)
    aec.step(31)
    failed = [e for e in aec.unwrapped.stepper.events if type(e).__name__ == "DecisionFailed"]
    assert failed and failed[0].kind == "invalid"


def test_the_worked_example_prints_win_rates() -> None:
    """``docs/env_example.py`` plays random legal episodes and prints each side's rate."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "env_example.py"), "--episodes", "12"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "12 episodes of random legal play in openings-duel.toml:"
    counts = [int(line.split()[-2]) for line in lines[1:]]
    assert sum(counts) == 12
    assert done.stderr == ""
