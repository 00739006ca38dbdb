"""Forks of one place share the answers found by layout (nearest enemies, offered moves and
attacks) with their siblings that stand alike: each still goes on exactly as a fork made
alone, from a twin of the fight that was never forked there."""

from __future__ import annotations

import pytest
from initiative.actors import aggressive
from initiative.engine import Decision, Fight, Rng
from initiative.events import EncounterSpec

from .test_conformance import random_encounters, rulesets_with_examples
from .test_fork_here import _outcome


def _future(branch: object) -> tuple[object, ...]:
    """:func:`_outcome` but the chain: a fork that records no lines keeps the chain of the
    place it resumed at, which differs between a fight forked before and its twin."""
    return _outcome(branch)[:4]


def _twin(spec: EncounterSpec, seed: int, decisions: list[Decision]) -> Fight:
    """A fight replayed to the same decision, never forked before."""
    twin = Fight(spec, seed)
    drive = twin.run()
    next(drive)
    for decision in decisions:
        drive.send(decision)
    return twin


def _compare_siblings(spec: EncounterSpec, seed: int) -> int:
    """Play ``spec`` with ``aggressive``; every fifth decision, fork every offer on three dice
    (the look-ahead's way), play each on, and compare it with the same fork of a twin.
    Returns how many sibling forks were compared."""
    fight = Fight(spec, seed)
    drive = fight.run()
    token = next(drive, None)
    pick = Rng(seed, "test/siblings")
    compared = 0
    for step in range(30):
        if token is None:
            break
        if step % 5 == 4:
            dice = [pick.next64() for _ in range(3)]
            tries = [(offer.action, d) for offer in token.legal for d in dice]
            outcomes = []
            for action, d in tries:
                branch = fight.fork(dice=d, record=False)
                branch.send(action)
                outcomes.append(_future(branch))
            twin = _twin(spec, seed, list(fight.decisions))
            for (action, d), outcome in zip(tries, outcomes, strict=True):
                alone = twin.fork(dice=d, record=False)
                alone.send(action)
                assert _future(alone) == outcome
                twin = _twin(spec, seed, list(fight.decisions))  # never a sibling either
                compared += 1
        try:
            token = drive.send(Decision(action=aggressive(token.view)))
        except StopIteration:
            token = None
    return compared


@pytest.mark.parametrize(
    "ruleset",
    [
        r if r == "openings" else pytest.param(r, marks=pytest.mark.slow)
        for r in rulesets_with_examples()
    ],
)
def test_sibling_forks_go_on_as_forks_made_alone(ruleset: str) -> None:
    compared = sum(
        _compare_siblings(spec, seed=i)
        for i, spec in enumerate(random_encounters(ruleset, 2, seed=31))
    )
    assert compared > 20
