"""Seed 002 reactions: the Attack of Opportunity table, Evade, Parry, Block, Counter-Attack."""

from __future__ import annotations

from initiative.engine.rulesets.tactical import Arise, OpportunityAttack
from initiative.events import Move, Position

from .tactical_kit import HI, act, attack, board, caster, declared, events, rejected, run, unit

AOO = act("OpportunityAttack", target="a")
GUARD = {"combat_style": HI}


def guard(**kw: object) -> dict:
    """b: a skilled guard at (1, 0) who takes every Attack of Opportunity."""
    kw.setdefault("reactions", [AOO])
    return unit("b", "y", 1, init=1, skills=GUARD, **kw)


def kinds(r: object) -> list[str]:
    return [o.trigger.kind for o in events(r, "OpeningOpened")]


def test_aoo_on_approach_resolves_before_the_move() -> None:
    """Seed 002 AoO: "Resolves before the triggering action." Trigger "Approach | Opponent moves
    closer within melee range" """
    r = run(unit("a", "x", -3, init=9, script=[act("Move", to=[0, 0])]), guard())
    assert kinds(r)[0] == "approach"
    hit = events(r, "AttackResolved", who="b")[0]
    moved = events(r, "Moved", who="a")[0]
    assert hit.seq < moved.seq


def test_aoo_that_fells_the_mover_stops_the_move() -> None:
    """Seed 002 AoO: "Resolves before the triggering action." """
    r = run(
        unit("a", "x", -3, init=9, hp=2, script=[act("Move", to=[0, 0])]),
        unit("c", "x", -9, init=8),
        guard(),
    )
    assert events(r, "CombatantDefeated", who="a")
    assert events(r, "Moved", who="a") == []


def test_aoo_on_a_ranged_attack_within_engagement_range() -> None:
    """Seed 002 AoO: "Ranged attack | Opponent makes a ranged attack within engagement range" """
    bow = [{"name": "bow", "damage": "3", "range": 30}]
    r = run(unit("a", "x", init=9, weapons=bow, script=[attack("b")]), guard())
    assert kinds(r)[:2] == ["ranged_attack", "attacked"]
    assert declared(r, "b") == ["OpportunityAttack"]


def test_aoo_on_ready_reload_and_drink() -> None:
    """Seed 002 AoO: "Ready | Opponent readies, reloads, or drinks a potion within melee range" """
    potion = [{"name": "tonic", "potion": True, "heal": "1"}]
    r = run(
        unit(
            "a",
            "x",
            init=9,
            ap=9,
            items=potion,
            script=[
                act("ReadyWeapon", weapon="sword", mode="sheathe"),
                act("DrinkPotion", potion="tonic"),
            ],
        ),
        guard(reactions=[AOO, AOO]),
    )
    ready = [o for o in events(r, "OpeningOpened") if o.trigger.kind == "ready"]
    assert [o.trigger.detail for o in ready] == ["sword", "tonic"]


def test_aoo_on_spellcast_but_not_a_melee_spell() -> None:
    """Seed 002 AoO: "Spellcast | Opponent casts a spell within melee range (unless it counts
    as a melee attack)" """
    spells = [{"name": "mend", "heal": "1"}, {"name": "shock", "damage": "1", "melee": True}]
    r = run(
        unit(
            "a",
            "x",
            init=9,
            ap=9,
            skills={"magic": HI},
            spells=spells,
            script=[act("CastMagic", spell="mend"), act("CastMagic", spell="shock", target="b")],
        ),
        guard(),
    )
    assert kinds(r).count("spellcast") == 1
    assert events(r, "OpeningOpened")[0].trigger.detail == "mend"


def test_standing_up_without_arise_provokes() -> None:
    """Seed 002 AoO: "Standing up | Prone opponent stands within melee range without using
    Arise" """
    at = board(unit("a", "x"), guard(), conditions={"a": ["prone"]})
    done = at.act("a", Move(to=Position(0, 1)), reactions={"b": OpportunityAttack(target="a")})
    opened = [e.trigger.kind for e in done if type(e).__name__ == "OpeningOpened"]
    assert opened[:1] == ["standing_up"]
    assert "prone" not in at.get("a").conditions


def test_arise_stands_up_without_provoking() -> None:
    """Seed 002 Arise: "Stand up from Prone without provoking Attacks of Opportunity." """
    at = board(unit("a", "x"), guard(), conditions={"a": ["prone"]})
    done = at.act("a", Arise(), reactions={"b": OpportunityAttack(target="a")})
    assert [type(e).__name__ for e in done].count("OpeningOpened") == 0
    assert at.get("a").conditions == ()


def defender(reaction: str, skill: str, value: int = HI, **kw: object) -> dict:
    return unit("b", "y", 1, init=1, skills={skill: value}, reactions=[act(reaction)], **kw)


def test_evade_negates_and_steps_one_metre() -> None:
    """Seed 002 Evade: "On success, the attack is negated entirely and the character may move
    1 m freely (no AoO)." """
    r = run(
        unit("a", "x", init=9, skills=GUARD, script=[attack("b")]),
        unit("b", "y", 1, init=1, skills={"evade": HI}, reactions=[act("Evade", to=[2, 0])]),
    )
    assert events(r, "DamageDealt") == []
    assert [(e.to.x, e.distance) for e in events(r, "Moved", who="b")] == [(2, 1)]
    assert kinds(r) == ["attacked"]


def test_evade_steps_at_most_one_metre() -> None:
    """Seed 002 Evade: "may move 1 m freely" """
    r = run(
        unit("a", "x", init=9, skills=GUARD, script=[attack("b")]),
        unit("b", "y", 1, init=1, reactions=[act("Evade", to=[3, 0])]),
    )
    assert rejected(r, "b") == ["destination is 2 m away; can move at most 1 m"]


def test_parry_negates_a_melee_attack() -> None:
    """Seed 002 Parry: "Melee attacks only. On success, the attack is negated entirely." """
    r = run(
        unit("a", "x", init=9, skills=GUARD, script=[attack("b")]),
        defender("Parry", "combat_style"),
    )
    assert events(r, "CheckResolved", who="b", check="parry")[0].success
    assert events(r, "DamageDealt") == []


def test_parry_is_melee_only() -> None:
    """Seed 002 Parry: "Melee attacks only." """
    bow = [{"name": "bow", "damage": "3", "range": 30}]
    r = run(
        unit("a", "x", -5, init=9, skills=GUARD, weapons=bow, script=[attack("b")]),
        defender("Parry", "combat_style"),
    )
    assert rejected(r, "b") == ["Parry works against melee attacks only"]


def test_block_needs_a_shield() -> None:
    """Seed 002 Block: "Requires a shield." """
    r = run(
        unit("a", "x", init=9, skills=GUARD, script=[attack("b")]),
        defender("Block", "combat_style"),
    )
    assert rejected(r, "b") == ["Block requires a shield"]


def blocked(damage: str, shield: dict, magic: bool = False) -> object:
    weapon = [{"name": "blade", "damage": damage, "magic": magic}]
    return run(
        unit("a", "x", init=9, skills=GUARD, weapons=weapon, script=[attack("b")]),
        defender("Block", "combat_style", shield=shield),
    )


def test_block_stops_damage_up_to_br() -> None:
    """Seed 002 Block: "compare attack damage to the shield's BR: if damage exceeds BR, the
    defender takes full damage to the shield arm; otherwise no damage." """
    r = blocked("4", {"br": 4})
    assert [(e.roll, e.against, e.success) for e in events(r, "CheckResolved", check="shield")] == [
        (4, 4, True)
    ]
    assert events(r, "DamageDealt") == []


def test_block_lets_damage_over_br_through_to_the_shield_arm() -> None:
    """Seed 002 Block: "if damage exceeds BR, the defender takes full damage to the shield arm" """
    r = blocked("5", {"br": 4})
    (hit,) = events(r, "DamageDealt", who="b")
    assert (hit.amount, hit.location) == (5, "left arm")


def test_block_halves_br_against_magic() -> None:
    """Seed 002 Block: "Magic damage treats BR as half (round up) unless the shield has magic
    BR." """
    r = blocked("3", {"br": 5}, magic=True)
    assert events(r, "CheckResolved", check="shield")[0].against == 3
    assert events(r, "DamageDealt") == []
    r = blocked("4", {"br": 5}, magic=True)
    assert events(r, "DamageDealt", who="b")[0].amount == 4
    r = blocked("4", {"br": 5, "magic_br": True}, magic=True)
    assert events(r, "DamageDealt") == []


def test_counter_attack_higher_dos_hits_the_attacker() -> None:
    """Seed 002 Counter-Attack: "Both characters make melee attack tests. Higher DoS hits the
    other." """
    r = run(
        unit("a", "x", init=9, skills={"combat_style": 99}, script=[attack("b")]),
        defender("CounterAttack", "combat_style", 200),
    )
    assert [e.who for e in events(r, "DamageDealt")] == ["a"]
    assert events(r, "AttackResolved", who="b")[0].detail == "counter-attack: DoS against DoS"


def test_counter_attack_tie_resolves_nothing() -> None:
    """Seed 002 Counter-Attack: "Tied DoS = nothing resolves." """
    r = run(
        unit("a", "x", init=9, skills=GUARD, script=[attack("b")]),
        defender("CounterAttack", "combat_style"),
        options={"degree_step": 1000},
    )
    assert events(r, "CheckResolved", who="b", check="counter-attack")[0].margin == 1
    assert events(r, "DamageDealt") == []


def test_counter_attack_lower_dos_lets_the_attack_land() -> None:
    """Seed 002 Counter-Attack: "Higher DoS hits the other." (the attacker's, here)"""
    r = run(
        unit("a", "x", init=9, skills={"combat_style": 200}, script=[attack("b")]),
        defender("CounterAttack", "combat_style", 0),
    )
    assert [e.who for e in events(r, "DamageDealt")] == ["b"]


def test_evade_and_block_work_against_ranged_and_magic() -> None:
    """Seed 002 Evade: "Works against melee, ranged, and AoE attacks." Block: "Works against
    melee and ranged attacks." (and magic, with half BR)"""
    bow = [{"name": "bow", "damage": "3", "range": 30}]
    bolt = [{"name": "bolt", "damage": "3"}]
    r = run(
        unit(
            "a",
            "x",
            -5,
            init=9,
            skills={**GUARD, "magic": HI},
            weapons=bow,
            spells=bolt,
            script=[attack("b"), act("CastMagic", spell="bolt", target="b")],
        ),
        unit(
            "b",
            "y",
            1,
            init=1,
            skills={"evade": HI, "combat_style": HI},
            shield={"br": 9},
            reactions=[act("Evade"), act("Block")],
        ),
    )
    assert declared(r, "b") == ["Evade", "Block"]
    assert [o.trigger.detail for o in events(r, "OpeningOpened")] == ["ranged", "magic"]
    assert events(r, "DamageDealt") == []


def test_parry_is_tested_using_the_better_of_str_and_ag() -> None:
    """Seed 002 Parry: "Combat Style test using Str or Ag": with Str 8 and Ag 16, a Combat
    Style of 40 (base Str + Ag = 24) is tested as if its base were Ag twice: 40 + 8 = 48."""
    r = run(
        unit("a", "x", init=9, skills=GUARD, script=[attack("b")]),
        defender("Parry", "combat_style", 40, stats={"str": 8, "ag": 16}),
    )
    parry = events(r, "CheckResolved", who="b", check="parry")[0]
    assert parry.against == 48


def test_block_is_tested_using_str() -> None:
    """Seed 002 Block: "Combat Style test using Str": with Str 8 and Ag 16, a Combat Style of
    40 is tested as if its base were Str twice: 40 - 8 = 32."""
    r = run(
        unit("a", "x", init=9, skills=GUARD, script=[attack("b")]),
        defender("Block", "combat_style", 40, stats={"str": 8, "ag": 16}, shield={"br": 4}),
    )
    block = events(r, "CheckResolved", who="b", check="block")[0]
    assert block.against == 32


def test_evade_negates_an_area_attack_that_block_cannot_stop() -> None:
    """Seed 002 Evade: "On success, the attack is negated entirely ... Works against melee,
    ranged, and AoE attacks." Block "Works against melee and ranged attacks" only. A spell
    with an ``area`` threatens everyone within it around its target, each with an opening."""
    fireball = {"name": "fireball", "damage": "5", "area": 2.0, "range": 30}
    r = run(
        caster(fireball, "b"),
        unit("b", "y", 10, init=2, skills={"evade": HI}, reactions=[act("Evade")]),
        unit(
            "c",
            "y",
            10,
            1.5,
            init=1,
            skills={"combat_style": HI},
            shield={"br": 9},
            reactions=[act("Block"), act("Pass")],
        ),
    )
    opened = [(o.trigger.target, o.trigger.detail) for o in events(r, "OpeningOpened")]
    assert opened == [("b", "area"), ("c", "area")]
    assert declared(r, "b") == ["Evade"]
    assert rejected(r, "c") == ["Block works against melee and ranged attacks, not an area"]
    assert [(e.who, e.amount) for e in events(r, "DamageDealt")] == [("c", 5)]
