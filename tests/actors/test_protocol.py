"""The priority protocol between the scheduler and combatant tasks, with misbehaving policies."""

from __future__ import annotations

import textwrap

import pytest
import trio
from helpers import afight, encounter, fight, of_type
from initiative.events import DecisionFailed, PolicyLoadError

POLICIES = textwrap.dedent(
    """
    import time
    import trio
    from initiative.events import Attack, EndTurn

    def boom(view):
        raise RuntimeError("kaboom")

    def sleepy_sync(view):
        time.sleep(60)

    async def sleepy(view):
        await trio.sleep(1000)

    def illegal(view):
        return Attack(target="nobody")

    def junk(view):
        return "attack!"

    class Counting:
        def __init__(self, ctx):
            self.seen = []
        def observe(self, event):
            self.seen.append(type(event).__name__)
        def decide(self, view):
            # Every event up to and including this grant has been observed, in order.
            if len(self.seen) != view.seq + 1 or self.seen[-1] != "PriorityGranted":
                raise AssertionError(f"saw {len(self.seen)} events at grant {view.seq}")
            return EndTurn() if view.window.is_turn else view.legal[-1].action
    """
)


def one_on_one(policy: str, *, timeout: float = 5.0, rounds: int = 1) -> str:
    return f"""
ruleset = "openings"
max_rounds = {rounds}
decision_timeout = {timeout}
[[combatants]]
id = "x"
side = "left"
hp = 10
initiative_roll = 12
policy = "{policy}"
[[combatants]]
id = "y"
side = "right"
hp = 10
position = [1, 0]
policy = "scripted"
"""


@pytest.fixture
def policy_file(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(POLICIES)
    return path


def failures(events) -> list[DecisionFailed]:
    return [e for e in of_type(events, "DecisionFailed")]


def test_a_policy_that_raises_is_recorded_and_passes(policy_file):
    """Protocol 3: a policy that raises is recorded and passes; the encounter goes on."""
    events = fight(one_on_one(f"{policy_file}:boom")).events
    failed = failures(events)[0]
    assert (failed.who, failed.kind) == ("x", "error")
    assert failed.detail.startswith("RuntimeError: kaboom (mine.py:")
    passed = events[failed.seq + 1]
    assert type(passed).__name__ == "PriorityPassed" and passed.cause == failed.seq
    assert events[failed.seq + 2].__class__.__name__ == "TurnEnded"
    assert type(events[-1]).__name__ == "EncounterEnded"


async def test_an_async_policy_that_hangs_times_out(policy_file, autojump_clock):
    """Protocol 3: a policy past its decision timeout is recorded and passes."""
    result = await afight(one_on_one(f"{policy_file}:sleepy", timeout=2.5))
    failed = failures(result.events)
    assert {(f.who, f.kind, f.detail) for f in failed} == {
        ("x", "timeout", "no decision within 2.5 s")
    }
    assert trio.current_time() >= 2.5 * len(failed)
    assert type(result.events[-1]).__name__ == "EncounterEnded"


def test_a_blocking_sync_policy_is_abandoned_at_the_timeout(policy_file):
    """A user's plain function that blocks runs in a worker thread and is abandoned; while that
    call still runs, the combatant's next tokens fail at once as ``busy``."""
    events = fight(one_on_one(f"{policy_file}:sleepy_sync", timeout=0.2)).events
    kinds = [f.kind for f in failures(events) if f.who == "x"]
    assert kinds[0] == "timeout" and set(kinds) <= {"timeout", "busy"}


def test_an_illegal_action_is_rejected_and_asked_again_a_bounded_number_of_times(policy_file):
    """Protocol 3: an illegal action is recorded as ActionRejected with the reason and the
    combatant is asked again (3 times), then it passes."""
    events = fight(one_on_one(f"{policy_file}:illegal")).events
    rejected = [e for e in of_type(events, "ActionRejected") if e.who == "x"][:3]
    turn_end = next(e for e in of_type(events, "TurnEnded") if e.who == "x")
    assert [e.seq < turn_end.seq for e in rejected] == [True, True, True]
    assert {e.reason for e in rejected} == {"no combatant 'nobody' is in the fight"}
    forced = events[rejected[-1].seq + 1]
    assert (type(forced).__name__, forced.reason, forced.cause) == (
        "PriorityPassed",
        "too many illegal actions",
        rejected[-1].seq,
    )


def test_a_policy_returning_something_not_an_action_is_recorded(policy_file):
    """A return value that is not an action is recorded as an invalid decision."""
    events = fight(one_on_one(f"{policy_file}:junk")).events
    failed = failures(events)[0]
    assert (failed.kind, failed.detail) == ("invalid", "the policy returned str, not an action")


def test_a_class_policy_observes_every_event_before_deciding(policy_file):
    """A policy object with observe() sees the events since its last decision."""
    result = fight(one_on_one(f"{policy_file}:Counting", rounds=2))
    grants = [e for e in of_type(result.events, "PriorityGranted") if e.who == "x"]
    assert len(grants) >= 2
    assert failures(result.events) == []


def test_unknown_policy_is_a_clear_error():
    """An unknown policy name lists what is available."""
    with pytest.raises(PolicyLoadError, match="unknown policy 'genius' for combatant 'x'"):
        fight(one_on_one("genius"))


def test_missing_policy_file_is_a_clear_error(tmp_path):
    """A file policy that does not exist names the file."""
    with pytest.raises(PolicyLoadError, match="no such file"):
        fight(one_on_one(f"{tmp_path}/none.py:f"))


def test_priority_is_exclusive_and_every_decision_answers_one_grant():
    """Protocol 2: at any moment one combatant may act -- each grant is answered by exactly
    one decision event, by the same combatant, before the next grant."""
    events = fight(open_example(), seed=3).events
    pending = None
    for e in events:
        name = type(e).__name__
        if name == "PriorityGranted":
            assert pending is None
            pending = e
        elif name in DECISIONS and pending is not None and e.cause == pending.seq:
            assert e.who == pending.who
            pending = None
    assert pending is None


def test_one_turn_per_combatant_per_round():
    """Invariant: in every round, each standing combatant takes at most one turn."""
    events = fight(open_example(), seed=3).events
    seen: dict[int, list[str]] = {}
    current = 0
    for e in events:
        if type(e).__name__ == "RoundStarted":
            current = e.round
        if type(e).__name__ == "TurnStarted":
            seen.setdefault(current, []).append(e.who)
    for who in seen.values():
        assert len(who) == len(set(who))


DECISIONS = ("ActionDeclared", "ActionRejected", "PriorityPassed", "DecisionFailed")


def open_example() -> str:
    from pathlib import Path

    return (Path(__file__).parents[2] / "examples" / "openings-skirmish.toml").read_text()


_ = encounter
