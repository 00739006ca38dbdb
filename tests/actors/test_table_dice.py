"""Dice rolled at the table: what the question says, and how a bad face is quoted."""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from initiative.actors import (
    AskDice,
    FileDice,
    Terminal,
    TerminalClosed,
    check_faces,
    run_encounter_sync,
)
from initiative.engine import Dice, Fight, View, load_encounter, parse_dice
from initiative.events import Action

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def closed_input() -> Iterator[int]:
    """A terminal's input that has ended: the first question asked of it stops the fight."""
    read, write = os.pipe()
    os.close(write)
    yield read
    os.close(read)


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.toml")))
def test_the_initiative_question_says_what_will_be_added(example: str, closed_input: int) -> None:
    """Every ruleset adds a modifier to the initiative die; the question says how much
    ("roll 1d20 (+3 will be added)"), so nobody adds it by hand as well."""
    spec = load_encounter(EXAMPLES / example)
    spec = msgspec.structs.replace(
        spec,
        combatants=tuple(msgspec.structs.replace(c, initiative_roll=None) for c in spec.combatants),
    )
    rules = Fight(spec, spec.seed).ruleset
    who = next(c for c in spec.combatants if rules.initiative_modifier(c) != 0)
    shown = io.StringIO()
    asked = AskDice(spec, only={who.id}, term=Terminal(closed_input, shown))
    with pytest.raises(TerminalClosed):
        run_encounter_sync(spec, spec.seed, dice=asked)
    dice = parse_dice(rules.initiative_dice(who))
    several = f"{dice.count} faces; " if dice.count > 1 else ""
    modifier = rules.initiative_modifier(who)
    assert shown.getvalue() == (
        f"{who.display}, initiative: roll {dice} ({several}{modifier:+d} will be added)> "
    )


def test_a_face_the_die_cannot_show_is_quoted_by_a_short_prefix() -> None:
    """A 4,000-digit face is refused in a line of readable length: its first 20 digits and
    an ellipsis."""
    problem = check_faces([int("9" * 4000)], parse_dice("1d20"))
    assert problem == "a d20 shows 1 to 20, not 99999999999999999999…"


def test_at_the_table_every_event_is_on_disk_before_each_question(tmp_path: Path) -> None:
    """The log's one flushing rule at the table: before each die is asked and each decision,
    every event recorded so far is on disk, so a process killed at any moment keeps every entry
    made so far; the log is whole at the end."""
    rolls = tmp_path / "rolls.txt"
    rolls.write_text("7 3 5 9 2 11 4\n")
    log = tmp_path / "duel.jsonl"
    asked: list[tuple[int, int]] = []  # (events recorded, bytes on disk) at each question

    class Watched(FileDice):
        def faces(self, fight: Any, who: str | None, purpose: str, dice: Dice) -> Any:
            asked.append((fight.next_seq, log.stat().st_size))
            return super().faces(fight, who, purpose, dice)

    def first_offer(view: View) -> Action:
        asked.append((view.seq + 1, log.stat().st_size))  # its grant is the last event
        return view.legal[0].action

    spec = load_encounter(EXAMPLES / "openings-duel.toml")
    run_encounter_sync(
        spec, spec.seed, out=log, dice=Watched(rolls), policies={"ilse": first_offer}
    )
    lines = log.read_bytes().splitlines(keepends=True)
    whole = list(itertools.accumulate((len(line) for line in lines), initial=0))
    assert [size for _, size in asked] == [whole[events] for events, _ in asked]
    assert len(asked) > 10 and asked[0][1] > 0  # the header is on disk before the first die
    assert lines[-1].startswith(b'{"type":"EncounterEnded"')
