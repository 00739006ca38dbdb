"""benchmarks/train_example.py, the numpy training example of docs/env.md, on a short run: its
data are what it says they are, training is deterministic, the trained policy plays a duel, and
the script prints its figures. Not the policy's strength (the benchmark measures that)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers import DUEL, ROOT

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from initiative.actors import aggressive, in_line  # noqa: E402

import initiative  # noqa: E402
from initiative.env import Encoder, model_policy  # noqa: E402


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "train_example", ROOT / "benchmarks" / "train_example.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_data_are_aggressives_choices_and_rollout_advantages(example: Any) -> None:
    scorer = example.Scorer(Encoder(DUEL), hidden=8)
    xs, chosen, values = example.collect(scorer, DUEL, 2, forks=2)
    assert len(xs) == len(chosen) == len(values) > 5
    for x, pick, value in zip(xs, chosen, values, strict=True):
        assert len(x) == len(value) > 1  # only decisions with a choice
        assert 0 <= pick < len(x)
        assert abs(value.sum()) < 1e-9  # measured against the mean over the offers
        assert np.all(np.abs(value) <= 2)
    assert any(np.any(value != 0) for value in values)  # the offers' rollouts differ somewhere
    # The labels are aggressive's: replayed, the first fight's first decision of the learner
    # (north, the first side) with a choice is the offer aggressive takes there.
    fight = initiative.step(DUEL, seed=10_000)
    while fight.view is not None and not (fight.view.me.side == "north" and len(fight.offers) > 1):
        fight.send(aggressive(fight.view))
    assert fight.view is not None
    assert fight.offers[chosen[0]].action == aggressive(fight.view)
    again = example.collect(example.Scorer(Encoder(DUEL), hidden=8), DUEL, 2, forks=2)
    assert all(np.array_equal(a, b) for a, b in zip(values, again[2], strict=True))


def test_fitting_imitates_aggressive_and_the_policy_plays(example: Any) -> None:
    scorer = example.Scorer(Encoder(DUEL), hidden=8)
    xs, chosen, values = example.collect(scorer, DUEL, 2, forks=1)
    untrained = [scorer.heads(x)[1] for x in xs]
    assert all(np.all(logit == 0) for logit in untrained)  # every offer alike at first
    example.fit(scorer, xs, chosen, values, steps=150)
    agree = np.mean([np.argmax(scorer.heads(x)[1]) == c for x, c in zip(xs, chosen, strict=True)])
    assert agree > 0.9
    tau, results = example.choose_tau(scorer, DUEL, [0.05, 10.0], 3)
    assert tau in results and scorer.tau == tau
    assert results[10.0][:3] == (0, 0, 3)  # a tau above any advantage: the imitation alone
    trained = in_line(model_policy(scorer.greedy))
    better, worse, even, p = example.duel(DUEL, trained, 3)
    assert better + worse + even == 3 and 0 < p <= 1


def test_a_later_round_plays_the_learner_on_its_side(example: Any) -> None:
    """In a later round the learner's side plays the given policy, in the training fights and
    in the rollouts, while the labels stay aggressive's choices."""
    scorer = example.Scorer(Encoder(DUEL), hidden=8)
    first = example.collect(scorer, DUEL, 1, forks=1)
    seen: list[str] = []

    def learner(view: Any) -> Any:
        seen.append(view.me.side)
        return view.legal[-1].action  # not aggressive's play

    later = example.collect(scorer, DUEL, 1, forks=1, learner=learner)
    assert seen and set(seen) == {"north"}  # the learner's side only
    assert len(later[0]) != len(first[0]) or any(
        not np.array_equal(a, b) for a, b in zip(first[0], later[0], strict=False)
    )  # another fight
    for x, pick in zip(later[0], later[1], strict=True):
        assert 0 <= pick < len(x)


def test_the_script_prints_its_figures(example: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["train_example.py", "--games", "2", "--forks", "1", "--steps", "20"]
    argv += ["--round-games", "1", "--round-forks", "1"]
    argv += ["--taus", "0.05,10", "--validation", "2", "--seeds", "2"]
    monkeypatch.setattr(sys, "argv", argv)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        example.main()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("round 1: collected ") and "of 2 training fights" in lines[0]
    assert "(aggressive on the learner's side)" in lines[0] and "1 paired forks" in lines[0]
    assert "tau = " in lines[1] and "validation, 2 seeds from 5001" in lines[1]
    assert lines[2].startswith("round 2: collected ") and "of 1 training fights" in lines[2]
    assert "(the policy of round 1 on the learner's side)" in lines[2]
    assert lines[3].startswith("round 2: fitted")
    assert (
        lines[4].startswith("openings-duel: trained ")
        and "(exact two-sided sign test, 2 seeds)" in lines[4]
    )
    assert lines[5].startswith("openings-2v2 (transfer): trained ")
    assert lines[6].startswith("total: ")


@pytest.mark.slow  # a process of its own
def test_the_script_runs_copied_out_of_the_repository(tmp_path: Path) -> None:
    """Copied to another folder and run from there, the script finds its encounters (the
    report: "no such encounter file")."""
    import shutil
    import subprocess

    shutil.copy(ROOT / "benchmarks" / "train_example.py", tmp_path / "train.py")
    argv = ["--games", "1", "--forks", "1", "--steps", "5", "--rounds", "1"]
    argv += ["--taus", "10", "--validation", "1", "--seeds", "1"]
    done = subprocess.run(
        [sys.executable, "train.py", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2].startswith("openings-2v2 (transfer): trained ")
