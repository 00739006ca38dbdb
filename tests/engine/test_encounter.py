"""Encounter files: decoding, normalizing, and errors that name the file and the key."""

from __future__ import annotations

import pytest
from initiative.engine import load_encounter
from initiative.events import EncounterFileError, UnknownRulesetError

GOOD = """
ruleset = "openings"
[[combatants]]
id = "hero"
side = "a"
hp = 10
stats = { agility = 2 }
[[combatants]]
id = "gob"
side = "b"
hp = 4
count = 3
position = [5, 0]
"""


def write(tmp_path, text: str):
    path = tmp_path / "enc.toml"
    path.write_text(text)
    return path


def error_of(tmp_path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(EncounterFileError) as info:
        load_encounter(path)
    return str(info.value)


def test_count_makes_numbered_copies(tmp_path):
    """`count = N` makes N numbered copies; under a ruleset without group rolls (openings:
    "characters roll initiative") each copy rolls its own, so they share no group."""
    spec = load_encounter(write(tmp_path, GOOD))
    ids = [c.id for c in spec.combatants]
    assert ids == ["hero", "gob-1", "gob-2", "gob-3"]
    assert {c.group for c in spec.combatants[1:]} == {None}
    assert [c.position.y for c in spec.combatants[1:]] == [0.0, 1.0, 2.0]
    assert spec.sides == ("a", "b")


def test_normalizing_fills_the_rulesets_option_defaults(tmp_path):
    """The normalized encounter (the log's header) carries every option's value."""
    spec = load_encounter(write(tmp_path, GOOD))
    assert spec.options["ap"] == 3 and spec.options["attack_cost"] == 2


def test_malformed_toml_names_the_file_and_line(tmp_path):
    """Malformed TOML: the file and the parser's line and column."""
    message = error_of(tmp_path, GOOD + "\nhp = = 3\n")
    assert "enc.toml: not valid TOML" in message and "line 15, column 6" in message


def test_wrong_type_names_the_key_and_the_combatant(tmp_path):
    """A value of the wrong type names its key path and the combatant's id."""
    message = error_of(tmp_path, GOOD.replace("hp = 4", 'hp = "four"'))
    assert message == (
        f"{tmp_path / 'enc.toml'}: at key combatants[1].hp (combatant 'gob'):"
        " Expected `int`, got `str`"
    )


def test_unknown_key_is_an_error(tmp_path):
    """A typo is not silently ignored."""
    message = error_of(tmp_path, GOOD.replace("hp = 10", "hp = 10\nhpp = 3"))
    assert "at key combatants[0] (combatant 'hero')" in message and "hpp" in message


def test_missing_required_key(tmp_path):
    """A combatant without hit points."""
    message = error_of(tmp_path, GOOD.replace("hp = 10\n", ""))
    assert "combatants[0]" in message and "`hp`" in message


def test_unknown_ruleset_lists_the_known_ones(tmp_path):
    """An unknown ruleset names itself and the installed ones."""
    path = write(tmp_path, GOOD.replace('"openings"', '"chess"'))
    with pytest.raises(UnknownRulesetError, match=r"unknown ruleset 'chess' \(known: .*openings"):
        load_encounter(path)


def test_unknown_stat_names_the_combatant_and_the_known_stats(tmp_path):
    """A stat the ruleset does not know is an error, not a silent zero."""
    message = error_of(tmp_path, GOOD.replace("agility = 2", "charisma = 2"))
    assert "combatant 'hero': unknown stat 'charisma' for ruleset 'openings'" in message
    assert "agility" in message


def test_unknown_option_names_the_option(tmp_path):
    """A misspelt ruleset option is reported under [options]."""
    message = error_of(
        tmp_path, GOOD.replace("[[combatants]]", "[options]\nattack_cots = 1\n\n[[combatants]]", 1)
    )
    assert "in [options] for ruleset 'openings'" in message and "attack_cots" in message


def test_duplicate_ids_are_refused(tmp_path):
    """Two combatants may not share an id (copies included)."""
    message = error_of(tmp_path, GOOD + '\n[[combatants]]\nid = "gob-2"\nside = "b"\nhp = 1\n')
    assert "combatant id 'gob-2' is used twice" in message


def test_one_side_is_not_a_fight(tmp_path):
    """An encounter needs two sides."""
    message = error_of(tmp_path, GOOD.replace('side = "b"', 'side = "a"'))
    assert "needs at least two sides" in message


def test_missing_file(tmp_path):
    """A missing file says so."""
    with pytest.raises(EncounterFileError, match="no such encounter file"):
        load_encounter(tmp_path / "nope.toml")


def test_bad_dice_in_a_weapon_is_reported_when_loading(tmp_path):
    """A weapon's damage dice are checked when the file is read, not mid-fight."""
    text = GOOD.replace("stats = { agility = 2 }", 'weapons = [{ name = "axe", damage = "2x6" }]')
    message = error_of(tmp_path, text)
    assert "combatant 'hero'" in message and "'2x6'" in message


def test_per_combatant_options_a_ruleset_does_not_take_are_errors(tmp_path):
    """A combatant's `options` that its ruleset does not read is an error, never ignored."""
    text = GOOD.replace("hp = 10", "hp = 10\noptions = { brave = true }")
    message = error_of(tmp_path, text)
    assert "combatant 'hero': in options for ruleset 'openings'" in message
    assert "brave" in message
