"""The Trio executor's tasks: how a fight's combatant tasks end, whatever ends the fight."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from helpers import encounter
from initiative.actors import aggressive, in_line, make_runners, run_encounter_sync, schedule
from initiative.engine import Fight, View
from initiative.events import EncounterEnded, Event, encode_lines

DUEL = """
ruleset = "openings"
max_rounds = 3
[[combatants]]
id = "a"
side = "red"
hp = 12
position = [0, 0]
policy = "aggressive"
[[combatants]]
id = "b"
side = "blue"
hp = 12
position = [1, 0]
policy = "aggressive"
"""


class Watcher:
    """Observes every event it is shown and fights like ``aggressive``."""

    def __init__(self) -> None:
        self.seen: list[Event] = []

    def observe(self, event: Event) -> None:
        self.seen.append(event)

    def decide(self, view: View) -> Any:
        return aggressive(view)


@pytest.mark.parametrize("host", ["inline", "task", "thread"])
def test_an_observer_is_shown_every_event_once_through_the_end(host: str) -> None:
    """Each host: the news reaches an observing policy in order, each event once, up to
    ``EncounterEnded`` (the last news comes with the end of the fight, no decision asked)."""
    watcher = Watcher()
    result = run_encounter_sync(
        encounter(DUEL), 4, policies={"a": watcher}, hosts={"a": host}, executor="trio"
    )
    assert isinstance(result.events[-1], EncounterEnded)
    assert watcher.seen == result.events


def test_the_trio_executor_writes_the_in_line_executors_log_with_an_observer_in_line() -> None:
    """An observing policy hosted in line in the Trio executor: the same log as in line."""
    spec = encounter(DUEL)
    via_trio = run_encounter_sync(
        spec, 9, policies={"a": Watcher()}, hosts={"a": "inline"}, executor="trio"
    )
    via_inline = run_encounter_sync(spec, 9, policies={"a": in_line(Watcher())}, executor="inline")
    assert encode_lines(via_trio.events) == encode_lines(via_inline.events)


def test_a_ctrl_c_inside_an_in_line_policy_stops_the_fight_as_a_ctrl_c() -> None:
    """A ``KeyboardInterrupt`` out of an in-line host is the user's Ctrl-C: it ends the fight
    and reaches the caller as itself (not a group, not the scheduler's wait being cut)."""

    def interrupted(view: View) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_encounter_sync(encounter(DUEL), 4, policies={"b": interrupted}, hosts={"b": "inline"})


async def test_a_fight_cancelled_from_outside_ends_every_task(
    autojump_clock: trio.abc.Clock,
) -> None:
    """The caller's deadline passes while a combatant decides (an async policy with no
    deadline of its own): the scheduler and every combatant task end, nothing hangs."""

    async def stuck(view: View) -> Any:
        await trio.sleep_forever()

    spec = encounter(DUEL.replace("max_rounds = 3", "max_rounds = 3\ndecision_timeout = 600"))
    runners = make_runners(spec, 4, {"b": stuck}, hosts={"b": "task"})
    fight = Fight(spec, 4)
    with trio.move_on_after(10) as scope:
        await schedule(fight, runners)
    assert scope.cancelled_caught
    assert not isinstance(fight.events[-1], EncounterEnded)
    assert trio.current_time() == pytest.approx(10)
