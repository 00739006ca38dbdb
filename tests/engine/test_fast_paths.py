"""The engine's shortcuts give what the plain computations give: views built from the kept
standing lists, the nearest enemy shared between offers and view, the grid's occupant check,
the lazily split log lines, and a fight played in line without Trio."""

from __future__ import annotations

import structlog
from hypothesis import HealthCheck, given, settings
from initiative.actors import aggressive
from initiative.engine import Fight, PriorityToken, Stepper
from initiative.engine._geometry import distance
from initiative.engine.kit import SPACE, occupant
from initiative.events import encode_lines, parse_log

import initiative
from tests.test_determinism import encounters


def _scan_view(fight: Fight, token: PriorityToken) -> tuple[list[str], list[str], str | None]:
    """Allies, enemies and the nearest enemy, by scanning every combatant."""
    me = fight.queries.get(token.who)
    standing = [c for c in fight.state.freeze().standing() if c.id != token.who]
    allies = [c.id for c in standing if c.side == me.side]
    enemies = [c.id for c in standing if c.side != me.side and fight.rules.can_see(token.who, c.id)]
    ranked = sorted((distance(me.position, fight.queries.get(k).position), k) for k in enemies)
    return allies, enemies, ranked[0][1] if ranked else None


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(encounters())
def test_views_and_the_occupant_check_equal_a_scan_of_everyone(case):
    spec, seed = case
    fight = Fight(spec, seed)
    stepper = Stepper(fight)
    while (token := stepper.token) is not None:
        allies, enemies, nearest = _scan_view(fight, token)
        view = token.view
        assert [c.id for c in view.allies] == allies
        assert [c.id for c in view.enemies] == enemies
        assert [fight.queries.get(c.id) for c in (*view.allies, *view.enemies)] == [
            *view.allies,
            *view.enemies,
        ]
        assert (view.nearest.id if view.nearest is not None else None) == nearest
        for c in fight.state.freeze().standing():
            scanned = next(
                (
                    o.id
                    for o in fight.state.freeze().standing()
                    if o.id != token.who and distance(o.position, c.position) < SPACE - 1e-9
                ),
                None,
            )
            assert occupant(fight.rules, token.who, c.position) == scanned
        stepper.apply(aggressive(view))


def test_log_lines_split_on_demand_are_the_lines_of_the_log():
    result = initiative.run("examples/openings-skirmish.toml", seed=7)
    data = encode_lines(result.events)
    contents = parse_log(data + b'{"type":"Torn', name="x")
    assert contents.torn == len(b'{"type":"Torn')
    assert contents.events == result.events
    assert contents.lines == data.splitlines(keepends=True)
    assert contents == parse_log(data + b'{"type":"Torn', name="x")


def test_a_fight_played_in_line_leaves_the_callers_context_alone_and_logs_the_same(tmp_path):
    structlog.contextvars.bind_contextvars(encounter="mine")
    try:
        inline = initiative.run(
            "examples/openings-duel.toml", seed=3, out=tmp_path / "a.jsonl", executor="inline"
        )
        assert structlog.contextvars.get_contextvars() == {"encounter": "mine"}
    finally:
        structlog.contextvars.unbind_contextvars("encounter")
    initiative.run("examples/openings-duel.toml", seed=3, out=tmp_path / "b.jsonl", executor="trio")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert inline.winner is not None or inline.rounds > 0
