"""What only one ruleset reads lives in that ruleset's ``CombatantOptions`` (a combatant's
``options``); an encounter file of the older form, with those keys at the combatant's top level,
still loads, into the same encounter."""

from __future__ import annotations

import pytest
from initiative.engine import decode_encounter
from initiative.events import EncounterFileError


def encounter(ruleset: str, first: dict[str, object], stats: dict[str, int]) -> dict[str, object]:
    other = {"id": "b", "side": "y", "hp": 10, "stats": stats, "position": [3.0, 0.0]}
    return {
        "ruleset": ruleset,
        "combatants": [{"id": "a", "side": "x", "hp": 10, "stats": stats, **first}, other],
    }


TACTICAL = {"ag": 10}
THRILLER = {"agility": 10}


def test_tactical_keys_of_the_older_form_land_in_options() -> None:
    old = {
        "weapons": [
            {"name": "claws", "natural": True},
            {"name": "rune blade", "magic": True},
            {"name": "club", "natural": False},
        ],
        "items": [{"name": "tonic", "potion": True, "heal": "1d4"}],
        "shield": {"br": 3},
        "spells": [{"name": "bolt", "damage": "1d6", "bolt": True}],
    }
    new = {
        "weapons": [{"name": "claws"}, {"name": "rune blade"}, {"name": "club"}],
        "items": [{"name": "tonic", "heal": "1d4"}],
        "options": {
            "shield": {"br": 3},
            "spells": [{"name": "bolt", "damage": "1d6", "bolt": True}],
            "natural_weapons": ["claws"],
            "magic_weapons": ["rune blade"],
            "potions": ["tonic"],
        },
    }
    a = decode_encounter(encounter("tactical", old, TACTICAL))
    b = decode_encounter(encounter("tactical", new, TACTICAL))
    assert a == b
    options = a.combatants[0].options
    assert options["shield"] == {"name": "shield", "br": 3, "magic_br": False}
    assert options["natural_weapons"] == ["claws"] and options["potions"] == ["tonic"]


def test_thriller_perks_and_specials_of_the_older_form_land_in_options() -> None:
    special = {"name": "rite", "ap": 2, "turns": 2}
    old = {"perks": ["Quick Draw"], "specials": [special]}
    new = {"options": {"specials": [special], "perks": ["Quick Draw"]}}
    a = decode_encounter(encounter("thriller", old, THRILLER))
    assert a == decode_encounter(encounter("thriller", new, THRILLER))
    assert a.combatants[0].options["perks"] == ["Quick Draw"]


def test_a_key_given_in_both_places_is_one_clear_error() -> None:
    both = {"shield": {"br": 3}, "options": {"shield": {"br": 4}}}
    with pytest.raises(EncounterFileError) as caught:
        decode_encounter(encounter("tactical", both, TACTICAL), name="e.toml")
    assert str(caught.value) == (
        "e.toml: at key combatants[0] (combatant 'a'): shield: given both at the top and in"
        " options; keep options.shield"
    )


def test_a_flag_no_rule_of_the_ruleset_reads_is_dropped() -> None:
    """``natural`` never did anything in ``openings``: an older file that sets it still loads."""
    old = {"weapons": [{"name": "bite", "damage": "1d6", "natural": True}]}
    spec = decode_encounter(encounter("openings", old, {"agility": 1}))
    assert spec.combatants[0].options == {}


def test_options_must_name_what_the_combatant_carries() -> None:
    wrong = {"weapons": [{"name": "claws"}], "options": {"natural_weapons": ["claw"]}}
    with pytest.raises(EncounterFileError, match=r"options.natural_weapons\[0\]: it carries no"):
        decode_encounter(encounter("tactical", wrong, TACTICAL))


def test_the_header_records_options_the_same_whatever_order_they_are_written_in() -> None:
    one = {"options": {"potions": ["tonic"], "shield": {"br": 3, "name": "s"}}}
    two = {"options": {"shield": {"name": "s", "br": 3}, "potions": ["tonic"]}}
    for c in (one, two):
        c["items"] = [{"name": "tonic", "heal": "1d4"}]
    a = decode_encounter(encounter("tactical", one, TACTICAL)).combatants[0].options
    b = decode_encounter(encounter("tactical", two, TACTICAL)).combatants[0].options
    assert list(a) == list(b) == ["shield", "potions"]
