"""Narration for the table: one sentence per action with its result, from the log alone."""

from __future__ import annotations

from pathlib import Path

from events import read_log
from replays import TableNarrator

GOLDEN = Path(__file__).parents[1] / "golden" / "thriller-ambush.seed2.jsonl"


def told() -> list[str]:
    narrate = TableNarrator()
    lines: list[str] = []
    for event in read_log(GOLDEN).events:
        text = narrate(event)
        if text is not None:
            lines.extend(text.split("\n"))
    return lines


def test_an_attack_is_one_sentence_with_roll_damage_and_fall() -> None:
    """The blow that fells Marlowe: who, whom, weapon, the roll against its target, damage, fall."""
    assert (
        "Acolyte 3 hits Detective Marlowe with the sickle: 15 against 11, 4 damage,"
        " Detective Marlowe falls"
    ) in told()


def test_a_miss_and_a_move_read_as_sentences() -> None:
    """A miss names the roll; a move says how far."""
    lines = told()
    assert "The Drowned Priest misses Detective Marlowe with the dagger: 8 against 11" in lines
    assert "The Drowned Priest moves 5 m" in lines


def test_a_group_gets_the_grammar_of_groups() -> None:
    """One initiative roll for three acolytes: "roll", with the names listed."""
    lines = told()
    assert "Acolyte 1, Acolyte 2 and Acolyte 3 roll 12 for initiative" in lines
    assert "Detective Marlowe rolls 17 for initiative" in lines


def test_no_bookkeeping_and_no_empty_openings() -> None:
    """Priority, AP and openings are not told; the end names the winner."""
    lines = told()
    assert not [line for line in lines if "opening" in line.lower() or "priority" in line.lower()]
    assert not [line for line in lines if " AP" in line]
    assert lines[-1].startswith("[bold]Victory for ")
