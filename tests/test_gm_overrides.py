"""The game master's overrides through the library (``SteppedFight.override``): each is an event
caused by the GM, applied through the rules, and a log with overrides verifies byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from initiative.engine import declared_conditions, find_ruleset, fold, load_encounter
from initiative.events import (
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    ConditionAdded,
    ConditionRemoved,
    DamageDealt,
    EncounterEnded,
    GmOverride,
    IllegalOverrideError,
    InitiativeOrdered,
    Moved,
    PriorityGranted,
    RoundEnded,
    SetHp,
    TurnStarted,
    parse_log,
)
from initiative.replays import Narrator, TableNarrator, verify_log

from initiative import SteppedFight

EXAMPLES = Path(__file__).parents[1] / "examples"


def duel() -> SteppedFight:
    return SteppedFight(load_encounter(EXAMPLES / "openings-duel.toml"), seed=1)


def bridge() -> SteppedFight:
    return SteppedFight(load_encounter(EXAMPLES / "tactical-bridge.toml"), seed=4)


def finish(step: SteppedFight) -> bytes:
    while not step.over:
        step.send(step.offers[0].action)
    return b"".join(step.lines)


def after(step: SteppedFight, seq: int) -> list[type]:
    """The types of the events from ``seq`` on."""
    return [type(e) for e in step.events[seq:]]


def verifies(log: bytes) -> None:
    result = verify_log(parse_log(log, name="gm.jsonl"))
    assert result.ok, result.divergence


def test_every_override_kind_is_recorded_and_the_log_verifies():
    """Hit points, a joiner, a move, the order and a departure: each a GmOverride followed by
    the events it makes, caused by it; re-simulating the log gives the same bytes."""
    step = duel()
    grant = step.token.seq
    seq = step.override({"type": "SetHp", "who": "tomas", "hp": 7})
    gm = step.events[seq]
    assert isinstance(gm, GmOverride) and gm.cause == grant
    assert gm.override == SetHp(who="tomas", hp=7)
    hurt = step.events[seq + 1]
    assert isinstance(hurt, DamageDealt) and (hurt.hp, hurt.source, hurt.cause) == (7, "gm", seq)
    assert isinstance(step.events[-1], PriorityGranted) and step.who == "hound"

    seq = step.override({"type": "AddCombatant", "id": "wolf", "name": "Wolf", "like": "hound"})
    joined = step.events[seq + 1]
    assert isinstance(joined, CombatantJoined)
    assert (joined.who, joined.side, joined.hp) == ("wolf", "south", 9)
    assert "wolf" in step.state.order  # the ruleset's late arrival: rolled and slotted in
    assert all(e.cause == seq for e in step.events[seq + 1 : -1])

    seq = step.override({"type": "MoveToken", "who": "ilse", "to": [1.0, -1.5]})
    assert after(step, seq) == [GmOverride, Moved, PriorityGranted]
    where = step.state.combatants["ilse"].position
    assert (where.x, where.y) == (1.0, -1.5)

    seq = step.override({"type": "Reorder", "who": "ilse", "before": "hound"})
    assert after(step, seq) == [GmOverride, InitiativeOrdered, PriorityGranted]
    assert step.state.order.index("ilse") == step.state.order.index("hound") - 1

    seq = step.override({"type": "RemoveCombatant", "who": "wolf", "reason": "fled"})
    assert after(step, seq) == [GmOverride, CombatantLeft, PriorityGranted]
    log = finish(step)
    verifies(log)
    first = [e.who for e in step.events if isinstance(e, TurnStarted) and e.round == 1]
    turns = [e.who for e in step.events if isinstance(e, TurnStarted) and e.round == 2]
    assert first[0] == "hound"  # the turn under way stays
    order = step.state.order
    assert order.index("ilse") < order.index("hound")
    assert turns == [k for k in order if k in turns]  # the new order holds from the next
    assert "wolf" not in turns


def test_a_condition_the_ruleset_does_not_declare_is_refused_and_nothing_is_recorded():
    """The refusal names the ruleset and the condition, and (openings declaring none) says so
    and offers a marker instead (issue 34); the log is as it was."""
    step = duel()
    before = list(step.lines)
    with pytest.raises(IllegalOverrideError) as err:
        step.override({"type": "AddCondition", "who": "ilse", "condition": "stunned"})
    assert str(err.value) == (
        "the openings ruleset declares no conditions; a GM marker (gm mark) says 'stunned' instead"
    )
    assert step.lines == before


def test_the_declared_conditions_are_those_every_ruleset_accepts():
    """``declared_conditions`` (what the GM page's picker offers, issue 34, item 6): openings
    declares none; each one named is accepted by its ruleset (``disarmed:WEAPON`` with a weapon
    after the colon), as its refusal lists them."""
    assert declared_conditions(find_ruleset("openings")) == ()
    assert declared_conditions(find_ruleset("percentile")) == ("surprised",)
    tactical = declared_conditions(find_ruleset("tactical"))
    assert tactical[:2] == ("prone", "hidden") and "disarmed:WEAPON" in tactical
    for name in tactical:
        step = bridge()
        condition = name.replace(":WEAPON", ":sword").replace(":BY", ":raider-1")
        condition = condition.replace(":TRIGGER", ":attacked").replace(":TARGET", ":raider-1")
        seq = step.override({"type": "AddCondition", "who": "warden", "condition": condition})
        assert step.events[seq + 1] == ConditionAdded(
            seq=seq + 1, cause=seq, who="warden", condition=condition
        )
    with pytest.raises(IllegalOverrideError) as err:
        bridge().override({"type": "AddCondition", "who": "warden", "condition": "stunned"})
    assert str(err.value).endswith(f"(conditions: {', '.join(tactical)})")


@pytest.mark.parametrize(
    ("override", "reason"),
    [
        ({"type": "SetHp", "who": "bo", "hp": 3}, "no combatant 'bo'"),
        ({"type": "SetHp", "who": "ilse", "hp": 99}, "Ilse has at most 34 hit points"),
        ({"type": "MoveToken", "who": "ilse", "to": [500, 0]}, "(500, 0) is off the map"),
        ({"type": "MoveToken", "who": "ilse", "to": [5, 0]}, "(5, 0) is occupied by Tomas"),
        ({"type": "AddCombatant", "id": "tomas", "like": "hound"}, "already a combatant"),
        ({"type": "AddCombatant", "id": "x", "like": "hound", "side": "east"}, "no side 'east'"),
        ({"type": "Reorder", "who": "ilse", "before": "ilse"}, "cannot go before itself"),
        ({"type": "EndCondition", "who": "ilse", "condition": "prone"}, "Ilse is not prone"),
        ({"type": "Shout", "who": "ilse"}, "not an override"),
    ],
)
def test_refusals_say_why(override, reason):
    """Each refusal is in words, naming what is wrong (combatants by their names)."""
    step = duel()
    with pytest.raises(IllegalOverrideError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        step.override(override)


def test_reorder_moves_a_turn_still_to_come_in_this_round():
    """The order is hound, ilse, tomas; during the hound's turn the GM puts tomas before ilse:
    this very round tomas acts before ilse, and the log verifies."""
    step = duel()
    assert step.state.order == ("hound", "ilse", "tomas") and step.who == "hound"
    step.override({"type": "Reorder", "who": "tomas", "before": "ilse"})
    verifies(finish(step))
    turns = [e.who for e in step.events if isinstance(e, TurnStarted) and e.round == 1]
    assert turns == ["hound", "tomas", "ilse"]


def test_a_joiner_from_a_whole_combatant_table_is_read_as_the_encounter_file():
    """The table's ruleset keys are lifted as the file's are, and it is recorded normalized; a
    table the encounter file would refuse is refused with the file's words."""
    step = duel()
    table = {"side": "north", "hp": 5, "position": [-3, 0], "stats": {"agility": 3},
             "weapons": [{"name": "claw", "damage": "1d4", "natural": True}]}  # fmt: skip
    seq = step.override({"type": "AddCombatant", "id": "ghost", "combatant": table})
    joined = step.events[seq + 1]
    assert isinstance(joined, CombatantJoined) and (joined.position.x, joined.position.y) == (-3, 0)
    assert step.fight.queries.spec("ghost").weapons[0].name == "claw"
    with pytest.raises(IllegalOverrideError, match="unknown stat 'luck'"):
        step.override(
            {"type": "AddCombatant", "id": "g2", "combatant": {**table, "stats": {"luck": 1}}}
        )
    verifies(finish(step))


def test_hit_points_to_zero_defeat_and_can_end_the_fight():
    """0 hit points is down as any damage makes it (CombatantDefeated), and when one side is
    left the fight ends with it as the winner."""
    step = duel()
    step.override({"type": "SetHp", "who": "tomas", "hp": 0})
    assert isinstance(step.events[-2], CombatantDefeated)
    seq = step.override({"type": "SetHp", "who": "hound", "hp": -2})
    assert step.over
    end = step.events[-1]
    assert isinstance(end, EncounterEnded) and end.winner == "north"
    assert any(isinstance(e, CombatantDefeated) and e.who == "hound" for e in step.events[seq:])
    verifies(b"".join(step.lines))


def test_removing_the_last_enemy_ends_the_fight_for_the_side_left():
    """A departure is not a defeat, and the side left standing wins."""
    step = duel()
    step.override({"type": "RemoveCombatant", "who": "tomas", "reason": "fled"})
    step.override({"type": "RemoveCombatant", "who": "hound", "reason": "called off"})
    end = step.events[-1]
    assert isinstance(end, EncounterEnded) and end.winner == "north"
    assert not any(isinstance(e, CombatantDefeated) for e in step.events)


def test_a_condition_for_one_round_ends_with_the_round():
    """``rounds: 1`` ends at the end of the round it was given in, caused by that RoundEnded."""
    step = bridge()
    step.override({"type": "AddCondition", "who": "archer", "condition": "restrained", "rounds": 1})
    added = [e for e in step.events if isinstance(e, ConditionAdded)][-1]
    assert (added.who, added.condition, added.until) == ("archer", "restrained", "end of round 1")
    log = finish(step)
    removed = [
        e for e in step.events if isinstance(e, ConditionRemoved) and e.condition == "restrained"
    ]
    ended = next(e for e in step.events if isinstance(e, RoundEnded) and e.round == 1)
    assert removed and removed[0].cause == ended.seq
    verifies(log)


def test_the_fold_of_a_log_with_overrides_is_the_live_state():
    """``state`` rebuilds what the fight held, with the GM's changes, through one transition."""
    step = bridge()
    step.override({"type": "AddCondition", "who": "archer", "condition": "prone"})
    step.override({"type": "SetHp", "who": "warden", "hp": 5})
    step.override({"type": "AddCombatant", "id": "raider-4", "like": "raider-1", "at": [13, 2]})
    assert fold(step.events) == step.fight.state.freeze()
    assert fold(step.events).combatants["raider-4"].position.y == 2.0


def test_a_fork_after_an_override_goes_on_as_the_fight_does():
    """A fork taken after the GM stepped in is at the same place and plays the same."""
    step = duel()
    step.override({"type": "AddCombatant", "id": "wolf", "like": "hound"})
    step.override({"type": "SetHp", "who": "ilse", "hp": 20})
    for _ in range(5):
        step.send(step.offers[0].action)
    branch = step.fight.fork()
    assert branch.fight.state == step.fight.state
    while not branch.over:
        branch.send(branch.legal[0].action)
    finish(step)
    assert branch.fight.state == step.fight.state


def test_narration_says_what_the_gm_did():
    """The replay's and the table's words for an override."""
    step = duel()
    step.override({"type": "SetHp", "who": "tomas", "hp": 7})
    step.override({"type": "AddCombatant", "id": "wolf", "name": "Grey Wolf", "like": "hound"})
    step.override({"type": "Reorder", "who": "ilse", "before": None})
    table, replay = TableNarrator(), Narrator()
    said = [table(e) for e in step.events]
    told = [replay(e) for e in step.events]
    assert "The GM sets Tomas's hit points to 7." in said
    assert "The GM brings in Grey Wolf, like Tomas's hound." in said
    assert "The GM moves Ilse to the end of the order." in said
    assert any(t and "The GM sets [bold]Tomas[/bold]'s hit points to 7." in t for t in told)


def test_the_commands_reproduce_and_show_a_log_with_overrides(tmp_path: Path):
    """``verify``, ``replay``, ``show``, ``state``, ``why``, ``view``, ``fork`` (at an override)
    and ``resume`` (of the log cut after them) on a log the GM stepped into."""
    from debug_support import cli

    log = tmp_path / "gm.jsonl"
    step = SteppedFight(load_encounter(EXAMPLES / "openings-duel.toml"), seed=1, out=log)
    hp = step.override({"type": "SetHp", "who": "tomas", "hp": 7})
    step.override({"type": "AddCombatant", "id": "wolf", "name": "Grey Wolf", "like": "hound"})
    finish(step)
    assert "verified: all" in cli("verify", log, check=0).stdout
    assert "The GM brings in Grey Wolf, like Tomas's hound." in cli("replay", log, check=0).stdout
    shown = cli("show", log, "--type", "GmOverride", "--who", "wolf", check=0).stdout
    assert "The GM brings in wolf, like hound." in shown
    state = json.loads(cli("state", log, "--at", hp + 1, "--json", check=0).stdout)
    assert state["combatants"]["tomas"]["hp"] == 7
    assert "GmOverride" in cli("why", log, hp + 1, check=0).stdout
    cli("view", log, "-o", tmp_path / "gm.html", check=0)
    assert "The GM sets Tomas" in (tmp_path / "gm.html").read_text()  # names (issue 34)
    fork = tmp_path / "fork.jsonl"
    cli("fork", log, "--at", hp, "--out", fork, "--quiet", check=0)
    assert "verified: all" in cli("verify", fork, check=0).stdout
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[: hp + 40]))
    cli("resume", cut, "--quiet", check=0)
    assert "verified: all" in cli("verify", cut, check=0).stdout
    assert cut.read_bytes().count(b'"GmOverride"') == 2


def test_the_table_state_names_a_joiner_by_the_name_the_gm_gave():
    """The served table's state (what every screen shows) says "Grey Wolf", not its id."""
    import msgspec

    from initiative.table._sight import EVERYTHING
    from initiative.table._talk import TableTalk

    step = duel()
    step.override({"type": "AddCombatant", "id": "wolf", "name": "Grey Wolf", "like": "hound"})
    lines = [line.rstrip(b"\n") for line in step.lines]
    told = TableTalk(step.encounter).frame(lines, 0, len(lines), ())
    frame = msgspec.json.decode(EVERYTHING.out(told))
    assert ("wolf", "Grey Wolf") in [(c["id"], c["name"]) for c in frame["state"]["combatants"]]
