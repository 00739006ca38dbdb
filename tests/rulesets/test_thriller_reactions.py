"""Seed 000, reactions with held AP: Dodge, Intercept, Retaliate."""

from __future__ import annotations

from ._thriller import declared, events, fighter, one, run

ALWAYS_HIT = "defense_base = -100"
HIT_FOE = '[{ type = "Attack", target = "foe" }]'


def test_dodge_avoids_an_incoming_attack():
    """Seed 000: "Dodge: Avoid an incoming attack." — 1 AP of held AP; the attack must reach the
    Dodge roll (1d20 + Agility modifier) as well as the defence."""
    me = fighter("me", "x", initiative_roll="20", script=HIT_FOE)
    foe = fighter(
        "foe",
        "y",
        stats="agility = 16",
        x=1.0,
        initiative_roll="1",
        reactions='[{ type = "Dodge" }]',
    )
    r = run(me, foe, rounds=1)
    opened = events(r, "OpeningOpened")[0]
    assert (opened.trigger.kind, opened.trigger.by, opened.trigger.target, opened.offered) == (
        "attacked",
        "me",
        "foe",
        ("foe",),
    )
    assert [(type(e.action).__name__, e.cost) for e in declared(r, "foe")] == [("Dodge", 1)]
    dodge = one(r, "DiceRolled", who="foe", purpose="dodge")
    assert dodge.expr == "1d20+3"
    resolved = one(r, "AttackResolved", who="me")
    assert resolved.against == max(13, dodge.total)
    assert resolved.hit == (resolved.roll >= resolved.against)


def test_no_reaction_without_held_ap():
    """Seed 000: "You must have unused AP available to take a reaction." """
    me = fighter("me", "x", initiative_roll="1", script=HIT_FOE)
    foe = fighter(
        "foe",
        "y",
        x=1.0,
        initiative_roll="20",
        script='[{ type = "Move", to = [1.0, 0.0] }, { type = "TakeCover" }]',
        reactions='[{ type = "Dodge" }]',
    )
    r = run(me, foe, rounds=1)
    assert one(r, "APChanged", who="foe", ap=0).reason == "spent"
    assert events(r, "OpeningOpened") == []
    assert events(r, "DiceRolled", who="foe", purpose="dodge") == []


def test_intercept_takes_a_hit_meant_for_an_adjacent_ally():
    """Seed 000: "Intercept: Take a hit meant for an ally." — only allies within
    ``intercept_reach`` (1.5 m) of the one attacked are offered it."""
    me = fighter("me", "x", initiative_roll="20", script=HIT_FOE)
    foe = fighter("foe", "y", x=1.0, initiative_roll="1")
    guard = fighter("guard", "y", x=2.0, initiative_roll="5", reactions='[{ type = "Intercept" }]')
    far = fighter("far", "y", x=6.0, initiative_roll="6", reactions='[{ type = "Intercept" }]')
    r = run(me, foe, guard, far, options=ALWAYS_HIT, rounds=1)
    assert events(r, "OpeningOpened")[0].offered == ("guard", "foe")
    assert [(type(e.action).__name__, e.cost) for e in declared(r, "guard")] == [("Intercept", 1)]
    resolved = one(r, "AttackResolved", who="me")
    assert (resolved.target, resolved.hit) == ("guard", True)
    assert [e.who for e in events(r, "DamageDealt")] == ["guard"]
    assert declared(r, "far") == []
    assert "intercepted" not in r.fight.state.combatants["foe"].conditions


def test_retaliate_after_being_attacked_in_melee():
    """Seed 000: "Retaliate: Counterattack after being attacked in melee." """
    me = fighter(
        "me", "x", stats="agility = 10, strength = 14", initiative_roll="20", script=HIT_FOE
    )
    foe = fighter(
        "foe",
        "y",
        stats="agility = 10, strength = 16",
        x=1.0,
        initiative_roll="1",
        reactions='[{ type = "Pass" }, { type = "Retaliate", target = "me" }]',
    )
    r = run(me, foe, rounds=1)
    kinds = [(e.trigger.kind, e.offered) for e in events(r, "OpeningOpened")]
    # The attack's opening and the retaliation's after it; "me" is in its own turn, so the
    # counterattack opens no Dodge for it (reactions are "performed outside your turn").
    assert kinds == [("attacked", ("foe",)), ("melee_attacked", ("foe",))]
    assert [(type(e.action).__name__, e.cost) for e in declared(r, "foe")] == [("Retaliate", 1)]
    counter = one(r, "DiceRolled", who="foe", purpose="attack on me")
    assert counter.modifier == 3
    assert one(r, "AttackResolved", who="foe").roll == counter.total


def test_no_retaliation_against_a_ranged_attack():
    """Seed 000: Retaliate follows an attack "in melee" only."""
    bow = '[{ name = "bow", damage = "1d6", range = 30.0 }]'
    me = fighter("me", "x", initiative_roll="20", script=HIT_FOE, weapons=bow)
    foe = fighter(
        "foe", "y", x=1.0, initiative_roll="1", reactions='[{ type = "Retaliate", target = "me" }]'
    )
    r = run(me, foe, rounds=1)
    assert [e.trigger.kind for e in events(r, "OpeningOpened")] == ["attacked"]
    assert (
        one(r, "ActionRejected", who="foe").reason
        == "in this opening (attacked) foe may take: Dodge"
    )


def test_no_reaction_inside_ones_own_turn():
    """Seed 000: reactions are "Defensive or responsive actions performed outside your turn
    using saved AP": an attacker whose target Retaliates in the attacker's turn may not Dodge
    the counterattack, and pays no AP of its turn for it."""
    me = fighter(
        "me",
        "x",
        stats="agility = 14",
        initiative_roll="20",
        script=HIT_FOE,
        reactions='[{ type = "Dodge" }]',
    )
    foe = fighter(
        "foe",
        "y",
        x=1.0,
        initiative_roll="1",
        reactions='[{ type = "Pass" }, { type = "Retaliate", target = "me" }]',
    )
    r = run(me, foe, rounds=1)
    assert all("me" not in e.offered for e in events(r, "OpeningOpened"))
    assert declared(r, "me")[0].cost == 1
    assert events(r, "DiceRolled", who="me", purpose="dodge") == []
    # AGI 14 gives 4 AP: the Attack is the only AP it spends in the round.
    assert [e.ap for e in events(r, "APChanged", who="me")] == [3]
