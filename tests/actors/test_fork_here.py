"""A fork taken at a turn's decision starts there, from copies of the live state and the dice;
one taken elsewhere (an opening) resumes at the last turn decision kept and replays since; both
go on exactly as a fork that replays the round from its start would."""

from __future__ import annotations

import pytest
from initiative.actors import aggressive
from initiative.engine import Decision, Fight, Rng
from initiative.events import EncounterSpec

from .test_conformance import random_encounters, rulesets_with_examples


def _outcome(branch: object) -> tuple[object, ...]:
    """Everything a fork's future shows: its pending grant, then, played on with ``aggressive``,
    its final state, dice position and log position (the chain covers every line)."""
    token = branch.token  # type: ignore[attr-defined]
    grant = None if token is None else (token.seq, token.who, token.legal, token.view.me)
    branch.play(aggressive, limit=15)  # type: ignore[attr-defined]
    fight = branch.fight  # type: ignore[attr-defined]
    return grant, fight.state, fight.recorder.rng.counter, fight.next_seq, fight.sink.chain


def _compare_forks(spec: EncounterSpec, seed: int) -> tuple[int, int]:
    """Play ``spec`` with random decisions; at each of the first forty decisions, fork the
    three ways and check the forks agree. Returns how many forks were taken at their decision
    and how many in an opening resumed at a kept turn decision."""
    fight = Fight(spec, seed)
    drive = fight.run()
    token = next(drive, None)
    pick = Rng(seed, "test/pick")
    here = elsewhere = 0
    for _ in range(40):
        if token is None:
            break
        dice = pick.next64() if pick.below(2) else None
        pending = fight._pending
        point = None if fight._forks is None else fight._forks.point
        here_or_kept = fight.fork(dice=dice)
        forks = fight._forks
        assert forks is not None
        fight._pending = None  # resume at the last turn decision kept, and replay since
        kept = fight.fork(dice=dice)
        forks.point = None  # replay from the round's start
        replayed = fight.fork(dice=dice)
        fight._pending, forks.point = pending, point
        assert here_or_kept.token is not None
        twice = here_or_kept.fork(dice=dice) if pending is not None and dice is not None else None
        assert _outcome(here_or_kept) == _outcome(kept) == _outcome(replayed)
        if twice is not None:  # a fork of the fork, at the same decision, on the same dice
            assert _outcome(twice) == _outcome(fight.fork(dice=dice))
        here += pending is not None
        elsewhere += pending is None and point is not None and not token.window.is_turn
        action = token.legal[pick.below(len(token.legal))].action
        try:
            token = drive.send(Decision(action=action))
        except StopIteration:
            token = None
    return here, elsewhere


@pytest.mark.parametrize(
    "ruleset",
    # openings in the quick tier; the others (a few seconds each) with the slow tests.
    [
        r if r == "openings" else pytest.param(r, marks=pytest.mark.slow)
        for r in rulesets_with_examples()
    ],
)
def test_fork_at_the_decision_goes_on_as_a_replayed_fork(ruleset: str) -> None:
    """Random decisions over random encounters of every ruleset give turns, openings,
    arrivals and inserted turns; every fork agrees with the replayed one, and most start at
    their decision (a turn's own window), some in openings at a kept one."""
    here = elsewhere = 0
    for i, spec in enumerate(random_encounters(ruleset, 3, seed=23)):
        counts = _compare_forks(spec, seed=i)
        here += counts[0]
        elsewhere += counts[1]
    assert here > 10
    assert elsewhere > 0


def test_fork_of_an_ended_fight_is_over() -> None:
    """Once the fight has ended there is no decision to resume at: the fork is over too."""
    spec = random_encounters("openings", 1, seed=3)[0]
    fight = Fight(spec, 1)
    fight.play(lambda token: Decision(action=aggressive(token.view)))
    assert fight._pending is None
    assert fight.fork().over
