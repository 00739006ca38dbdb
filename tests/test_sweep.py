"""The sweep library (initiative.analysis._sweep): its keys, its values, its TOML and its bisection."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from initiative.engine import load_encounter
from initiative.events import EncounterFileError

from initiative.analysis._sweep import (
    Range,
    SweepError,
    check,
    find_crossing,
    parse_range,
    read_data,
    toml_text,
    values_of,
    vary,
)
from tests.helpers import DUEL, ROOT


def recorded(rate: dict[int, float] | None = None, slope: float = 0.01):
    """A fake win rate, a pure function of the value, that records each value it is asked."""
    asked: list[int] = []

    def fake(value: int) -> float:
        asked.append(value)
        return rate[value] if rate is not None else slope * value

    return fake, asked


def test_bisection_on_a_rising_rate_probes_the_ends_then_halves() -> None:
    """rate = v/100 over 0..100, target 0.372: the bracket 37..38, 37 the closer."""
    fake, asked = recorded()
    found = find_crossing(fake, 0, 100, 0.372)
    assert asked == [0, 100, 50, 25, 37, 43, 40, 38]
    assert (found.found, found.rising, found.below, found.above) == ("crossed", True, 37, 38)
    assert found.closer == 37
    assert [v for v, _ in found.probes] == asked


def test_bisection_on_a_falling_rate_follows_the_direction_of_the_ends() -> None:
    """rate = 1 - v/40 over 10..40, target 0.5: the rate reaches 0.5 at 20 exactly."""
    fake, asked = recorded({v: 1 - v / 40 for v in range(10, 41)})
    found = find_crossing(fake, 10, 40, 0.5)
    assert asked == [10, 40, 25, 17, 21, 19, 20]
    assert (found.found, found.rising, found.below, found.above) == ("crossed", False, 19, 20)
    assert found.closer == 20  # its rate is the target itself


def test_bisection_says_when_the_range_holds_no_crossing() -> None:
    """Reached at the low end already, or never reached: two probes, no bracket."""
    fake, asked = recorded()
    at_low = find_crossing(fake, 60, 90, 0.5)
    assert (at_low.found, at_low.below, at_low.above, at_low.closer) == ("at-low", None, 60, 60)
    never = find_crossing(fake, 10, 30, 0.5)
    assert (never.found, never.below, never.above, never.closer) == ("never", 30, None, 30)
    assert asked == [60, 90, 10, 30]


def test_a_range_is_parsed_with_its_kind_of_number() -> None:
    assert parse_range("combatants.boss.hp=10..40") == Range("combatants.boss.hp", 10, 40)
    span = parse_range("options.reaction_move = 0.5 .. 3")
    assert (span.low, span.high, span.integer) == (0.5, 3, False)
    for bad in ("combatants.boss.hp", "x=1..", "=1..2", "x=3..1", "x=a..b", "x=1-5"):
        with pytest.raises(SweepError, match="--vary"):
            parse_range(bad)


def test_values_by_default_by_step_and_by_points() -> None:
    assert values_of(Range("k", 1, 6)) == [1, 2, 3, 4, 5, 6]
    assert values_of(Range("k", 10, 40)) == [10, 18, 25, 32, 40]
    assert values_of(Range("k", 10, 40), step=10) == [10, 20, 30, 40]
    assert values_of(Range("k", 10, 40), step=7) == [10, 17, 24, 31, 38]
    assert values_of(Range("k", 0.5, 1.5), step=0.25) == [0.5, 0.75, 1.0, 1.25, 1.5]
    assert values_of(Range("k", 1, 3), points=5) == [1, 2, 3]  # rounded, not repeated
    assert values_of(Range("k", 0, 1.0), points=3) == [0.0, 0.5, 1.0]
    with pytest.raises(SweepError, match="not both"):
        values_of(Range("k", 1, 3), step=1, points=2)
    for step in (0, -1, float("nan")):
        with pytest.raises(SweepError, match="must be a positive number"):
            values_of(Range("k", 1, 3), step=step)


def test_a_key_walks_a_combatant_by_id_its_stats_lists_and_options() -> None:
    data = read_data(DUEL)
    assert vary(data, "combatants.tomas.hp", 30)["combatants"][1]["hp"] == 30
    assert vary(data, "combatants.ilse.stats.agility", 2)["combatants"][0]["stats"] == {
        "agility": 2,
        "strength": 4,
        "defense": 6,
    }
    assert vary(data, "combatants.ilse.weapons.0.reach", 2.5)["combatants"][0]["weapons"][0] == {
        "name": "rapier",
        "damage": "1d8+1",
        "reach": 2.5,
    }
    assert vary(data, "options.reaction_move", 1.5)["options"] == {"reaction_move": 1.5}
    assert vary(data, "max_rounds", 12)["max_rounds"] == 12
    assert data == read_data(DUEL)  # the parsed file itself is left as it was


def test_bad_keys_say_what_is_wrong() -> None:
    data = read_data(DUEL)
    cases = {
        "combatants.bob.hp": "no combatant 'bob' in the file (its ids: ilse, tomas, hound)",
        "combatants.tomas.name": "combatants.tomas.name: is 'Tomas', not a number",
        "combatants.tomas.stats": "combatants.tomas.stats: is a table, not a number",
        "combatants.tomas.weapons.3.reach": "combatants.tomas.weapons.3: a list of 1",
        "combatants.tomas": "name a combatant and a field",
        "sides.east.count": "no side 'east' in the file (its sides: north, south)",
        "sides.south.hp": "a side is varied by its count",
        "options..x": "none of them empty",
    }
    for key, message in cases.items():
        with pytest.raises(SweepError, match=message.replace("(", r"\(").replace(")", r"\)")):
            vary(data, key, 3)


def test_a_value_that_makes_the_encounter_invalid_fails_as_a_loaded_file_would() -> None:
    changed = vary(read_data(DUEL), "combatants.tomas.hp", 0)
    with pytest.raises(EncounterFileError, match=r"tomas.*\.hp: must be at least 1, got 0"):
        check(changed, "duel with hp=0")


def test_a_side_count_grows_with_fresh_ids_and_shrinks_from_the_end() -> None:
    data = read_data(DUEL)
    grown = check(vary(data, "sides.south.count", 4), "grown")
    assert [(c.id, c.name, c.position.y) for c in grown.combatants if c.side == "south"] == [
        ("tomas", "Tomas", 0.0),
        ("hound", "Tomas's hound", 2.0),
        ("hound-2", "Tomas's hound 2", 3.0),
        ("hound-3", "Tomas's hound 3", 4.0),
    ]
    shrunk = check(vary(data, "sides.south.count", 1), "shrunk")
    assert [c.id for c in shrunk.combatants] == ["ilse", "tomas"]
    with pytest.raises(SweepError, match="at least 1 combatant"):
        vary(data, "sides.north.count", 0)


def test_ids_and_sides_with_dots_are_found_whole() -> None:
    data = {
        "combatants": [
            {"id": "orc", "side": "a.b", "hp": 5},
            {"id": "orc.chief", "side": "c", "hp": 9, "stats": {"agility": 2}},
        ],
    }
    assert vary(data, "combatants.orc.chief.hp", 12)["combatants"][1]["hp"] == 12
    assert vary(data, "combatants.orc.chief.stats.agility", 3)["combatants"][1]["stats"] == {
        "agility": 3
    }
    assert [c["id"] for c in vary(data, "sides.a.b.count", 2)["combatants"]] == [
        "orc",
        "orc-2",
        "orc.chief",
    ]


def test_a_side_count_raises_a_count_the_file_gives() -> None:
    data = {
        "ruleset": "openings",
        "combatants": [
            {"id": "a", "side": "x", "hp": 5, "stats": {}},
            {"id": "g", "side": "y", "hp": 5, "count": 2, "position": [3, 0]},
        ],
    }
    assert vary(data, "sides.y.count", 5)["combatants"][1]["count"] == 5
    assert vary(data, "sides.y.count", 1)["combatants"][1]["count"] == 1


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.toml")), ids=lambda p: p.stem)
def test_every_example_is_written_back_as_toml_that_loads_the_same(
    path: Path, tmp_path: Path
) -> None:
    data = read_data(path)
    text = toml_text(data)
    assert tomllib.loads(text) == data
    (tmp_path / path.name).write_text(text, encoding="utf-8")
    assert load_encounter(tmp_path / path.name) == load_encounter(path)


def test_toml_strings_keep_quotes_escapes_and_odd_keys() -> None:
    data = {'a "b"': 'x\\y "z"\n\t\x7f\x01 é', "list": [1.5, True, {}], "t": {"k-1": -2}}
    assert tomllib.loads(toml_text(data)) == data
