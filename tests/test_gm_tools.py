"""The GM's tools at the engine's level (issue 34): the order the GM sets is the order,
undo, names in place of ids, markers, the GM's dice and notes. Each through
``initiative.step`` / ``SteppedFight.override``, as a script or the table drives them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest
from cli_support import run as cli
from initiative.actors import parse_gm, roster_text
from initiative.engine import state_to_builtins
from initiative.events import (
    MARKER_LIMIT,
    AddMarker,
    GmRolled,
    IllegalOverrideError,
    MarkerAdded,
    Position,
    SetHp,
    gm_only,
    parse_log,
    read_log,
)
from initiative.replays import TableNarrator, verify_log, view_data
from serve_support import ENCOUNTER

import initiative

EXAMPLES = Path(__file__).parents[1] / "examples"


def verifies(step: initiative.SteppedFight) -> None:
    """The log re-simulates to the same bytes (to its end, or as far as it goes)."""
    result = verify_log(parse_log(b"".join(step.lines), name="gm.jsonl"))
    assert result.divergence is None and result.events == len(step.lines)
    assert result.complete == step.over


def finish(step: initiative.SteppedFight) -> None:
    while not step.over:
        step.send(step.offers[0].action)


def end_turns(step: initiative.SteppedFight, until_round: int) -> None:
    """Everyone ends their turn (or passes) until round ``until_round`` has started."""
    while not step.over and step.state.round < until_round:
        step.send(step.offers[-1].action)


# --- 1. the order the GM sets is the order ---------------------------------------------------


def test_a_late_arrival_keeps_the_gms_reorder():
    """Issue 34, reproduction 1: Reorder osric before brenna, later an AddCombatant: brenna is
    not back before osric; the newcomer is slotted in by its initiative."""
    step = initiative.step(EXAMPLES / "openings-skirmish.toml", seed=7)
    step.override({"type": "Reorder", "who": "osric", "before": "brenna"})
    end_turns(step, 2)
    step.override({"type": "AddCombatant", "id": "goblin7", "like": "goblin-5"})
    order = step.state.order
    assert order.index("osric") < order.index("brenna")
    assert [c for c in order if c != "goblin7"] == [
        "goblin-2", "goblin-5", "wren", "goblin-3", "goblin-1", "goblin-4", "osric", "brenna",
        "boss",
    ]  # fmt: skip
    # goblin7 rolled lower than brenna and higher than the boss: it goes between them
    state = step.state.combatants
    at = order.index("goblin7")
    assert state[order[at - 1]].initiative >= state["goblin7"].initiative
    assert state["goblin7"].initiative > state[order[at + 1]].initiative
    end_turns(step, 4)
    turns = [e.who for e in step.events if type(e).__name__ == "TurnStarted" and e.round == 3]
    assert turns.index("osric") < turns.index("brenna")
    verifies(step)


def test_a_rulesets_own_joiner_keeps_the_gms_reorder():
    """Seed 001 (percentile): "If new combatants join in the midst of the encounter, simply
    roll Initiative for them and add them to the order": the orc arriving in round 4 is added
    to the order as the GM left it, not re-sorted with it."""
    step = initiative.step(EXAMPLES / "percentile-wilhelm.toml", seed=1)
    step.override({"type": "Reorder", "who": "goblin-3", "before": "wilhelm"})
    end_turns(step, 4)
    assert step.state.order == ("orc", "goblin-3", "wilhelm", "gertrude", "goblin-1", "goblin-2")
    verifies(step)


# --- 2. undo ------------------------------------------------------------------------------------


def skirmish() -> initiative.SteppedFight:
    return initiative.step(EXAMPLES / "openings-skirmish.toml", seed=7)


def kinds(step: initiative.SteppedFight, seq: int) -> list[str]:
    """The types of the events ``seq`` caused (the override's own effects or its undoing)."""
    return [type(e).__name__ for e in step.events if e.cause == seq]


def test_undo_reverts_the_last_override_with_compensating_events():
    """Each undo takes back the last override not yet undone, by new events caused by it (the
    log keeps the override and its undoing); the state is as before; the log verifies."""
    step = skirmish()
    start = step.state
    done = [
        step.override({"type": "SetHp", "who": "boss", "hp": 5}),
        step.override({"type": "MoveToken", "who": "wren", "to": [-6, 4]}),
        step.override({"type": "Reorder", "who": "boss", "before": "goblin-2"}),
        step.override({"type": "AddMarker", "who": "wren", "text": "blessed"}),
    ]
    assert step.state.combatants["wren"].markers == ("blessed",)
    undos = [step.override({"type": "Undo"}) for _ in range(4)]
    assert [step.events[u].override.seq for u in undos] == done[::-1]
    assert [kinds(step, u) for u in undos] == [
        ["MarkerRemoved"],
        ["InitiativeOrdered"],
        ["Moved"],
        ["Healed"],
    ]
    now = step.state
    assert now.order == start.order
    assert now.combatants == start.combatants
    verifies(step)


def test_an_undo_with_nothing_to_undo_is_refused_in_one_line():
    """Issue 34: "an undo with nothing to undo" is one line; nothing is recorded."""
    step = skirmish()
    before = list(step.lines)
    with pytest.raises(IllegalOverrideError, match=r"^nothing to undo$"):
        step.override({"type": "Undo"})
    step.override({"type": "GmNote", "text": "a note is not undone"})
    with pytest.raises(IllegalOverrideError, match=r"^nothing to undo$"):
        step.override({"type": "Undo"})
    assert step.lines[: len(before)] == before


def test_undo_brings_back_one_the_gm_downed_or_removed():
    """A SetHp that downed a combatant, and a removal, are undone: it stands again."""
    step = skirmish()
    step.override({"type": "SetHp", "who": "goblin-1", "hp": 0})
    assert step.state.combatants["goblin-1"].defeated
    undo = step.override({"type": "Undo"})
    assert kinds(step, undo) == ["Healed", "CombatantRevived"]
    assert step.state.combatants["goblin-1"].standing
    step.override({"type": "RemoveCombatant", "who": "wren", "reason": "fled"})
    undo = step.override({"type": "Undo"})
    assert kinds(step, undo) == ["CombatantReturned"]
    assert step.state.combatants["wren"].standing
    end_turns(step, 2)
    taken = [e.who for e in step.events if type(e).__name__ == "TurnStarted" and e.round == 1]
    assert {"goblin-1", "wren"} <= set(taken)
    verifies(step)


def test_an_undone_move_puts_the_token_back_where_it_stood_by_its_neighbour(tmp_path):
    """Found by the random-override property (percentile, INITIATIVE_STRESS=25): a token that
    stood nearer a neighbour than the GM's clearance (the rules allow it) was put a metre away
    by the undo of its move. It goes back where it stood."""
    yard = tmp_path / "yard.toml"
    yard.write_text(ENCOUNTER.replace("position = [0, 1]", "position = [0, 0.3]"))
    step = initiative.step(yard, seed=5)
    assert step.state.combatants["cur"].position == Position(0, 0.3)  # 0.3 m from ana
    step.override({"type": "MoveToken", "who": "cur", "to": [0, 3]})
    step.override({"type": "Undo"})
    assert step.state.combatants["cur"].position == Position(0, 0.3)
    # The GM may not put a token that near someone: the clearance holds for moves.
    with pytest.raises(IllegalOverrideError, match="occupied by ana"):
        step.override({"type": "MoveToken", "who": "bo", "to": [0.3, 0]})
    verifies(step)


def test_undo_of_a_joiner_takes_it_away_and_replay_tells_what_was_undone(tmp_path):
    """An AddCombatant undone: the newcomer leaves ("undone"); replay names what was undone."""
    step = skirmish()
    joined = step.override(
        {"type": "AddCombatant", "id": "goblin7", "like": "goblin-5", "name": "Goblin 7"}
    )
    undo = step.override({"type": "Undo"})
    assert kinds(step, undo) == ["CombatantLeft"]
    finish(step)
    verifies(step)
    log = tmp_path / "undo.jsonl"
    log.write_bytes(b"".join(step.lines))
    done = cli("replay", str(log))
    assert done.returncode == 0, done.stderr
    told = " ".join(done.stdout.split())
    assert f"The GM undoes #{joined}: brings in Goblin 7, like Goblin 5." in told
    assert "Goblin 7 leaves the fight (undone)" in told


# --- 3. names -----------------------------------------------------------------------------------


def test_gm_hp_takes_the_name_grukk():
    """Issue 34, reproduction 6: ``gm hp Grukk 15`` -> "no combatant 'Grukk'" (its id is boss).
    A name or an id in any case now finds the combatant, and the log records the id."""
    step = skirmish()
    seq = step.override(parse_gm("gm hp Grukk 15"))
    assert step.events[seq].override == SetHp(who="boss", hp=15)
    seq = step.override(parse_gm("gm hp BOSS 14"))
    assert step.events[seq].override == SetHp(who="boss", hp=14)
    verifies(step)


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("gm hp Grukkk 15", "no combatant 'Grukkk'; did you mean Grukk (boss)?"),
        ("gm hp Nobody 15", "no combatant 'Nobody'; gm who lists them"),
        ("gm order osric before Brena", "no combatant 'Brena'; did you mean Brenna (brenna)?"),
        (
            "gm hp goblin 3",
            "no combatant 'goblin'; did you mean Goblin 5 (goblin-5) or Goblin 4"
            " (goblin-4) or Goblin 3 (goblin-3)?",
        ),
    ],
)
def test_a_name_matching_none_is_refused_with_did_you_mean(typed, reason):
    """A misspelled name: one line, with the names it may have meant."""
    with pytest.raises(IllegalOverrideError) as err:
        skirmish().override(parse_gm(typed))
    assert str(err.value) == reason


def test_a_name_matching_two_combatants_is_refused_naming_both(tmp_path):
    """Issue 34: "a name that matches two combatants" is one line naming both; a newcomer may
    not take a name already in the fight."""
    duel = (EXAMPLES / "openings-duel.toml").read_text()
    (tmp_path / "duel.toml").write_text(duel.replace('name = "Tomas\'s hound"', 'name = "Tomas"'))
    step = initiative.step(tmp_path / "duel.toml", seed=1)
    with pytest.raises(IllegalOverrideError) as err:
        step.override(parse_gm("gm hp TOMAS 1"))
    assert str(err.value) == "'TOMAS' is 2 combatants: Tomas (tomas), Tomas (hound); use an id"
    seq = step.override(parse_gm("gm hp tomas 9"))  # an id as it is written is one combatant
    assert step.events[seq].override == SetHp(who="tomas", hp=9)
    with pytest.raises(IllegalOverrideError) as err:
        step.override(parse_gm("gm join ilse2 like ilse as ILSE"))
    assert str(err.value) == "'ILSE' is already Ilse (ilse): choose another name"


def test_gm_join_names_the_newcomer():
    """``gm join goblin7 like goblin-5 as "Goblin 7"``: the newcomer is called Goblin 7, in the
    state and the narration, and may be named so in the next command."""
    step = skirmish()
    seq = step.override(parse_gm('gm join goblin7 like goblin-5 at 9,0 as "Goblin 7"'))
    o = step.events[seq].override
    assert (o.id, o.name, o.at) == ("goblin7", "Goblin 7", Position(9.0, 0.0))
    seq = step.override(parse_gm('gm mark "goblin 7" the one with the key'))
    assert step.events[seq].override == AddMarker(who="goblin7", text="the one with the key")


def test_gm_who_lists_names_and_ids():
    """``gm who`` is answered at the prompt: every combatant's name, id and side."""
    assert parse_gm("gm who") == "who"
    text = roster_text([("boss", "Grukk", "goblins"), ("brenna", "Brenna", "wardens")])
    assert text.splitlines() == [
        "Combatants (name, id, side):",
        "  Grukk   boss    (goblins)",
        "  Brenna  brenna  (wardens)",
    ]


# --- 4. conditions and markers -------------------------------------------------------------


def test_an_unknown_condition_is_refused_with_the_valid_names():
    """Issue 34, reproduction 7: ``no condition 'stunned'`` did not list the valid names."""
    step = initiative.step(EXAMPLES / "tactical-bridge.toml", seed=4)
    who = step.state.order[0]
    with pytest.raises(IllegalOverrideError) as err:
        step.override({"type": "AddCondition", "who": who, "condition": "stunned"})
    assert str(err.value).startswith(
        "the tactical ruleset has no condition 'stunned' (conditions: prone, hidden, blinded,"
    )
    assert "disarmed:WEAPON" in str(err.value)


def test_markers_are_recorded_shown_in_the_state_and_bounded():
    """A marker: free text on a combatant, in ``state --json``; 10,000 characters are refused
    in one line (the limit is MARKER_LIMIT, 80)."""
    step = skirmish()
    step.override(parse_gm("gm mark wren blessed by the river"))
    with pytest.raises(IllegalOverrideError) as err:
        step.override({"type": "AddMarker", "who": "wren", "text": "x" * 10_000})
    assert str(err.value) == "a marker has at most 80 characters (this one has 10000)"
    assert MARKER_LIMIT == 80
    data = state_to_builtins(step.state)
    assert data["combatants"]["wren"]["markers"] == ["blessed by the river"]
    assert data["combatants"]["brenna"]["markers"] == []
    with pytest.raises(IllegalOverrideError) as err:
        step.override(parse_gm("gm unmark wren cursed"))
    assert str(err.value) == "Wren has no marker 'cursed' (markers: 'blessed by the river')"
    step.override(parse_gm("gm unmark Wren BLESSED BY THE RIVER"))
    assert step.state.combatants["wren"].markers == ()
    verifies(step)


def test_an_undone_marker_removal_puts_it_back_where_it_was():
    """Found by the random-overrides property: markers A, B, C; remove A; undo. The undo put A
    back after C (the state was not as it was); its ``MarkerAdded`` now names the marker it
    goes in front of, and the fold of the log agrees."""
    step = skirmish()
    for text in ("A", "B", "C"):
        step.override(parse_gm(f"gm mark wren {text}"))
    step.override(parse_gm("gm unmark wren A"))
    assert step.state.combatants["wren"].markers == ("B", "C")
    step.override({"type": "Undo"})
    assert step.state.combatants["wren"].markers == ("A", "B", "C")
    back = next(e for e in reversed(step.events) if isinstance(e, MarkerAdded))
    assert (back.text, back.before) == ("A", "B")
    plain = next(e for e in step.events if isinstance(e, MarkerAdded))
    assert b'"before"' not in msgspec.json.encode(plain)  # (left out when it is the end)
    verifies(step)


# --- 5. GM dice and notes ------------------------------------------------------------------------


def test_gm_rolls_are_recorded_deterministically_and_secret_ones_are_gm_only():
    """``gm roll 2d6+1`` and ``gm roll secret 1d20``: GmRolled with every die, the same on every
    run of the same log; the secret one and a note are ``gm_only``, nothing else is."""
    runs = []
    for _ in range(2):
        step = skirmish()
        public = step.override(parse_gm("gm roll 2d6+1"))
        secret = step.override(parse_gm("gm roll secret 1d20"))
        note = step.override(parse_gm("gm note Grukk flees at 5 hp"))
        runs.append(b"".join(step.lines))
    assert runs[0] == runs[1]
    rolled = step.events[public + 1]
    assert isinstance(rolled, GmRolled) and rolled.expr == "2d6+1" and len(rolled.dice) == 2
    assert rolled.total == sum(rolled.dice) + 1 and not rolled.gm_only
    assert step.events[secret + 1].gm_only
    only = [e.seq for e in step.events if gm_only(e)]
    assert only == [secret, secret + 1, note]
    verifies(step)


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("gm roll 2d0", "dice out of range: '2d0' (1-100 dice of 1-1000 sides)"),
        ("gm roll 0d6", "dice out of range: '0d6' (1-100 dice of 1-1000 sides)"),
        ("gm roll 1000d6", "dice out of range: '1000d6' (1-100 dice of 1-1000 sides)"),
        ("gm roll 7", "no dice in '7' (e.g. 2d6+1)"),
        ("gm roll fireball", "not a dice expression: 'fireball' (expected e.g. '1d8+2')"),
    ],
)
def test_nonsense_dice_are_refused_in_one_line(typed, reason):
    """Issue 34: "a roll like 2d0" is refused in one line; nothing is recorded."""
    step = skirmish()
    before = list(step.lines)
    with pytest.raises(IllegalOverrideError) as err:
        step.override(parse_gm(typed))
    assert str(err.value) == reason
    assert step.lines == before


# --- fork and view read the GM's new events ------------------------------------------------------


def gm_night(tmp_path: Path) -> tuple[Path, int]:
    """A skirmish log with a named joiner, a marker, an undo, dice and a note; the seq of the
    undo."""
    step = skirmish()
    step.override(parse_gm('gm join goblin7 like goblin-5 as "Goblin 7"'))
    step.override(parse_gm("gm mark wren blessed"))
    step.override(parse_gm("gm hp Grukk 3"))
    undo = step.override(parse_gm("gm undo"))
    step.override(parse_gm("gm roll secret 1d20"))
    step.override(parse_gm("gm note Grukk flees at 5 hp"))
    finish(step)
    log = tmp_path / "night.jsonl"
    log.write_bytes(b"".join(step.lines))
    return log, undo


def test_a_fork_after_an_undo_goes_on_and_verifies(tmp_path):
    """``fork --at`` past the GM's undo re-plays it (the undo stack is in the state the fork
    copies) and goes on with live policies; the fork's log verifies."""
    log, undo = gm_night(tmp_path)
    out = tmp_path / "fork.jsonl"
    done = cli("fork", str(log), "--at", str(undo + 3), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert cli("verify", str(out)).returncode == 0
    forked = parse_log(out.read_bytes(), name="fork.jsonl").events
    assert [type(e).__name__ for e in forked[undo : undo + 2]] == ["GmOverride", "Healed"]


@pytest.mark.slow
def test_view_shows_markers_and_the_joiners_name(tmp_path):
    """``view``: the state table has the GM's markers and calls the joiner by its name."""
    from browser import CHROMIUM, Page

    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    log, _ = gm_night(tmp_path)
    html = tmp_path / "night.html"
    assert cli("view", str(log), "-o", str(html)).returncode == 0
    page = Page()
    try:
        page.open(html)
        rows = page.js(
            "Object.fromEntries([...document.querySelectorAll('#state-table tbody tr')]"
            ".map(r => [r.dataset.who, [...r.children].map(c => c.textContent)]))"
        )
        assert page.errors == []
    finally:
        page.close()
    assert rows["wren"][0] == "Wren" and rows["wren"][6] == "blessed"
    assert rows["goblin7"][0] == "Goblin 7"
    assert rows["boss"][7] in ("standing", "defeated")


def test_state_shows_the_gms_markers(tmp_path):
    """``state --json`` has each combatant's markers; the table gets a column for them."""
    log, _ = gm_night(tmp_path)
    done = cli("state", str(log), "--json")
    assert done.returncode == 0, done.stderr
    combatants = json.loads(done.stdout)["combatants"]
    assert combatants["wren"]["markers"] == ["blessed"]
    assert combatants["goblin7"]["markers"] == []
    table = cli("state", str(log), env={**os.environ, "COLUMNS": "200"})
    assert "GM markers" in table.stdout and "blessed" in table.stdout


def test_view_tells_overrides_with_names(tmp_path):
    """The view's event list says the GM's overrides with names (a joiner's as the GM gave
    it), and an undo which override it undid."""
    log, undo = gm_night(tmp_path)
    said = {e["seq"]: e["summary"] for e in view_data(read_log(log))["events"]}
    assert "The GM brings in Goblin 7, like Goblin 5." in said.values()
    assert "The GM sets Grukk's hit points to 3." in said.values()
    assert said[undo] == f"The GM undoes #{undo - 3}: sets Grukk's hit points to 3."


def test_the_tables_narration_tells_notes_and_secret_rolls_to_the_gm_only():
    """What the table says to a seat or a spectator (``TableNarrator()``) tells of an open roll
    but not of a secret one or a note; the GM's (``TableNarrator(gm=True)``) tells all three."""
    step = skirmish()
    step.override(parse_gm("gm roll 2d6+1"))
    step.override(parse_gm("gm roll secret 1d20"))
    step.override(parse_gm("gm note Grukk flees at 5 hp"))
    told = {}
    for gm in (False, True):
        narrate = TableNarrator(gm=gm)
        told[gm] = " ".join(line for e in step.events if (line := narrate(e)) is not None)
    assert "2d6+1 comes up" in told[False] and "2d6+1 comes up" in told[True]
    for secret in ("The GM rolls 1d20 in secret.", "(secret).", "The GM notes: Grukk flees"):
        assert secret not in told[False] and secret in told[True]


@pytest.mark.parametrize(
    "override",
    [
        {"type": "SetHp", "who": "x" * 10_000, "hp": 1},
        {"type": "RemoveMarker", "who": "wren", "text": "x" * 10_000},
        {"type": "AddCondition", "who": "wren", "condition": "x" * 10_000},
        {"type": "AddCombatant", "id": "x" * 10_000, "like": "wren"},
        {"type": "AddCombatant", "id": "g7", "like": "wren", "name": "x" * 10_000},
        {"type": "GmNote", "text": "x" * 10_000},
        {"type": "GmRoll", "expr": "1" * 10_000},
    ],
)
def test_ten_thousand_characters_are_refused_in_one_short_line(override):
    """Whatever field holds 10,000 characters, the refusal is one line that does not echo
    them all."""
    with pytest.raises(IllegalOverrideError) as err:
        skirmish().override(override)
    assert "\n" not in str(err.value) and len(str(err.value)) < 200, str(err.value)[:300]
