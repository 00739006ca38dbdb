"""The ``gm`` command at the terminal ``human`` prompt, in a real pseudo-terminal: each override
is applied by the same path as the library's and the wire's, a refusal prints its reason, and
the prompt comes back."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from initiative.events import read_log
from initiative.replays import verify_log

from tests.pty_support import PtyProgram, wait_for
from tests.serve_support import ENCOUNTER, STURDY, Server

pytestmark = pytest.mark.slow  # a real program on a real terminal

#: The yard duel with ana played by a person at this terminal.
HUMAN = ENCOUNTER.replace("position = [0, 0]\n", 'position = [0, 0]\npolicy = "human"\n', 1)


def test_the_gm_steps_in_from_the_human_prompt(tmp_path: Path) -> None:
    """``gm help`` lists the commands; an undeclared condition is refused in words; hit points,
    a joiner, a move, the order and a departure are narrated and recorded; the log verifies."""
    (tmp_path / "duel.toml").write_text(HUMAN.replace('policy = "aggressive"\n', "", 1))
    log = tmp_path / "duel.jsonl"
    program = PtyProgram(
        [sys.executable, "-m", "initiative", "run", "duel.toml", "--out", str(log)],
        cwd=str(tmp_path),
        env={**os.environ, "COLUMNS": "120", "TERM": "dumb"},
    )
    try:
        typed = [
            "gm help",
            "gm who",
            "gm add-condition bo stunned",
            "gm mark bo blessed",
            "gm undo",
            "gm hp bo 7",
            "gm join dax like cur",
            "gm move cur 2,2.5",
            "gm order bo before ana",
            "gm remove dax fled",
            "gm hp bo 0",
            "gm hp cur 0",
        ]
        for text in typed:
            assert program.prompt() == "ana> "
            program.type(text)
        assert program.wait(60) == 0
    finally:
        if program.status is None:
            program.kill()
    screen = program.screen
    assert "gm order WHO before OTHER | last" in screen
    assert "The GM cannot do that: the openings ruleset declares no conditions" in screen
    assert "Combatants (name, id, side):" in screen  # gm who (issue 34)
    for said in (
        "The GM marks bo: blessed.",
        "The GM sets bo's hit points to 7.",
        "The GM brings in dax, like cur.",
        "The GM moves cur to (2, 2.5).",
        "The GM moves bo before ana in the order.",
        "The GM takes dax out of the fight (fled).",
        "north win",
    ):
        assert said in screen, said
    contents = read_log(log)
    assert verify_log(contents).ok
    kinds = [
        e.override.__class__.__name__ for e in contents.events if type(e).__name__ == "GmOverride"
    ]
    assert kinds == [
        "AddMarker",
        "Undo",
        "SetHp",
        "AddCombatant",
        "MoveToken",
        "Reorder",
        "RemoveCombatant",
        "SetHp",
        "SetHp",
    ]


def test_join_as_the_gm_sends_typed_commands_as_gm_frames(tmp_path: Path) -> None:
    """``join --gm`` with the GM token: a refusal comes back with its reason, overrides are
    narrated as news, and the GM can end the fight; the served log verifies."""
    with Server(tmp_path, "--seat", "ana", encounter=STURDY) as server:
        token = re.search(r"^gm: token (\S+)$", server.out, re.M)
        assert token, server.out
        seat = server.client()
        seat.hello("ana", server.tokens["ana"])
        program = PtyProgram(
            [sys.executable, "-m", "initiative", "join", f"127.0.0.1:{server.port}", "--gm",
             "--token", token.group(1)],
            cwd=str(tmp_path),
            env={**os.environ, "COLUMNS": "120", "TERM": "dumb"},
        )  # fmt: skip
        try:
            wait_for(program, "the GM of Yard duel")
            seat.next("priority")  # ana decides: the fight waits at a decision point
            program.type("gm add-condition bo stunned")
            wait_for(program, "The GM cannot do that: the openings ruleset declares no conditions")
            program.type("gm who")
            wait_for(program, "Combatants (name, id, side):")
            program.type("gm undo")
            wait_for(program, "The GM cannot do that: nothing to undo")
            program.type("gm roll secret 1d20")  # told to the GM's own terminal
            wait_for(program, "(secret).")
            program.type("gm hp bo 0")
            wait_for(program, "The GM sets bo's hit points to 0.")
            program.type("gm hp cur 0")
            wait_for(program, "type gm review")  # (the GM's terminal stays to offer the review)
            program.type("q")
            assert program.wait(60) == 0
        finally:
            if program.status is None:
                program.kill()
        # ana's decision was called off when the GM ended the fight: no timeout to tell of.
        assert seat.next("error", "end")["type"] == "end"
        for client in server.clients:
            client.close()
        assert server.finish() == 0
        events = server.verified()
    assert "the fight is over: north won" in program.screen
    overrides = [e["override"] for e in events if e["type"] == "GmOverride"]
    assert overrides == [
        {"type": "GmRoll", "expr": "1d20", "secret": True},
        {"type": "SetHp", "who": "bo", "hp": 0},
        {"type": "SetHp", "who": "cur", "hp": 0},
    ]
