"""Narration for the table: one sentence per action with its result, from the log alone."""

from __future__ import annotations

from pathlib import Path

from initiative.events import read_log
from initiative.replays import TableNarrator

# Fixed fights, never regenerated (the golden logs change when the built-in policies do).
GOLDEN = Path(__file__).parents[1] / "golden" / "format1" / "upcast" / "thriller-ambush.seed2.jsonl"
GROUPS = (
    Path(__file__).parents[1] / "golden" / "format1" / "upcast" / "percentile-wilhelm.seed1.jsonl"
)


def told(log: Path = GOLDEN) -> list[str]:
    narrate = TableNarrator()
    lines: list[str] = []
    for event in read_log(log).events:
        text = narrate(event)
        if text is not None:
            lines.extend(text.split("\n"))
    return lines


def test_an_attack_is_one_sentence_with_roll_damage_and_fall() -> None:
    """The blow that fells Marlowe: who, whom, weapon, the roll against its target, damage, fall."""
    assert (
        "Acolyte 2 hits Detective Marlowe with the sickle: 20 against 11, 3 damage,"
        " Detective Marlowe falls"
    ) in told()


def test_a_miss_and_a_move_read_as_sentences() -> None:
    """A miss names the roll; a move says how far."""
    lines = told()
    assert "The Drowned Priest misses Dr. Ada Vance with the dagger: 8 against 10" in lines
    assert "The Drowned Priest moves 4.87 m" in lines


def test_a_group_gets_the_grammar_of_groups() -> None:
    """One initiative roll for three goblins (percentile rolls once for a group): "roll", with
    the names listed; one for a single combatant: "rolls"."""
    lines = told(GROUPS)
    assert "Goblin 1, Goblin 2 and Goblin 3 roll 30 for initiative" in lines
    assert "Wilhelm rolls 41 for initiative" in lines


def test_no_bookkeeping_and_no_empty_openings() -> None:
    """Priority, AP and openings are not told; the end names the winner."""
    lines = told()
    assert not [line for line in lines if "opening" in line.lower() or "priority" in line.lower()]
    assert not [line for line in lines if " AP" in line]
    assert lines[-1].startswith("[bold]Victory for ")
