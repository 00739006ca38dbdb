"""Seed 001 surprise: given by the GM or from Concealment / Silent Move against Perception."""

from __future__ import annotations

from tests.helpers import fight, of_type
from tests.rulesets.percentile_support import fields, toml, turns_by_round


def person(
    cid: str,
    side: str,
    *extra: str,
    stats: str = "agility = 30, weapon_skill = 100",
    skills: str = "",
) -> str:
    lines = [f'id = "{cid}"', f'side = "{side}"', "hp = 30", f"stats = {{ {stats} }}"]
    if skills:
        lines.append(f"skills = {{ {skills} }}")
    lines += ['policy = "scripted"', 'weapons = [{ name = "club", damage = "1d2" }]', *extra]
    return "\n".join(lines)


def checks(result, name: str) -> list[tuple]:  # type: ignore[no-untyped-def]
    return [
        fields(e, "who", "success", "roll", "against", "margin", "against_who")
        for e in of_type(result.events, "CheckResolved")
        if e.check == name
    ]


def surprised(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.who for e in of_type(result.events, "ConditionAdded") if e.condition == "surprised"]


def test_surprised_take_no_action_in_round_1_only() -> None:
    """Seed 001: "Surprise only affects the first round of a combat." """
    attack = '{ type = "Attack", target = "b" }'
    result = fight(
        toml(
            person("a", "x", "initiative_roll = 1", f"script = [{attack}, {attack}]"),
            person(
                "b",
                "y",
                "initiative_roll = 10",
                "surprised = true",
                'script = [{ type = "Attack", target = "a" }]',
            ),
            rounds=2,
        )
    )
    added = of_type(result.events, "ConditionAdded")
    assert [fields(e, "who", "condition", "until") for e in added] == [
        ("b", "surprised", "end of round 1")
    ]
    ended = [fields(e, "who", "reason") for e in of_type(result.events, "TurnEnded")]
    assert ended[:2] == [("b", "surprised"), ("a", "ended")]
    declared = [(e.who, type(e.action).__name__) for e in of_type(result.events, "ActionDeclared")]
    round1, round2 = declared[:2], declared[2:]
    assert round1 == [("a", "Attack"), ("a", "EndTurn")]
    assert ("b", "Attack") in round2
    (removed,) = of_type(result.events, "ConditionRemoved")
    (ended1,) = [e for e in of_type(result.events, "RoundEnded") if e.round == 1]
    assert removed.who == "b" and removed.cause == ended1.seq
    assert turns_by_round(result.events)[2] == ["b", "a"]


def test_surprised_cannot_parry_or_dodge_in_round_1() -> None:
    """Seed 001: "Surprise only affects the first round of a combat." A surprised combatant
    takes no reaction either; in round 2 it may parry."""
    attack = '{ type = "Attack", target = "b" }'
    result = fight(
        toml(
            person(
                "a",
                "x",
                "initiative_roll = 10",
                f"script = [{attack}, {{ type = 'EndTurn' }}, {attack}]",
            ),
            person(
                "b",
                "y",
                "initiative_roll = 1",
                "surprised = true",
                'reactions = [{ type = "Parry" }]',
                skills="Dodge = 100",
            ),
            rounds=2,
        )
    )
    openings = of_type(result.events, "OpeningOpened")
    assert [(o.trigger.kind, o.offered) for o in openings] == [("attacked", ("b",))]
    assert result.fight.state.round == 2
    hits = [fields(e, "hit", "detail") for e in of_type(result.events, "AttackResolved")]
    assert hits == [(True, "club"), (False, "club; parried by b")]


def test_successful_concealment_surprises_unwary_enemies() -> None:
    """Seed 001: "Successful use of the Concealment skill before the combat may mean that
    some characters are hidden." """
    result = fight(
        toml(
            person(
                "lurker", "x", 'options = { sneak = "Concealment" }', skills="Concealment = 100"
            ),
            person("guard", "y"),
            person("guard2", "y"),
            rounds=1,
        )
    )
    (test,) = checks(result, "Concealment")
    assert test[:2] == ("lurker", True) and test[3] == 100
    assert checks(result, "Perception") == []
    assert surprised(result) == ["guard", "guard2"]
    assert [e.cause for e in of_type(result.events, "ConditionAdded")] == [
        of_type(result.events, "CheckResolved")[0].seq
    ] * 2


def test_failed_silent_move_surprises_no_one() -> None:
    """Seed 001: "Successful use of the Silent Move skill may have positioned some characters
    for an ambush." A failed one does not."""
    result = fight(
        toml(
            person(
                "clumsy", "x", 'options = { sneak = "Silent Move" }', skills="'Silent Move' = 0"
            ),
            person("guard", "y"),
            rounds=1,
        )
    )
    (test,) = checks(result, "Silent Move")
    assert test[0:2] == ("clumsy", False) and test[3] == 0
    assert surprised(result) == []


def test_wary_opponent_opposes_with_perception() -> None:
    """Seed 001: "Extremely wary opponents may oppose this with a Perception Test." The
    observer notices the sneaker when its margin beats the sneaker's."""
    outcomes = {}
    for seed in (1, 2, 3, 4, 5, 6):
        result = fight(
            toml(
                person(
                    "thief",
                    "x",
                    'options = { sneak = "Silent Move" }',
                    skills="'Silent Move' = 100",
                ),
                person("watch", "y", "options = { wary = true }", skills="Perception = 100"),
                rounds=1,
            ),
            seed=seed,
        )
        (sneak,) = checks(result, "Silent Move")
        (perceive,) = checks(result, "Perception")
        assert perceive[0] == "watch" and perceive[3] == 100 and perceive[5] == "thief"
        assert perceive[4] == (100 - perceive[2]) - sneak[4]
        assert perceive[1] == (perceive[4] > 0)
        assert surprised(result) == ([] if perceive[1] else ["watch"])
        outcomes[seed] = perceive[1]
    assert set(outcomes.values()) == {True, False}


def test_circumstance_and_distraction_modifiers() -> None:
    """Seed 001: "Are there any unusual circumstances? This can cover nearly anything, from
    pouring rain to noisy cobblestones" ... "Are there any distractions?" """
    result = fight(
        toml(
            person(
                "hider",
                "x",
                'options = { sneak = "Concealment", sneak_modifier = 5 }',
                skills="Concealment = 60",
            ),
            person(
                "cultist",
                "y",
                "options = { wary = true, perception_modifier = -30 }",
                skills="Perception = 70",
            ),
            rounds=1,
            options="circumstance_modifier = -20",
        ),
        seed=4,
    )
    assert checks(result, "Concealment") == [("hider", True, 44, 60 + 5 - 20, 1, None)]
    # The Perception test succeeds (40 against 40) but its margin 0 does not beat the hider's 1.
    assert checks(result, "Perception") == [("cultist", False, 40, 70 - 30, -1, "hider")]
    assert surprised(result) == ["cultist"]


def test_untrained_skill_tests_at_half_the_characteristic() -> None:
    """Seed 001: "Is anyone hiding? Successful use of the Concealment skill" - without the
    skill, the default tests half Agility (and Perception half Intelligence)."""
    result = fight(
        toml(
            person(
                "hider",
                "x",
                'options = { sneak = "Concealment" }',
                stats="agility = 45, weapon_skill = 30",
            ),
            person(
                "watch",
                "y",
                "options = { wary = true }",
                stats="agility = 30, weapon_skill = 30, intelligence = 51",
            ),
            rounds=1,
        ),
        seed=11,
    )
    (hide,) = checks(result, "Concealment")
    assert hide[3] == 22
    perceive = checks(result, "Perception")
    assert [p[3] for p in perceive] == ([25] if hide[1] else [])


def test_no_surprise_when_not_every_enemy_sneaks() -> None:
    """Seed 001: "It is up to the GM to decide if any of the combatants are surprised." The
    default: an enemy in plain sight gives the ambush away."""
    result = fight(
        toml(
            person("hider", "x", 'options = { sneak = "Concealment" }', skills="Concealment = 100"),
            person("loud", "x"),
            person("guard", "y"),
            rounds=1,
        )
    )
    assert len(checks(result, "Concealment")) == 1
    assert surprised(result) == []


def test_gm_decision_overrides_the_tests() -> None:
    """Seed 001: "It is up to the GM to decide if any of the combatants are surprised." """
    result = fight(
        toml(
            person("hider", "x", 'options = { sneak = "Concealment" }', skills="Concealment = 100"),
            person("alert", "y", "surprised = false"),
            person("dozy", "y"),
            rounds=1,
        )
    )
    assert surprised(result) == ["dozy"]
    reasons = {e.who: e.reason for e in of_type(result.events, "TurnEnded")}
    assert reasons == {"hider": "ended", "alert": "ended", "dozy": "surprised"}
