"""Seed 002 special actions and the conditions they make: Bash, Blind Opponent, Disarm, Feint,
Force Movement, Resist, Trip."""

from __future__ import annotations

import pytest
from initiative.engine.rulesets.tactical import BlindOpponent, Disarm
from initiative.events import EncounterFileError, ReadyWeapon

from .tactical_kit import HI, act, attack, board, caster, declared, events, rejected, run, unit

STRONG = {"athletics": HI, "combat_style": HI}
WEAK = {"athletics": 0, "unarmed": 0, "evade": 0, "acrobatics": 0, "combat_style": 0}


def actor(script: list, **kw: object) -> dict:
    return unit("a", "x", init=9, ap=9, skills=STRONG, script=script, **kw)


def target(x: float = 1, **kw: object) -> dict:
    kw.setdefault("skills", WEAK)
    return unit("b", "y", x, init=1, **kw)


def test_bash_knocks_back_takes_ap_and_may_fell() -> None:
    """Seed 002 Bash: "On success: target is knocked back 1 m, loses 1 AP, and must test
    Acrobatics or fall Prone." """
    r = run(actor([act("Bash", target="b")]), target())
    assert [e.to.x for e in events(r, "Moved", who="b")] == [2]
    assert [e.ap for e in events(r, "APChanged", who="b", reason="bashed")] == [2]
    assert events(r, "CheckResolved", who="b", check="keep footing")[0].success is False
    assert events(r, "ConditionAdded", who="b", condition="prone")


def test_bash_reach_and_size_limits() -> None:
    """Seed 002 Bash: "Target must be within 2 m and not larger than the attacker." """
    r = run(
        actor([act("Bash", target="b"), act("Bash", target="c")]),
        target(size=3),
        unit("c", "y", 3, init=2),
    )
    assert rejected(r, "a") == [
        "b (size 3) is larger than a",
        "c is 3 m away (needs 2 m)",
    ]


def test_blind_opponent_blinds_for_a_round() -> None:
    """Seed 002 Blind Opponent: "On success: target is Blinded for 1 round." (until the
    blinder's next turn; a Blinded character sees no one)"""
    r = run(
        actor([act("BlindOpponent", target="b", method="thrown sand"), act("EndTurn")]),
        target(script=[attack("a")]),
        max_rounds=2,
    )
    assert events(r, "ConditionAdded", who="b", condition="blinded")
    assert rejected(r, "b")[0] == "cannot see a"
    removed = events(r, "ConditionRemoved", who="b", condition="blinded")
    second = events(r, "TurnStarted", who="a", round=2)[0]
    assert removed[0].cause == second.seq


def test_blind_opponent_resisted_with_shield_combat_style() -> None:
    """Seed 002 Blind Opponent: "opposed by the target's Evade or Combat Style (shield)" """
    at = board(
        actor([]), target(skills={"evade": 0, "combat_style": 300}, shield={"br": 4}), turn="a"
    )
    done = at.act("a", BlindOpponent(target="b", method="thrown sand"), dice=[(50,), (10,)])
    resist = next(e for e in done if type(e).__name__ == "CheckResolved" and e.who == "b")
    assert (resist.check, resist.against) == ("resist blind opponent", 300)
    assert "blinded" not in at.get("b").conditions


def test_disarm_takes_the_weapon_with_a_free_hand() -> None:
    """Seed 002 Disarm: "take the target's weapon (if free hand available)" """
    r = run(actor([act("Disarm", target="b")]), target(script=[attack("a", weapon="sword")]))
    assert events(r, "ConditionAdded", who="b", condition="disarmed:sword")[0].until == "taken by a"
    assert rejected(r, "b") == ["b holds no weapon named 'sword'"]


def test_disarm_flings_the_weapon_without_a_free_hand() -> None:
    """Seed 002 Disarm: "or fling it 1d4 m in a random direction." (1d8 picks one of eight
    directions, north first, clockwise: a 3 is east)"""
    two = [{"name": "sword", "damage": "3"}, {"name": "dagger", "damage": "1"}]
    at = board(actor([], weapons=two), target(), turn="a")
    done = at.act("a", Disarm(target="b"), dice=[(5,), (90,), (3,), (3,)])
    rolled = {e.purpose: e.expr for e in done if type(e).__name__ == "DiceGiven"}
    assert rolled["sword flung: metres"] == "1d4"
    assert rolled["sword flung: direction"] == "1d8"
    assert at.get("b").conditions == ("disarmed:sword", "dropped:sword@4,0")


def test_cannot_disarm_natural_weapons() -> None:
    """Seed 002 Disarm: "Cannot disarm Natural Weapons." """
    claws = [{"name": "claws", "damage": "3", "natural": True}]
    at = board(actor([]), target(weapons=claws), turn="a")
    assert at.check("a", Disarm(target="b")) == (
        "b holds no weapon that can be disarmed (natural weapons cannot be)"
    )
    assert not [a for a in at.offers("a") if isinstance(a, Disarm)]


def test_feint_makes_the_next_melee_attack_unseen() -> None:
    """Seed 002 Feint: "the character's next melee attack against the target (before end of
    current Turn) is treated as if Hidden." (the target cannot react to it)"""
    r = run(
        actor([act("Feint", target="b"), attack("b"), attack("b")]),
        target(skills={**WEAK, "observe": 0, "evade": HI}, ap=9, reactions=[act("Evade")] * 2),
    )
    assert declared(r, "b") == ["Evade"]
    assert len(events(r, "DamageDealt", who="b")) == 1
    assert events(r, "ConditionRemoved", who="a", condition="feint:b")


def test_force_movement_moves_both_the_same_way() -> None:
    """Seed 002 Force Movement: "On success: move both characters up to 3 m in the same
    direction. Target must be within melee range." """
    r = run(actor([act("ForceMovement", target="b", to=[4, 0])]), target())
    assert [(e.who, e.start.x, e.to.x) for e in events(r, "Moved")] == [("b", 1, 4), ("a", 0, 3)]


def test_force_movement_at_most_three_metres() -> None:
    """Seed 002 Force Movement: "up to 3 m" """
    r = run(actor([act("ForceMovement", target="b", to=[5, 0])]), target())
    assert rejected(r, "a") == ["destination is 4 m away; can move at most 3 m"]


def test_resist_escapes_a_restraining_spell() -> None:
    """Seed 002 Resist: "opposed by the restrainer's Athletics or unarmed Combat Style. On
    success: escape from being restrained" """
    web = [{"name": "web", "condition": "restrained"}]
    r = run(
        unit(
            "a",
            "x",
            init=9,
            skills={"magic": HI, **WEAK},
            spells=web,
            script=[act("CastMagic", spell="web", target="b")],
        ),
        unit(
            "b",
            "y",
            5,
            init=1,
            skills={"athletics": HI},
            script=[act("Move", to=[6, 0]), act("Resist"), act("Move", to=[6, 0])],
        ),
    )
    assert rejected(r, "b") == ["b is restrained"]
    check = events(r, "CheckResolved", who="b")[0]
    assert (check.check, check.against_who, check.success) == ("resist restrained", "a", True)
    assert events(r, "Moved", who="b")[0].to.x == 6


def test_resist_escapes_blindness() -> None:
    """Seed 002 Resist: "escape from being restrained, grappled, or blinded." """
    r = run(
        unit(
            "a",
            "x",
            init=9,
            skills={"athletics": HI},
            options={"conditions": ["blinded"]},
            script=[act("Resist")],
        ),
        target(),
    )
    assert events(r, "ConditionRemoved", who="a", condition="blinded")


def test_trip_knocks_prone() -> None:
    """Seed 002 Trip: "On success: target falls Prone. Target must be within 2 m and not
    larger." """
    r = run(
        actor([act("Trip", target="b"), act("Trip", target="c")]),
        target(),
        unit("c", "y", 0, 1, init=2, size=4),
    )
    assert events(r, "ConditionAdded", who="b", condition="prone")
    assert rejected(r, "a") == ["c (size 4) is larger than a"]


START = {"Arise": ["prone"], "Resist": ["restrained"]}


@pytest.mark.parametrize(
    ("reaction", "legal"),
    [
        (act("Arise"), True),
        (act("Bash", target="a"), False),
        (act("BlindOpponent", target="a", method="thrown sand"), True),
        (act("Disarm", target="a"), False),
        (act("Feint", target="a"), False),
        (act("ForceMovement", target="a", to=[2, 0]), False),
        (act("Resist"), True),
        (act("Trip", target="a"), True),
        (act("Dash", to=[4, 0]), True),
        (act("Aim"), True),
    ],
)
def test_special_actions_have_the_seed_s_type(reaction: dict, legal: bool) -> None:
    """Seed 002: special actions "function as the action type noted below" (Arise, Blind
    Opponent, Resist, Trip: secondary; Bash, Disarm, Feint, Force Movement: primary)."""
    bow = [{"name": "bow", "damage": "1", "range": 20}]
    r = run(
        unit("a", "x", init=9, skills=STRONG, script=[attack("b")]),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills=STRONG,
            weapons=bow,
            reactions=[reaction],
            options={"conditions": START.get(reaction["type"], [])},
        ),
    )
    name = reaction["type"]
    if legal:
        assert declared(r, "b") == [name]
    else:
        assert rejected(r, "b") == [f"{name} is a primary action: only in one's own turn"]


def test_dash_as_a_reaction_moves_up_to_speed() -> None:
    """Seed 002 Dash: "Move up to the character's Speed." (as a reaction: speed only)"""
    r = run(
        unit("a", "x", init=9, skills=STRONG, script=[attack("b")]),
        unit(
            "b", "y", 1, init=1, speed=3, reactions=[act("Dash", to=[5, 0]), act("Dash", to=[4, 0])]
        ),
    )
    assert rejected(r, "b") == ["destination is 4 m away; can move at most 3 m"]
    assert events(r, "Moved", who="b")[0].to.x == 4


def test_healing_ends_unconsciousness() -> None:
    """Unconscious (default): ends when the character is healed."""
    r = run(
        caster({"name": "mend", "heal": "2"}, "c"),
        unit("c", "x", 0, 1, init=5, hp=5, options={"conditions": ["unconscious"]}),
        unit("b", "y", 9, init=1),
    )
    assert events(r, "ConditionRemoved", who="c", condition="unconscious")


def test_blind_opponent_needs_a_stated_method() -> None:
    """Seed 002 Blind Opponent: "Requires a reasonable method (thrown sand, etc.)": one sent
    without saying how is rejected."""
    r = run(actor([act("BlindOpponent", target="b")]), target())
    assert rejected(r, "a")[0] == (
        "Blind Opponent requires a reasonable method: say how in `method`"
    )
    assert not events(r, "ConditionAdded", who="b", condition="blinded")


def test_blind_opponent_resisted_with_evade_without_a_shield() -> None:
    """Seed 002 Blind Opponent: "opposed by the target's Evade or Combat Style (shield)": with
    no shield, a great Combat Style does not help; Evade is tested."""
    r = run(
        actor([act("BlindOpponent", target="b", method="thrown sand")]),
        target(skills={"evade": 0, "combat_style": 300}),
    )
    resist = events(r, "CheckResolved", who="b")[0]
    assert (resist.check, resist.against) == ("resist blind opponent", 0)


def test_ready_weapon_sheathes_and_draws() -> None:
    """Seed 002 Ready Weapon: "Draw, sheathe, withdraw, or reload a weapon": a sheathed sword
    cannot strike (fists do) until it is drawn again; drawing one in hand is refused."""
    r = run(
        actor(
            [
                act("ReadyWeapon", weapon="sword", mode="draw"),
                act("ReadyWeapon", weapon="sword", mode="sheathe"),
                attack("b", weapon="sword"),
                act("ReadyWeapon", weapon="sword", mode="draw"),
                attack("b", weapon="sword"),
            ]
        ),
        target(),
    )
    assert rejected(r, "a") == ["the sword is not sheathed", "a holds no weapon named 'sword'"]
    assert events(r, "ConditionAdded", who="a", condition="sheathed:sword")
    assert events(r, "ConditionRemoved", who="a", condition="sheathed:sword")
    assert [e.detail.split(",")[0] for e in events(r, "AttackResolved", who="a")] == ["sword"]


@pytest.mark.parametrize(("metres", "recovered"), [("1", True), ("3", False)])
def test_ready_weapon_withdraws_a_flung_weapon(metres: str, recovered: bool) -> None:
    """Seed 002 Ready Weapon "withdraw": a weapon flung away by a Disarm is recovered with
    ``mode = "withdraw"`` when it lies within ``pickup_range`` (1.5 m), and not otherwise."""
    lies = f"dropped:sword@{1 + int(metres)},0"
    at = board(actor([]), target(), turn="b", conditions={"b": ["disarmed:sword", lies]})
    withdraw = ReadyWeapon(weapon="sword", mode="withdraw")
    reason = at.check("b", withdraw)
    if not recovered:
        assert reason == f"the sword lies {metres} m away at ({1 + int(metres)}, 0)"
        return
    assert reason is None
    done = at.act("b", withdraw)
    removed = [e.condition for e in done if type(e).__name__ == "ConditionRemoved"]
    assert removed == [lies, "disarmed:sword"]
    assert at.get("b").conditions == ()


def test_a_special_advantage_is_free_and_immediate_with_advantage() -> None:
    """Seed 002: "Special actions are most often taken when a character gains Advantage and has
    the action listed in their Combat Style's Special Advantages." Winning an exchange (its
    Parry stops the blow) gives ``advantage``; a listed Trip is then taken at once in the same
    opening for 0 AP, and the Advantage is spent."""
    r = run(
        unit("a", "x", init=9, skills=WEAK, script=[attack("b")]),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills=STRONG,
            options={"special_advantages": ["Trip"]},
            reactions=[act("Parry"), act("Trip", target="a")],
        ),
    )
    assert declared(r, "b") == []  # the attack missed: nothing to parry, no Advantage
    r = run(
        unit(
            "a",
            "x",
            init=9,
            skills={"combat_style": HI, "athletics": 0, "evade": 0},
            script=[attack("b"), attack("b")],
        ),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills=STRONG,
            options={"special_advantages": ["Trip"]},
            reactions=[act("Parry"), act("Trip", target="a")],
        ),
    )
    assert declared(r, "b")[:2] == ["Parry", "Trip"]
    trip = [e for e in events(r, "ActionDeclared", who="b") if type(e.action).__name__ == "Trip"]
    assert trip[0].cost == 0
    assert events(r, "ConditionAdded", who="b", condition="advantage")
    assert events(r, "ConditionRemoved", who="b", condition="advantage")
    assert events(r, "ConditionAdded", who="a", condition="prone")


def test_without_advantage_a_special_action_is_its_own_type() -> None:
    """Seed 002: "Otherwise, they function as the action type noted below": Bash is a primary
    action, so without Advantage it is refused in an opening even when listed."""
    r = run(
        unit("a", "x", init=9, skills={"combat_style": HI}, script=[attack("b")]),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills=WEAK,
            options={"special_advantages": ["Bash"]},
            reactions=[act("Bash", target="a")],
        ),
    )
    assert rejected(r, "b") == ["Bash is a primary action: only in one's own turn"]


def test_special_advantages_name_special_actions():
    """``special_advantages`` lists the seed's special actions; a near miss is suggested."""
    with pytest.raises(EncounterFileError) as info:
        run(unit("a", "x", options={"special_advantages": ["Trp"]}), unit("b", "y", 5))
    assert str(info.value).endswith(
        "at key options.special_advantages[0]: 'Trp' is not a special action (known: Arise,"
        " Bash, BlindOpponent, Disarm, Feint, ForceMovement, Resist, Trip) (did you mean 'Trip'?)"
    )
