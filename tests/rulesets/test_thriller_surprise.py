"""Seed 000, surprise and the horrifying ambush: each test quotes the sentence it checks."""

from __future__ import annotations

from initiative.events import Attack

from ._thriller import board, declared, events, fighter, one, run, table, turn_of

AMBUSH = 'ambush_by = "cult"'
#: An ambusher no one notices (Stealth 1d20+40) and one everyone notices (1d20-40).
SILENT = "skills = { stealth = 40 }"
CLUMSY = "skills = { stealth = -40 }"


def test_opposed_check_decides_surprise_per_combatant():
    """Seed 000: "the GM may call for a Perception or Insight check opposed by the attacker's
    Stealth. Characters who fail this opposed roll are Surprised and lose their first turn"."""
    dull = fighter("dull", "heroes", stats="agility = 10, perception = 8, insight = 6")
    sharp = fighter(
        "sharp",
        "heroes",
        stats="agility = 10, perception = 14",
        y=2.0,
        skills="{ perception = 60 }",
    )
    cult = fighter("cultist", "cult", x=5.0, skills="{ stealth = 40 }")
    r = run(dull, sharp, cult, options=AMBUSH, rounds=2)
    stealth = one(r, "DiceRolled", who="cultist", purpose="stealth")
    assert stealth.expr == "1d20+40"
    assert one(r, "DiceRolled", who="dull", purpose="perception against stealth").expr == "1d20-1"
    assert one(r, "DiceRolled", who="sharp", purpose="perception against stealth").expr == "1d20+62"
    lost = one(r, "CheckResolved", who="dull")
    won = one(r, "CheckResolved", who="sharp")
    assert (lost.success, lost.against, lost.against_who) == (False, stealth.total, "cultist")
    assert (won.success, won.against) == (True, stealth.total)
    assert [e.who for e in events(r, "ConditionAdded", condition="surprised")] == ["dull"]
    assert turn_of(r, "dull", 1)[-1].reason == "surprised"
    assert turn_of(r, "sharp", 1)[-1].reason == "ended"
    assert turn_of(r, "dull", 2)[-1].reason == "ended"
    assert (
        one(r, "ConditionRemoved", who="dull", condition="surprised").seq
        < one(r, "RoundStarted", round=2).seq
    )


def test_insight_is_used_when_better_than_perception():
    """Seed 000: "a Perception or Insight check" — the better of the two is rolled."""
    seer = fighter("seer", "heroes", stats="agility = 10, perception = 6, insight = 16")
    r = run(
        seer,
        fighter("c", "cult", x=5.0, skills="{ stealth = 40 }"),
        options=AMBUSH,
        rounds=1,
    )
    assert one(r, "DiceRolled", who="seer", purpose="insight against stealth").expr == "1d20+3"
    assert one(r, "CheckResolved", who="seer").check == "surprise: insight vs stealth"


def test_the_clumsiest_ambusher_is_the_one_opposed():
    """Seed 000: "opposed by the attacker's Stealth": with several attackers, a defender who
    notices any one of them is not surprised (the lowest Stealth result is opposed)."""
    hero = fighter("hero", "heroes", stats="agility = 10, perception = 10")
    silent = fighter("silent", "cult", x=5.0, skills="{ stealth = 40 }")
    clumsy = fighter("clumsy", "cult", x=6.0, skills="{ stealth = -40 }")
    r = run(hero, silent, clumsy, options=AMBUSH, rounds=1)
    check = one(r, "CheckResolved", who="hero")
    assert check.against_who == "clumsy"
    assert check.against == one(r, "DiceRolled", who="clumsy", purpose="stealth").total
    assert check.success is True
    assert events(r, "ConditionAdded", condition="surprised") == []


def test_surprise_set_in_the_encounter_file_needs_no_check():
    """Seed 000: "If one group is ambushed or caught unaware, they may not act in the first
    round." — ``surprised = true`` in the encounter file settles it without a roll; ``false``
    exempts a combatant from the ambush's check."""
    caught = fighter("caught", "heroes", surprised="true")
    alert = fighter("alert", "heroes", y=2.0, surprised="false")
    r = run(caught, alert, fighter("c", "cult", x=5.0), options=AMBUSH, rounds=1)
    assert events(r, "CheckResolved") == []
    assert events(r, "DiceRolled", purpose="stealth") == []
    assert [e.who for e in events(r, "ConditionAdded", condition="surprised")] == ["caught"]
    assert turn_of(r, "caught", 1)[-1].reason == "surprised"


def test_surprised_cannot_act_and_may_only_defend():
    """Seed 000: "Surprised characters cannot act in the first round." ... "able only to
    defend": a Dodge is offered, a Retaliate is refused and never offered."""
    hero = fighter(
        "hero",
        "heroes",
        surprised="true",
        initiative_roll="20",
        script='[{ type = "Attack", target = "c" }]',
        reactions='[{ type = "Retaliate", target = "c" }, { type = "Dodge" }]',
    )
    c = fighter(
        "c", "cult", x=1.0, initiative_roll="1", script='[{ type = "Attack", target = "hero" }]'
    )
    r = run(hero, c, rounds=1)
    assert declared(r, "hero")[-1].action.__class__.__name__ == "Dodge"
    assert [type(e.action).__name__ for e in declared(r, "hero")] == ["Dodge"]
    rejected = one(r, "ActionRejected", who="hero")
    assert rejected.reason == "in this opening (attacked) hero may take: Dodge"
    assert [e.trigger.kind for e in events(r, "OpeningOpened")] == ["attacked"]


def test_attacks_on_the_surprised_have_advantage():
    """Seed 000: "Attacks against them have advantage." — 2d20, keep the higher, both dice in
    the log; once surprise has ended, the attack is back to 1d20."""
    cult = table("c", "cult", x=1.0, stats={"agility": 10, "strength": 14})
    hero = table("hero", "heroes")
    at = board(hero, cult, turn="c", conditions={"hero": ["surprised"]})
    done = at.act("c", Attack(target="hero"), dice=[(3, 17)])
    (roll,) = [e for e in done if type(e).__name__ == "DiceGiven"]
    assert (roll.purpose, roll.expr, roll.dice, roll.total) == (
        "attack on hero",
        "2d20kh1+2",
        (3, 17),
        19,
    )
    assert [e.against for e in done if type(e).__name__ == "AttackResolved"] == [10]
    at.hook("round_ended")
    again = at.act("c", Attack(target="hero"), dice=[(3,)])
    assert [e.expr for e in again if type(e).__name__ == "DiceGiven"][:1] == ["1d20+2"]


def test_surprised_dodge_is_at_minus_two_in_round_one():
    """Seed 000: "They suffer a -2 penalty to any Dodge attempts that round." """
    hero = fighter(
        "hero",
        "heroes",
        stats="agility = 14",
        surprised="true",
        initiative_roll="1",
        reactions='[{ type = "Dodge" }, { type = "Dodge" }]',
    )
    script = '[{ type = "Attack", target = "hero" }, { type = "EndTurn" }, { type = "Attack", target = "hero" }]'
    c = fighter("c", "cult", x=1.0, initiative_roll="20", script=script)
    r = run(hero, c, rounds=2)
    first, second = events(r, "DiceRolled", who="hero", purpose="dodge")
    assert (first.expr, first.modifier) == ("1d20+0", 0) or (first.expr, first.modifier) == (
        "1d20",
        0,
    )
    assert second.modifier == 2


def test_horrifying_ambush_failure_gives_shaken():
    """Seed 000: "If the ambush is especially horrifying, the GM may also call for a Sanity
    Check (Willpower vs. DC). Failure can cause the character to freeze, gaining the Shaken
    condition." Shaken: 1 AP fewer each turn and -2 to attacks, until the end of round 2."""
    hero = fighter(
        "hero",
        "heroes",
        stats="agility = 10, willpower = 14",
        surprised="false",
        initiative_roll="20",
        script='[{ type = "Attack", target = "c" }, { type = "EndTurn" }, { type = "EndTurn" }]',
    )
    c = fighter("c", "cult", x=1.0, initiative_roll="1")
    r = run(hero, c, options=AMBUSH + "\nhorrifying = true\nsanity_dc = 40", rounds=3)
    sanity = one(r, "DiceRolled", who="hero", purpose="sanity check")
    assert sanity.expr == "1d20+2"
    check = one(r, "CheckResolved", who="hero")
    assert (check.check, check.success, check.against) == ("sanity (willpower)", False, 40)
    assert one(r, "ConditionAdded", who="hero", condition="shaken").until == "end of round 2"
    assert one(r, "DiceRolled", who="hero", purpose="attack on c").modifier == -2
    # Agility 10 gives 2 AP; Shaken takes one in rounds 1 and 2, and round 3 is back to 2.
    assert [e.ap for e in events(r, "APChanged", who="hero", reason="turn start")] == [1, 1, 2]
    removed = one(r, "ConditionRemoved", who="hero", condition="shaken")
    assert one(r, "RoundEnded", round=2).seq < removed.seq < one(r, "RoundStarted", round=3).seq


def test_horrifying_ambush_success_leaves_one_steady():
    """Seed 000: only "Failure" of the Sanity Check gives Shaken; the ambushers make none."""
    hero = fighter("hero", "heroes", stats="agility = 10, willpower = 10", surprised="false")
    r = run(
        hero,
        fighter("c", "cult", x=1.0),
        options=AMBUSH + "\nhorrifying = true\nsanity_dc = 1",
        rounds=1,
    )
    assert one(r, "CheckResolved", who="hero").success is True
    assert events(r, "CheckResolved", who="c") == []
    assert events(r, "ConditionAdded", condition="shaken") == []
