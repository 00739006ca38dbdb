"""Narration for the table: one sentence per deed with its result, from the log alone; it tells
what ``replay`` tells (initiative and order, surprise and sanity, damage dice, lost turns), in
words, for every ruleset."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest
from initiative.events import CombatantJoined, CombatantLeft, EncounterEnded, read_log
from initiative.replays import TableNarrator
from rich.text import Text

import initiative

# Fixed fights, never regenerated (the golden logs change when the built-in policies do).
GOLDEN = Path(__file__).parents[1] / "golden" / "format1" / "upcast"
EXAMPLES = Path(__file__).parents[2] / "examples"
THRILLER = GOLDEN / "thriller-ambush.seed2.jsonl"
PERCENTILE = GOLDEN / "percentile-wilhelm.seed1.jsonl"
TACTICAL = GOLDEN / "tactical-bridge.seed4.jsonl"
OPENINGS = GOLDEN / "openings-duel.seed3.jsonl"
SKIRMISH = GOLDEN / "openings-skirmish.seed7.jsonl"


def told(log: Path) -> list[str]:
    narrate = TableNarrator()
    lines: list[str] = []
    for event in read_log(log).events:
        text = narrate(event)
        if text is not None:
            lines.extend(text.split("\n"))
    return lines


def after(lines: list[str], first: str, count: int) -> list[str]:
    """``count`` lines from ``first`` on."""
    start = lines.index(first)
    return lines[start : start + count]


@pytest.fixture(scope="module")
def thriller_deeds(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """thriller-ambush with both sides choosing at random: cover, full defence, a shout, an
    intercept, a medkit and flight, all of thriller's own deeds."""
    log = tmp_path_factory.mktemp("talk") / "random.jsonl"
    sides = {"investigators": "random", "cult": "random"}
    initiative.run(EXAMPLES / "thriller-ambush.toml", seed=0, policies=sides, out=log)
    return told(log)


def test_an_attack_is_one_sentence_with_roll_damage_dice_and_fall() -> None:
    """The blow that fells Marlowe: who, whom, weapon, the roll against its target, damage
    with the dice that gave it, the fall."""
    assert (
        "Acolyte 2 hits Detective Marlowe with the sickle: 20 against 11, 3 damage"
        " (1d6 rolled 4), Detective Marlowe falls"
    ) in told(THRILLER)


def test_initiative_tells_die_modifier_total_and_the_order() -> None:
    """Each roll with its die and modifier (none said when it is 0), then the order."""
    lines = told(THRILLER)
    assert lines[1:10] == [
        "Detective Marlowe rolls 14 + 3 = 17 for initiative",
        "Dr. Ada Vance rolls 1 for initiative",
        "Sully the Dockhand rolls 12 - 1 = 11 for initiative",
        "Acolyte 1 rolls 12 for initiative",
        "Acolyte 2 rolls 13 for initiative",
        "Acolyte 3 rolls 15 for initiative",
        "The Drowned Priest rolls 8 for initiative",
        "Order: Detective Marlowe, Acolyte 3, Acolyte 2, Acolyte 1, Sully the Dockhand,"
        " The Drowned Priest, Dr. Ada Vance",
        "Detective Marlowe spots the ambush: perception 7 against stealth 6",
    ]


def test_surprise_and_sanity_are_told_with_their_rolls_and_what_they_cost() -> None:
    """Seed 000's surprise and sanity checks: who resists, who is surprised or shaken, and
    until when; the surprised combatant's lost turn says why."""
    lines = told(THRILLER)
    assert after(
        lines, "Detective Marlowe spots the ambush: perception 7 against stealth 6", 6
    ) == [
        "Detective Marlowe spots the ambush: perception 7 against stealth 6",
        "Sully the Dockhand is caught unawares: insight 5 against stealth 6, surprised until"
        " the end of round 1",
        "Dr. Ada Vance spots the ambush: insight 10 against stealth 6",
        "Detective Marlowe keeps their nerve: willpower 11 against 11",
        "Sully the Dockhand loses their nerve: willpower 10 against 11, shaken until the end of"
        " round 2",
        "Dr. Ada Vance keeps their nerve: willpower 19 against 11",
    ]
    assert after(lines, "Sully the Dockhand's turn", 4) == [
        "Sully the Dockhand's turn",
        "Sully the Dockhand is surprised and loses the turn",
        "The Drowned Priest's turn",
        "The Drowned Priest ends the turn without acting",
    ]
    assert "Sully the Dockhand is no longer surprised" in lines


def test_a_reaction_is_told_before_the_deed_it_answers_resolves() -> None:
    """A dodge comes before the attack's miss (the dodge roll is the attack's target); a
    retaliation says it struck back."""
    assert after(told(THRILLER), "Detective Marlowe's turn", 7) == [
        "Detective Marlowe's turn",
        "Acolyte 3 dodges",
        "Detective Marlowe misses Acolyte 3 with the revolver: 9 against 14",
        "Detective Marlowe moves 2.75 m",
        "Acolyte 2 dodges",
        "Detective Marlowe misses Acolyte 2 with the baton: 12 against 14",
        "Acolyte 2 strikes back at Detective Marlowe: misses, 1 against 11",
    ]


def test_thriller_deeds_are_told_in_words(thriller_deeds: list[str]) -> None:
    """Cover, full defence, a shout (a free action), an intercept and flight, as a person
    says them: no rule names, no ids."""
    for line in (
        "Acolyte 2 takes cover",
        "Acolyte 2 shouts",
        "Sully the Dockhand goes on full defence",
        "Sully the Dockhand is no longer on full defence",
        "Acolyte 2 leaves cover",
        "Detective Marlowe steps in to take the blow meant for Dr. Ada Vance",
        "Acolyte 2 hits Dr. Ada Vance with the sickle: 15 against 11, 2 damage to Detective"
        " Marlowe (1d6 rolled 3)",
        "Dr. Ada Vance uses the medkit: Dr. Ada Vance recovers 4 hp (1d6+1 rolled 4)",
        "Acolyte 1 flees 12 m and escapes",
    ):
        assert line in thriller_deeds


@pytest.mark.parametrize("log", [THRILLER, PERCENTILE, TACTICAL, OPENINGS, SKIRMISH])
def test_no_internal_names_and_no_bookkeeping(log: Path, thriller_deeds: list[str]) -> None:
    """No rule's own name (``in_cover``, ``thriller.FreeAction``), no combatant id, no
    priority, AP or empty opening; the end names the winner."""
    lines = told(log) + thriller_deeds
    ids = {c.id for c in read_log(log).header.encounter.combatants if "-" in c.id}
    for line in lines:
        assert not re.search(r"\w_\w|\.\w+[A-Z]|free action|priority| AP\b", line), line
        assert not [i for i in ids if re.search(rf"(?<![\w-]){i}(?![\w-])", line)], line
    assert told(log)[-1].startswith("[bold]Victory for ")


def test_percentile_groups_given_dice_parries_and_late_arrivals() -> None:
    """One roll for three goblins ("roll", names listed), dice given at the table said so;
    a parry told before the miss it causes; a combatant arriving later rolls and re-orders."""
    lines = told(PERCENTILE)
    assert lines[1:5] == [
        "Wilhelm rolls 6 (at the table) + 35 = 41 for initiative",
        "Gertrude rolls 9 (at the table) + 30 = 39 for initiative",
        "Goblin 1, Goblin 2 and Goblin 3 roll 5 (at the table) + 25 = 30 for initiative",
        "Order: Wilhelm, Gertrude, Goblin 1, Goblin 2, Goblin 3",
    ]
    assert after(
        lines, "Goblin 2 attacks Gertrude with the spear: Weapon Skill 6 against 25, success", 3
    ) == [
        "Goblin 2 attacks Gertrude with the spear: Weapon Skill 6 against 25, success",
        "Gertrude parries: 23 against 38, success",
        "Goblin 2 misses Gertrude",
    ]
    assert after(lines, "Orc arrives for goblins", 3) == [
        "Orc arrives for goblins",
        "Orc rolls 2 (at the table) + 30 = 32 for initiative",
        "Order: Wilhelm, Gertrude, Orc, Goblin 3",
    ]


def test_tactical_ties_locations_openings_and_reloads() -> None:
    """A tie's roll-off with names; an attack of opportunity before the move it interrupts;
    damage to a hit location after a counter-attack; a reload and a dash in words."""
    lines = told(TACTICAL)
    assert lines[9] == (
        "Order: shaman, raider 1, warden, raider 2, crossbowman, raider 3, archer, Sergeant Hale"
        " (tie at 21 broken by roll-off: raider 1 4, shaman 4; tie at 21 broken by roll-off:"
        " raider 1 3, shaman 5)"
    )
    assert after(lines, "warden's turn", 6) == [
        "warden's turn",
        "raider 1 misses warden with the axe as they move away: 52 against 50",
        "warden moves 5.08 m",
        "warden misses raider 1 with the sword: 95 against 60",
        "warden hits raider 1 with the sword: 20 against 60",
        "raider 1 counter-attacks: 97 against 50, failure",
    ]
    assert "raider 1 takes 6 damage to the left leg (1d8 rolled 7)" in lines
    assert "crossbowman reloads the crossbow" in lines
    assert "crossbowman dashes 6 m" in lines


def test_openings_flight_and_attacks_in_an_opening() -> None:
    """The hound runs off the field; an attack in an opening says what it answers."""
    lines = told(OPENINGS)
    assert "Tomas's hound moves 9 m and escapes" in lines
    assert (
        "Tomas hits Ilse with the longsword as Ilse ends their turn: 21 against 16, 11 damage"
        " (1d10+1 rolled 11)"
    ) in lines


def test_a_failed_decision_says_who_hesitated_and_why(tmp_path: Path) -> None:
    """A policy that raises: the combatant hesitates, in words."""
    log = tmp_path / "failed.jsonl"
    initiative.run(
        EXAMPLES / "openings-duel.toml", seed=3, policies={"ilse": lambda v: 1 / 0}, out=log
    )
    assert "Ilse hesitates: the policy deciding for them failed" in told(log)


def test_a_deed_is_told_before_the_next_question() -> None:
    """At the table the sentence of a finished deed comes before the next prompt: it is told
    at the ``PriorityGranted`` that asks for the next decision, not later."""
    narrate = TableNarrator()
    for event in read_log(THRILLER).events:
        text = narrate(event)
        if text is not None and "2 damage (1d6 rolled 3)" in text:
            assert type(event).__name__ == "PriorityGranted"
            assert text == (
                "Acolyte 3 hits Detective Marlowe with the sickle: 17 against 11, 2 damage"
                " (1d6 rolled 3)"
            )
            return
    raise AssertionError("the sentence was never told")


def test_reasons_from_a_log_are_told_as_they_are_never_as_markup() -> None:
    """A log anyone may have written: a reason with Rich markup and an escape sequence in it is
    shown as those characters, not as a link, a colour or a terminal command."""
    events = read_log(OPENINGS).events
    end = events[-1]
    assert isinstance(end, EncounterEnded)
    joined = next(e for e in events if isinstance(e, CombatantJoined))
    narrate = TableNarrator()
    shown = [narrate(e) for e in events[:-1]]
    shown.append(narrate(CombatantLeft(seq=end.seq, who=joined.who, reason="[red]ran\x1b[2J")))
    shown.append(narrate(msgspec.structs.replace(end, winner=None, reason="[link=x]gone[/link]")))
    said = "\n".join(Text.from_markup(s).plain for s in shown if s is not None)
    assert "leaves the fight ([red]ran\\x1b[2 j)" in said  # in words, the escape spelled out
    assert "No one wins after" in said and ": [link=x]gone[/link]" in said
