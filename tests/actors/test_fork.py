"""Forks: a look-ahead's private copy of the fight never reaches the real one."""

from __future__ import annotations

from pathlib import Path

import msgspec
from initiative.actors import Lookahead, PolicyContext, aggressive, run_encounter_sync
from initiative.engine import Decision, Fight, PriorityToken, policy_rng
from initiative.events import encode_event, read_log
from initiative.replays import verify_log

from initiative import engine

DUEL = Path(__file__).parents[2] / "examples" / "openings-duel.toml"


def drive_to(fight: Fight, decisions: int) -> PriorityToken:
    """Run ``fight`` with ``aggressive`` until ``decisions`` decisions were made."""
    drive = fight.run()
    token = next(drive)
    for _ in range(decisions):
        token = drive.send(Decision(action=aggressive(token.view)))
    fight._drive = drive  # type: ignore[attr-defined]
    return token


def test_fork_is_positioned_at_the_pending_decision() -> None:
    """The fork waits on the same grant, with the same state, as the real fight."""
    fight = Fight(engine.load_encounter(DUEL), 3)
    token = drive_to(fight, 12)
    branch = token.view.fork()
    assert branch.token is not None
    assert branch.token.seq == token.seq
    assert branch.token.legal == token.legal
    assert branch.state == fight.state


def test_playing_a_fork_leaves_the_real_fight_untouched() -> None:
    """State, dice counter, events and sink of the real fight are unchanged by a fork."""
    seen = []
    fight = Fight(engine.load_encounter(DUEL), 3, sink=seen.append)
    token = drive_to(fight, 12)
    rec = fight.recorder
    before = (fight.state, rec.rng.counter, len(fight.events), len(seen), rec.next_seq)
    branch = token.view.fork(dice=99)
    branch.play(aggressive)
    assert branch.over
    assert branch.state.ended
    assert (fight.state, rec.rng.counter, len(fight.events), len(seen), rec.next_seq) == before


def test_fork_without_dice_foresees_the_real_rolls_and_with_dice_does_not() -> None:
    """``fork()`` continues the real dice stream; ``fork(dice=n)`` draws from its own."""
    spec = engine.load_encounter(DUEL)
    fight = Fight(spec, 3)
    token = drive_to(fight, 12)
    plain = token.view.fork()
    plain.play(aggressive)
    rest = fight._drive  # type: ignore[attr-defined]
    try:
        while True:
            token = rest.send(Decision(action=aggressive(token.view)))
    except StopIteration:
        pass
    assert plain.state == fight.state
    other = Fight(spec, 3)
    reseeded = drive_to(other, 12).view.fork(dice=1)
    reseeded.play(aggressive)
    assert reseeded.fight.recorder.rng.stream == "fork/1"
    assert reseeded.state != fight.state


def test_a_fight_with_lookahead_verifies_from_its_log(tmp_path: Path) -> None:
    """Its forks leave no trace: the log re-simulates byte for byte with no policy code."""
    out = tmp_path / "la.jsonl"
    spec = engine.load_encounter(DUEL)
    result = run_encounter_sync(spec, 4, policies={"north": "lookahead"}, out=out)
    assert result.winner in ("north", "south")
    verification = verify_log(read_log(out))
    assert verification.ok
    assert verification.events == len(result.events)
    assert out.read_bytes() == b"".join(encode_event(e) for e in result.events)


def test_lookahead_is_deterministic_for_a_seed() -> None:
    """Two runs of the same seed choose the same actions (its dice samples come from its
    own stream)."""
    spec = engine.load_encounter(DUEL)
    a = run_encounter_sync(spec, 6, policies={"south": "lookahead"})
    b = run_encounter_sync(spec, 6, policies={"south": "lookahead"})
    assert msgspec.json.encode(a.events) == msgspec.json.encode(b.events)


def test_lookahead_tries_every_offer_on_its_own_forks() -> None:
    """One fork per offer and sample for each decision with a choice."""
    spec = engine.load_encounter(DUEL)
    ilse = spec.combatants[0]
    policy = Lookahead(PolicyContext(ilse, spec, policy_rng(1, ilse.id)), samples=2, horizon=5)
    fight = Fight(spec, 1)
    token = drive_to(fight, 0)
    while token.who != "ilse":
        token = fight._drive.send(Decision(action=aggressive(token.view)))  # type: ignore[attr-defined]
    action = policy.decide(token.view)
    assert action in [o.action for o in token.legal]
    assert policy.forks == 2 * len(token.legal)
