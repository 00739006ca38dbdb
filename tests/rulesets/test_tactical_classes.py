"""Seed 002 action classes, AP costs, reactions per threat, and the attack limit."""

from __future__ import annotations

from initiative.events import Attack

from .tactical_kit import HI, act, attack, board, declared, events, rejected, run, unit

SKILLED = {"combat_style": HI}


def test_primary_actions_only_in_own_turn() -> None:
    """Seed 002: "Primary actions can only be taken during the character's own Turn." """
    r = run(
        unit("a", "x", init=9, skills=SKILLED, script=[attack("b")]),
        unit("b", "y", 1, init=1, reactions=[act("Bash", target="a")]),
    )
    assert rejected(r, "b") == ["Bash is a primary action: only in one's own turn"]


def test_secondary_actions_as_reactions() -> None:
    """Seed 002: "Secondary actions can be taken during the character's own Turn or as
    reactions to events." """
    r = run(
        unit("a", "x", init=9, skills=SKILLED, script=[attack("b")]),
        unit("b", "y", 1, init=1, skills={"athletics": HI}, reactions=[act("Trip", target="a")]),
    )
    trip = events(r, "ActionDeclared", who="b")[0]
    assert type(trip.action).__name__ == "Trip"
    assert events(r, "ConditionAdded", who="a", condition="prone")


def test_reactions_only_in_openings() -> None:
    """Seed 002: "Reactions counter threats as they occur." (not in one's own turn)"""
    r = run(unit("a", "x", init=9, script=[act("Evade")]), unit("b", "y", 9, init=1))
    assert rejected(r, "a") == ["Evade is a reaction: only in an opening"]


def test_only_one_reaction_per_threat() -> None:
    """Seed 002: "Only one reaction per threat" """
    r = run(
        unit("a", "x", init=9, skills=SKILLED, script=[attack("b")]),
        unit("b", "y", 1, init=1, reactions=[act("Evade"), act("Evade")]),
    )
    opened = events(r, "OpeningOpened")
    assert [o.trigger.kind for o in opened] == ["attacked"]
    assert declared(r, "b") == ["Evade"]


def test_unlimited_reactions_per_round_while_ap_lasts() -> None:
    """Seed 002: "unlimited reactions per round (AP permitting)." """
    four = [attack("b"), attack("b")]
    r = run(
        unit("a1", "x", init=9, skills=SKILLED, script=four),
        unit("a2", "x", 0, 2, init=8, skills=SKILLED, script=four),
        unit("b", "y", 1, 1, init=1, ap=3, skills={"evade": 0}, reactions=[act("Evade")] * 4),
    )
    assert declared(r, "b") == ["Evade", "Evade", "Evade"]
    assert [e.ap for e in events(r, "APChanged", who="b", reason="spent")] == [2, 1, 0]
    assert len(events(r, "AttackResolved", hit=True, target="b")) == 4


def test_non_free_actions_cost_at_least_one_ap() -> None:
    """Seed 002: "Every non-free action costs at least 1 AP." """
    r = run(
        unit(
            "a",
            "x",
            init=9,
            ap=9,
            items=[{"name": "tonic", "potion": True, "heal": "1"}],
            script=[
                act("Move", to=[0, 1]),
                act("Hide"),
                act("DrinkPotion", potion="tonic"),
                attack("b", variant="all_out"),
                act("DefensiveStance"),
            ],
        ),
        unit("b", "y", 1, 1, init=1, skills={"observe": 0}),
    )
    costs = [(type(e.action).__name__, e.cost) for e in events(r, "ActionDeclared", who="a")]
    assert costs == [
        ("Move", 0),
        ("Hide", 1),
        ("DrinkPotion", 2),
        ("Attack", 2),
        ("DefensiveStance", 1),
        ("EndTurn", 0),
    ]


def test_no_more_than_two_attacks_per_round() -> None:
    """Seed 002: "A character may make no more than 2 attacks per round." """
    r = run(
        unit("a", "x", init=9, ap=5, script=[attack("b")] * 3),
        unit("b", "y", 1, init=1, hp=99),
    )
    assert declared(r, "a") == ["Attack", "Attack"]
    assert rejected(r, "a") == ["a has made 2 attacks this round (the limit)"]


def test_attack_count_restarts_each_round() -> None:
    """Seed 002: "no more than 2 total attacks per round" (a new round, a new count)."""
    at = board(unit("a", "x"), unit("b", "y", 1, hp=99), counters={"a": {"attacks": 2}})
    assert at.check("a", Attack(target="b")) == "a has made 2 attacks this round (the limit)"
    at.hook("round_started")
    assert at.get("a").count("attacks") == 0
    assert at.check("a", Attack(target="b")) is None


def test_damaging_spell_counts_as_an_attack() -> None:
    """Seed 002 Cast Magic: "Counts as an attack if the spell deals damage (subject to the 2
    attack limit)." """
    spells = [{"name": "bolt", "damage": "2"}, {"name": "mend", "heal": "1"}]
    r = run(
        unit(
            "a",
            "x",
            init=9,
            ap=5,
            spells=spells,
            script=[
                attack("b"),
                act("CastMagic", spell="bolt", target="b"),
                act("CastMagic", spell="bolt", target="b"),
                act("CastMagic", spell="mend"),
            ],
        ),
        unit("b", "y", 1, init=1, hp=99),
    )
    assert declared(r, "a") == ["Attack", "CastMagic", "CastMagic"]
    assert rejected(r, "a") == ["a has made 2 attacks this round (the limit)"]


def test_counter_attack_counts_for_the_counter_attacker() -> None:
    """Seed 002 Counter-Attack: "Both characters count as attackers (subject to the 2 attack
    limit)." """
    r = run(
        unit("a", "x", init=9, skills=SKILLED, script=[attack("b")]),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills=SKILLED,
            reactions=[act("CounterAttack")],
            script=[attack("a"), attack("a")],
        ),
        options={"degree_step": 1000},
    )
    assert declared(r, "b") == ["CounterAttack", "Attack"]
    assert rejected(r, "b") == ["b has made 2 attacks this round (the limit)"]


def test_one_reaction_per_threat_across_an_aoo_and_a_delayed_turn() -> None:
    """Seed 002: "Only one reaction per threat": one approach that opens an Attack of
    Opportunity and a delayed turn for the same creature allows it only one of them."""
    r = run(
        unit(
            "b",
            "y",
            init=9,
            skills=SKILLED,
            script=[act("DelayTurn", triggers=["approach"])],
            reactions=[act("OpportunityAttack", target="a"), act("TakeDelayedTurn")],
        ),
        unit("a", "x", 4, init=1, script=[act("Move", to=[1, 0])]),
    )
    assert [o.trigger.kind for o in events(r, "OpeningOpened")][:2] == ["approach", "attacked"]
    assert "delayed" not in [o.trigger.kind for o in events(r, "OpeningOpened")]
    assert declared(r, "b")[-1] == "OpportunityAttack"
    assert events(r, "TurnInserted") == []


def test_one_reaction_per_threat_across_an_aoo_and_the_attack_it_answers() -> None:
    """Seed 002: "Only one reaction per threat": a ranged attack from inside the target's
    reach lets the target make an Attack of Opportunity or defend against it, not both."""
    bow = [{"name": "bow", "damage": "3", "range": 30}]
    r = run(
        unit("a", "x", init=9, skills=SKILLED, weapons=bow, script=[attack("b", weapon="bow")]),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills={"combat_style": 0, "evade": HI},
            reactions=[act("OpportunityAttack", target="a"), act("Evade")],
        ),
    )
    kinds = [o.trigger.kind for o in events(r, "OpeningOpened") if o.trigger.by == "a"]
    assert kinds == ["ranged_attack"]
    assert declared(r, "b") == ["OpportunityAttack"]
    assert events(r, "DamageDealt", who="b")[0].amount == 3
