"""Verification: re-simulation from the header and recorded decisions, compared line by line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from initiative.actors import run_encounter_sync
from initiative.events import LogFormatError, encode_lines, parse_log
from initiative.replays import recorded_decisions, resimulate, verify_log

from initiative import engine

EXAMPLE = Path(__file__).parents[2] / "examples" / "openings-duel.toml"


@pytest.fixture(scope="module")
def raw() -> bytes:
    return encode_lines(run_encounter_sync(engine.load_encounter(EXAMPLE), 5).events)


def edit(raw: bytes, index: int, change) -> bytes:
    lines = raw.splitlines(keepends=True)
    obj = json.loads(lines[index])
    change(obj)
    lines[index] = json.dumps(obj, separators=(",", ":")).encode() + b"\n"
    return b"".join(lines)


def test_an_untouched_log_verifies(raw):
    """Every event of a live fight is reproduced from its decisions."""
    result = verify_log(parse_log(raw))
    assert result.ok and result.events == len(raw.splitlines())


def test_a_changed_decision_diverges_at_its_consequences(raw):
    """A recorded attack redirected at another target diverges where the re-simulation's
    events first differ."""
    lines = raw.splitlines()
    index = next(
        i
        for i, line in enumerate(lines)
        if b'"ActionDeclared"' in line and b'"type":"Move"' in line
    )

    def further(obj):
        obj["action"]["to"] = [obj["action"]["to"][0] + 0.5, obj["action"]["to"][1]]

    result = verify_log(parse_log(edit(raw, index, further)))
    assert result.divergence is not None
    assert result.divergence.seq > index


def test_a_truncated_log_matches_but_is_incomplete(raw):
    """A log cut short (a crash) verifies as far as it goes and is reported incomplete."""
    lines = raw.splitlines(keepends=True)
    result = verify_log(parse_log(b"".join(lines[: len(lines) // 2])))
    assert result.divergence is None and not result.complete and not result.ok


def test_a_log_of_another_rules_version_is_refused(raw):
    """A log recorded under another version of the rules is refused, not verified silently."""
    changed = edit(raw, 0, lambda obj: obj.update(ruleset_version=99))
    with pytest.raises(LogFormatError, match="rules version 99"):
        verify_log(parse_log(changed))


def test_decisions_answer_grants_one_to_one(raw):
    """Each recorded decision answers one PriorityGranted, in order."""
    contents = parse_log(raw)
    grants = [e.seq for e in contents.events if type(e).__name__ == "PriorityGranted"]
    assert [d.grant for d in recorded_decisions(contents.events)] == grants


def test_resimulate_to_a_point_rebuilds_the_same_state(raw):
    """Re-simulating with the decisions up to a grant gives the logged state at that grant."""
    contents = parse_log(raw)
    grant = [e for e in contents.events if type(e).__name__ == "PriorityGranted"][10]
    fight = resimulate(contents, upto=grant.seq - 1)
    assert fight.state == engine.fold(contents.events, fight.state.seq)


def test_a_log_written_by_another_engine_version_still_verifies():
    """The header's engine version is the recorder's; re-simulation keeps it."""
    from initiative.engine import Decision, simulate

    def first_offer(token):
        return Decision(action=token.legal[0].action)

    spec = engine.load_encounter(EXAMPLE)
    older = simulate(spec, 5, first_offer, engine_version="0.0.1")
    contents = parse_log(encode_lines(older.events))
    assert contents.header.engine == "0.0.1"
    assert verify_log(contents).ok
