"""A fight forked at every turn decision goes on exactly as its twin that was never forked: the
answers it shares by layout with its forks (found by them, at layouts it then comes to) are
the ones it would have found itself."""

from __future__ import annotations

import pytest
from initiative.engine import Decision, Fight, Rng, Stepper
from initiative.events import EncounterSpec, Position
from msgspec.structs import replace

from .test_conformance import random_encounters, rulesets_with_examples


def _lines(ruleset: str, per_side: int) -> EncounterSpec:
    """Two lines of ``per_side`` fighters 1 m apart (enough that the grid answers who is
    near), copies of the ruleset's first example's first combatant of each side."""
    spec = random_encounters(ruleset, 1, seed=3)[0]
    first = {c.side: c for c in reversed(spec.combatants)}
    combatants = tuple(
        replace(first[side], id=f"{side}{i}", position=Position(i, row), arrives=1, group=None)
        for row, side in enumerate(spec.sides)
        for i in range(per_side)
    )
    return replace(spec, combatants=combatants)


def _play(spec: EncounterSpec, seed: int, *, fork: bool) -> list[object]:
    """Decide at random among the offers (the same pick in both); with ``fork``, first try every
    offer of each turn decision on a fork, played on a few decisions with the first offer."""
    fight = Fight(spec, seed)
    stepper = Stepper(fight)
    pick = Rng(seed, "test/twin")
    seen: list[object] = []
    while (token := stepper.token) is not None and len(fight.decisions) < 60:
        seen.append((token.who, token.legal))
        if fork and token.window.is_turn:
            for offer in token.legal:
                branch = fight.fork(dice=len(seen), record=False)
                branch.send(offer.action)
                for _ in range(4):
                    if branch.token is None:
                        break
                    branch.send(branch.token.legal[0].action)
        stepper.apply(Decision(action=token.legal[pick.next64() % len(token.legal)].action))
    return [*seen, fight.events]


@pytest.mark.parametrize("ruleset", rulesets_with_examples())
def test_a_forked_fight_goes_on_as_its_twin_never_forked(ruleset: str) -> None:
    cases = [(spec, 5) for spec in random_encounters(ruleset, 2, seed=41)]
    cases.append((_lines(ruleset, 8), 2))
    for spec, seed in cases:
        forked = _play(spec, seed, fork=True)
        assert forked == _play(spec, seed, fork=False)
        assert len(forked) > 30
