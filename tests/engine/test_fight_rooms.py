"""The fight's rooms (``_fight``, ``_recorder``, ``_queries``, ``_endings``, ``_forks``) depend
one way, and the fork machinery costs a fight nothing until it is forked."""

from __future__ import annotations

import ast
from pathlib import Path

from initiative.engine import Decision, Fight, Stepper, load_encounter

ENGINE = Path(__file__).parents[2] / "engine"
EXAMPLE = Path(__file__).parents[2] / "examples" / "openings-skirmish.toml"


def _run_time_imports(module: str) -> set[str]:
    """The engine modules ``module`` imports when it runs (not under ``TYPE_CHECKING``)."""
    tree = ast.parse((ENGINE / f"{module}.py").read_text())
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in ast.walk(block)
    }
    return {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.level == 1
        and node.module is not None
        and id(node) not in typing_only
    }


def test_the_reads_and_the_forks_do_not_import_the_fight() -> None:
    """``_queries`` and ``_forks`` know the fight only as a type; ``_queries`` knows no fork."""
    assert "_fight" not in _run_time_imports("_queries")
    assert "_forks" not in _run_time_imports("_queries")
    assert "_fight" not in _run_time_imports("_forks")
    assert {"_queries", "_forks"} <= _run_time_imports("_fight")


def test_the_recorder_knows_no_other_part_of_the_fight() -> None:
    """The one writer imports neither the flow, nor the reads, nor the forks (which watch it);
    the endings read through the queries and know no fight."""
    parts = {"_fight", "_forks", "_queries", "_endings", "_rules", "_branch", "_stepper"}
    assert _run_time_imports("_recorder").isdisjoint(parts)
    assert _run_time_imports("_endings").isdisjoint(parts - {"_queries"})
    assert {"_recorder", "_queries", "_endings"} <= _run_time_imports("_fight")


def test_the_layouts_watch_the_recorder_only_once_the_fight_is_forked() -> None:
    """A fight never forked has no watcher on its recorder; forked at a decision, the walk
    over the shared layouts watches it and follows each event that changes the layout."""
    spec = load_encounter(EXAMPLE)
    fight = Fight(spec, 5)
    stepper = Stepper(fight)
    for _ in range(5):
        stepper.apply(stepper.token.legal[0].action)
    while fight._pending is None:  # (on to a decision of a turn's own window)
        stepper.apply(stepper.token.legal[0].action)
    assert fight.recorder.watch is None
    stepper.fork()
    walk = fight.recorder.watch
    assert walk is not None
    node = walk.node
    layout = fight.state.layout
    while fight.state.layout == layout:
        token = stepper.token
        assert token is not None
        moves = [o.action for o in token.legal if type(o.action).__name__ == "Move"]
        stepper.apply(moves[0] if moves else token.legal[0].action)
    assert walk.node is not node
    (changed,) = node.next  # the event that made the next layout, as emitted (unstamped)
    assert type(changed).__name__ in {"Moved", "CombatantDefeated", "CombatantLeft"}
    assert changed.seq == -1 and changed.cause is None


def test_a_fight_keeps_places_for_forks_where_forked_until_forked_elsewhere() -> None:
    """Played without a fork (the first legal offer each time: ``aggressive`` looks ahead on
    forks), a fight makes no fork machinery; forked at the turn decision it waits on, it keeps
    that one only; once forked elsewhere (an earlier decision), it keeps the turn decision it
    waits on at each grant in a turn's own window from then on."""
    spec = load_encounter(EXAMPLE)
    alone = Fight(spec, 5)
    alone.play(lambda token: Decision(action=token.legal[0].action))
    assert alone.state.ended and alone._forks is None

    fight = Fight(spec, 5)
    stepper = Stepper(fight)
    assert fight._pending is not None
    stepper.fork()
    forks = fight._forks
    assert forks is not None and forks.point is not None
    first = forks.point
    assert first[0].granted == stepper.token.seq
    for _ in range(10):
        token = stepper.token
        assert token is not None
        stepper.apply(token.legal[0].action)
    assert forks.point is first  # nothing kept where nobody forked

    fight.fork(upto=len(fight.decisions) - 1)
    stepper.apply(stepper.token.legal[0].action)  # (granted before: not kept)
    kept = 0
    for _ in range(30):
        token = stepper.token
        assert token is not None
        if fight._pending is not None:  # waiting in a turn's own window: kept right here
            assert forks.point is not None
            assert forks.point[0].granted == token.seq
            kept += 1
        stepper.apply(token.legal[0].action)
    assert kept > 10
