"""The log sink: every fight records through one, and one rule says when a log is written."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from initiative.actors import aggressive
from initiative.engine import Decision, Fight, LogSink, PriorityToken, load_encounter
from initiative.events import (
    EncounterEnded,
    Event,
    ReplayDivergedError,
    StateDigested,
    parse_log,
    read_log,
)
from packages import FOLDERS

ROOT = Path(__file__).parents[2]
DUEL = load_encounter(ROOT / "examples" / "openings-duel.toml")


def decide(token: PriorityToken) -> Decision:
    return Decision(action=aggressive(token.view))


def test_only_the_sink_opens_a_log_for_writing() -> None:
    """``run``, ``serve``, ``batch``, ``step``, ``fork`` and the environments write their logs
    through a fight's :class:`LogSink`: no module but the sink makes a ``LogWriter``."""
    makers = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            if "LogWriter" not in text:  # (parsing only the files that name it is quicker)
                continue
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Call):
                    called = node.func
                    name = called.attr if isinstance(called, ast.Attribute) else None
                    name = called.id if isinstance(called, ast.Name) else name
                    if name == "LogWriter":
                        makers.append(str(path.relative_to(ROOT)))
    assert makers == ["engine/_sink.py"]


def test_the_log_is_on_disk_before_each_question_and_heard_only_once_written(
    tmp_path: Path,
) -> None:
    """At each grant the lines so far are written in one write, and ``written`` hears them
    only then; the file is the fight's whole log, the lines the sink keeps."""
    log = tmp_path / "duel.jsonl"
    heard: list[bytes] = []
    sizes: list[tuple[int, int]] = []  # (bytes heard, bytes on disk) as each flush is heard

    def written(lines: list[bytes]) -> None:
        heard.extend(lines)
        sizes.append((sum(map(len, heard)), log.stat().st_size))

    def asked(token: PriorityToken) -> Decision:
        assert log.stat().st_size == sum(map(len, heard)) == sum(map(len, sink.lines))
        return decide(token)

    with LogSink(log, keep_lines=True, written=written) as sink:
        fight = Fight(DUEL, 3, sink=sink)
        fight.play(asked)
    assert all(on_disk == told for told, on_disk in sizes)
    assert log.read_bytes() == b"".join(heard) == b"".join(sink.lines)
    assert len(sizes) < fight.next_seq  # one write per question, not per event
    assert read_log(log).events == fight.events


def test_a_sink_that_keeps_no_log_encodes_nothing_and_its_hook_sees_every_event() -> None:
    """``encode=False`` (a batch that keeps no logs): no line, no chain, empty digests; the
    hook sees every event the fight records, the same events but for those digests."""
    seen: list[Event] = []
    fight = Fight(DUEL, 3, sink=LogSink(encode=False, on_event=seen.append))
    fight.play(decide)
    assert fight.sink.last_line == fight.sink.chain == b""
    assert seen == fight.events and len(seen) == fight.next_seq
    ended = seen[-1]
    assert isinstance(ended, EncounterEnded) and ended.chain == ""
    assert {e.digest for e in seen if isinstance(e, StateDigested)} == {""}
    logged = Fight(DUEL, 3)
    logged.play(decide)
    assert [type(e) for e in logged.events] == [type(e) for e in seen]


def test_a_resumed_log_that_the_fight_does_not_give_again_is_refused_and_left_alone(
    tmp_path: Path,
) -> None:
    """A resumed log's lines are checked, not written: the first one the fight does not give
    byte for byte stops it, naming its seq, and the file is as it was."""
    log = tmp_path / "duel.jsonl"
    with LogSink(log) as sink:
        Fight(DUEL, 3, sink=sink).play(decide)
    lines = log.read_bytes().splitlines(keepends=True)[:12]
    lines[7] = lines[7].replace(b'"cause":', b'"cause": ', 1)  # same event, other bytes
    log.write_bytes(b"".join(lines))
    with LogSink(log, append=True) as sink:
        sink.resume(parse_log(log.read_bytes(), name=str(log)))
        with pytest.raises(ReplayDivergedError, match=r"duel\.jsonl: .* differs from it at seq 7;"):
            Fight(DUEL, 3, sink=sink).play(decide)
    assert log.read_bytes() == b"".join(lines)
