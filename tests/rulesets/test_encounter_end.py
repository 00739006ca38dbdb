"""How an encounter ends when nothing can change any more, and fleeing under ``openings``."""

from __future__ import annotations

import pytest
from helpers import AGILITY_ONLY, fight, of_type

STATS = AGILITY_ONLY


def idle(ruleset: str, options: str = "", arrives: int = 1) -> str:
    """Two scripted combatants far apart whose scripts are empty: nobody ever acts."""
    stats = STATS[ruleset]
    return f"""
ruleset = "{ruleset}"
max_rounds = 50
[options]
{options}
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = {{ {stats} }}
policy = "scripted"
[[combatants]]
id = "b"
side = "y"
hp = 10
stats = {{ {stats} }}
position = [20, 0]
policy = "scripted"
arrives = {arrives}
"""


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_idle_rounds_end_the_encounter_with_a_reason(ruleset):
    """Design default (docs/rulesets.md): after ``idle_rounds`` (3) rounds in a row in which
    nobody takes any action, nothing can change any more: the encounter ends undecided then,
    not at ``max_rounds``."""
    events = fight(idle(ruleset)).events
    ended = events[-1]
    assert type(ended).__name__ == "EncounterEnded"
    assert (ended.winner, ended.rounds) == (None, 3)
    assert "3 rounds" in ended.reason
    assert "round limit" not in ended.reason


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_idle_rounds_can_be_turned_off(ruleset):
    """``idle_rounds = 0``: the encounter idles on to ``max_rounds``."""
    ended = fight(idle(ruleset, "idle_rounds = 0")).events[-1]
    assert (ended.rounds, ended.reason) == (50, "round limit (50) reached")


def test_idle_rounds_wait_for_late_arrivals():
    """Seed 001: "The GM determines on which round new combatants arrive": rounds before a
    late arrival are not the end of the fight."""
    events = fight(idle("percentile", arrives=5)).events
    assert events[-1].rounds == 7


def test_openings_idle_end_is_the_seeds_unable_or_unwilling():
    """Seed 003: "Upon the final blows being dealt, with all combatants rendered unable or
    unwilling to fight, that encounter ends." """
    ended = fight(idle("openings")).events[-1]
    assert ended.reason == (
        "everyone left is unable or unwilling to fight (nobody acted for 3 rounds)"
    )


def test_openings_a_combatant_that_runs_far_away_has_fled():
    """Seed 003: "Encounters may also end abruptly when combatants flee through various
    means": a move that ends beyond ``escape_distance`` (30 m) of every enemy is a flight."""
    text = """
ruleset = "openings"
max_rounds = 5
[options]
ap = 10
[[combatants]]
id = "a"
side = "x"
hp = 10
speed = 8
policy = "scripted"
script = [{ type = "Move", to = [-8, 0] }, { type = "Move", to = [-16, 0] },
          { type = "Move", to = [-24, 0] }]
[[combatants]]
id = "b"
side = "y"
hp = 10
position = [10, 0]
policy = "scripted"
"""
    events = fight(text).events
    (left,) = of_type(events, "CombatantLeft")
    assert (left.who, left.reason) == ("a", "fled")
    assert len([e for e in of_type(events, "Moved") if e.who == "a"]) == 3
    ended = events[-1]
    assert (ended.winner, ended.reason) == ("y", "only y is left standing")
