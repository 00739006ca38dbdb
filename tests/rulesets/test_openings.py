"""The `openings` ruleset, rule by rule, through real encounters and their logs.

Every test quotes the sentence of seed 003_bddf491e387d04a2.txt that it checks.
"""

from __future__ import annotations

from helpers import fight, of_type
from initiative.engine import fold
from initiative.events import (
    ActionDeclared,
    ActionRejected,
    APChanged,
    Attack,
    Move,
    OpeningOpened,
    PriorityGranted,
    TurnStarted,
)


def duel(
    a_script="",
    a_reactions="",
    b_script="",
    b_reactions="",
    c_script="",
    c_reactions="",
    options="",
    c_roll=1,
    b_roll=5,
):
    """Three fighters with table-given initiative: a 13, b 7 (or b_roll+2), c 2 (or c_roll+1).

    a (side x) at (0, 0); b and c (side y) at (1, 0) and (0, 1): all within 1.5 m reach.
    """
    return f"""
ruleset = "openings"
max_rounds = 2
[options]
{options}
[[combatants]]
id = "a"
side = "x"
hp = 100
stats = {{ agility = 3 }}
initiative_roll = 10
policy = "scripted"
script = [{a_script}]
reactions = [{a_reactions}]
[[combatants]]
id = "b"
side = "y"
hp = 100
position = [1, 0]
stats = {{ agility = 2 }}
initiative_roll = {b_roll}
policy = "scripted"
script = [{b_script}]
reactions = [{b_reactions}]
[[combatants]]
id = "c"
side = "y"
hp = 100
position = [0, 1]
stats = {{ agility = 1 }}
initiative_roll = {c_roll}
policy = "scripted"
script = [{c_script}]
reactions = [{c_reactions}]
"""


END = '{ type = "EndTurn" }'
PASS = '{ type = "Pass" }'


def test_initiative_is_a_d12_plus_the_initiative_stat():
    """Seed 003: "Initiative is rolled by using a d12 then adding a character's initiative
    stat" -- the stat "when not being added to by other modifiers is equal to a character's
    Agility"."""
    text = (
        duel()
        .replace("initiative_roll = 10\n", "")
        .replace("stats = { agility = 2 }", "stats = { agility = 2, initiative = 6 }")
    )
    events = fight(text, seed=11).events
    rolled = {e.who[0]: e for e in of_type(events, "InitiativeRolled")}
    dice = {e.who: e for e in of_type(events, "DiceRolled") if e.purpose == "initiative"}
    assert dice["a"].expr == "1d12"
    assert rolled["a"].modifier == 3  # Agility
    assert rolled["a"].total == dice["a"].total + 3
    assert rolled["b"].modifier == 6  # the initiative stat, raised above Agility
    assert not rolled["a"].given and rolled["b"].given


def test_initiative_is_rolled_before_the_encounter_starts_and_ordered_high_to_low():
    """Seed 003: "with the order determined by the amounts rolled (high to low). Initiative is
    rolled before the encounter starts." """
    events = fight(duel(c_roll=9), seed=3).events
    first_round = of_type(events, "RoundStarted")[0].seq
    assert all(e.seq < first_round for e in of_type(events, "InitiativeRolled"))
    (ordered,) = of_type(events, "InitiativeOrdered")
    assert ordered.order == ("a", "c", "b")  # 13, 10, 7
    turns = [e.who for e in of_type(events, "TurnStarted")][:3]
    assert turns == ["a", "c", "b"]


def test_action_points_are_regained_at_the_start_of_ones_turn():
    """Seed 003: "A player regains all expended action points at the start of their turn." """
    attack = '{ type = "Attack", target = "b" }'
    events = fight(duel(a_script=f"{attack}, {END}, {END}"), seed=1).events
    a_turns = [e for e in of_type(events, "TurnStarted") if e.who == "a"]
    second = a_turns[1]
    regain = next(e for e in events if e.seq > second.seq and isinstance(e, APChanged))
    assert (regain.who, regain.ap, regain.reason, regain.cause) == (
        "a",
        3,
        "turn start",
        second.seq,
    )


def test_action_points_remaining_are_retained_when_a_turn_ends():
    """Seed 003: "All action points remaining are retained when a turn ends." """
    attack = '{ type = "Attack", target = "b" }'
    result = fight(duel(a_script=f"{attack}, {END}"), seed=1)
    events = result.events
    a_end = next(e for e in of_type(events, "TurnEnded") if e.who == "a")
    assert fold(events, a_end.seq).combatants["a"].ap == 1
    b_start = next(e for e in of_type(events, "TurnStarted") if e.who == "b")
    assert fold(events, b_start.seq).combatants["a"].ap == 1


def test_a_turn_ends_when_its_taker_chooses_to_end_it():
    """Seed 003: "A turn ends when the current turn taker chooses to end it." -- even with no
    AP left, the turn goes on until the taker ends it."""
    moves = ", ".join('{ type = "Move", to = [0, 0] }' for _ in range(3))
    events = fight(duel(a_script=f"{moves}, {END}"), seed=1).events
    first_turn_end = of_type(events, "TurnEnded")[0]
    grants = [
        e
        for e in of_type(events, "PriorityGranted")
        if e.who == "a" and e.window.kind == "turn" and e.seq < first_turn_end.seq
    ]
    assert [g.ap for g in grants] == [3, 2, 1, 0]
    declared = events[first_turn_end.seq - 1]
    assert isinstance(declared, ActionDeclared) and declared.action.describe() == "EndTurn"


def test_action_points_can_be_used_in_an_opening_on_another_players_turn():
    """Seed 003: "Action points can be used on other people's turns, when provided an
    opening." """
    events = fight(
        duel(a_script=END, a_reactions='{ type = "Attack", target = "b" }', b_script=END), seed=2
    ).events
    opened = next(e for e in of_type(events, "OpeningOpened") if e.trigger.by == "b")
    reaction = next(
        e for e in of_type(events, "ActionDeclared") if e.who == "a" and e.seq > opened.seq
    )
    assert reaction.action == Attack(target="b", weapon=None)
    spent = events[reaction.seq + 1]
    assert isinstance(spent, APChanged) and (spent.who, spent.ap) == ("a", 1)


def test_only_the_player_with_priority_acts():
    """Seed 003: "If a player does not have priority it cannot perform actions." -- every
    decision answers a grant to the same combatant, and nothing else acts in between."""
    events = fight(
        duel(a_script=END, a_reactions='{ type = "Attack", target = "b" }'), seed=4
    ).events
    grants = {e.seq: e for e in of_type(events, "PriorityGranted")}
    for e in of_type(events, "ActionDeclared") + of_type(events, "PriorityPassed"):
        if e.cause in grants:
            assert grants[e.cause].who == e.who
            assert fold(events, e.seq).priority == e.who


def test_the_active_player_has_priority_in_its_turn():
    """Seed 003: "A player has priority when it is their turn." -- every turn-window grant
    goes to the active player."""
    events = fight(duel(), seed=4).events
    for g in of_type(events, "PriorityGranted"):
        if g.window.kind == "turn":
            assert fold(events, g.seq).active == g.who


def test_ending_a_turn_makes_an_opening_in_initiative_order():
    """Seed 003: "there are two primary ways in which an opening is made: ending a turn, and
    leaving a creature's space." and "If multiple creatures gain an opening at the same time,
    they gain priority in order of their initiative (highest first)." """
    events = fight(duel(a_script=END, b_reactions=PASS, c_reactions=PASS), seed=5).events
    a_end = next(e for e in of_type(events, "TurnEnded") if e.who == "a")
    opened = events[a_end.seq + 1]
    assert isinstance(opened, OpeningOpened)
    assert (opened.trigger.kind, opened.trigger.by, opened.offered) == (
        "turn_ended",
        "a",
        ("b", "c"),
    )
    grants = [e.who for e in of_type(events, "PriorityGranted") if e.cause == opened.seq]
    assert grants == ["b", "c"]


def test_opening_order_follows_initiative_not_listing_order():
    """Seed 003: "they gain priority in order of their initiative (highest first)" -- c
    listed after b but rolled higher, so c goes first."""
    events = fight(duel(a_script=END, b_reactions=PASS, c_reactions=PASS, c_roll=9), seed=5).events
    opened = next(e for e in of_type(events, "OpeningOpened") if e.trigger.by == "a")
    assert opened.offered == ("c", "b")


def test_only_reactions_can_be_performed_in_an_opening():
    """Seed 003: "Only actions which are marked as being "reactions" can be performed during
    an opening." -- Move is not a reaction by default."""
    move = '{ type = "Move", to = [2, 0] }'
    events = fight(duel(a_script=END, b_reactions=f"{move}, {PASS}"), seed=6).events
    rejected = next(e for e in of_type(events, "ActionRejected") if e.who == "b")
    assert isinstance(rejected, ActionRejected)
    assert rejected.action == Move(to=rejected.action.to)
    assert rejected.reason == "Move is not a reaction in this opening"


def test_only_one_action_in_a_single_opening():
    """Seed 003: "Only one action can be performed in any single opening" -- b is given
    priority once per opening even though its script holds two attacks."""
    attack = '{ type = "Attack", target = "a" }'
    events = fight(
        duel(a_script=f"{END}, {END}", b_reactions=f"{attack}, {attack}", options="ap = 6"), seed=7
    ).events
    opened = next(e for e in of_type(events, "OpeningOpened") if e.trigger.by == "a")
    closed = next(e for e in of_type(events, "OpeningClosed") if e.cause == opened.seq)
    inside = [e for e in events[opened.seq : closed.seq] if isinstance(e, PriorityGranted)]
    assert [g.who for g in inside] == ["b", "c"]
    assert (
        len(
            [
                e
                for e in events[opened.seq : closed.seq]
                if isinstance(e, ActionDeclared) and e.who == "b"
            ]
        )
        == 1
    )


def test_priority_returns_to_the_active_player_after_an_opening():
    """Seed 003: "once all creatures who chose to perform an action in that opening have done
    so, and all those who chose not to have passed the priority on, it returns to the current
    player." """
    attack = '{ type = "Attack", target = "a" }'
    away = '{ type = "Move", to = [-4, 0] }'
    events = fight(
        duel(a_script=f"{away}, {END}", b_reactions=attack, c_reactions=PASS), seed=8
    ).events
    opened = next(e for e in of_type(events, "OpeningOpened") if e.trigger.kind == "left_space")
    closed = next(e for e in of_type(events, "OpeningClosed") if e.cause == opened.seq)
    assert closed.returns_to == "a"
    after = next(e for e in events[closed.seq :] if isinstance(e, PriorityGranted))
    assert (after.who, after.window.kind) == ("a", "turn")
    assert fold(events, closed.seq).priority == "a"


def test_the_active_player_stays_active_while_another_has_priority():
    """Seed 003: "A player is considered the active player when it is their turn, even if they
    don't have priority." """
    attack = '{ type = "Attack", target = "a" }'
    away = '{ type = "Move", to = [-4, 0] }'
    events = fight(duel(a_script=f"{away}, {END}", b_reactions=attack), seed=8).events
    grant = next(e for e in of_type(events, "PriorityGranted") if e.window.kind == "opening")
    state = fold(events, grant.seq)
    assert (state.active, state.priority) == ("a", "b")


def test_leaving_a_creatures_space_opens_before_the_move():
    """Seed 003: "leaving a creature's space" makes an opening -- for each creature whose
    reach the mover leaves, resolved before the move completes."""
    attack = '{ type = "Attack", target = "a" }'
    away = '{ type = "Move", to = [-4, 0] }'
    events = fight(
        duel(a_script=f"{away}, {END}", b_reactions=attack, c_reactions=PASS), seed=8
    ).events
    opened = next(e for e in of_type(events, "OpeningOpened") if e.trigger.kind == "left_space")
    assert (opened.trigger.by, opened.offered) == ("a", ("b", "c"))
    attack_roll = next(e for e in of_type(events, "DiceRolled") if e.who == "b")
    moved = next(e for e in of_type(events, "Moved") if e.who == "a")
    assert attack_roll.seq < moved.seq
    assert moved.start.x == 0.0 and moved.to.x == -4.0


def test_leaving_space_allows_only_an_attack_on_the_leaver():
    """Seed 003: "Some openings have conditions which apply to what actions can be selected"
    -- in a leave-space opening the only legal reaction is an attack on the one leaving."""
    text = duel(
        a_script='{ type = "Move", to = [-4, 0] }, ' + END,
        b_reactions='{ type = "Attack", target = "d" }, ' + PASS,
    )
    text += """
[[combatants]]
id = "d"
side = "x"
hp = 100
position = [2, 0]
initiative_roll = 1
policy = "scripted"
"""
    events = fight(text, seed=9).events
    rejected = of_type(events, "ActionRejected")[0]
    assert rejected.reason == "this opening allows only an attack on a, who is leaving"


def test_nothing_is_offered_to_those_who_cannot_react():
    """Design: only creatures with a legal reaction are offered priority -- with 1 AP left and
    attacks at 2 AP, b is not offered the opening."""
    attack = '{ type = "Attack", target = "a" }'
    events = fight(
        duel(a_script=f"{END}, {END}", b_script=f"{attack}, {END}", c_reactions=PASS), seed=10
    ).events
    b_end = next(e for e in of_type(events, "TurnEnded") if e.who == "b")
    opened = events[b_end.seq + 1]
    assert isinstance(opened, OpeningOpened) and opened.offered == ("a", "c")
    # a's opening after its own second turn: b holds 1 AP and cannot attack.
    a_end = [e for e in of_type(events, "TurnEnded") if e.who == "a"][1]
    nxt = events[a_end.seq + 1]
    assert isinstance(nxt, OpeningOpened) and nxt.offered == ("c",)


def test_a_round_is_every_participants_turn():
    """Seed 003: "A round is comprised of every participant in the encounter's turn. A round
    ends when everyone has taken their turn." """
    events = fight(duel(), seed=12).events
    rounds = of_type(events, "RoundStarted")
    ends = of_type(events, "RoundEnded")
    for start, end in zip(rounds, ends, strict=True):
        turns = [e.who for e in events[start.seq : end.seq] if isinstance(e, TurnStarted)]
        assert sorted(turns) == ["a", "b", "c"]


def test_the_encounter_ends_when_one_side_is_left():
    """Seed 003: "Upon the final blows being dealt, with all combatants rendered unable or
    unwilling to fight, that encounter ends." """
    text = """
ruleset = "openings"
[[combatants]]
id = "a"
side = "x"
hp = 100
stats = { strength = 30 }
[[combatants]]
id = "b"
side = "y"
hp = 1
count = 2
position = [1, 0]
policy = "scripted"
"""
    result = fight(text, seed=13)
    ended = result.events[-1]
    assert type(ended).__name__ == "EncounterEnded"
    assert (ended.winner, ended.reason) == ("x", "only x is left standing")
    defeated = [e.who for e in of_type(result.events, "CombatantDefeated")]
    assert sorted(defeated) == ["b-1", "b-2"]
    digest = result.events[-2]
    assert type(digest).__name__ == "StateDigested"
    assert ended.cause == digest.cause  # the event that decided the fight


def test_defaults_can_be_overridden_from_the_encounter_file():
    """Defaults where the seed is silent (attack cost, AP) come from [options]."""
    attack = '{ type = "Attack", target = "b" }'
    events = fight(
        duel(a_script=f"{attack}, {attack}, {attack}, {END}", options="ap = 5\nattack_cost = 1"),
        seed=1,
    ).events
    declared = [e for e in of_type(events, "ActionDeclared") if e.who == "a"][:3]
    assert [e.cost for e in declared] == [1, 1, 1]
    assert of_type(events, "CombatantJoined")[0].ap == 5


def test_the_round_limit_ends_an_undecided_fight():
    """Design default: an encounter that reaches max_rounds ends with no winner."""
    events = fight(duel(), seed=1).events
    assert [type(e).__name__ for e in events[-3:]] == [
        "RoundEnded",
        "StateDigested",
        "EncounterEnded",
    ]
    ended = events[-1]
    assert (ended.winner, ended.rounds) == (None, 2)
    assert "round limit" in ended.reason


def test_priority_comes_after_the_beginning_of_turn_effects_and_ends_with_the_turn():
    """Seed 003: "They are given priority once all "at the beginning of the turn" effects have
    ended, and they lose it when they end their turn." """
    attack = '{ type = "Attack", target = "b" }'
    events = fight(duel(a_script=f"{attack}, {END}, {END}"), seed=1).events
    for start in of_type(events, "TurnStarted"):
        grant = next(e for e in events[start.seq :] if isinstance(e, PriorityGranted))
        regain = [e for e in events[start.seq : grant.seq] if isinstance(e, APChanged)]
        assert all(e.reason == "turn start" for e in regain)
        assert grant.who == start.who
    for end in of_type(events, "TurnEnded"):
        assert fold(events, end.seq).priority is None
