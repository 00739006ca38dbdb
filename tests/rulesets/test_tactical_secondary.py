"""Seed 002 secondary actions: Aim, Dash, Hide, Ready Weapon, Drink Potion."""

from __future__ import annotations

from initiative.events import Attack, ReadyWeapon

from .tactical_kit import HI, act, attack, board, events, rejected, run, unit

BOW = [{"name": "bow", "damage": "3", "range": 30}]


def shooter(script: list, **kw: object) -> dict:
    return unit(
        "a", "x", init=9, ap=9, skills={"combat_style": 20}, weapons=BOW, script=script, **kw
    )


def test_aim_adds_ten_per_aim_up_to_thirty() -> None:
    """Seed 002 Aim: "Gain +10 to the next ranged attack or Bolt spell. Stacks up to 3 times
    (+30 max) across consecutive aims." """
    r = run(shooter([act("Aim")] * 4 + [attack("b")]), unit("b", "y", 10, init=1))
    aims = [e.value for e in events(r, "CounterChanged", who="a", name="aim")]
    assert aims[:3] == [1, 2, 3]
    assert events(r, "AttackResolved", who="a")[0].against == 50


def test_aim_chain_breaks_on_another_action() -> None:
    """Seed 002: "The chain breaks if the character takes any other action or reaction besides
    continuing to aim or firing the aimed weapon/spell." """
    script = [act("Aim"), act("Aim"), act("Move", to=[0, 1]), act("Aim"), attack("b")]
    r = run(shooter(script), unit("b", "y", 10, init=1))
    assert events(r, "AttackResolved", who="a")[0].against == 30


def test_aim_bonus_resets_after_firing() -> None:
    """Seed 002: "Bonus resets after firing." """
    r = run(shooter([act("Aim"), attack("b"), attack("b")]), unit("b", "y", 10, init=1, hp=99))
    assert [e.against for e in events(r, "AttackResolved", who="a")] == [30, 20]


def test_aim_helps_a_bolt_spell() -> None:
    """Seed 002 Aim: "+10 to the next ranged attack or Bolt spell" """
    bolt = [{"name": "dart", "damage": "1", "bolt": True}]
    script = [act("Aim"), act("Aim"), act("CastMagic", spell="dart", target="b")]
    r = run(shooter(script, spells=bolt), unit("b", "y", 10, init=1))
    assert events(r, "CheckResolved", who="a", check="cast dart")[0].against == 20


def test_dash_adds_to_movement_and_repeats() -> None:
    """Seed 002 Dash: "Move up to the character's Speed. Adds to base movement if used on the
    character's Turn. Can be used multiple times per round." """
    script = [
        act("Move", to=[2, 0]),
        act("Move", to=[3, 0]),
        act("Dash", to=[4, 0]),
        act("Dash", to=[6, 0]),
    ]
    r = run(unit("a", "x", init=9, speed=2, script=script), unit("b", "y", 30, init=1))
    assert [e.to.x for e in events(r, "Moved", who="a")] == [2, 4, 6]
    assert rejected(r, "a") == ["destination is 1 m away; can move at most 0 m"]
    assert [e.cost for e in events(r, "ActionDeclared", who="a")][:3] == [0, 1, 1]


def test_hide_gives_hidden_on_beating_observe() -> None:
    """Seed 002 Hide: "make a Stealth test opposed by Observe. On success, gain the Hidden
    condition." """
    r = run(
        unit("a", "x", init=9, skills={"stealth": HI}, script=[act("Hide")]),
        unit("b", "y", 5, init=1, skills={"observe": 0}, script=[attack("a")]),
    )
    checks = [(e.who, e.check, e.success) for e in events(r, "CheckResolved")]
    assert checks == [("a", "hide", True), ("b", "spot", False)]
    assert events(r, "ConditionAdded", who="a", condition="hidden")
    assert rejected(r, "b") == ["cannot see a"]


def test_hide_fails_against_a_better_observer() -> None:
    """Seed 002 Hide: "Stealth test opposed by Observe" (the observer's DoS wins ties)."""
    r = run(
        unit("a", "x", init=9, skills={"stealth": 0}, script=[act("Hide")]),
        unit("b", "y", 5, init=1, skills={"observe": HI}),
    )
    assert not events(r, "ConditionAdded", who="a", condition="hidden")


def test_reloading_takes_several_ready_weapon_actions() -> None:
    """Seed 002 Ready Weapon: "Some weapons require multiple AP to reload (extended over
    multiple uses)." """
    xbow = [{"name": "crossbow", "damage": "3", "range": 30, "reload": 2}]
    a = unit("a", "x", ap=9, skills={"combat_style": HI}, weapons=xbow)
    at = board(a, unit("b", "y", 10, hp=99), counters={"a": {"reload:crossbow": 2}})
    shot, ready = Attack(target="b"), ReadyWeapon(weapon="crossbow")
    assert at.check("a", shot) == "the crossbow must be reloaded first (Ready Weapon)"
    at.act("a", ready)
    assert at.get("a").count("reload:crossbow") == 1
    assert at.check("a", shot) == "the crossbow must be reloaded first (Ready Weapon)"
    at.act("a", ready)
    assert at.get("a").count("reload:crossbow") == 0
    assert at.check("a", shot) is None
    at.act("a", shot, dice=[(5,), (10,)])
    assert at.get("a").count("reload:crossbow") == 2


def test_drink_potion_costs_two_ap_and_heals() -> None:
    """Seed 002 Drink Potion: "2 AP - Drink an accessible potion." """
    potion = [{"name": "healing", "potion": True, "heal": "4"}]
    drink = act("DrinkPotion", potion="healing")
    r = run(
        unit("a", "x", init=9, ap=4, items=potion, script=[drink, drink]),
        unit("b", "y", 5, init=1),
        max_rounds=1,
    )
    assert [e.cost for e in events(r, "ActionDeclared", who="a")][:1] == [2]
    assert rejected(r, "a") == ["a has no healing left"]
    assert len(events(r, "Healed", who="a")) == 1


def test_hide_succeeds_without_a_test_when_nobody_can_detect() -> None:
    """Seed 002 Hide: "If anyone might detect the character, make a Stealth test opposed by
    Observe": when the only enemy is unconscious, nobody might detect it, so it hides with no
    test at all."""
    r = run(
        unit("a", "x", init=9, skills={"stealth": 0}, script=[act("Hide")]),
        unit("b", "y", 5, init=1, skills={"observe": HI}, options={"conditions": ["unconscious"]}),
    )
    assert events(r, "CheckResolved") == []
    assert events(r, "ConditionAdded", who="a", condition="hidden")


def test_aim_with_only_a_bolt_spell_and_not_for_other_spells() -> None:
    """Seed 002 Aim: "Gain +10 to the next ranged attack or Bolt spell": a caster with no
    ranged weapon may Aim for its Bolt spell; a spell that is not a Bolt gets no bonus and
    breaks the chain ("The chain breaks if the character takes any other action")."""
    spells = [{"name": "dart", "damage": "1", "bolt": True}, {"name": "hex", "damage": "1"}]
    script = [
        act("Aim"),
        act("CastMagic", spell="hex", target="b"),
        act("Aim"),
        act("CastMagic", spell="dart", target="b"),
    ]
    r = run(
        unit("a", "x", init=9, ap=9, skills={"magic": 10}, spells=spells, script=script),
        unit("b", "y", 10, init=1),
    )
    casts = [(e.check, e.against) for e in events(r, "CheckResolved", who="a")]
    assert casts == [("cast hex", 10), ("cast dart", 20)]
