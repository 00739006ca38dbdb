"""Seed 002 Attack and its variants, Cast Magic, Defensive Stance, Disengage, Delay Turn."""

from __future__ import annotations

from initiative.events import Attack

from .tactical_kit import HI, act, attack, board, caster, declared, events, rejected, run, unit


def test_all_out_attack_costs_one_more_ap_for_plus_twenty() -> None:
    """Seed 002: "All Out Attack - Melee only. Spend 1 additional AP for +20 to the attack
    test." """
    r = run(
        unit(
            "a", "x", init=9, skills={"combat_style": 40}, script=[attack("b", variant="all_out")]
        ),
        unit("b", "y", 1, init=1),
    )
    (declared_attack,) = events(r, "ActionDeclared", who="a")[:1]
    assert declared_attack.cost == 2
    assert events(r, "AttackResolved", who="a")[0].against == 60


def test_all_out_attack_is_melee_only() -> None:
    """Seed 002: "All Out Attack - Melee only." """
    bow = [{"name": "bow", "damage": "3", "range": 30}]
    r = run(
        unit("a", "x", init=9, weapons=bow, script=[attack("b", variant="all_out")]),
        unit("b", "y", 10, init=1),
    )
    assert rejected(r, "a") == ["All Out Attack is melee only"]


def test_precision_strike_chooses_the_location_at_minus_twenty() -> None:
    """Seed 002: "Precision Strike - Suffer -20 to the attack test. On success, choose the hit
    location." """
    strike = attack("b", variant="precision", location="head")
    r = run(
        unit("a", "x", init=9, skills={"combat_style": HI}, script=[strike]),
        unit("b", "y", 1, init=1),
    )
    assert events(r, "AttackResolved", who="a")[0].against == HI - 20
    (hit,) = events(r, "DamageDealt", who="b")
    assert (hit.location, hit.amount, hit.hp) == ("head", 3, 17)


def test_a_location_needs_a_precision_strike() -> None:
    """Seed 002: "Three optional variations (must be declared before rolling)" """
    r = run(
        unit("a", "x", init=9, script=[attack("b", location="head")]), unit("b", "y", 1, init=1)
    )
    assert rejected(r, "a") == ["only a Precision Strike chooses the hit location"]


def test_coup_de_grace_kills_an_unconscious_target() -> None:
    """Seed 002: "Coup de Grâce - Kill a helpless target outright (unconscious, or both
    restrained and prone)." """
    r = run(
        unit("a", "x", init=9, script=[attack("b", variant="coup_de_grace")]),
        unit("b", "y", 1, init=1, options={"conditions": ["unconscious"]}),
        unit("c", "y", 5, init=2),
    )
    assert events(r, "CombatantDefeated", who="b", reason="coup de grace")
    assert not events(r, "DiceRolled", who="a")


def test_coup_de_grace_on_restrained_and_prone() -> None:
    """Seed 002: helpless is "unconscious, or both restrained and prone"."""
    cdg = attack("b", variant="coup_de_grace")
    r = run(
        unit("a", "x", init=9, script=[cdg]),
        unit("b", "y", 1, init=1, options={"conditions": ["restrained", "prone"]}),
        unit("c", "y", 5, init=2, options={"conditions": ["prone"]}),
        unit("d", "x", 5.5, init=8, script=[attack("c", variant="coup_de_grace")]),
    )
    assert events(r, "CombatantDefeated", who="b", reason="coup de grace")
    assert rejected(r, "d") == ["c is not helpless (unconscious, or restrained and prone)"]


def test_coup_de_grace_immunity_is_configurable() -> None:
    """Seed 002: "GM may rule certain targets immune." """
    opts = {"conditions": ["unconscious"], "coup_de_grace_immune": True}
    r = run(
        unit("a", "x", init=9, script=[attack("b", variant="coup_de_grace")]),
        unit("b", "y", 1, init=1, options=opts),
    )
    assert rejected(r, "a") == ["b is immune to Coup de Grace"]


def test_unconscious_skips_its_turn() -> None:
    """Unconscious (a helpless condition) takes no turn until healed."""
    r = run(
        unit("a", "x", init=9), unit("b", "y", 1, init=1, options={"conditions": ["unconscious"]})
    )
    assert events(r, "TurnEnded", who="b")[0].reason == "unconscious"


def test_cast_magic_deals_spell_damage() -> None:
    """Seed 002 Cast Magic: "Cast a known spell using the spellcasting rules." """
    firebolt = {"name": "firebolt", "damage": "4", "range": 20}
    r = run(caster(firebolt, "b"), unit("b", "y", 10, init=1, armor=1))
    cast = events(r, "CheckResolved", who="a")[0]
    assert (cast.check, cast.success, cast.against) == ("cast firebolt", True, HI)
    assert events(r, "DamageDealt", who="b")[0].amount == 3


def test_cast_magic_instant_works_as_a_reaction() -> None:
    """Seed 002: "Cast Magic (Instant) 1 AP - Cast a spell with the Instant attribute only."
    (a secondary action, so a reaction too)"""
    spells = [{"name": "ward", "heal": "2", "instant": True}, {"name": "mend", "heal": "2"}]
    r = run(
        unit("a", "x", init=9, skills={"combat_style": HI}, script=[attack("b"), attack("b")]),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills={"magic": HI},
            spells=spells,
            reactions=[act("CastMagic", spell="mend"), act("Pass"), act("CastMagic", spell="ward")],
        ),
    )
    assert rejected(r, "b") == ["CastMagic is a primary action: only in one's own turn"]
    assert declared(r, "b") == ["CastMagic"]
    assert [e.hp for e in events(r, "Healed", who="b")] == [19]


def test_defensive_stance_adds_ten_and_forbids_attacks() -> None:
    """Seed 002 Defensive Stance: "Gain +10 on all defensive tests until the character's next
    Turn. Attack limit is reduced to 0 until next Turn." """
    r = run(
        unit(
            "a",
            "x",
            init=9,
            skills={"evade": 30},
            reactions=[act("Evade")],
            script=[act("DefensiveStance"), attack("b")],
        ),
        unit("b", "y", 1, init=1, skills={"combat_style": HI}, script=[attack("a")]),
    )
    assert rejected(r, "a") == ["a is in Defensive Stance: attack limit 0 until its next turn"]
    assert events(r, "CheckResolved", who="a", check="evade")[0].against == 40


def test_defensive_stance_ends_at_next_turn() -> None:
    """Seed 002: "until the character's next Turn." """
    at = board(unit("a", "x"), unit("b", "y", 1), conditions={"a": ["defensive_stance"]})
    assert at.check("a", Attack(target="b")) == (
        "a is in Defensive Stance: attack limit 0 until its next turn"
    )
    at.hook("turn_started", "a")
    assert at.get("a").conditions == ()
    assert at.check("a", Attack(target="b")) is None


def test_disengage_prevents_attacks_of_opportunity() -> None:
    """Seed 002 Disengage: "If the character moves out of an enemy's engagement range this
    Turn, no Attacks of Opportunity or other delayed reactions may be taken against them." """
    r = run(
        unit("a", "x", init=9, script=[act("Disengage"), act("Move", to=[-4, 0])]),
        unit("b", "y", 1, init=1, reactions=[act("OpportunityAttack", target="a")]),
    )
    assert events(r, "OpeningOpened") == []
    assert events(r, "Moved", who="a")[0].to.x == -4


def test_retreat_without_disengage_provokes() -> None:
    """Seed 002 AoO table: "Retreat | Opponent leaves melee range without using Disengage" """
    r = run(
        unit("a", "x", init=9, script=[act("Move", to=[-4, 0])]),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills={"combat_style": HI},
            reactions=[act("OpportunityAttack", target="a")],
        ),
    )
    assert [o.trigger.kind for o in events(r, "OpeningOpened")] == ["retreat", "attacked"]
    assert events(r, "DamageDealt", who="a")[0].amount == 3


def test_delay_turn_skips_without_spending_ap() -> None:
    """Seed 002 Delay Turn: "Declare a set of trigger conditions, then skip the Turn without
    spending AP." """
    r = run(
        unit("a", "x", init=9, script=[act("DelayTurn", triggers=["approach"]), attack("b")]),
        unit("b", "y", 5, init=1),
    )
    (delay,) = events(r, "ActionDeclared", who="a")
    assert delay.cost == 0
    assert events(r, "TurnEnded", who="a")[0].reason == "turn delayed"
    assert events(r, "ConditionAdded", who="a", condition="delay_on:approach")


def test_delayed_turn_is_inserted_when_triggered() -> None:
    """Seed 002: "If the conditions are met before the character's next Turn, they may insert
    their delayed Turn as a free reaction." """
    bow = [{"name": "bow", "damage": "3", "range": 30}]
    r = run(
        unit(
            "a",
            "x",
            init=9,
            skills={"combat_style": HI},
            weapons=bow,
            script=[act("DelayTurn", triggers=["approach"]), attack("b")],
            reactions=[act("TakeDelayedTurn")],
        ),
        unit("b", "y", 5, init=1, script=[act("Move", to=[2, 0])]),
    )
    inserted = events(r, "TurnInserted", who="a")
    assert [(e.interrupts, e.reason) for e in inserted] == [("b", "delayed turn")]
    # The inserted turn comes before the approach resolves: a shoots b while b is 5 m away.
    shot = events(r, "AttackResolved", who="a")[0]
    assert (shot.target, shot.hit) == ("b", True)
    assert events(r, "Moved", who="b")[0].start.x == 5
    assert events(r, "InsertedTurnEnded", who="a")[0].returns_to == "b"


def test_untriggered_delayed_turn_loses_its_ap() -> None:
    """Seed 002: "If not triggered in time, the AP are lost." """
    delayed = {"a": ["delaying", "delay_on:spellcast"]}
    at = board(unit("a", "x"), unit("b", "y", 5), turn="b", conditions=delayed)
    at.hook("turn_started", "a")
    lost = [e for e in at.events() if type(e).__name__ == "APChanged" and e.who == "a"]
    assert [(e.ap, e.reason) for e in lost][:1] == [(0, "delayed turn not taken: AP lost")]
    assert "delaying" not in at.get("a").conditions
    assert "delay_on:spellcast" not in at.get("a").conditions


def test_disengage_stops_delayed_turns_too() -> None:
    """Seed 002 Disengage: "If the character moves out of an enemy's engagement range this
    Turn, no Attacks of Opportunity or other delayed reactions may be taken against them": a
    delayed turn waiting for ``move`` or ``approach`` is not inserted either."""
    r = run(
        unit(
            "b",
            "y",
            1,
            init=9,
            script=[act("DelayTurn", triggers=["move", "approach", "turn_end"])],
        ),
        unit("c", "y", -8, init=8, script=[act("DelayTurn", triggers=["move"])]),
        unit("a", "x", init=1, script=[act("Disengage"), act("Move", to=[-4, 0])]),
    )
    assert events(r, "OpeningOpened") == []
    assert events(r, "TurnInserted") == []
    assert events(r, "Moved", who="a")[0].to.x == -4
    assert events(r, "ConditionAdded", who="a", condition="disengaged_clear")
    assert events(r, "ConditionRemoved", who="a", condition="disengaged_clear")


def test_disengage_without_leaving_anyones_range_protects_nothing() -> None:
    """Seed 002: the protection holds "If the character moves out of an enemy's engagement
    range": a Disengaged character that leaves no one's range still triggers a delayed turn."""
    r = run(
        unit("b", "y", 10, init=9, script=[act("DelayTurn", triggers=["move"])]),
        unit("a", "x", init=1, script=[act("Disengage"), act("Move", to=[-2, 0])]),
    )
    assert [o.trigger.kind for o in events(r, "OpeningOpened")] == ["delayed"]
