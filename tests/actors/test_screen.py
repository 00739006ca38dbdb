"""The presentation of a decision: what every screen (terminal, ``join``, browser) draws."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec
from initiative.actors import Names, Presentation, present, render, table_of
from initiative.engine import Fight, Stepper, fold
from initiative.engine.rulesets.thriller import FreeAction
from initiative.events import EndTurn, Offer, read_log

from initiative import engine

ROOT = Path(__file__).resolve().parents[2]


def first(example: str, wanted: Callable[[Presentation], bool]) -> Presentation:
    """The first decision of ``example`` (each answered with its first offer) that is wanted."""
    spec = engine.load_encounter(ROOT / "examples" / f"{example}.toml")
    stepper, names = Stepper(Fight(spec, spec.seed)), Names(spec)
    while stepper.view is not None:
        shown = present(stepper.view, names)
        if wanted(shown):
            return shown
        stepper.apply(stepper.legal[0].action)
    raise AssertionError(f"no such decision in {example}")


def test_a_move_says_how_far_and_toward_or_away_from_whom() -> None:
    """Moves are words: metres, the nearest enemy by name, and where they end up."""
    shown = first("openings-duel", lambda p: True)
    assert render(shown) == (
        "Round 1: Tomas's hound, your turn.\n"
        "You have 9 of 9 hp and 3 AP.\n"
        "No enemy in your reach; nearest: Ilse (unhurt, 6.3 m).\n"
        "Allies: Tomas (22 of 22 hp, 2.2 m).\n"
        "\n"
        "1. Move 5.1 m toward Ilse (then 1.2 m from them), 1 AP\n"
        "2. Move 9.0 m away from Ilse (then 15.3 m from them), 1 AP\n"
        "3. End your turn"
    )
    assert [o.kind for o in shown.offers] == ["move", "move", "end"]


def test_an_opening_says_what_it_reacts_to() -> None:
    """An opening names the deed and its target, and a guard names whom it shields."""
    shown = first("thriller-ambush", lambda p: any("Intercept" in o.text for o in p.offers))
    assert shown.window == "opening"
    assert shown.reacting_to == "Detective Marlowe attacks Acolyte 3 with the revolver"
    assert shown.heading == (
        "Round 1: Acolyte 2, a chance to react: "
        "Detective Marlowe attacks Acolyte 3 with the revolver."
    )
    assert [o.line() for o in shown.offers] == [
        "1. Intercept: take the blow meant for Acolyte 3, 1 AP",
        "2. Let it pass",
    ]


def test_enemies_are_seen_in_words_and_oneself_in_numbers() -> None:
    """Hit points and AP of enemies are not shown as numbers; one's own and allies' are."""
    shown = first("openings-skirmish", lambda p: p.name == "Wren")
    me, *others = shown.combatants
    assert (me.name, me.role, me.hp, me.max_hp, me.ap, me.distance) == (
        "Wren",
        "you",
        14,
        14,
        3,
        None,
    )
    enemies = [c for c in others if c.role == "enemy"]
    assert enemies and all(c.hp is None and c.ap is None for c in enemies)
    assert {c.health for c in enemies} <= {"unhurt", "hurt", "bloodied"}
    assert [c.distance for c in enemies] == sorted(c.distance for c in enemies)
    assert all(c.name != c.id for c in shown.combatants if c.id.startswith("goblin"))


def test_an_action_without_words_of_its_own_reads_from_its_fields() -> None:
    """A ruleset's action the screen has no words for: its own name, then its kind."""
    spec = engine.load_encounter(ROOT / "examples" / "thriller-ambush.toml")
    view = Stepper(Fight(spec, spec.seed)).view
    assert view is not None
    offers = (Offer(action=FreeAction(name="shout"), cost=0), Offer(action=EndTurn(), cost=0))
    shown = present(msgspec.structs.replace(view, legal=offers), Names(spec))
    assert [o.line() for o in shown.offers] == ["1. Shout (free action)", "2. End your turn"]


def test_the_table_at_the_end_marks_the_fallen_and_the_winner() -> None:
    """Folded from a whole log, the table shows who fell (in words) and who won."""
    contents = read_log(ROOT / "tests" / "golden" / "openings-skirmish.seed7.jsonl")
    state = fold(list(contents.events))
    names = Names(contents.header.encounter)
    table = table_of(state, names, ["osric"])
    fallen = {c.id for c in state.combatants.values() if c.defeated}
    assert fallen and {c.id for c in table.combatants if not c.standing} == fallen
    assert all(c.health == "down" for c in table.combatants if c.id in fallen)
    assert table.ended and table.winner == state.winner
    mine = [c for c in table.combatants if c.role == "you"]
    assert [c.name for c in mine] == ["Osric"]
    watched = table_of(state, names)
    assert {c.role for c in watched.combatants} == {""}
    assert all(c.hp is not None for c in watched.combatants)


def test_an_enemys_health_in_words_unhurt_hurt_bloodied_down() -> None:
    """Issue 23's words: unhurt at its most, hurt below it, bloodied at or below half, down at
    none, gone when it left."""
    from initiative.actors._screen import health

    spec = engine.load_encounter(ROOT / "examples" / "thriller-ambush.toml")
    priest = Stepper(Fight(spec, spec.seed)).state.combatants["priest"]
    assert priest.max_hp == 12
    said = {hp: health(msgspec.structs.replace(priest, hp=hp)) for hp in (12, 11, 7, 6, 1, 0)}
    assert said == {12: "unhurt", 11: "hurt", 7: "hurt", 6: "bloodied", 1: "bloodied", 0: "down"}
    assert health(msgspec.structs.replace(priest, left=True)) == "gone"
