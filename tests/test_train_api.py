"""benchmarks/train_api.py, the learner that uses only the environment's API, on a tiny run:
its features read the observation as documented, an update moves the policy toward an
advantaged action, and the script prints its figures. Not its strength (the benchmark
measures that); and benchmarks/env_speed.py's loop on initiative's environments."""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from initiative.env import Encoder, single_agent  # noqa: E402

ROOT = Path(__file__).parents[1]


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def train() -> ModuleType:
    return load("train_api")


def test_the_features_are_the_offers_and_move_slots_rows(train: Any) -> None:
    """An offer's feature row starts with its offer row; a move slot's holds its move row, its
    kind and its combatant's row; the state is the globals and combatant rows."""
    learner = single_agent("openings-duel", "ilse")
    observation, _ = learner.reset(seed=3)
    encoder = Encoder("openings-duel")
    features = train.Features(encoder)
    state, phi = features(observation)
    parts = encoder.split(observation)
    assert phi.shape == (encoder.actions, features.action_size)
    assert (phi[: encoder.max_offers, : len(encoder.offer_features)] == parts["offers"]).all()
    f, m = len(encoder.offer_features), len(encoder.move_features)
    slot = 7  # row 2, kind 2 ("away")
    row = phi[encoder.max_offers + slot]
    assert (row[f : f + m] == parts["moves"][slot]).all()
    assert row[f + m + 2] == 1 and row[f + m + features.kinds] == 1
    assert (row[f + m + features.kinds + 1 :] == parts["combatants"][2]).all()
    assert state.shape == (features.state_size,)


def test_an_update_raises_the_probability_of_an_advantaged_action(train: Any) -> None:
    """A PPO step on one decision with a positive advantage makes that action likelier."""
    learner = single_agent("openings-duel", "ilse")
    observation, _ = learner.reset(seed=3)
    policy = train.Policy(train.Features(Encoder("openings-duel")), seed=1)
    mask = learner.action_masks()
    _, _, _, state, phi = policy.act(observation, mask, np.random.default_rng(0))
    action = int(np.flatnonzero(mask)[-1])
    before = policy.forward(state[None], phi[None], mask[None])[0][0, action]
    batch = (state[None], phi[None], mask[None], np.array([action]),
             np.log(np.array([before], np.float32)), np.ones(1, np.float32),
             np.zeros(1, np.float32))  # fmt: skip
    for _ in range(5):
        policy.update(batch, 1e-2)
    after = policy.forward(state[None], phi[None], mask[None])[0][0, action]
    assert after > before


def test_the_script_trains_and_prints_its_figures(train: Any, tmp_path: Path) -> None:
    """A run of a few updates prints the training and both duels' figures; ``--load`` of the
    model it saved evaluates it (no training) to the same figures, and ``--eval-start`` on
    other seeds."""
    model = tmp_path / "m.npz"
    args = ["--steps", "32", "--seeds", "2", "--minibatch", "16"]

    def printed(*more: str) -> list[str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            train.main([*args, *more])
        return out.getvalue().splitlines()

    lines = printed("--updates", "1", "--save", str(model))
    assert lines[-4].startswith("trained: ") and "learner decisions" in lines[-4]
    assert lines[-3].startswith("openings-duel: trained ")
    assert lines[-4].startswith("trained: 1 updates")
    assert "(exact two-sided sign test, 2 seeds from 1)" in lines[-3]
    assert lines[-2].startswith("openings-2v2: trained ")
    assert lines[-1].startswith("total: ")
    again = printed("--load", str(model))
    assert again[-4].startswith("trained: 0 updates") and again[-3:-1] == lines[-3:-1]
    other = printed("--load", str(model), "--eval-start", "500")
    assert "(exact two-sided sign test, 2 seeds from 500)" in other[-3]


def test_the_speed_benchmarks_loop_steps_initiatives_environments() -> None:
    """env_speed.py's random masked play runs whole episodes of the bundled examples."""
    speed = load("env_speed")
    for name in speed.TARGETS:
        steps, cpu = speed.play(speed.make(name), 0.02, 1)
        assert steps > 10 and cpu > 0


def test_the_speed_benchmarks_fight_alone_replays_the_environments_fights() -> None:
    """env_speed.py's "fight alone" sends the actions the environment sent, seed by seed, and
    each fight ends where the environment's episode ended; it counts the episodes' steps."""
    speed = load("env_speed")
    recorded: list[Any] = []
    e = speed.make("openings-duel")
    steps, _ = speed.play(e, 0, 7, episodes=2, record=recorded)
    assert [seed for seed, _, _ in recorded] == [7, 8]
    assert sum(taken for _, taken, _ in recorded) == steps
    alone, cpu = speed.fight_alone("openings-duel", recorded, 0.0)
    assert alone == recorded[0][1] and cpu >= 0  # one episode, then the budget was spent
