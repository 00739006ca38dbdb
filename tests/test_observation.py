"""The observation of the whole game: one shape per ruleset, a kind per declared action, every
feature within its documented bounds, and docs/env.md's table generated from the code."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

import msgspec  # noqa: E402
from initiative.engine import Ruleset, find_ruleset  # noqa: E402
from initiative.events import Action, Offer, Position  # noqa: E402

import initiative  # noqa: E402
from initiative.env import (  # noqa: E402
    ACTION_KINDS,
    Encoder,
    action_kinds,
    env,
    feature_docs,
    single_agent,
)
from tests.helpers import EXAMPLE_OF_RULESET  # noqa: E402

ROOT = Path(__file__).parents[1]
EXAMPLES = EXAMPLE_OF_RULESET


def first_view(encounter: Any, seed: int = 1) -> Any:
    fight = initiative.step(encounter, seed=seed)
    assert fight.view is not None
    return fight.view


def test_encounters_of_a_ruleset_give_observations_of_one_shape() -> None:
    """openings-duel (3 combatants) and openings-skirmish (9), and a tactical 1v1 and 3v3
    built from one encounter, observe through the same space: one network reads them all."""
    duel = env(EXAMPLES["openings"]).unwrapped
    skirmish = env(ROOT / "examples" / "openings-skirmish.toml").unwrapped
    assert duel.observation_space("ilse") == skirmish.observation_space("brenna")
    duel.reset(seed=1)
    skirmish.reset(seed=1)
    a, b = duel.observe(duel.agent_selection), skirmish.observe(skirmish.agent_selection)
    assert a["observation"].shape == b["observation"].shape

    bridge = initiative.load_encounter(EXAMPLES["tactical"])
    watch = [c for c in bridge.combatants if c.side == "watch"]
    raiders = [c for c in bridge.combatants if c.side == "raiders"]
    small = msgspec.structs.replace(bridge, combatants=(watch[0], raiders[0]))
    large = msgspec.structs.replace(bridge, combatants=(*watch[:3], *raiders[:3]))
    one, three = Encoder(small), Encoder(large)
    assert one.size == three.size and (one.low == three.low).all()
    assert one(first_view(small))[0].shape == three(first_view(large))[0].shape
    present = one.combatant_features.index("present")
    assert one.split(one(first_view(small))[0])["combatants"][:, present].sum() == 2
    assert three.split(three(first_view(large))[0])["combatants"][:, present].sum() == 6


def test_max_combatants_is_settable_and_too_few_rows_are_refused() -> None:
    """``max_combatants`` sets the rows (the same for both encounters); fewer rows than the
    encounter has combatants is a clear error."""
    duel = Encoder(EXAMPLES["openings"], max_combatants=9)
    skirmish = Encoder(ROOT / "examples" / "openings-skirmish.toml", max_combatants=9)
    assert duel.size == skirmish.size < Encoder(EXAMPLES["openings"]).size
    assert duel.split(np.zeros(duel.size))["combatants"].shape == (9, len(duel.combatant_features))
    with pytest.raises(ValueError, match="max_combatants=8: the encounter has 9 combatants"):
        Encoder(ROOT / "examples" / "openings-skirmish.toml", max_combatants=8)


def instance(cls: type[Action], target: str) -> Action:
    """An action of class ``cls`` with every required field filled in."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in msgspec.structs.fields(cls):
        if field.required:
            kinds = typing.get_args(hints[field.name]) or (hints[field.name],)
            values[field.name] = (
                Position(1.0, 1.0) if Position in kinds else () if tuple in kinds else target
            )
    return cls(**values)


@pytest.mark.parametrize("ruleset", sorted(EXAMPLES))
def test_every_declared_action_has_its_own_kind(ruleset: str) -> None:
    """Each action a ruleset declares, and each shared one, lights its own kind column: an
    offer row of tactical's Parry differs from Dash's, thriller's Intercept from FullDefense's."""
    cls = find_ruleset(ruleset)
    kinds = action_kinds(ruleset)
    assert kinds == tuple(sorted(kinds)) and len(set(kinds)) == len(kinds)
    declared = [*(t for t in typing.get_args(initiative.events.AnyAction)), *cls.actions]
    assert {a.__struct_config__.tag for a in declared} == set(kinds)
    view = first_view(EXAMPLES[ruleset])
    target = view.enemies[0].id if view.enemies else view.me.id
    offers = tuple(Offer(action=instance(a, target), cost=1) for a in declared)
    encoder = Encoder(EXAMPLES[ruleset], max_offers=len(offers))
    observation, mask = encoder(msgspec.structs.replace(view, legal=offers))
    assert mask[: encoder.max_offers].all()
    columns = [i for i, name in enumerate(encoder.offer_features) if name.startswith("kind[")]
    lit = encoder.split(observation)["offers"][:, columns]
    assert (lit.sum(axis=1) == 1).all()  # one kind each
    names = [encoder.offer_features[columns[i]] for i in lit.argmax(axis=1)]
    assert names == [f"kind[{a.__struct_config__.tag}]" for a in declared]


def test_an_installed_rulesets_declared_actions_are_kinds_of_its_own() -> None:
    """The vocabulary comes from ``Ruleset.actions``, so a ruleset from another package (as an
    entry point gives it) has its own kinds beside the shared ones."""

    class Shove(Action, frozen=True, tag="brawl.Shove"):
        is_attack: ClassVar[bool] = True
        target: str

    class Taunt(Action, frozen=True, tag="brawl.Taunt"):
        pass

    class Brawl(Ruleset):
        name = "brawl"
        actions = (Taunt, Shove)

    assert action_kinds(Brawl) == tuple(sorted((*ACTION_KINDS, "brawl.Shove", "brawl.Taunt")))
    assert "tactical.Dash" not in action_kinds(Brawl)


@pytest.mark.parametrize("ruleset", sorted(EXAMPLES))
def test_every_feature_stays_within_its_bounds_over_whole_fights(ruleset: str) -> None:
    """Over whole fights of random legal play (a few seeds), every agent's observation at every
    step lies within the space's per-feature bounds; the trigger's rows name who made it."""
    aec = env(EXAMPLES[ruleset]).unwrapped
    encoder = aec.encoder
    space = aec.observation_space(aec.possible_agents[0])["observation"]
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    by = encoder.combatant_features.index("trigger_by")
    rng = np.random.default_rng(0)
    openings = 0
    for seed in range(3):
        aec.reset(seed=seed)
        while not aec.stepper.over:
            for agent in aec.agents:
                observation = aec.observe(agent)["observation"]
                outside = (observation < space.low) | (observation > space.high)
                assert not outside.any(), (agent, np.flatnonzero(outside))
            who = aec.agent_selection
            view = aec.stepper.view
            trigger = view.window.trigger
            if trigger is not None and trigger.by in encoder.rows(who):
                rows = encoder.split(aec.observe(who)["observation"])["combatants"]
                seen = {c.id for c in (*view.allies, *view.enemies)}
                row = encoder.rows(who).index(trigger.by)
                assert rows[row, by] == (1 if trigger.by in seen else 0)
                openings += 1
            offers = aec.observe(who)["action_mask"][: encoder.max_offers]  # not the moves
            aec.step(int(rng.choice(np.flatnonzero(offers))))
    assert openings > 0


def test_docs_env_md_carries_the_feature_table_generated_from_the_code() -> None:
    """docs/env.md holds exactly :func:`feature_docs`'s tables between its markers."""
    text = (ROOT / "docs" / "env.md").read_text()
    found = re.search(r"<!-- features:start -->\n(.*?)<!-- features:end -->", text, re.S)
    assert found, "docs/env.md has no <!-- features:start --> ... <!-- features:end --> block"
    assert found[1] == feature_docs(), (
        "docs/env.md's feature table is stale: regenerate it with"
        " python -c 'from initiative.env import feature_docs; print(feature_docs(), end=\"\")'"
    )


def test_one_model_plays_encounters_of_different_sizes() -> None:
    """A model of the duel's shape (a score per offer row) plays the skirmish unchanged, as a
    learner and as a policy in ``run``."""
    from initiative.env import model_policy

    encoder = Encoder(EXAMPLES["openings"])
    weights = np.random.default_rng(0).normal(size=len(encoder.offer_features))

    def model(observation: Any, mask: Any) -> int:
        scores = encoder.split(observation)["offers"] @ weights
        offers = mask[: encoder.max_offers]  # the engine's offers (the move slots follow)
        return int(np.argmax(np.where(offers == 1, scores, -np.inf)))

    skirmish = ROOT / "examples" / "openings-skirmish.toml"
    for path, learner in ((EXAMPLES["openings"], "ilse"), (skirmish, "brenna")):
        learning = single_agent(path, learner)
        observation, _ = learning.reset(seed=3)
        done = False
        while not done:
            observation, _, terminated, truncated, _ = learning.step(
                model(observation, learning.action_masks().astype(np.int8))
            )
            done = terminated or truncated
    result = initiative.run(skirmish, seed=3, policies={"wardens": model_policy(model)})
    assert result.winner is not None


def test_docs_env_md_shows_the_training_benchmarks_code_verbatim() -> None:
    """The numpy training example in docs/env.md is the code benchmarks/train_example.py runs
    (the doc's blocks are run by tests/test_docs_library.py, on a short training)."""
    source = (ROOT / "benchmarks" / "train_example.py").read_text()
    start = source.index("\n", source.index("# --- the example")) + 1
    code = source[start : source.index("# --- end of the example ---")].rstrip() + "\n"
    text = (ROOT / "docs" / "env.md").read_text()
    found = re.search(r"<!-- train_example:start -->\n```python\n(.*?)```\n", text, re.S)
    assert found and found[1] == code


def test_observations_and_logs_are_the_golden_ones_value_for_value() -> None:
    """Random masked fights of every example (tests/golden/observations.py): every agent's
    observation and mask at every step, and every log byte, are those recorded in
    tests/golden/observations.json; a faster encoder changes none of them."""
    import json
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "golden"))
    try:
        import observations as golden
    finally:
        sys.path.pop(0)
    recorded = json.loads(golden.GOLDEN.read_text())
    assert list(recorded) == [golden.key(*fight) for fight in golden.FIGHTS]
    for fight in golden.FIGHTS:
        name = golden.key(*fight)
        played = golden.play(*fight)
        want = recorded[name]
        pairs = zip(played["steps"], want["steps"], strict=False)  # (lengths: asserted below)
        first = next((k for k, (a, b) in enumerate(pairs) if a != b), None)
        assert first is None, f"{name}: the observations differ from step {first} on"
        assert len(played["steps"]) == len(want["steps"]), name
        assert played["log"] == want["log"], f"{name}: the log's bytes differ"
