"""Dice expressions."""

import pytest
from initiative.engine import Rng, parse_dice
from initiative.events import EncounterFileError


@pytest.mark.parametrize(
    ("text", "count", "sides", "modifier", "keep"),
    [
        ("1d8+2", 1, 8, 2, None),
        ("d20", 1, 20, 0, None),
        ("3d6-1", 3, 6, -1, None),
        ("2d20kh1", 2, 20, 0, 1),
        ("7", 0, 0, 7, None),
    ],
)
def test_parse(text, count, sides, modifier, keep):
    """Each supported form parses to its parts."""
    d = parse_dice(text)
    assert (d.count, d.sides, d.modifier, d.keep) == (count, sides, modifier, keep)


@pytest.mark.parametrize("text", ["", "d", "1d0", "2x6", "1d6+", "0d6", "3d6kh4"])
def test_bad_expressions_are_errors_naming_the_text(text):
    """A malformed expression raises EncounterFileError quoting it."""
    with pytest.raises(EncounterFileError, match=r"dice|keep"):
        parse_dice(text)


def test_keep_highest_keeps_the_higher_die_and_records_both():
    """2d20kh1 rolls two dice and totals the higher."""
    faces, total = parse_dice("2d20kh1").roll(Rng(7))
    assert faces == (17, 18)
    assert total == 18
