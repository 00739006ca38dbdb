"""``value``: the evaluation learned from finished fights, its features and its weights file."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import msgspec
import pytest
from initiative.actors import PolicyContext, Search, load_policy
from initiative.actors._value import FEATURES, Value, load_weights, shipped
from initiative.engine import (
    CombatantState,
    Fight,
    Stepper,
    find_ruleset,
    load_encounter,
    policy_rng,
)
from initiative.events import PolicyLoadError

EXAMPLES = Path(__file__).parents[2] / "examples"
DUEL = load_encounter(EXAMPLES / "openings-duel.toml")
"""Ilse (north, 34 hp, a rapier: 1d8+1) against Tomas (22 hp, a longsword: 1d10+1) and his
hound (9 hp, a bite: 1d6); at most 100 rounds."""


def duel_state(round: int, **changes: dict[str, object]) -> SimpleNamespace:
    """The duel's three at full hit points, with some of them changed (a position built by
    hand: what a fight's state reads like to an evaluation)."""
    combatants = {
        c.id: CombatantState(id=c.id, side=c.side, hp=c.hp, max_hp=c.hp, ap=0, position=c.position)
        for c in DUEL.combatants
    }
    for who, change in changes.items():
        combatants[who] = msgspec.structs.replace(combatants[who], **change)
    return SimpleNamespace(combatants=combatants, round=round, ended=False, winner=None)


def test_the_features_of_the_opening_position() -> None:
    """Hit points and standing are even; the race is ln((35 / 10.5) / (32 / 6)): Ilse needs
    longer to cut down 31 hit points at 5.5 a round than the two need for her 34 at 10."""
    value = Value(DUEL, weights=(1.0, 1.0, 1.0, 1.0))
    race = math.log((35 / 10.5) / (32 / 6.0))
    assert value.features(duel_state(0), "north") == pytest.approx((0.0, 0.0, race, 0.0))
    assert value.features(duel_state(0), "south") == pytest.approx((0.0, 0.0, -race, 0.0))


def test_the_features_of_a_position_built_by_hand() -> None:
    """Round 25 of 100, Tomas down to 11 hit points and the hound fallen: the south keeps 11
    of its 31 hit points and one of its two fighters, and deals 6.5 a round."""
    state = duel_state(25, tomas={"hp": 11}, hound={"hp": 0, "defeated": True})
    hp, standing, race, late = Value(DUEL, weights=(0.0,) * 4).features(state, "north")
    assert hp == pytest.approx(1.0 - 11 / 31)
    assert standing == pytest.approx(1.0 - 0.5)
    assert race == pytest.approx(math.log((35 / 7.0) / (12 / 6.0)))
    assert late == pytest.approx(race * 0.25)


def test_the_score_is_the_logistic_of_the_weighted_features() -> None:
    """``1 / (1 + e^-z)`` with ``z`` the weights times the features; the sides' chances add up
    to one."""
    state = duel_state(25, tomas={"hp": 11}, hound={"hp": 0, "defeated": True})
    weights = (2.0, -1.0, 0.5, 0.25)
    value = Value(DUEL, weights=weights)
    z = sum(w * f for w, f in zip(weights, value.features(state, "north"), strict=True))
    assert value(state, "north") == pytest.approx(1 / (1 + math.exp(-z)))
    assert value(state, "north") + value(state, "south") == pytest.approx(1.0)


def test_a_finished_fight_scores_its_result() -> None:
    """One for the winner, nought for the loser, a half each with no winner."""
    value = Value(DUEL)
    won = SimpleNamespace(combatants={}, round=3, ended=True, winner="south")
    drawn = SimpleNamespace(combatants={}, round=100, ended=True, winner=None)
    assert (value(won, "south"), value(won, "north")) == (1.0, 0.0)
    assert value(drawn, "north") == 0.5


def test_a_joiner_counts_before_it_arrives() -> None:
    """In ``percentile-wilhelm`` the orc joins in round 4: until then it counts as standing at
    its full 13 hit points, so the goblins' side is whole."""
    spec = load_encounter(EXAMPLES / "percentile-wilhelm.toml")
    fight = Fight(spec, 1)
    assert Stepper(fight).token is not None  # the first decision: everyone but the orc is in
    state = fight.state
    assert "orc" not in state.combatants and "wilhelm" in state.combatants
    hp, standing, _, _ = Value(spec, weights=(0.0,) * 4).features(state, "heroes")
    assert (hp, standing) == (0.0, 0.0)


def test_the_shipped_weights_are_the_fit_over_every_bundled_ruleset() -> None:
    """The package's file loads, with the fit learned from all five bundled examples (for a
    ruleset without weights of its own); each bundled ruleset declares its own."""
    fit = shipped().fit
    assert len(fit.weights) == len(FEATURES) and fit.positions > 0
    assert len(fit.examples) == 5
    assert Value(DUEL).weights == find_ruleset("openings").search_profile.value != fit.weights


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "malformed|JSON"),
        ('{"features": ["hp"], "fit": {"weights": []}}', r"features \['hp'\], expected"),
        (
            '{"features": ["hp", "standing", "race", "late"], "fit": {"weights": [1, 2]}}',
            "2 weights, expected 4",
        ),
        (
            '{"features": ["hp", "standing", "race", "late"], "rulesets": {"*": {"weights": [1, 2, 3, 4]}}}',
            "rulesets",
        ),
        (
            '{"features": ["hp", "standing", "race", "late"], "fit": {"weight": []}}',
            "weight",
        ),
    ],
)
def test_a_malformed_weights_file_is_refused(tmp_path: Path, text: str, message: str) -> None:
    """A weights file that is not JSON of the expected shape is refused, naming the file."""
    path = tmp_path / "weights.json"
    path.write_text(text)
    with pytest.raises(PolicyLoadError, match=message) as caught:
        load_weights(path)
    assert str(path) in str(caught.value)


def test_a_missing_weights_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyLoadError, match=r"value weights .*missing\.json"):
        load_weights(tmp_path / "missing.json")


def test_search_takes_the_value_by_name() -> None:
    """``search:evaluate=value`` scores its forks with the encounter's learned value."""
    ctx = PolicyContext(combatant=DUEL.combatants[0], encounter=DUEL, rng=policy_rng(1, "ilse"))
    search = load_policy("search:evaluate=value,rounds=0", ctx).policy
    assert isinstance(search, Search) and isinstance(search.evaluate, Value)
    assert search.evaluate.weights == find_ruleset("openings").search_profile.value
    with pytest.raises(PolicyLoadError, match="outcome, hp_balance, value"):
        load_policy("search:evaluate=worth", ctx)
