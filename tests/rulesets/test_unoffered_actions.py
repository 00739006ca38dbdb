"""An action a policy returns is checked against the rules whether or not it was offered."""

from __future__ import annotations

import pytest
from helpers import AGILITY_ONLY, fight, of_type

STATS = AGILITY_ONLY


def encounter(ruleset: str, to: str) -> str:
    stats = STATS[ruleset]
    return f"""
ruleset = "{ruleset}"
max_rounds = 1
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = {{ {stats} }}
initiative_roll = 3
policy = "scripted"
script = [{{ type = "Move", to = {to} }}]
[[combatants]]
id = "b"
side = "y"
hp = 10
stats = {{ {stats} }}
initiative_roll = 1
position = [5, 0]
policy = "scripted"
[[combatants]]
id = "c"
side = "x"
hp = 10
stats = {{ {stats} }}
initiative_roll = 1
position = [0, 3]
policy = "scripted"
"""


@pytest.mark.parametrize("ruleset", sorted(STATS))
@pytest.mark.parametrize(("to", "who"), [("[5.0, 0.0]", "b"), ("[0.2, 3.0]", "c")])
def test_a_move_onto_someone_is_rejected(ruleset, to, who):
    """Design: "An illegal action is recorded as ActionRejected with the reason": a Move that
    was never offered, onto the point an enemy or an ally stands on, is not performed."""
    events = fight(encounter(ruleset, to)).events
    rejected = [e for e in of_type(events, "ActionRejected") if e.who == "a"]
    assert rejected[0].reason == (
        f"{who} stands within 0.5 m of the destination; no two share a point"
    )
    assert [e for e in of_type(events, "Moved") if e.who == "a"] == []


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_legal_move_that_was_not_offered_is_performed(ruleset):
    """An action outside the offers is legal when the rules allow it: a short sidestep."""
    events = fight(encounter(ruleset, "[0.0, -1.0]")).events
    moved = [e for e in of_type(events, "Moved") if e.who == "a"]
    assert [(m.to.x, m.to.y) for m in moved] == [(0.0, -1.0)]
