"""Input a ruleset would otherwise accept silently: each is an error naming the file and the
key, with "did you mean" for a near miss of a known name."""

from __future__ import annotations

import pytest
from initiative.engine import load_encounter
from initiative.events import EncounterFileError, did_you_mean

THRILLER = """
ruleset = "thriller"
[options]
{options}
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = {{ agility = 10 }}
{extra}
[[combatants]]
id = "b"
side = "y"
hp = 10
stats = {{ agility = 10 }}
position = [3, 0]
"""


def error_of(tmp_path, text: str) -> str:
    path = tmp_path / "enc.toml"
    path.write_text(text)
    with pytest.raises(EncounterFileError) as info:
        load_encounter(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    return message


def thriller(options: str = "", extra: str = "") -> str:
    return THRILLER.format(options=options, extra=extra)


def test_a_misspelt_perk_is_an_error_with_a_suggestion(tmp_path):
    """Seed 000: "Certain perks (e.g., Lightning Reflexes, Combat Reflexes) grant advantage or
    bonus modifiers to Initiative rolls": a typo in one would silently grant nothing."""
    message = error_of(tmp_path, thriller(extra='perks = ["Lightning Reflex"]'))
    assert message.endswith(
        "combatant 'a': at key options.perks[0]: unknown perk 'Lightning Reflex' for ruleset 'thriller'"
        " (known: Combat Reflexes, Lightning Reflexes, Quick Draw)"
        " (did you mean 'Lightning Reflexes'?)"
    )


def test_perks_are_compared_loosely(tmp_path):
    """The known perks match whatever their case and separators (``quick_draw``)."""
    path = tmp_path / "enc.toml"
    path.write_text(thriller(extra='perks = ["quick_draw", "COMBAT-reflexes"]'))
    perks = load_encounter(path).combatants[0].options["perks"]
    assert perks == ["quick_draw", "COMBAT-reflexes"]


@pytest.mark.parametrize(
    ("ruleset", "stats"),
    [("openings", "agility = 1"), ("percentile", "agility = 30"), ("tactical", "ag = 10")],
)
def test_a_perk_where_the_ruleset_has_none_is_an_error(tmp_path, ruleset, stats):
    """Only the thriller seed has perks; elsewhere a perk would have no effect at all. (Perks are
    a thriller combatant option now; the old top-level key still goes there, and is refused.)"""
    text = f"""
ruleset = "{ruleset}"
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = {{ {stats} }}
perks = ["Quick Draw"]
[[combatants]]
id = "b"
side = "y"
hp = 10
stats = {{ {stats} }}
"""
    message = error_of(tmp_path, text)
    assert message.endswith(
        f"combatant 'a': in options for ruleset {ruleset!r}: Object contains unknown field `perks`"
    )


def test_agility_outside_the_three_to_eighteen_scale(tmp_path):
    """Seed 000's AP table ("AGI 10 → 2 AP", "Minimum 1 AP") is on the 3-18 scale: AGI 25
    is outside it."""
    message = error_of(tmp_path, thriller(extra="").replace("agility = 10 }", "agility = 25 }", 1))
    assert message.endswith(
        "combatant 'a': at key stats.agility: 25 is outside the thriller range 3 to 18"
    )


def test_an_unknown_thriller_skill_suggests_the_near_one(tmp_path):
    """Seed 000: "a Perception or Insight check opposed by the attacker's Stealth": the skills
    read are stealth, perception and insight (and those special actions name)."""
    message = error_of(tmp_path, thriller(extra="skills = { stelth = 3 }"))
    assert message.endswith(
        "combatant 'a': unknown skill 'stelth' for ruleset 'thriller'"
        " (known: insight, perception, stealth) (did you mean 'stealth'?)"
    )


def test_a_skill_named_by_a_special_action_is_known(tmp_path):
    """Seed 000: "Many require appropriate skill checks (e.g., operating heavy machinery or
    rigging explosives)": the skill a special action names is a known skill."""
    path = tmp_path / "enc.toml"
    extra = 'skills = { demolitions = 4 }\nspecials = [{ name = "rig", skill = "demolitions" }]'
    path.write_text(thriller(extra=extra))
    assert load_encounter(path).combatants[0].skills == {"demolitions": 4}


def test_horrifying_without_an_ambush_is_an_error(tmp_path):
    """Seed 000: "If the ambush is especially horrifying, the GM may also call for a Sanity
    Check": ``horrifying = true`` means nothing without ``ambush_by``."""
    message = error_of(tmp_path, thriller(options="horrifying = true"))
    assert message.endswith(
        "in [options]: horrifying = true needs ambush_by (the side that springs the ambush)"
    )


def test_an_ambushing_side_that_is_a_near_miss(tmp_path):
    """``ambush_by`` names a side; a near miss of one is suggested."""
    message = error_of(tmp_path, thriller(options='ambush_by = "Y"'))
    assert message.endswith("is not a side (sides: ['x', 'y']) (did you mean 'y'?)")


def test_a_misspelt_option_suggests_the_real_one(tmp_path):
    """An unknown key in ``[options]`` names the near option."""
    message = error_of(tmp_path, thriller(options="horrifyng = true"))
    assert "unknown field `horrifyng`" in message
    assert message.endswith("(did you mean 'horrifying'?)")


def test_concealment_outside_the_percentage_range(tmp_path):
    """Seed 001: Concealment is a percentile skill ("Successful use of the Concealment
    skill"), tested on 1d100: 300 is outside 0 to 100."""
    text = """
ruleset = "percentile"
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = { agility = 30 }
skills = { Concealment = 300 }
[[combatants]]
id = "b"
side = "y"
hp = 10
stats = { agility = 30 }
"""
    message = error_of(tmp_path, text)
    assert message.endswith(
        "combatant 'a': at key skills.Concealment: 300 is outside the percentile range 0 to 100"
    )


def test_percentile_skill_near_miss(tmp_path):
    """Seed 001 names "the Silent Move skill": ``Silent move`` is suggested its spelling."""
    text = """
ruleset = "percentile"
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = { agility = 30 }
skills = { silent_move = 30 }
[[combatants]]
id = "b"
side = "y"
hp = 10
stats = { agility = 30 }
"""
    assert error_of(tmp_path, text).endswith("(did you mean 'Silent Move'?)")


def test_tactical_stat_and_skill_near_misses(tmp_path):
    """Seed 002: "Evade test using Ag": a stat ``agi`` or a skill ``evde`` is suggested
    the name the ruleset reads."""
    text = """
ruleset = "tactical"
[[combatants]]
id = "a"
side = "x"
hp = 10
stats = {{ {stats} }}
skills = {{ {skills} }}
[[combatants]]
id = "b"
side = "y"
hp = 10
"""
    stat = error_of(tmp_path, text.format(stats="agi = 10", skills=""))
    assert stat.endswith("(did you mean 'ag'?)")
    skill = error_of(tmp_path, text.format(stats="ag = 10", skills="evde = 40"))
    assert skill.endswith("(did you mean 'evade'?)")
    out = error_of(tmp_path, text.format(stats="ag = 99", skills=""))
    assert out.endswith("at key stats.ag: 99 is outside the tactical range 1 to 40")


def test_did_you_mean_stays_quiet_for_a_far_miss():
    """No suggestion when nothing known is near."""
    assert did_you_mean("zzz", ["agility", "strength"]) == ""
    assert did_you_mean("Agility", ["agility"]) == " (did you mean 'agility'?)"
