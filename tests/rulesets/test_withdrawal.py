"""The withdrawal rule (``withdraw_turns``, every ruleset): running away ends in leaving the
battle, so that no policy can draw a fight out to ``max_rounds`` by running. The seeds are
silent on it; the plain default is documented in docs/rulesets.md ("Checks every ruleset
makes")."""

from __future__ import annotations

from pathlib import Path

import cli_support
import pytest
from helpers import AGILITY_ONLY, encounter, fight, of_type
from initiative.events import EncounterFileError, read_log
from initiative.replays import verify_log

from initiative import engine

STATS = AGILITY_ONLY

EXAMPLES = Path(__file__).parents[2] / "examples"
TURN = '{ type = "EndTurn" }'


def runner(ruleset: str, steps: list[float | None], options: str = "") -> str:
    """``a`` (side x) moves to each x position of ``steps`` in one turn each (``None``: a turn
    spent standing); ``b`` (side y) stands 10 m away and never acts."""
    script = []
    for x in steps:
        if x is not None:
            script.append(f'{{ type = "Move", to = [{x}, 0] }}')
        script.append(TURN)
    return f"""
ruleset = "{ruleset}"
max_rounds = 20
[options]
{options}
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = {{ {STATS[ruleset]} }}
policy = "scripted"
script = [{", ".join(script)}]
[[combatants]]
id = "b"
side = "y"
hp = 10
stats = {{ {STATS[ruleset]} }}
position = [10, 0]
policy = "scripted"
"""


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_three_turns_of_running_away_leave_the_battle(ruleset: str) -> None:
    """A combatant that ends three of its turns in a row farther from its nearest enemy than
    it began them, aiming nothing at an enemy, has withdrawn: its side has nobody left."""
    events = fight(runner(ruleset, [-3, -6, -9, -12])).events
    (left,) = of_type(events, "CombatantLeft")
    assert (left.who, left.reason) == ("a", "withdrew")
    moves = [e for e in of_type(events, "Moved") if e.who == "a"]
    assert len(moves) == 3  # it left at the end of its third retreating turn
    assert type(events[left.cause]).__name__ == "TurnEnded"
    ended = events[-1]
    assert (ended.winner, ended.reason) == ("y", "only y is left standing")


def test_a_turn_that_does_not_retreat_starts_the_count_again() -> None:
    """Two retreating turns, a turn standing, then two more: never three in a row."""
    events = fight(runner("openings", [-3, -6, None, -9, -12])).events
    assert not of_type(events, "CombatantLeft")
    assert events[-1].winner is None


def test_attacking_while_backing_off_is_not_running_away() -> None:
    """A turn in which it aims an action at an enemy is no retreat, even if it ends farther
    away (hit and run)."""
    text = """
ruleset = "openings"
max_rounds = 4
[options]
ap = 3
move_cost = 1
attack_cost = 1
leave_space_openings = false
turn_end_openings = false
[[combatants]]
id = "a"
side = "x"
hp = 50
stats = { defense = 30 }
weapons = [{ name = "bow", damage = "1", range = 30 }]
policy = "scripted"
script = [
  { type = "Attack", target = "b" }, { type = "Move", to = [-3, 0] }, { type = "EndTurn" },
  { type = "Attack", target = "b" }, { type = "Move", to = [-6, 0] }, { type = "EndTurn" },
  { type = "Attack", target = "b" }, { type = "Move", to = [-9, 0] }, { type = "EndTurn" },
  { type = "Attack", target = "b" }, { type = "Move", to = [-12, 0] }, { type = "EndTurn" },
]
[[combatants]]
id = "b"
side = "y"
hp = 50
stats = { defense = 30 }
position = [10, 0]
policy = "scripted"
"""
    events = fight(text).events
    attacks = [e for e in of_type(events, "ActionDeclared") if type(e.action).__name__ == "Attack"]
    assert len(attacks) == 4
    assert len([e for e in of_type(events, "Moved") if e.who == "a"]) == 4
    assert not of_type(events, "CombatantLeft")


def test_withdraw_turns_zero_turns_the_rule_off() -> None:
    """``withdraw_turns = 0`` in ``[options]``: a runner runs on."""
    events = fight(runner("openings", [-3, -6, -9, -12], "withdraw_turns = 0")).events
    assert not of_type(events, "CombatantLeft")
    assert len([e for e in of_type(events, "Moved") if e.who == "a"]) == 4


def test_the_header_records_the_default_and_an_old_header_keeps_the_rule_off() -> None:
    """An encounter file that leaves it out gets 3, recorded in the log's header; options
    without the key (a header written before the rule) decode with the rule off."""
    spec = encounter(runner("thriller", []))
    assert spec.options["withdraw_turns"] == 3
    ruleset = engine.find_ruleset("thriller")
    assert ruleset.decode_options({}, name="header").withdraw_turns == 0


def test_a_negative_withdraw_turns_is_refused() -> None:
    """A negative count is refused when the file is loaded, naming the key."""
    with pytest.raises(EncounterFileError, match="at key withdraw_turns: must be at least 1"):
        encounter(runner("openings", [], "withdraw_turns = -1"))


@pytest.mark.slow
def test_search_no_longer_stalls_the_skirmish(tmp_path) -> None:
    """Reproduction (issue 36, item 4): with ``search`` for the goblins, seed 10 ran to round
    100 while the last goblin ran from Brenna for 86 rounds; now the fight is decided."""
    log = tmp_path / "s10.jsonl"
    done = cli_support.run(
        "run", EXAMPLES / "openings-skirmish.toml", "--seed", "10", "--policy",
        "wardens=tactician", "--policy", "goblins=search", "--out", log,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = read_log(log).events
    ended = events[-1]
    assert ended.winner == "wardens"
    assert ended.rounds < 30
    assert verify_log(read_log(log)).ok
