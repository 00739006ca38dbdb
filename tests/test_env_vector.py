"""The environments as a learner at scale meets them: vector environments (Gymnasium's
``SyncVectorEnv`` and ``AsyncVectorEnv``, both autoreset modes), seeds, masks, registered ids
and pickling."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import DUEL

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv  # noqa: E402

from initiative.env import ENCOUNTER_ID, STEPS_PER_ROUND, env, example_ids, single_agent  # noqa: E402

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]


def duel_learner(**options):
    """A factory for the vector environments (picklable: a module-level function)."""
    return single_agent(DUEL, "ilse", **options)


def run_vector(envs, steps: int, seed: int | None = 1):
    """Step ``envs`` with random masked actions; every episode's seed (from the infos of
    resets, autoreset included) and every mask the learner was handed."""
    rng = np.random.default_rng(0)
    seeds: list[int] = []
    masks: list[np.ndarray] = []
    _, infos = envs.reset(seed=seed)
    seeds += [int(s) for s in infos["seed"]]
    same_step = envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    for _ in range(steps):
        called = np.stack(envs.call("action_masks"))
        masks += list(called)
        assert (called == infos["action_mask"].astype(bool)).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in called])
        _, _, terminated, truncated, infos = envs.step(actions)
        ended = terminated | truncated
        if same_step:  # the infos are the new episode's; the ended one's are in final_info
            seeds += [int(s) for s in infos["seed"][ended]]
        else:  # the step after an end is the reset: its copies' infos hold the new seed
            started = infos.get("_opponents", np.zeros(len(ended), bool))
            seeds += [int(s) for s in infos["seed"][started]]
    return seeds, masks


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_copies_of_a_sync_vector_env_never_replay_each_others_fights(mode) -> None:
    """Four copies seeded 1, 2, 3, 4 (``reset(seed=1)``): every episode has its own seed (the
    report: 63 episodes, 17 distinct seeds; before the fix this run played 14 seeds in 42
    episodes), and every mask handed out has a valid action (before: all False at every end)."""
    envs = SyncVectorEnv([duel_learner] * 4, autoreset_mode=mode)
    seeds, masks = run_vector(envs, 250)
    envs.close()
    assert len(seeds) >= 15
    assert len(set(seeds)) == len(seeds)
    assert seeds[:4] == [1, 2, 3, 4]
    assert all(m.any() for m in masks)


def test_a_first_reset_without_a_seed_draws_from_the_systems_entropy() -> None:
    """Two fresh environments reset without a seed fight different seeds (the encounter file's
    seed is not reused), and each names its fight's seed in ``info["seed"]``."""
    first = single_agent(DUEL, "ilse").reset()[1]["seed"]
    second = single_agent(DUEL, "ilse").reset()[1]["seed"]
    assert first != second
    aec = env(DUEL)
    aec.reset()
    other = env(DUEL)
    other.reset()
    assert aec.unwrapped.seed != other.unwrapped.seed
    assert aec.infos[aec.agent_selection]["seed"] == aec.unwrapped.seed


def test_reset_with_a_seed_then_without_repeats_the_same_sequence() -> None:
    """``reset(seed=s)`` then plain resets: the same seeds every time for the same ``s``, and a
    sequence of its own for ``s + 1`` (the AEC environment likewise)."""

    def sequence(make, s: int) -> list[int]:
        e = make()
        found = [e.reset(seed=s)[1]["seed"]]
        found += [e.reset()[1]["seed"] for _ in range(5)]
        return found

    one, again, two = (
        sequence(duel_learner, 7),
        sequence(duel_learner, 7),
        sequence(duel_learner, 8),
    )
    assert one == again and one[0] == 7 and two[0] == 8
    assert not set(one) & set(two)
    aec = env(DUEL)
    aec.reset(seed=7)
    aec_seeds = [aec.unwrapped.seed]
    for _ in range(5):
        aec.reset()
        aec_seeds.append(aec.unwrapped.seed)
    assert len(set(aec_seeds)) == 6 and aec_seeds[0] == 7


@pytest.mark.slow  # the command in a process of its own
def test_initiative_run_with_the_episodes_seed_replays_it(tmp_path: Path) -> None:
    """An episode reset without a seed names its seed; ``initiative run ENC --seed S`` with the
    same opponents (the learner's choices those of ``first``) writes the same events."""
    learner = single_agent(DUEL, "ilse", policies={"south": "aggressive"}, log_dir=tmp_path / "e")
    _, info = learner.reset()
    while True:  # the learner takes the first valid action: the built-in policy "first"
        _, _, terminated, truncated, info = learner.step(0)
        if terminated or truncated:
            break
    seed = info["seed"]
    out = tmp_path / "run.jsonl"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "initiative", "run", str(DUEL), "--seed", str(seed)),
            *("--quiet", "--policy", "ilse=first", "--policy", "south=aggressive"),
            *("--out", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == info["log"].read_bytes()


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_the_dict_observation_carries_a_mask_through_autoreset(mode) -> None:
    """``observation="dict"``: every observation of every copy holds a mask with a valid
    action, the one ``action_masks()`` gives, and the vector under both RLlib's and
    PettingZoo's keys."""
    envs = SyncVectorEnv([lambda: duel_learner(observation="dict")] * 2, autoreset_mode=mode)
    observations, _ = envs.reset(seed=3)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(300):
        masks = observations["action_mask"].astype(bool)
        assert masks.any(axis=1).all()
        assert (masks == np.stack(envs.call("action_masks"))).all()
        assert (observations["observations"] == observations["observation"]).all()
        observations, _, terminated, truncated, _ = envs.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        )
        ends += int((terminated | truncated).sum())
    envs.close()
    assert ends >= 2


@pytest.mark.slow  # two worker processes
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_an_async_vector_env_with_two_processes_seeds_and_masks(mode) -> None:
    """``AsyncVectorEnv`` (two processes; the environment pickles): distinct seeds per
    episode, and a valid action in every mask, autoreset included."""
    envs = AsyncVectorEnv([duel_learner] * 2, autoreset_mode=mode)
    seeds, masks = run_vector(envs, 150, seed=11)
    envs.close()
    assert len(seeds) > 4 and len(set(seeds)) == len(seeds) and seeds[:2] == [11, 12]
    assert all(m.any() for m in masks)


def test_every_environment_pickles_and_its_copy_plays_the_same_fight() -> None:
    """The AEC environment (wrapped), the Gymnasium one and one made from a registered id
    pickle; each copy, reset with the same seed, plays the same fight."""
    made = gymnasium.make("initiative/openings-duel-v0", learner="ilse")
    for original in (env(DUEL), duel_learner(), made):
        copy = pickle.loads(pickle.dumps(original))
        for e in (original, copy):
            e.reset(seed=5)
        inner = [getattr(e.unwrapped, "aec", e.unwrapped) for e in (original, copy)]
        assert inner[0].stepper.lines == inner[1].stepper.lines


def test_every_bundled_example_has_a_registered_id_with_a_time_limit() -> None:
    """``gymnasium.make("initiative/<example>-v0", learner=...)`` for every bundled example,
    in a ``TimeLimit`` of ``max_rounds * STEPS_PER_ROUND`` steps; the encounter id takes a path."""
    ids = example_ids()
    assert set(ids) >= {"openings-duel", "openings-skirmish", "tactical-bridge"}
    for name, env_id in ids.items():
        aec = env(name).unwrapped
        made = gymnasium.make(env_id, learner=aec.possible_agents[0])
        assert made.spec.id == env_id
        assert made.spec.max_episode_steps == aec.spec.max_rounds * STEPS_PER_ROUND
        assert isinstance(made, gymnasium.wrappers.TimeLimit)
        assert made.unwrapped.aec.name == name
    by_path = gymnasium.make(ENCOUNTER_ID, encounter=str(DUEL), learner="ilse")
    assert by_path.get_wrapper_attr("_max_episode_steps") == 100 * STEPS_PER_ROUND
    assert by_path.reset(seed=2)[1]["seed"] == 2


def test_a_bundled_examples_name_resolves_and_a_near_miss_is_named() -> None:
    """``env("openings-duel")`` is the bundled example; a misspelled name says which it meant."""
    from initiative import InitiativeError

    assert env("openings-duel").unwrapped.spec == env(DUEL).unwrapped.spec
    assert env("initiative/openings-duel-v0").unwrapped.name == "openings-duel"
    with pytest.raises(InitiativeError, match=r"openings-dule: .*did you mean 'openings-duel'"):
        env("openings-dule")
