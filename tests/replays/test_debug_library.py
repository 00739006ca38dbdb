"""The debugging library in ``replays``: why, diff, chain, digests, follow, the page's JSON."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from helpers import fight
from initiative.events import (
    EncounterEnded,
    LogFormatError,
    StateDigested,
    encode_lines,
    parse_log,
)
from initiative.replays import (
    cause_chain,
    check_chain,
    check_digests,
    diff_logs,
    effects,
    embed_json,
    follow,
)

DUEL = """
ruleset = "openings"
[[combatants]]
id = "a"
side = "x"
hp = 10
position = [0, 0]
weapons = [{ name = "sword", damage = "1d6" }]
policy = "aggressive"
[[combatants]]
id = "b"
side = "y"
hp = 10
position = [1, 0]
weapons = [{ name = "club", damage = "1d6" }]
policy = "aggressive"
"""


@pytest.fixture(scope="module")
def data() -> bytes:
    return encode_lines(fight(DUEL, seed=3).events)


def test_cause_chain_ends_at_the_event_and_starts_at_a_root(data: bytes) -> None:
    """Each step's cause is the previous step; the first has no cause."""
    events = parse_log(data).events
    chain = cause_chain(events, len(events) - 1)
    assert chain[0].cause is None
    assert [s.cause for s in chain[1:]] == [s.seq for s in chain[:-1]]
    assert chain[-1].type == "EncounterEnded"


def test_effects_are_descendants_with_depth(data: bytes) -> None:
    """A turn's effects all lead back to it; depth 1 means caused directly."""
    events = parse_log(data).events
    turn = next(e for e in events if type(e).__name__ == "TurnStarted")
    found = effects(events, turn.seq)
    for step in found:
        assert turn.seq in [s.seq for s in cause_chain(events, step.seq)]
        assert (step.depth == 1) == (step.cause == turn.seq)


def test_out_of_range_seq_is_a_log_error(data: bytes) -> None:
    """Asking about a seq the log does not hold raises LogFormatError naming the range."""
    events = parse_log(data).events
    with pytest.raises(LogFormatError, match=r"no event -1: the log holds seq 0 to"):
        cause_chain(events, -1)


def test_diff_ignores_only_origin_fields(data: bytes) -> None:
    """A changed ``parent`` and ``chain`` are notes, not differences."""
    lines = data.splitlines(keepends=True)
    head = json.loads(lines[0])
    head["parent"] = "fork of x"
    end = json.loads(lines[-1])
    end["chain"] = "ff"
    other = [json.dumps(head).encode() + b"\n", *lines[1:-1], json.dumps(end).encode() + b"\n"]
    result = diff_logs(parse_log(data), parse_log(b"".join(other)))
    assert result.identical
    assert result.notes == [
        "seq 0: parent differs (where the log came from)",
        f"seq {len(lines) - 1}: chain differs (where the log came from)",
    ]


def test_chain_ok_broken_absent(data: bytes) -> None:
    """The chain verifies as written, breaks on any edit, and is absent from unfinished logs."""
    assert check_chain(data).status == "ok"
    lines = data.splitlines(keepends=True)
    assert check_chain(b"".join(lines[:-1])).status == "absent"
    swapped = [*lines[:3], lines[4], lines[3], *lines[5:]]
    assert check_chain(b"".join(swapped)).status == "broken"
    end = msgspec.json.decode(lines[-1])
    end["winner"] = "nobody"
    forged = [*lines[:-1], msgspec.json.encode(end) + b"\n"]
    assert check_chain(b"".join(forged)).status == "broken"


def test_chain_is_last_event_field(data: bytes) -> None:
    """``EncounterEnded.chain`` is 64 hex digits."""
    end = parse_log(data).events[-1]
    assert isinstance(end, EncounterEnded)
    assert len(end.chain) == 64
    int(end.chain, 16)


def test_digests_match_the_fold(data: bytes) -> None:
    """Every recorded digest matches the fold of the log's own events."""
    events = parse_log(data).events
    checked, mismatch = check_digests(events)
    assert mismatch is None
    assert checked == sum(isinstance(e, StateDigested) for e in events) > 0


def test_embed_json_cannot_close_a_script() -> None:
    """``<``, ``>``, ``&`` and line separators are escaped; the JSON still decodes the same."""
    value = {"name": "</script><!-- & \u2028"}
    text = embed_json(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value


def test_follow_waits_for_whole_lines(tmp_path: Path, data: bytes) -> None:
    """A half-written line is not yielded until its newline arrives."""
    path = tmp_path / "log.jsonl"
    lines = data.splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[1][:10])
    rest = [lines[1][10:], *lines[2:]]

    def sleep(_: float) -> None:
        if rest:
            with path.open("ab") as f:
                f.write(rest.pop(0))

    got = [line for _, line in follow(path, sleep=sleep)]
    assert got == lines
