"""The tactical ruleset as a whole: the example, determinism, defaults, and bad input."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from initiative.actors import run_encounter_sync
from initiative.events import EncounterFileError

from initiative import engine

from .tactical_kit import HI, act, attack, events, run, text, unit

EXAMPLE = Path(__file__).parents[2] / "examples" / "tactical-bridge.toml"


@pytest.mark.parametrize("policy", ["aggressive", "cautious", "random"])
def test_example_ends_and_repeats_identically(policy: str) -> None:
    """The example (shields, a caster, ranged attackers) ends with a winner or the round limit,
    and the same seed gives the same events."""
    spec = engine.load_encounter(EXAMPLE)
    policies = {"watch": policy, "raiders": policy}
    first = run_encounter_sync(spec, 11, policies=policies)
    again = run_encounter_sync(spec, 11, policies=policies)
    end = first.events[-1]
    assert type(end).__name__ == "EncounterEnded"
    assert end.winner in ("watch", "raiders") or "round limit" in end.reason
    assert msgspec.json.encode(first.events) == msgspec.json.encode(again.events)


def test_example_uses_shields_magic_and_ranged_weapons() -> None:
    """The example is played through its own policies and shows the ruleset's actions."""
    spec = engine.load_encounter(EXAMPLE)
    result = run_encounter_sync(spec, 4)
    kinds = {type(e.action).__name__ for e in events(result, "ActionDeclared")}
    assert {"Attack", "Block", "CastMagic", "OpportunityAttack"} <= kinds


def test_degrees_of_success_one_per_full_ten_under() -> None:
    """Default (the seed points to rules it lacks): d100 roll-under; 1 DoS plus 1 per full 10
    under the target; failures count degrees of failure as a negative margin."""
    r = run(
        unit("a", "x", init=9, skills={"stealth": 60}, script=[act("Hide")]),
        unit("b", "y", 5, init=1, skills={"observe": 0}),
    )
    check = events(r, "CheckResolved", who="a")[0]
    expected = 1 + (60 - check.roll) // 10 if check.roll <= 60 else -(1 + (check.roll - 61) // 10)
    assert check.margin == expected


def test_fumble_from_always_fails() -> None:
    """Default: a roll at or above ``fumble_from`` fails whatever the skill."""
    r = run(
        unit("a", "x", init=9, skills={"stealth": HI}, script=[act("Hide")]),
        unit("b", "y", 5, init=1),
        options={"fumble_from": 1},
    )
    assert events(r, "CheckResolved", who="a")[0].success is False


def test_hit_location_from_the_d20_table() -> None:
    """Default hit locations: 1d20 on the humanoid table (19-20 head, ... 1-3 right leg)."""
    r = run(
        unit("a", "x", init=9, skills={"combat_style": HI}, script=[attack("b")]),
        unit("b", "y", 1, init=1),
    )
    roll = events(r, "DiceRolled", purpose="hit location")[0].total
    table = [
        (3, "right leg"),
        (6, "left leg"),
        (9, "abdomen"),
        (12, "chest"),
        (15, "right arm"),
        (18, "left arm"),
        (20, "head"),
    ]
    expected = next(name for top, name in table if roll <= top)
    assert events(r, "DamageDealt", who="b")[0].location == expected


def test_hidden_ends_on_attacking() -> None:
    """Hidden (default): ends when the character attacks; the attack cannot be reacted to."""
    r = run(
        unit(
            "a",
            "x",
            init=9,
            skills={"stealth": HI, "combat_style": HI},
            script=[act("Hide"), attack("b")],
        ),
        unit("b", "y", 1, init=1, skills={"observe": 0}, reactions=[act("Evade")]),
    )
    assert events(r, "OpeningOpened") == []
    assert events(r, "ConditionRemoved", who="a", condition="hidden")


def test_options_come_from_the_encounter() -> None:
    """Defaults are options: ``attack_limit`` from [options]."""
    r = run(
        unit("a", "x", init=9, ap=5, script=[attack("b")] * 3),
        unit("b", "y", 1, init=1, hp=99),
        options={"attack_limit": 3},
    )
    assert len(events(r, "AttackResolved", who="a")) == 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"skills": {"swimming": 40}}, "unknown skill 'swimming'"),
        ({"stats": {"luck": 3}}, "unknown stat 'luck'"),
        ({"options": {"conditions": ["dizzy"]}}, "unknown condition 'dizzy'"),
        ({"options": {"colour": "red"}}, "in options"),
        ({"weapons": [{"name": "x", "damage": "d"}]}, "not a dice expression"),
    ],
)
def test_bad_combatants_are_clear_errors(change: dict, message: str) -> None:
    """Bad input gives a clear EncounterFileError naming the combatant."""
    with pytest.raises(EncounterFileError, match=message):
        run(unit("a", "x", **change), unit("b", "y", 1))


def test_bad_option_is_a_clear_error() -> None:
    """A mistyped option is an EncounterFileError, not a traceback."""
    with pytest.raises(EncounterFileError, match="attack_limt"):
        run(unit("a", "x"), unit("b", "y", 1), options={"attack_limt": 3})


def test_unknown_action_is_rejected_with_a_reason() -> None:
    """An action of another ruleset is rejected with a reason."""
    r = run(unit("a", "x", init=9, script=[act("Dodge")]), unit("b", "y", 1, init=1))
    assert events(r, "ActionRejected", who="a")[0].reason == (
        "Dodge is not an action of the tactical ruleset"
    )


def test_unknown_delay_trigger_is_rejected() -> None:
    """Delay Turn triggers are the documented names."""
    r = run(
        unit("a", "x", init=9, script=[act("DelayTurn", triggers=["dawn"])]),
        unit("b", "y", 1, init=1),
    )
    assert events(r, "ActionRejected", who="a")[0].reason.startswith("unknown trigger 'dawn'")


def test_text_builder_round_trips() -> None:
    """The test kit writes TOML the encounter loader reads."""
    spec = engine.decode_encounter(
        __import__("tomllib").loads(text(unit("a", "x"), unit("b", "y", 1)))
    )
    assert [c.id for c in spec.combatants] == ["a", "b"]
