"""Every offer is legal: the engine takes an offered action without asking the ruleset again,
so what a ruleset offers must pass its own check, affordably, in every ruleset."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from initiative.engine import Fight, Rng, Stepper
from initiative.events import EndTurn, Pass

from initiative import engine
from tests.test_determinism import encounters

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.toml"))


def _every_offer_checks(spec: engine.EncounterSpec, seed: int) -> int:
    """Play ``spec`` choosing offers at random; check every offer at every decision."""
    fight = Fight(spec, seed)
    stepper = Stepper(fight)
    pick = Rng(seed, "test/offers")
    checked = 0
    while (token := stepper.token) is not None and checked < 3000:
        for offer in token.legal:
            if isinstance(offer.action, EndTurn | Pass):
                continue
            reason = fight._check(token.who, offer.action, token.window)
            assert reason is None, f"offered {offer.action!r} to {token.who}: {reason}"
            assert fight.ruleset.cost(fight.rules, token.who, offer.action, token.window) == (
                offer.cost
            ), f"offered {offer.action!r} at {offer.cost} AP"
            checked += 1
        stepper.apply(token.legal[pick.below(len(token.legal))].action)
    return checked


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_offer_of_the_bundled_examples_is_legal(path: Path) -> None:
    spec = engine.load_encounter(path)
    assert sum(_every_offer_checks(spec, seed) for seed in range(3)) > 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(encounters())
def test_every_offer_of_generated_encounters_is_legal(case) -> None:
    spec, seed = case
    _every_offer_checks(spec, seed)
