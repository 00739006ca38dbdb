"""Moves to a chosen point: a person types ``x,y``, ``toward NAME 3 m`` or ``away from NAME``
(in the terminal ``human`` policy and in ``join``), the ruleset's move action goes to the
rules, and a refusal comes back with the rules' reason before the decision is asked again."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from helpers import encounter
from initiative.actors import MoveOffer, Names, NotAMove, looks_like_move, move_offer, typed_point
from initiative.engine import Fight, Stepper, View, distance, load_encounter
from initiative.events import (
    ActionDeclared,
    ActionRejected,
    Event,
    Move,
    Moved,
    Position,
    read_log,
)
from initiative.replays import verify_log
from pty_support import PtyProgram
from serve_support import STURDY, Server

from initiative.table import _wire as wire

ROOT = Path(__file__).parents[1]

#: The sturdy duel spread out: Ana at the origin, Bo 6 m east, the dog 6 m north-east.
SPREAD = STURDY.replace("position = [1, 0]", "position = [6, 0]").replace(
    "position = [0, 1]", "position = [6, 3]"
)
SPEC = encounter(SPREAD)


def ana_turn(events: list[Event] | None = None) -> tuple[Stepper, View]:
    """The duel stepped to Ana's first turn, no one moving (every turn ended at once); the
    events recorded go to ``events``."""
    stepper = Stepper(Fight(SPEC, SPEC.seed, sink=None if events is None else events.append))
    while (view := stepper.view) is not None and not (view.me.id == "ana" and view.window.is_turn):
        stepper.apply(stepper.legal[-1].action)
    assert view is not None
    return stepper, view


@pytest.mark.parametrize(
    ("example", "kinds"),
    [
        ("openings-duel.toml", {"Move"}),
        ("percentile-wilhelm.toml", {"Move"}),
        ("thriller-ambush.toml", {"Move"}),
        ("tactical-bridge.toml", {"Move", "tactical.Dash"}),
    ],
)
def test_each_ruleset_names_its_move_to_a_point(example: str, kinds: set[str]) -> None:
    """Where a move is offered the presentation's ``move`` names the ruleset's action (a Dash
    in tactical once the base movement is spent), how far it reaches, and an offered action
    whose ``to`` is a point; where none is, it is ``None``."""
    spec = load_encounter(ROOT / "examples" / example)
    stepper = Stepper(Fight(spec, spec.seed))
    found: dict[str, MoveOffer] = {}
    nones = 0
    for n in range(200):
        view = stepper.view
        if view is None:
            break
        move = move_offer(view)
        movable = [o.action for o in view.legal if "to" in o.action.__struct_fields__]
        if move is None:
            nones += 1
            assert not any(type(a).__name__ in ("Move", "Dash") for a in movable)
        else:
            found.setdefault(move.type, move)
            assert move.action["type"] == move.type
            to = Position(*move.action["to"])
            assert 0 < distance(view.me.position, to) <= move.max + 1e-9
        # Move as far as offered whenever a move is offered (spending tactical's budget).
        moves = [o for o in view.legal if isinstance(o.action, Move)]
        stepper.apply((moves[-1] if moves and n % 3 else view.legal[0]).action)
    assert set(found) == kinds
    assert nones > 0


def test_the_priority_frame_carries_the_move_for_a_client_to_aim() -> None:
    """The contract with the browser: ``screen.move`` in the priority frame names the action
    type, the metres reachable and an action whose ``to`` a client replaces."""
    _, view = ana_turn()
    screen = json.loads(wire.priority(view, 60.0, SPEC))["screen"]
    assert screen["move"] == {
        "type": "Move",
        "max": 6.0,
        "action": {"type": "Move", "to": [-6.0, 0.0]},
    }
    stepper = Stepper(Fight(SPEC, SPEC.seed))
    while (opening := stepper.view) is not None and opening.window.is_turn:
        stepper.apply(stepper.legal[0].action)
    assert opening is not None  # an opening, where no move is offered
    assert json.loads(wire.priority(opening, 60.0, SPEC))["screen"]["move"] is None


def test_typed_text_names_a_point() -> None:
    """``x,y``; ``toward NAME`` as far as allowed, stopping within reach; with a distance,
    that far; ``away from NAME``; a misspelled name gets a suggestion, and going past a
    combatant is refused before the rules are asked."""
    _, view = ana_turn()
    names = Names(SPEC)
    move = move_offer(view)
    assert move is not None and move.type == "Move" and move.max == 6.0
    bo = next(e for e in view.enemies if e.id == "bo")
    others = (*view.enemies, *view.allies)

    def point(text: str) -> Position:
        return typed_point(text, view.me, others, names, move)

    here = view.me.position
    assert point("3,1.5") == Position(3.0, 1.5)
    assert point("(-2, 0.5)") == Position(-2.0, 0.5)
    near = point("toward Bo")
    assert distance(near, bo.position) <= 1.5 and distance(here, near) <= 6.0
    assert distance(here, point("towards bo 2 m")) == pytest.approx(2.0, abs=0.02)
    assert distance(here, point("away from BO 2")) == pytest.approx(2.0, abs=0.02)
    assert distance(here, point("away from bo")) == pytest.approx(6.0, abs=0.02)
    assert distance(bo.position, point("away from bo")) > distance(bo.position, here)
    with pytest.raises(NotAMove, match=r"no one called 'boo' is in sight; did you mean bo\?"):
        point("toward boo 2 m")
    with pytest.raises(NotAMove, match=r"bo is only \d\.\d m away: to go past them"):
        point("toward bo 40 m")
    assert looks_like_move("away from bo") and looks_like_move(" 1,2 ")
    assert not looks_like_move("2") and not looks_like_move("attack")


def test_the_rules_decide_a_typed_move_and_refuse_one_with_their_reason() -> None:
    """A typed point too far away is the rules' to refuse (recorded, with the reason, and the
    decision asked again); one in reach is declared and moved to exactly."""
    events: list[Event] = []
    stepper, view = ana_turn(events)
    far = msgspec.structs.replace(view.legal[0].action, to=Position(20.0, 0.0))
    del events[:]
    stepper.apply(far)
    assert [type(e).__name__ for e in events] == ["ActionRejected", "PriorityGranted"]
    rejected = events[0]
    assert isinstance(rejected, ActionRejected) and rejected.action == Move(to=Position(20, 0))
    assert rejected.reason == "destination is 20 m away; can move at most 6 m"
    assert stepper.who == "ana"
    del events[:]
    stepper.apply(Move(to=Position(2.0, -1.0)))
    declared = [e for e in events if isinstance(e, ActionDeclared)]
    assert declared[0].action == Move(to=Position(2.0, -1.0))
    assert [e.to for e in events if isinstance(e, Moved)] == [Position(2.0, -1.0)]


# -- at a real terminal, and across the network ------------------------------------------


def initiative(*args: str) -> list[str]:
    return [sys.executable, "-m", "initiative", *args]


TERMINAL = {**os.environ, "COLUMNS": "200", "TERM": "dumb"}


def wait_for(
    program: PtyProgram, pattern: str, start: int = 0, timeout: float = 60
) -> re.Match[str]:
    """The first match of ``pattern`` in what ``program`` has shown from ``start`` on."""
    deadline = time.monotonic() + timeout
    while not (found := re.compile(pattern, re.M | re.S).search(program.screen, start)):
        shown = re.sub(r"(choose|round \d+)[^:\n]*: *", "", program.screen)[-3000:]
        assert time.monotonic() < deadline, f"no {pattern!r} in:\n{shown}"
        assert program._pump(0.2), f"ended before {pattern!r}:\n{program.screen[-3000:]}"
    return found


def logged(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_bytes().splitlines()]


def replays_exactly(log: Path) -> bool:
    """Whether the log of a fight stopped midway re-simulates line for line, every line."""
    checked = verify_log(read_log(log))
    return checked.divergence is None and checked.events == len(logged(log))


@pytest.mark.slow
def test_a_human_at_the_terminal_types_points_and_sees_the_rules_refuse_one(
    tmp_path: Path,
) -> None:
    """In a pseudo-terminal: a point too far is refused with the rules' reason and asked again;
    a misspelled name gets a suggestion; ``away from`` and a point move there. Each typed move is
    in the log on disk before the next prompt, and the log verifies."""
    (tmp_path / "duel.toml").write_text(SPREAD)
    log = tmp_path / "fight.jsonl"
    human = PtyProgram(
        initiative("run", "duel.toml", "--policy", "ana=human", "--out", str(log)),
        cwd=str(tmp_path),
        env=TERMINAL,
    )
    try:
        while (prompt := human.prompt()) is not None and "your turn" not in human.since_last():
            shown = human.screen.rsplit("Round ", 1)[-1]
            if "your turn" in shown:
                break
            human.type(re.findall(r"^(\d+)\. ", shown, re.M)[-1])  # let the opening pass
        assert prompt == "ana> "
        assert 'Or type a point to move to: "x,y" (metres)' in human.screen
        human.type("20,0")
        assert human.prompt() == "ana> "
        assert "Not allowed: destination is 20 m away; can move at most 6 m" in human.screen
        assert logged(log)[-2]["type"] == "ActionRejected"  # on disk before the prompt
        human.type("toward boo 2 m")
        assert human.prompt() == "ana> "
        assert human.screen.endswith("no one called 'boo' is in sight; did you mean bo?\nana> ")
        human.type("away from bo 2 m")
        assert human.prompt() == "ana> "
        moved = [e for e in logged(log) if e["type"] == "ActionDeclared"][-1]
        assert moved["action"] == {"type": "Move", "to": [-2.0, 0.0]}
        human.type("-1.5,1")
        assert human.prompt() == "ana> "
        moved = [e for e in logged(log) if e["type"] == "ActionDeclared"][-1]
        assert moved["action"] == {"type": "Move", "to": [-1.5, 1.0]}
        human.end_input()  # Ctrl-D: the fight stops, to be resumed
        assert human.wait() == 130
    finally:
        if human.status is None:
            human.kill()
    assert "Traceback" not in human.screen
    assert replays_exactly(log)


@pytest.mark.slow
def test_join_types_points_across_the_network_and_is_told_the_rules_reason(
    tmp_path: Path,
) -> None:
    """``join`` in a pseudo-terminal against a real ``serve``: the priority frame's screen
    carries the move; a point too far comes back as the rules' reason (a non-fatal error)
    and the decision again; "toward" and a point are moved to; the served log verifies."""
    with Server(tmp_path, "--seat", "ana", encounter=SPREAD) as server:
        join = PtyProgram(
            initiative("join", f"127.0.0.1:{server.port}", "--seat", "ana",
                       "--token", server.tokens["ana"]),
            cwd=str(tmp_path),
            env=TERMINAL,
        )  # fmt: skip
        try:
            at = 0
            while True:
                shown = wait_for(join, r"Round \d+: ana, ([^\n]*)\n.*?choose 1-(\d)", at)
                at = shown.end()
                if shown.group(1) == "your turn.":
                    break
                join.type(shown.group(2))  # let the opening pass
                at = wait_for(join, r"> Let it pass\n", at).end()
            wait_for(join, r'Or type a point to move to: "x,y" \(metres\).*\(up to 6 m now\)')
            join.type("20,0")
            at = wait_for(join, r"> Move to \(20, 0\)\n.*?server: destination is 20 m"
                          r" away; can move at most 6 m\n", at).end()  # fmt: skip
            # Recorded before the seat was told (the server writes ahead of its news).
            assert logged(server.log)[-2]["type"] == "ActionRejected"
            at = wait_for(join, r"Round \d+: ana, your turn\.", at).end()
            join.type("toward bo")
            at = wait_for(join, r"bo is already within your reach \(1\.2 m away\)\n", at).end()
            join.type("away from bo 3 m")
            at = wait_for(join, r"> Move to \(-3, 0\)\n", at).end()
            at = wait_for(join, r"Round \d+: ana, your turn\..*?choose", at).end()
            join.type("toward bo")
            at = wait_for(join, r"> Move to \([-\d.]+, [-\d.]+\)\n", at).end()
            wait_for(join, r"Round \d+: ana, your turn\..*?choose", at)
            join.type("0.5,2")
            wait_for(join, r"> Move to \(0\.5, 2\)\n", at)
            deadline = time.monotonic() + 30
            while not any(
                e["type"] == "ActionDeclared" and e["action"] == {"type": "Move", "to": [0.5, 2.0]}
                for e in logged(server.log)
            ):
                assert time.monotonic() < deadline
                time.sleep(0.1)
            join.interrupt()
            join.wait()
        finally:
            if join.status is None:
                join.kill()
        server.interrupt()
    assert replays_exactly(server.log)
    events = logged(server.log)
    assert "Traceback" not in join.screen
    tried = [e["action"] for e in events if e["type"] in ("ActionDeclared", "ActionRejected")
             and e["who"] == "ana"]  # fmt: skip
    assert {"type": "Move", "to": [20.0, 0.0]} in tried
    rejected = [e for e in events if e["type"] == "ActionRejected"]
    assert rejected[0]["reason"] == "destination is 20 m away; can move at most 6 m"
