"""Move slots: toward, away from and around each combatant seen, in every ruleset's action
space, masked like every offer."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from initiative.env import MOVE_KINDS, env, example_ids, single_agent  # noqa: E402

ROOT = Path(__file__).parents[1]


@pytest.mark.parametrize("name", sorted(example_ids()))
def test_every_move_slot_the_mask_allows_is_a_move_the_fight_accepts(name: str) -> None:
    """Fights where every agent takes a move slot whenever one is open (else an offer): no move
    is ever rejected, each declared move is the slot's point, and moves were made."""
    aec = env(name).unwrapped
    encoder = aec.encoder
    rng = np.random.default_rng(1)
    moved = 0
    for seed in range(2):
        aec.reset(seed=seed)
        while not aec.stepper.over:
            mask = aec.observe(aec.agent_selection)["action_mask"]
            assert mask.shape == (encoder.actions,)
            moves = np.flatnonzero(mask[encoder.max_offers :]) + encoder.max_offers
            offers = np.flatnonzero(mask[: encoder.max_offers])
            index = int(rng.choice(moves if len(moves) and rng.random() < 0.7 else offers))
            before = len(aec.stepper.events)
            aec.step(index)
            if index >= encoder.max_offers:
                declared = [
                    e for e in aec.stepper.events[before:] if type(e).__name__ == "ActionDeclared"
                ]
                assert type(declared[0].action).__name__ == "Move"
                moved += 1
        rejected = [e for e in aec.stepper.events if type(e).__name__ == "ActionRejected"]
        assert rejected == []
    assert moved > 5


def test_the_slots_of_a_combatant_stand_where_their_names_say() -> None:
    """At the duel's first decision of Ilse: ``strike`` ends within her reach of Tomas,
    ``edge`` just outside his, ``away`` farther from him, ``left``/``right`` as far from him
    as she stood; the slot's row and kind are what ``slot(index)`` says."""
    learner = single_agent("openings-duel", "ilse", policies={"south": "aggressive"})
    learner.reset(seed=4)
    encoder = learner.aec.encoder
    view = learner.aec.stepper.view
    tomas = next(c for c in view.enemies if c.id == "tomas")
    row = encoder.rows("ilse").index("tomas")
    points = {}
    for slot, to, _, gap in encoder._moves("ilse", view):
        got_row, kind = encoder.slot(encoder.max_offers + slot)
        if got_row == row:
            points[kind] = (to, gap)
    here = view.me.position
    start = math.hypot(here.x - tomas.position.x, here.y - tomas.position.y)
    assert set(points) <= set(MOVE_KINDS) and "away" in points
    limit = max(
        math.hypot(o.action.to.x - here.x, o.action.to.y - here.y)
        for o in view.legal
        if type(o.action).__name__ == "Move"
    )
    assert "strike" in points
    if start - 1.25 <= limit:  # within a move of striking distance
        assert points["strike"][1] <= 1.25 + 0.02  # Ilse's rapier: reach 1.5, less 0.25
    else:  # as close as the move allows
        assert points["strike"][1] == pytest.approx(start - limit, abs=0.05)
    assert points["away"][1] > start
    for side in ("left", "right"):
        if side in points:
            assert points[side][1] == pytest.approx(start, abs=0.05)
    if "edge" in points:
        assert points["edge"][1] >= 2.0  # Tomas's longsword reaches 2 m


def test_the_action_space_is_fixed_per_ruleset() -> None:
    """Every example's action space is 32 offers and 11 rows of 5 move slots (12 combatant
    rows by default), whatever its number of combatants."""
    for name in example_ids():
        aec = env(name).unwrapped
        assert aec.action_space(aec.possible_agents[0]).n == 32 + 11 * len(MOVE_KINDS) == 87
