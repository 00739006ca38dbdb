"""The log: whole lines, torn-tail recovery, errors that name the line, upcasting."""

import pytest
from helpers import encounter
from hypothesis import given, settings, strategies as st
from initiative.events import (
    LOG_FORMAT,
    ActionDeclared,
    Attack,
    EncounterStarted,
    LogFormatError,
    LogWriter,
    RoundStarted,
    encode_event,
    parse_log,
    read_log,
)

SPEC = encounter(
    """
ruleset = "openings"
[[combatants]]
id = "a"
side = "x"
hp = 5
[[combatants]]
id = "b"
side = "y"
hp = 5
"""
)


def sample_events():
    return [
        EncounterStarted(
            seq=0,
            format=LOG_FORMAT,
            engine="t",
            ruleset="openings",
            ruleset_version=1,
            rng="r",
            seed=1,
            encounter=SPEC,
        ),
        RoundStarted(seq=1, cause=0, round=1),
        ActionDeclared(seq=2, cause=1, who="a", action=Attack(target="b"), cost=2),
        RoundStarted(seq=3, cause=0, round=2),
    ]


def sample_bytes() -> bytes:
    return b"".join(encode_event(e) for e in sample_events())


def test_round_trip():
    """Every event decodes to an equal event."""
    contents = parse_log(sample_bytes())
    assert contents.events == sample_events()
    assert contents.torn == 0 and contents.warnings == []


def test_writer_appends_whole_lines(tmp_path):
    """The writer's file reads back as the same events."""
    path = tmp_path / "log.jsonl"
    with LogWriter(path) as writer:
        for e in sample_events():
            writer.append(e)
    assert read_log(path).events == sample_events()


def test_torn_last_line_is_dropped_with_a_warning():
    """A crash mid-write leaves a line without newline: dropped, and said so."""
    data = sample_bytes()
    contents = parse_log(data[:-10], name="f.jsonl")
    assert [e.seq for e in contents.events] == [0, 1, 2]
    assert contents.torn > 0
    assert contents.warnings and "torn last line" in contents.warnings[0]


def test_corrupt_middle_line_is_an_error_naming_it():
    """Damage before good lines is never skipped: the error names line 2."""
    lines = sample_bytes().split(b"\n")
    lines[1] = lines[1][:20] + b"#" + lines[1][21:]
    with pytest.raises(LogFormatError, match=r"f\.jsonl: line 2"):
        parse_log(b"\n".join(lines), name="f.jsonl")


def test_a_byte_that_is_not_utf8_is_an_error_naming_its_line():
    """Even in a field the decoder skips (an unknown key), a line that is not UTF-8 text is
    refused, naming the line: the commands print lines as text."""
    lines = sample_bytes().split(b"\n")
    lines[2] = lines[2][:-1] + b',"extra":"\xff"}'
    with pytest.raises(LogFormatError, match=r"f\.jsonl: line 3: not UTF-8"):
        parse_log(b"\n".join(lines), name="f.jsonl")


def test_removed_line_is_an_error_naming_the_gap():
    """A missing line shows as a seq gap at the next line."""
    lines = sample_bytes().split(b"\n")
    del lines[2]
    with pytest.raises(LogFormatError, match="line 3: seq is 3, expected 2"):
        parse_log(b"\n".join(lines))


def test_first_line_must_be_the_header():
    """A log that does not start with EncounterStarted is refused."""
    lines = sample_bytes().split(b"\n")
    with pytest.raises(LogFormatError, match="line 1: the first event must be EncounterStarted"):
        parse_log(b"\n".join(lines[1:]))


def test_newer_format_is_refused():
    """A log from a newer format is refused with advice, not misread."""
    data = sample_bytes().replace(b'"format":%d' % LOG_FORMAT, b'"format":99', 1)
    with pytest.raises(LogFormatError, match="format 99 is newer"):
        parse_log(data)


def test_unknown_event_type_is_an_error():
    """An unknown type tag names its line (a log never runs code: it only decodes data)."""
    data = sample_bytes() + b'{"type":"__import__","seq":4,"cause":null}\n'
    with pytest.raises(LogFormatError, match="line 5"):
        parse_log(data)


def test_empty_log_is_an_error():
    """An empty file has no header."""
    with pytest.raises(LogFormatError, match="empty log"):
        parse_log(b"")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_cut_at_any_byte_keeps_exactly_the_complete_events(data):
    """Cutting the log at any byte offset reads back exactly the events wholly before the cut."""
    raw = sample_bytes()
    cut = data.draw(st.integers(min_value=1, max_value=len(raw)))
    ends = [i + 1 for i, b in enumerate(raw) if b == ord("\n")]
    complete = sum(1 for end in ends if end <= cut)
    if complete == 0:
        with pytest.raises(LogFormatError):
            parse_log(raw[:cut])
        return
    contents = parse_log(raw[:cut])
    assert [e.seq for e in contents.events] == list(range(complete))
    assert (contents.torn > 0) == (cut not in ends)


def test_every_byte_offset_of_a_real_log(tmp_path):
    """The exhaustive version over a real fight's first kilobytes: no offset loses an event."""
    raw = sample_bytes()
    ends = [i + 1 for i, b in enumerate(raw) if b == ord("\n")]
    for cut in range(ends[0], len(raw) + 1):
        contents = parse_log(raw[:cut])
        assert len(contents.events) == sum(1 for end in ends if end <= cut)


def test_a_line_split_in_two_is_an_error_naming_it():
    """A header cut in two at a comma still makes one valid event when the lines are read as
    one array; the reader is not fooled by that: line 1 is not an event."""
    lines = sample_bytes().split(b"\n")
    cut = lines[0].index(b',"seq"') + 1
    lines[0:1] = [lines[0][:cut].rstrip(b","), lines[0][cut:]]
    with pytest.raises(LogFormatError, match="line 1: not a valid event"):
        parse_log(b"\n".join(lines))


def test_two_events_on_one_line_are_an_error_naming_it():
    lines = sample_bytes().split(b"\n")
    lines[1:3] = [lines[1] + b"," + lines[2]]
    with pytest.raises(LogFormatError, match="line 2: not a valid event"):
        parse_log(b"\n".join(lines))


def test_the_checks_hold_when_every_line_decodes():
    """Lines that all decode still get every check: a cause naming a later event, an event
    about someone who never joined, a second header."""
    lines = sample_bytes().split(b"\n")
    ahead = lines.copy()
    ahead[1] = ahead[1].replace(b'"cause":0', b'"cause":3')
    with pytest.raises(LogFormatError, match="line 2: cause 3 does not name an earlier event"):
        parse_log(b"\n".join(ahead))
    stranger = [
        *lines[:-1],
        b'{"type":"Healed","seq":4,"cause":0,"who":"zed","amount":1,"hp":5}',
        b"",
    ]
    with pytest.raises(LogFormatError, match="line 5: Healed names 'zed', who has not joined"):
        parse_log(b"\n".join(stranger))
    second = [*lines[:-1], lines[0].replace(b'"seq":0', b'"seq":4'), b""]
    with pytest.raises(LogFormatError, match="line 5: a second EncounterStarted header"):
        parse_log(b"\n".join(second))


def test_a_real_log_reads_as_its_lines_decoded_one_by_one(tmp_path):
    """The reader decodes a whole log in one call; that gives what decoding each line does."""
    from initiative.events import decode_event

    import initiative

    initiative.run("examples/openings-skirmish.toml", seed=7, out=tmp_path / "f.jsonl")
    raw = (tmp_path / "f.jsonl").read_bytes()
    contents = read_log(tmp_path / "f.jsonl")
    assert contents.events == [decode_event(line) for line in raw.splitlines()]
    assert contents.lines == raw.splitlines(keepends=True)
    assert not contents.torn and not contents.warnings
