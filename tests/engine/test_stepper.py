"""The stepping object, the live state against the fold, and forks from snapshots."""

from __future__ import annotations

from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings
from initiative.actors import aggressive, run_encounter_sync
from initiative.engine import Fight, Stepper
from initiative.engine.kit import attack_offers, move_offers
from initiative.events import RoundStarted, StateDigested, encode_lines

from initiative import engine
from tests import helpers, oracle
from tests.test_determinism import encounters

EXAMPLES = Path(__file__).parents[2] / "examples"
SKIRMISH = EXAMPLES / "openings-skirmish.toml"


def test_stepper_says_whose_priority_and_what_is_legal():
    """A new stepper waits on the first token: its holder, view and offers agree."""
    stepper = Stepper(Fight(engine.load_encounter(SKIRMISH), 7))
    token = stepper.token
    assert token is not None and not stepper.over
    assert stepper.who == token.who == token.view.me.id
    assert stepper.legal == token.legal == token.view.legal
    assert stepper.state.priority == token.who


def test_stepping_by_hand_gives_the_log_of_fight_play():
    """Stepping with apply() and Fight.play give the same events."""
    spec = engine.load_encounter(SKIRMISH)
    by_hand = Fight(spec, 7)
    stepper = Stepper(by_hand)
    while not stepper.over:
        stepper.apply(aggressive(stepper.token.view))
    played = Fight(spec, 7)
    played.play(lambda token: engine.Decision(action=aggressive(token.view)))
    assert encode_lines(by_hand.events) == encode_lines(played.events)


def test_play_stops_at_a_round_horizon_and_counts_its_decisions():
    """``play(through=r)`` stops before the first decision of round ``r + 1`` and returns how
    many decisions it made; going on from there ends the fight as playing it whole does."""
    spec = engine.load_encounter(SKIRMISH)
    whole = Fight(spec, 7)
    Stepper(whole).play(lambda token: aggressive(token.view))
    fight = Fight(spec, 7)
    stepper = Stepper(fight)
    made = stepper.play(lambda token: aggressive(token.view), through=1)
    granted = [e for e in fight.events if type(e).__name__ == "PriorityGranted"]
    assert made == len(granted) - 1  # the last grant waits, unanswered, in round 2
    assert stepper.token is not None and fight.state.round == 2
    assert max(e.round for e in fight.events if isinstance(e, RoundStarted)) == 2
    assert stepper.play(lambda token: aggressive(token.view), limit=3) == 3
    rest = stepper.play(lambda token: aggressive(token.view))
    assert stepper.over and rest > 0
    assert encode_lines(fight.events) == encode_lines(whole.events)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(encounters())
def test_round_end_digests_equal_the_folds(case):
    """Every digest the live state records equals the digest of the fold of the same events,
    and the live state at the end equals the fold."""
    spec, seed = case
    events = run_encounter_sync(spec, seed).events
    state = engine.EncounterState()
    digests = 0
    for event in events:
        if isinstance(event, StateDigested):
            assert event.digest == engine.state_digest(state)
            digests += 1
        state = oracle.apply(state, event)
    assert digests >= 1
    assert engine.fold(events) == oracle.fold_pure(events) == state
    middle = events[len(events) // 2].seq
    assert engine.fold(events, middle) == oracle.fold_pure(events, middle)
    live = Fight(spec, seed)
    Stepper(live).play(lambda token: aggressive(token.view))
    assert msgspec.to_builtins(live.state.freeze()) == msgspec.to_builtins(engine.fold(live.events))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(encounters())
def test_the_live_indexes_answer_as_a_scan_of_everyone_would(case):
    """At every decision, the live state's indexes (who has the AP for a reaction, who is
    near a point, who is standing), the nearest enemy the fight keeps for everyone and the
    offers the shared helpers keep give what looking at every combatant gives."""
    spec, seed = case
    stepper = Stepper(Fight(spec, seed))
    while not stepper.over:
        state = stepper.state
        everyone = list(state.combatants.values())
        for least in range(0, 5):
            assert sorted(state.with_ap(least)) == sorted(c.id for c in everyone if c.ap >= least)
        here = stepper.token.view.me.position
        for radius in (0.5, 1.5, 6.0, 40.0):
            within = {c.id for c in everyone if engine.distance(here, c.position) <= radius}
            assert within <= set(state.near(here, radius))
        assert [c.id for c in state.standing()] == [
            c.id for c in sorted(everyone, key=lambda c: state._key(c.id)) if c.standing
        ]
        fight = stepper.fight
        for c in state.standing():
            gaps = [
                (engine.distance(c.position, e.position), e.id)
                for e in fight.queries.enemies_of(c.id)
                if fight.ruleset.can_see(fight.rules, c.id, e.id)
            ]
            nearest = fight.queries.nearest_enemy(c.id)
            assert (nearest.id if nearest else None) == (min(gaps)[1] if gaps else None)
            # The offers the shared helpers keep while the layout holds are the fresh ones.
            rules = fight.rules
            kept = (attack_offers(rules, c.id, 1), move_offers(rules, c.id, 1, 3.0))
            saved, rules.kept = rules.kept, {}
            assert kept == (attack_offers(rules, c.id, 1), move_offers(rules, c.id, 1, 3.0))
            rules.kept = saved
        stepper.apply(aggressive(stepper.token.view))


def _stepper_at(fight: Fight, decisions: int) -> Stepper:
    stepper = Stepper(fight)
    stepper.play(lambda token: aggressive(token.view), limit=decisions)
    return stepper


def test_a_fork_from_the_snapshot_equals_a_fork_replayed_from_the_header():
    """A fork resumed from the round's snapshot is the same fight as one replayed whole."""
    spec = engine.load_encounter(SKIRMISH)
    fight = Fight(spec, 7)
    _stepper_at(fight, 40)
    assert fight.snapshot is not None and fight.snapshot.decisions > 0
    from_snapshot = fight.fork()
    fight.snapshot = None  # no snapshot: the fork replays from the header
    from_header = fight.fork()
    assert from_snapshot.state == from_header.state == fight.state
    a, b = from_snapshot.token, from_header.token
    assert (a.who, a.seq, a.legal) == (b.who, b.seq, b.legal)
    assert a.view.plain() == b.view.plain()
    from_snapshot.play(aggressive)
    from_header.play(aggressive)
    assert from_snapshot.state == from_header.state
    assert from_snapshot.fight.next_seq == from_header.fight.next_seq


def _reseed_seq(spec: engine.EncounterSpec, seed: int) -> int:
    """A seq a few events into round 1 (after the snapshot at its start)."""
    probe = Fight(spec, seed)
    _stepper_at(probe, 3)
    start = next(e.seq for e in probe.events if isinstance(e, RoundStarted))
    return start + 3


def test_a_fork_taken_after_a_reseed_replays_with_it():
    """Fight.fork keeps the reseed (``fork --seed``) that emit has already acted on: the
    fork stands where the fight stands and goes on as the fight goes on."""
    spec = engine.load_encounter(SKIRMISH)
    at = _reseed_seq(spec, 7)
    for use_snapshot in (True, False):
        fight = Fight(spec, 7, reseed={at: 99})
        stepper = _stepper_at(fight, 12)
        assert fight.next_seq > at + 1  # the reseed has happened
        if not use_snapshot:
            fight.snapshot = None
        branch = fight.fork()
        assert branch.fight.recorder.rng.stream == "dice" and branch.fight.recorder.rng.seed == 99
        assert branch.fight.recorder.rng.counter == fight.recorder.rng.counter
        assert branch.state == fight.state
        branch.play(aggressive)
        stepper.play(lambda token: aggressive(token.view))
        assert branch.state == fight.state


def _lines(per_side: int) -> str:
    """Two facing lines of melee fighters, each with an enemy in reach (the benchmark's)."""
    text = 'ruleset = "openings"\nname = "lines"\nseed = 1\nsides = ["red", "blue"]\n'
    text += "max_rounds = 2\n"
    for side, y in (("red", 0), ("blue", 1)):
        for i in range(per_side):
            text += (
                f'[[combatants]]\nid = "{side}{i}"\nside = "{side}"\nhp = 12\n'
                f"position = [{i}, {y}]\nspeed = 5\n"
                "stats = { agility = 2, strength = 2, defense = 2 }\n"
                'weapons = [{ name = "sword", damage = "1d8" }]\npolicy = "aggressive"\n'
            )
    return text


def _answers(live):  # type: ignore[no-untyped-def]
    """What a live state answers: its value and what each index says."""
    return (
        live.freeze(),
        [c.id for c in live.standing()],
        [[c.id for c in live.side_standing(side)] for side in ("red", "blue")],
        sorted(live.with_ap(1)),
        {k: sorted(v) for k, v in live.holding.items()},
        {k: (sorted(live.near(c.position, 0.5)), sorted(live.near(c.position, 6.0)))
         for k, c in live.combatants.items()},
    )  # fmt: skip


def _live(events):  # type: ignore[no-untyped-def]
    """A fresh live state of ``events``, its lazy indexes built."""
    from initiative.engine._live import LiveState

    live = LiveState()
    for event in events:
        live.apply(event)
    live.standing_ids()
    live.with_ap(0)
    return live


def test_a_copy_of_the_live_state_and_its_original_change_apart():
    """``LiveState.copy`` shares the containers until one of the two writes to them (copy on
    write). Copies taken through a fight of 40 (the position grid in use), with every index
    built: one goes on through the rest of the events, as does the original, while the other
    stays; each answers, value and index by index, as a fresh state of its events does."""
    from initiative.engine._live import LiveState

    events = helpers.fight(_lines(20), seed=3).events
    assert not _live(events).covers(0.5)  # (the grid is asked, not everyone listed)
    final = _answers(_live(events))
    for at in range(40, len(events), len(events) // 6):
        live = _live(events[:at])
        kept, going = live.copy(), live.copy()
        for name in LiveState.__slots__:
            assert getattr(kept, name) == getattr(live, name), name
        for event in events[at:]:
            live.apply(event)
            going.apply(event)
        assert _answers(kept) == _answers(_live(events[:at]))
        assert _answers(live) == _answers(going) == final
