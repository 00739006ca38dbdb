"""Paired dice for forks (``fork(dice=k, paired=True)``): the same die for the same roll."""

from __future__ import annotations

from pathlib import Path

import pytest
from initiative.actors import aggressive
from initiative.engine import Branch, Decision, Fight, PriorityToken
from initiative.events import DiceRolled, Event, encode_event

from initiative import engine

DUEL = Path(__file__).parents[2] / "examples" / "openings-duel.toml"

_Rolls = dict[tuple[str | None, str], list[tuple[str, tuple[int, ...]]]]


def _at_a_choice(seed: int = 3) -> tuple[Fight, PriorityToken]:
    """The duel played with ``aggressive`` to Ilse's turn where she may move or end it."""
    fight = Fight(engine.load_encounter(DUEL), seed)
    drive = fight.run()
    token = next(drive)
    for _ in range(6):
        token = drive.send(Decision(action=aggressive(token.view)))
    assert token.who == "ilse" and len({type(o.action) for o in token.legal}) == 2
    return fight, token


def _played(branch: Branch, first: object) -> list[Event]:
    """The events of ``branch`` from the fork on, ``first`` sent and then ``aggressive``."""
    branch.fight.recorder.keep_events = True  # a look-ahead's fork keeps none
    branch.send(first)  # type: ignore[arg-type]
    branch.play(aggressive)
    return branch.fight.events


def _rolls(events: list[Event]) -> _Rolls:
    """Each key's rolls in order: (who, purpose) -> [(expr, faces), ...]."""
    rolls: _Rolls = {}
    for e in events:
        if isinstance(e, DiceRolled):
            rolls.setdefault((e.who, e.purpose), []).append((e.expr, e.dice))
    return rolls


def _agreement(a: _Rolls, b: _Rolls) -> tuple[int, int]:
    """Of the n-th rolls of a key both made with the same expression: how many had the same
    faces, and how many did not."""
    same = differ = 0
    for key in sorted(a.keys() & b.keys(), key=repr):
        for (expr_a, faces_a), (expr_b, faces_b) in zip(a[key], b[key], strict=False):
            if expr_a == expr_b:
                same += faces_a == faces_b
                differ += faces_a != faces_b
    return same, differ


def _two_offers(paired: bool) -> tuple[int, int]:
    _, token = _at_a_choice()
    move, end = (o.action for o in token.legal)
    assert token.view.fork is not None
    one = _rolls(_played(token.view.fork(dice=5, paired=paired), move))
    other = _rolls(_played(token.view.fork(dice=5, paired=paired), end))
    return _agreement(one, other)


def test_paired_forks_of_different_offers_roll_the_same_dice() -> None:
    """Given different first actions, each (who, purpose, n-th) roll has the same faces."""
    assert _two_offers(paired=True) == (28, 0)


def test_unpaired_forks_of_different_offers_do_not() -> None:
    """Without pairing, the dice are drawn in turn from one stream: once the actions differ,
    the same roll can get other faces."""
    assert _two_offers(paired=False) == (18, 8)


def test_a_paired_fork_is_deterministic_for_seed_and_dice() -> None:
    """The same (seed, dice) plays the same fork, byte for byte; another ``dice`` does not."""
    logs = []
    for dice in (5, 5, 6):
        _, token = _at_a_choice()
        assert token.view.fork is not None
        branch = token.view.fork(dice=dice, paired=True)
        logs.append([encode_event(e) for e in _played(branch, token.legal[0].action)])
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]


def test_forks_of_a_paired_fork_go_on_with_its_dice() -> None:
    """Without ``dice`` of their own, forks of a paired fork roll what their parent would."""
    fight, token = _at_a_choice()
    parent = fight.fork(dice=5, paired=True)
    parent.send(token.legal[0].action)
    for _ in range(4):
        assert parent.token is not None
        parent.send(aggressive(parent.token.view))
    children = [parent.fork(), parent.fork()]  # two of the same kept place, played in turn
    logs = []
    for branch in (parent, *children):
        branch.fight.recorder.keep_events = True
        branch.play(aggressive)
        logs.append([encode_event(e) for e in branch.fight.events])
    assert logs[1] == logs[0] and logs[2] == logs[0]
    assert any(isinstance(e, DiceRolled) for e in children[1].fight.events)


def test_paired_needs_dice() -> None:
    """Pairing is of the fork's own dice: ``paired`` without ``dice`` is refused."""
    fight, _ = _at_a_choice()
    with pytest.raises(ValueError, match="paired dice need a stream"):
        fight.fork(paired=True)


def test_paired_forks_leave_the_real_fight_as_it_would_be() -> None:
    """A fight whose decisions were forked with paired dice logs what an unforked one does."""
    lines = []
    for forked in (False, True):
        fight = Fight(engine.load_encounter(DUEL), 3)
        drive = fight.run()
        try:
            token = next(drive)
            while True:
                if forked and token.view.fork is not None:
                    token.view.fork(dice=token.seq, paired=True).play(aggressive, limit=3)
                token = drive.send(Decision(action=aggressive(token.view)))
        except StopIteration:
            pass
        lines.append([encode_event(e) for e in fight.events])
    assert lines[0] == lines[1]
