"""Seed 000, actions in one's own turn: standard, full-round, free, special; Quick Draw."""

from __future__ import annotations

import pytest
from initiative.engine.rulesets.thriller import Flee, FreeAction, FullDefense, TakeCover
from initiative.events import Attack, AttackResolved, Position, ReadyWeapon

from ._thriller import board, declared, events, fighter, one, run, table, turn_of

FOE = fighter("foe", "y", x=1.0, initiative_roll="1")
ALWAYS_HIT = "defense_base = -100"


def script(*actions: str) -> str:
    return "[" + ", ".join("{ " + a + " }" for a in actions) + "]"


def attack(target: str = "foe", weapon: str = "") -> str:
    return f'type = "Attack", target = "{target}"' + (f', weapon = "{weapon}"' if weapon else "")


def test_standard_actions_cost_one_ap_each_and_several_fit_in_a_turn():
    """Seed 000: "If you have 2 AP, you might attack twice or move and attack." """
    me = fighter("me", "x", initiative_roll="20", script=script(attack(), attack(), attack()))
    r = run(me, FOE, rounds=1)
    assert [(type(e.action).__name__, e.cost) for e in declared(r, "me")] == [
        ("Attack", 1),
        ("Attack", 1),
    ]
    assert one(r, "ActionRejected", who="me").reason == "needs 1 AP, has 0"
    assert [e.ap for e in events(r, "APChanged", who="me")] == [1, 0]


def test_move_up_to_speed():
    """Seed 000: "Move up to your speed" costs 1 AP; farther is refused."""
    moves = script('type = "Move", to = [0.0, 7.0]', 'type = "Move", to = [0.0, -6.0]')
    r = run(
        fighter("me", "x", initiative_roll="20", script=moves), fighter("foe", "y", x=9.0), rounds=1
    )
    assert (
        one(r, "ActionRejected", who="me").reason == "destination is 7 m away; can move at most 6 m"
    )
    moved = one(r, "Moved", who="me")
    assert (moved.distance, one(r, "ActionDeclared", who="me", cost=1).action.to.y) == (6.0, -6.0)


def test_use_an_item():
    """Seed 000: "Use or reload an item" is a 1 AP standard action; a used-up item is refused."""
    grenade = '[{ name = "grenade", damage = "4", range = 10.0 }]'
    use = 'type = "UseItem", item = "grenade", target = "foe"'
    me = fighter("me", "x", initiative_roll="20", script=script(use, use), items=grenade)
    r = run(me, FOE, rounds=1)
    assert one(r, "ActionDeclared", who="me", cost=1).action.item == "grenade"
    assert one(r, "DamageDealt", who="foe").amount == 4
    assert one(r, "ActionRejected", who="me").reason == "the grenade is used up"


def test_reload_a_weapon():
    """Seed 000: "Use or reload an item": a gun with ``reload = 1`` must be reloaded (1 AP)
    after each shot before it fires again."""
    gun = '[{ name = "pistol", damage = "1d6", range = 20.0, reload = 1 }]'
    turn = script(attack(), attack(), 'type = "ReadyWeapon", weapon = "pistol"', attack())
    me = fighter("me", "x", stats="agility = 14", initiative_roll="20", weapons=gun, script=turn)
    r = run(me, fighter("foe", "y", x=8.0, initiative_roll="1"), rounds=1)
    assert (
        one(r, "ActionRejected", who="me").reason
        == "the pistol is unloaded: reload it first (ReadyWeapon)"
    )
    assert [(type(e.action).__name__, e.cost) for e in declared(r, "me")] == [
        ("Attack", 1),
        ("ReadyWeapon", 1),
        ("Attack", 1),
    ]
    assert [e.value for e in events(r, "CounterChanged", who="me", name="unloaded.pistol")] == [
        1,
        0,
        1,
    ]


@pytest.mark.parametrize(("free_used", "cost"), [(0, 0), (2, 1)])
def test_quick_draw_makes_a_reload_free(free_used, cost):
    """Seed 000: "Some perks (e.g. Quick Draw) may convert certain standard actions into free
    ones." — once the turn's free actions are used up, a reload costs 1 AP again."""
    gun = '[{ name = "pistol", damage = "1d6", range = 20.0, reload = 1 }]'
    frees = ['type = "FreeAction", name = "shout"'] * free_used
    turn = script(attack(), *frees, 'type = "ReadyWeapon", weapon = "pistol"')
    me = fighter("me", "x", initiative_roll="20", weapons=gun, perks='["Quick Draw"]', script=turn)
    r = run(me, fighter("foe", "y", x=8.0, initiative_roll="1"), rounds=1)
    assert (
        one(
            r, "ActionDeclared", who="me", action=events(r, "ActionDeclared", who="me")[-2].action
        ).cost
        == cost
    )
    assert type(declared(r, "me")[-1].action).__name__ == "ReadyWeapon"
    assert declared(r, "me")[-1].cost == cost


def test_quick_draw_makes_a_draw_free_and_without_it_a_draw_costs_one():
    """Seed 000: Quick Draw converts drawing a weapon into a free action."""
    draw = script('type = "ReadyWeapon", weapon = "knife", mode = "draw"')
    knife = '[{ name = "knife" }]'
    quick = fighter(
        "quick", "x", initiative_roll="20", weapons=knife, perks='["quick_draw"]', script=draw
    )
    slow = fighter("slow", "x", y=3.0, initiative_roll="19", weapons=knife, script=draw)
    r = run(quick, slow, FOE, rounds=1)
    assert declared(r, "quick")[0].cost == 0
    assert one(r, "CounterChanged", who="quick", name="free_actions").value == 1
    assert declared(r, "slow")[0].cost == 1


def test_assist_an_ally():
    """Seed 000: "Assist an ally" (1 AP): the ally's next attack test gets +2, used up by it."""
    helper = fighter(
        "helper", "x", y=1.0, initiative_roll="20", script=script('type = "Assist", ally = "me"')
    )
    me = fighter(
        "me",
        "x",
        stats="agility = 10, strength = 12",
        initiative_roll="15",
        script=script(attack(), attack()),
    )
    r = run(helper, me, FOE, rounds=1)
    assert declared(r, "helper")[0].cost == 1
    assert [e.modifier for e in events(r, "DiceRolled", who="me", purpose="attack on foe")] == [
        3,
        1,
    ]


def test_take_cover():
    """Seed 000: "Take cover or prepare to dodge" (1 AP): +2 defence until one's next turn."""
    at = board(table("foe", "y", x=1.0), table("me", "x"), turn="foe")
    assert at.act("foe", TakeCover())[1].cost == 1
    assert at.get("foe").conditions == ("in_cover",)
    assert at.check("foe", TakeCover()) == "already in cover"
    open_ground = board(table("foe", "y", x=1.0), table("me", "x"), turn="me")
    plain = [e for e in open_ground.act("me", Attack(target="foe")) if type(e) is AttackResolved]
    cover = board(
        table("foe", "y", x=1.0), table("me", "x"), turn="me", conditions={"foe": ["in_cover"]}
    )
    hit = [e for e in cover.act("me", Attack(target="foe")) if type(e) is AttackResolved]
    assert (hit[0].against, plain[0].against) == (12, 10)
    cover.hook("turn_started", "foe")  # cover lasts until the start of one's next turn
    assert cover.get("foe").conditions == ()


def test_interact_with_the_environment():
    """Seed 000: "Interact with the environment (open doors, flip switches, etc.)" costs 1 AP."""
    turn = script('type = "Interact", what = "flip the fuse box"', 'type = "Interact", what = " "')
    r = run(fighter("me", "x", initiative_roll="20", script=turn), FOE, rounds=1)
    assert declared(r, "me")[0].cost == 1
    assert one(r, "ActionRejected", who="me").reason == "Interact needs something to interact with"


def test_flee_takes_all_ap_and_the_turn_for_extended_movement():
    """Seed 000: "Full-Round Actions (All AP)" ... "Examples include Fleeing" ... "you gain ...
    extended movement, but forgo all other actions that turn." Flee covers 2x speed."""
    turn = script('type = "Flee", to = [-13.0, 0.0]', 'type = "Flee", to = [-12.0, 0.0]', attack())
    r = run(fighter("me", "x", initiative_roll="20", script=turn), FOE, rounds=1)
    assert (
        one(r, "ActionRejected", who="me").reason
        == "destination is 13 m away; can move at most 12 m"
    )
    assert [(type(e.action).__name__, e.cost) for e in declared(r, "me")] == [("Flee", 2)]
    assert one(r, "Moved", who="me").distance == 12.0
    assert turn_of(r, "me", 1)[-1].reason == "full-round action"
    assert events(r, "CombatantLeft") == []


def test_a_fleer_beyond_escape_distance_leaves_the_fight():
    """Fleeing "trade[s] offense for survival": past ``escape_distance`` the fleer is gone."""
    turn = script('type = "Flee", to = [-12.0, 0.0]')
    r = run(
        fighter("me", "x", initiative_roll="20", script=turn), FOE, options="escape_distance = 10.0"
    )
    assert one(r, "CombatantLeft", who="me").reason == "fled"
    assert one(r, "EncounterEnded").winner == "y"


def test_full_defense_gives_enhanced_defence():
    """Seed 000: "Full Defense, which trade offense for survival" ... "you gain enhanced
    defense": +4 defence until one's next turn, for all one's AP."""
    foe = fighter("foe", "y", x=1.0, initiative_roll="20", script=script('type = "FullDefense"'))
    me = fighter("me", "x", initiative_roll="1", script=script(attack()))
    r = run(foe, me, rounds=1)
    assert declared(r, "foe")[0].cost == 2
    assert turn_of(r, "foe", 1)[-1].reason == "full-round action"
    assert one(r, "AttackResolved", who="me").against == 14


FULL_ROUND = [FullDefense(), Flee(to=Position(-5.0, 0.0))]
ALREADY = "a full-round action takes the whole turn: another action was already taken"


@pytest.mark.parametrize("full", FULL_ROUND)
def test_full_round_action_refused_after_spending_ap(full):
    """Seed 000: "When performing a full-round action, you ... forgo all other actions that
    turn": refused once any AP has been spent."""
    fresh = board(table("me", "x"), table("foe", "y", x=5.0))
    assert fresh.check("me", full) is None
    spent = board(table("me", "x"), table("foe", "y", x=5.0), ap={"me": 1})
    assert spent.check("me", full) == ALREADY


@pytest.mark.parametrize("full", FULL_ROUND)
@pytest.mark.parametrize(
    ("first", "perks"),
    [
        (FreeAction(name="shout"), []),
        (ReadyWeapon(weapon="gun", mode="reload"), ["Quick Draw"]),
    ],
)
def test_full_round_action_refused_after_a_free_action(full, first, perks):
    """Seed 000: "When performing a full-round action, you gain enhanced defense or extended
    movement, but forgo all other actions that turn": a free action (or a Quick Draw reload at
    0 AP) earlier in the turn makes Flee and Full Defense illegal."""
    gun = [{"name": "gun", "damage": "1d6", "range": 20.0, "reload": 1}]
    me = table("me", "x", weapons=gun, perks=perks)
    at = board(me, table("foe", "y", x=5.0), counters={"me": {"unloaded.gun": 1}})
    assert at.check("me", full) is None
    assert at.act("me", first)[1].cost == 0
    assert at.check("me", full) == ALREADY


def test_nothing_follows_a_full_round_action():
    """Seed 000: after a full-round action one must "forgo all other actions that turn", free
    ones included: the turn ends with it."""
    turn = script('type = "FullDefense"', 'type = "FreeAction", name = "shout"')
    r = run(fighter("me", "x", initiative_roll="20", script=turn), FOE, rounds=1)
    assert [type(e.action).__name__ for e in declared(r, "me")] == ["FullDefense"]
    assert turn_of(r, "me", 1)[-1].reason == "full-round action"


@pytest.mark.parametrize(("options", "allowed"), [("", 2), ("free_actions = 3", 3)])
def test_free_actions_cost_nothing_and_are_limited(options, allowed):
    """Seed 000: "Free Actions (0 AP)" ... "The GM may limit free actions to one or two per turn
    for balance." (default 2, option ``free_actions``)."""
    turn = script(*['type = "FreeAction", name = "shout"'] * 4)
    r = run(fighter("me", "x", initiative_roll="20", script=turn), FOE, options=options, rounds=1)
    assert [e.cost for e in declared(r, "me")] == [0] * allowed
    assert events(r, "APChanged", who="me") == []
    reasons = [e.reason for e in events(r, "ActionRejected", who="me")]
    assert reasons[0] == f"the limit of {allowed} free actions this turn is reached"


RIG = (
    '[{ name = "rig explosives", ap = 2, turns = 2, skill = "demolitions",'
    ' difficulty = 12, damage = "5", range = 30.0 }]'
)


def test_special_action_spanning_turns_with_a_skill_check():
    """Seed 000: "Special Actions (Variable AP)" ... "typically 2+ AP or span multiple turns" ...
    "Many require appropriate skill checks (e.g., operating heavy machinery or rigging
    explosives)." Declared in the encounter file."""
    rig = 'type = "Special", name = "rig explosives", target = "foe"'
    turn = script(rig, rig, 'type = "EndTurn"', rig)
    me = fighter(
        "me",
        "x",
        stats="agility = 14",
        initiative_roll="20",
        script=turn,
        specials=RIG,
        skills="{ demolitions = 30 }",
    )
    r = run(me, FOE, rounds=2)
    assert [e.cost for e in declared(r, "me")] == [2, 2]
    assert (
        one(r, "ActionRejected", who="me").reason
        == "rig explosives has already been worked on this turn"
    )
    assert [
        e.value for e in events(r, "CounterChanged", who="me", name="special.rig explosives")
    ] == [1, 0]
    check = one(r, "CheckResolved", who="me")
    roll = one(r, "DiceRolled", who="me", purpose="rig explosives (demolitions)")
    assert (check.check, check.roll, check.against, check.success) == (
        "rig explosives (demolitions)",
        roll.total,
        12,
        True,
    )
    assert roll.expr == "1d20+30"
    assert one(r, "DamageDealt", who="foe").amount == 5
    assert one(r, "RoundStarted", round=2).seq < check.seq


def test_special_action_needs_its_ap_and_a_declared_name():
    """Seed 000: special actions are "2+ AP (GM decides)": too few AP, or an undeclared one, is refused."""
    turn = script(
        'type = "Special", name = "rig explosives", target = "foe"',
        'type = "Special", name = "ritual"',
    )
    me = fighter("me", "x", stats="agility = 7", initiative_roll="20", script=turn, specials=RIG)
    r = run(me, FOE, rounds=1)
    reasons = [e.reason for e in events(r, "ActionRejected", who="me")]
    assert reasons == [
        "needs 2 AP, has 1",
        "me has no special action named 'ritual' in the encounter file",
    ]


def test_reactions_are_refused_in_ones_own_turn():
    """Seed 000: "Defensive or responsive actions performed outside your turn using saved AP." """
    r = run(
        fighter("me", "x", initiative_roll="20", script=script('type = "Dodge"')), FOE, rounds=1
    )
    assert (
        one(r, "ActionRejected", who="me").reason
        == "Dodge is a reaction, taken with held AP in an opening"
    )


def test_a_healing_item_is_used_on_oneself_or_an_ally():
    """Seed 000: "Use ... an item" — a medkit heals oneself or an ally, never an enemy."""
    kit = '[{ name = "medkit", heal = "3", count = 2 }]'
    turn = script(
        'type = "UseItem", item = "medkit", target = "foe"', 'type = "UseItem", item = "medkit"'
    )
    r = run(
        fighter("me", "x", hp="10", initiative_roll="20", script=turn, items=kit), FOE, rounds=1
    )
    assert one(r, "ActionRejected", who="me").reason == "the medkit is used on oneself or an ally"
    healed = one(r, "Healed", who="me")
    assert (healed.amount, healed.hp) == (0, 10)
    assert one(r, "CounterChanged", who="me", name="used.medkit").value == 1
