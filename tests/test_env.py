"""The PettingZoo environment and its Gymnasium wrapper, checked by the ecosystem's own tests."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import initiative  # noqa: E402
from initiative.env import env, example_ids, raw_env, single_agent  # noqa: E402
from tests.helpers import EXAMPLE_OF_RULESET  # noqa: E402

ROOT = Path(__file__).parents[1]
EXAMPLES = EXAMPLE_OF_RULESET
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


@pytest.mark.parametrize("env_id", sorted(example_ids().values()))
def test_pettingzoo_api_test_and_seed_test_pass(env_id: str, capsys) -> None:
    """PettingZoo's ``api_test`` and ``seed_test`` pass for every bundled example (all four
    rulesets), made by its registered id."""
    quietly(api_test, env(env_id), num_cycles=100)
    quietly(seed_test, lambda: env(env_id), num_cycles=30)
    assert "Passed API test" in capsys.readouterr().out


@pytest.mark.parametrize("env_id", sorted(example_ids().values()))
def test_the_single_agent_wrapper_passes_check_env(env_id: str) -> None:
    """Gymnasium's ``check_env`` passes through the registered id of every bundled example,
    with one learner and named policies for the rest (it samples actions without the mask,
    so an action outside it passes instead of raising)."""
    learner = env(env_id).possible_agents[0]
    made = gymnasium.make(env_id, learner=learner, invalid_action="pass")
    check_env(made.unwrapped, skip_render_check=True)


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
    """Offer rows name each legal action's kind, cost and target row; the mask covers them;
    the observer's row is first, with its hit points."""
    aec = env(EXAMPLES["openings"])
    aec.reset(seed=1)
    who = aec.agent_selection
    obs, _, _, _, info = aec.last()
    view = info["view"]
    encoder = aec.unwrapped.encoder
    parts = encoder.split(obs["observation"])
    column = {name: i for i, name in enumerate(encoder.offer_features)}
    rows = encoder.rows(who)
    assert obs["action_mask"][: encoder.max_offers].sum() == len(view.legal)
    for k, offer in enumerate(view.legal):
        slot = parts["offers"][k]
        tag = type(offer.action).__struct_config__.tag
        assert slot[column["valid"]] == 1 and slot[column[f"kind[{tag}]"]] == 1
        assert slot[column["cost"]] == pytest.approx(offer.cost / 3)  # openings: 3 AP
        target = getattr(offer.action, "target", None)
        if target is not None:
            assert slot[column[f"target[{rows.index(target)}]"]] == 1
    assert not parts["offers"][len(view.legal) :].any()
    me = parts["combatants"][0]
    c = {name: i for i, name in enumerate(encoder.combatant_features)}
    assert rows[0] == who and me[c["me"]] == 1 and me[c["present"]] == 1
    assert me[c["hp"]] == pytest.approx(view.me.hp / view.me.max_hp)


def test_an_action_outside_the_mask_is_refused_by_default() -> None:
    """By default an index past the offers raises ``InvalidActionError`` naming the valid
    indices, and nothing reaches the fight."""
    from initiative.env import InvalidActionError

    aec = env(EXAMPLES["openings"])
    aec.reset(seed=2)
    who, events = aec.agent_selection, len(aec.unwrapped.stepper.events)
    valid = ", ".join(str(i) for i in np.flatnonzero(aec.observe(who)["action_mask"]))
    with pytest.raises(InvalidActionError, match=rf"^action 31 for {who}: not in its") as caught:
        aec.step(31)
    assert f"(valid now: {valid}); invalid_action='pass'" in str(caught.value)
    assert len(aec.unwrapped.stepper.events) == events and aec.agent_selection == who


def test_with_invalid_action_pass_it_is_a_recorded_invalid_decision() -> None:
    """``invalid_action="pass"``: the index is logged as ``DecisionFailed`` (invalid) and the
    combatant passes, as any policy's invalid decision."""
    aec = env(EXAMPLES["openings"], invalid_action="pass")
    aec.reset(seed=2)
    aec.step(31)
    failed = [e for e in aec.unwrapped.stepper.events if type(e).__name__ == "DecisionFailed"]
    assert failed and failed[0].kind == "invalid"


def test_with_a_penalty_the_same_agent_decides_again_and_loses_the_penalty() -> None:
    """``invalid_action=0.5``: nothing is sent, the same learner decides again with the same
    mask, and the step's reward is -0.5."""
    learner = single_agent(EXAMPLES["openings"], "ilse", invalid_action=0.5)
    observation, info = learner.reset(seed=2)
    events = len(learner.aec.stepper.events)
    again, reward, terminated, truncated, info2 = learner.step(31)
    assert (reward, terminated, truncated) == (-0.5, False, False)
    assert (again == observation).all()
    assert (info2["action_mask"] == info["action_mask"]).all()
    assert len(learner.aec.stepper.events) == events


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


def first_legal(observation, mask) -> int:
    """A model: the first valid index."""
    return int(np.flatnonzero(mask)[0])


def play_out(learner_env, seed: int) -> tuple[float, dict]:
    """Step the learner's first valid action to the end; the last reward and info."""
    _, info = learner_env.reset(seed=seed)
    while True:
        _, reward, terminated, truncated, info = learner_env.step(
            int(np.flatnonzero(learner_env.action_masks())[0])
        )
        if terminated or truncated:
            return reward, info


def test_action_masks_is_the_learners_mask_as_booleans() -> None:
    """``action_masks()`` (what MaskablePPO calls) equals ``info["action_mask"]`` at every step;
    once the episode has ended only the placeholder action 0 is valid, never none."""
    learner = single_agent(EXAMPLES["tactical"], raw_env(EXAMPLES["tactical"]).possible_agents[0])
    _, info = learner.reset(seed=4)
    steps = 0
    while True:
        masks = learner.action_masks()
        assert masks.dtype == bool and masks.shape == (87,)  # 32 offers, 11 rows x 5 moves
        assert (masks == info["action_mask"].astype(bool)).all() and masks.any()
        _, _, terminated, truncated, info = learner.step(int(np.flatnonzero(masks)[-1]))
        steps += 1
        if terminated or truncated:
            break
    assert steps > 3 and learner.action_masks().tolist() == [True] + [False] * 86
    assert (info["action_mask"] == learner.action_masks()).all()


def test_render_returns_the_text_and_step_prints_nothing(capsys) -> None:
    """With ``render_mode="ansi"``: nothing on stdout from ``step()``; ``render()`` returns
    the events since the last render, one numbered line each."""
    aec = env(EXAMPLES["openings"], render_mode="ansi")
    random_episode(aec, 3)
    assert capsys.readouterr().out == ""
    text = aec.render()
    lines = text.splitlines()
    assert len(lines) == len(aec.unwrapped.stepper.events)
    assert lines[0].split()[:2] == ["0", "EncounterStarted"]
    assert lines[-1].split()[1] == "EncounterEnded"
    assert aec.render() == ""


def test_the_single_agent_wrapper_passes_check_env_with_its_render_mode() -> None:
    """``check_env`` with ``render_mode="ansi"`` checks that ``render()`` returns text."""
    with warnings.catch_warnings():  # advice for environments made by gymnasium.make
        warnings.filterwarnings(
            "ignore", message=".*alternative render modes", category=UserWarning
        )
        check_env(
            single_agent(EXAMPLES["openings"], "ilse", render_mode="ansi", invalid_action="pass")
        )


def test_step_after_the_end_or_before_reset_is_a_clear_error() -> None:
    """``EpisodeEndedError``: one of initiative's errors and Gymnasium's ``ResetNeeded``."""
    import gymnasium

    from initiative.env import EpisodeEndedError

    learner = single_agent(EXAMPLES["openings"], "ilse")
    with pytest.raises(EpisodeEndedError, match=r"^step\(\) before reset\(\)"):
        learner.step(0)
    play_out(learner, 2)
    with pytest.raises(initiative.InitiativeError, match=r"^step\(\) after the episode ended"):
        learner.step(0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        learner.step(0)
    aec = raw_env(EXAMPLES["openings"])
    random_episode(aec, 2)
    with pytest.raises(EpisodeEndedError, match="after the episode ended"):
        aec.step(0)


def test_env_keeps_the_order_enforcing_wrappers_checks() -> None:
    """``env()`` is PettingZoo's order-enforcing wrapper (reading the loop's attributes
    through properties): the same refusals before ``reset``, the same values after."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    wrapped = env(EXAMPLES["openings"])
    assert isinstance(wrapped, OrderEnforcingWrapper)
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(wrapped, name)
    with pytest.raises(AttributeError, match="before reset"):
        wrapped.last()
    wrapped.reset(seed=4)
    inner = wrapped.unwrapped
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        assert getattr(wrapped, name) is getattr(inner, name)
    observation, reward, terminated, truncated, info = wrapped.last()
    assert np.array_equal(
        observation["observation"], inner.observe(inner.agent_selection)["observation"]
    )
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info is inner.infos[inner.agent_selection]
    assert wrapped.last(observe=False)[0] is None


def test_gymnasiums_sync_vector_env_steps_through_episodes_and_resets() -> None:
    """``SyncVectorEnv`` over two single-agent environments: batched observations, masks from
    ``call("action_masks")``, and an episode that ends starts again by itself."""
    import gymnasium

    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: single_agent(EXAMPLES["openings"], "ilse") for _ in range(2)]
    )
    observations, _ = envs.reset(seed=[5, 6])
    assert observations.shape == (2, envs.single_observation_space.shape[0])
    ended = np.zeros(2, bool)
    restarted = np.zeros(2, bool)
    for _ in range(200):
        masks = np.stack(envs.call("action_masks"))
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks])
        observations, rewards, terminated, truncated, _ = envs.step(actions)
        assert observations.shape[0] == 2 and rewards.shape == (2,)
        restarted |= ended & ~(terminated | truncated)  # the step after the end: a new episode
        ended |= terminated | truncated
        if restarted.all():
            break
    assert restarted.all() and all(m.any() for m in envs.call("action_masks"))
    envs.close()


def test_self_play_opponents_decide_with_the_learners_own_policy() -> None:
    """``"self"``: the opponents' decisions are ``self_play(observation, mask)``'s, made on
    their own observations; setting the attribute changes the policy for the next episode."""
    seen: list[tuple[int, int]] = []

    def current(observation, mask):
        seen.append((observation.shape[0], int(mask.sum())))
        return first_legal(observation, mask)

    learner = single_agent(EXAMPLES["openings"], "ilse", policies={"south": "self"})
    with pytest.raises(initiative.InitiativeError, match="no self_play"):
        learner.reset(seed=1)
    learner.self_play = current
    _, info = learner.reset(seed=1)
    assert info["opponents"] == {"tomas": "self", "hound": "self"}
    seen.clear()
    play_out(learner, 1)
    opponent_turns = [
        e
        for e in learner.aec.stepper.events
        if type(e).__name__ == "PriorityGranted" and e.who != "ilse"
    ]
    assert len(seen) == len(opponent_turns) > 0
    assert {size for size, _ in seen} == {learner.observation_space.shape[0]}
    # The same fight as every combatant taking its first legal offer.
    same = initiative.step(EXAMPLES["openings"], seed=1)
    while not same.over:
        same.send(same.offers[0].action)
    assert same.lines == learner.aec.stepper.lines


def test_a_pool_of_opponents_is_drawn_per_episode_from_the_seed() -> None:
    """A list is a pool: one drawn per episode, the same for the same seed, and over a few
    seeds each of them."""
    pool = ["aggressive", "random", "cautious"]
    learner = single_agent(EXAMPLES["openings"], "ilse", policies={"south": pool})
    drawn = [learner.reset(seed=s)[1]["opponents"]["tomas"] for s in range(12)]
    again = [learner.reset(seed=s)[1]["opponents"]["tomas"] for s in range(12)]
    assert drawn == again and set(drawn) == set(pool)
    assert all(
        learner.reset(seed=s)[1]["opponents"]["hound"] == drawn[s] for s in range(3)
    )  # one draw per key: the side's combatants play the same snapshot


def test_a_misspelled_key_in_single_agent_policies_is_refused() -> None:
    """``single_agent(..., policies={"sooth": ...})`` names the key and suggests ``south``."""
    with pytest.raises(initiative.PolicyLoadError) as caught:
        single_agent(EXAMPLES["openings"], "ilse", policies={"sooth": "random"})
    assert str(caught.value) == (
        "policies: no combatant or side 'sooth' in 'openings-duel' (did you mean 'south'?)"
    )


def test_the_public_encoder_gives_what_the_environment_observes() -> None:
    """``Encoder(encounter)(view)`` is the AEC observation and mask of the agent selected."""
    from initiative.env import Encoder

    aec = env(EXAMPLES["thriller"])
    aec.reset(seed=9)
    encoder = Encoder(EXAMPLES["thriller"])
    for _ in range(20):
        obs, _, terminated, truncated, info = aec.last()
        if terminated or truncated:
            break
        observation, mask = encoder(info["view"])
        assert (observation == obs["observation"]).all() and (mask == obs["action_mask"]).all()
        aec.step(int(np.flatnonzero(mask)[-1]))


def test_a_model_policy_plays_in_run_batch_and_from_a_file(tmp_path: Path) -> None:
    """``model_policy(model)`` fights in ``run`` as the model chooses; the same class from a
    file (``file.py:NAME``), in ``run`` and in a batch's ``fight_one``, writes the same log."""
    from initiative.batch import fight_one

    from initiative.env import model_policy

    (tmp_path / "model.py").write_text(
        "import numpy as np\n"
        "from initiative.env import model_policy\n"
        "def first_legal(observation, mask):\n"
        "    return int(np.flatnonzero(mask)[0])\n"
        "policy = model_policy(first_legal)\n"
    )
    by_file = f"{tmp_path / 'model.py'}:policy"
    logs = {name: tmp_path / f"{name}.jsonl" for name in ("reference", "direct", "file", "batch")}
    initiative.run(
        EXAMPLES["openings"],
        seed=6,
        out=logs["reference"],
        policies={"ilse": lambda view: view.legal[0].action},
    )
    initiative.run(
        EXAMPLES["openings"],
        seed=6,
        out=logs["direct"],
        policies={"ilse": model_policy(first_legal)},
    )
    initiative.run(EXAMPLES["openings"], seed=6, out=logs["file"], policies={"ilse": by_file})
    summary = fight_one(
        initiative.load_encounter(EXAMPLES["openings"]), 6, {"ilse": by_file}, out=logs["batch"]
    )
    assert summary.policies["ilse"] == by_file and summary.faults == {}
    assert len({path.read_bytes() for path in logs.values()}) == 1
    # and not the log of the encounter file's own policy for ilse (cautious, which takes the
    # first legal offer too in most of this duel's decisions: seed 6 is one where it does not)
    initiative.run(EXAMPLES["openings"], seed=6, out=tmp_path / "own.jsonl")
    assert (tmp_path / "own.jsonl").read_bytes() != logs["reference"].read_bytes()
