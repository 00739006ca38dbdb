"""A ruleset's own actions: namespaced tags, registered once, decoded like the shared ones."""

from __future__ import annotations

import pytest
from initiative.events import (
    Action,
    ActionDeclared,
    ActionRejected,
    Attack,
    LogFormatError,
    decode_event,
    encode_event,
    parse_log,
    register_actions,
)


class Lunge(Action, frozen=True, tag="vocabtest.Lunge"):
    target: str


def test_a_registered_action_decodes_to_an_equal_event() -> None:
    register_actions(Lunge)
    register_actions(Lunge)  # twice is harmless
    for event in (
        ActionDeclared(seq=3, who="a", action=Lunge(target="b"), cost=1),
        ActionRejected(seq=4, who="a", action=Lunge(target="c"), reason="no"),
        ActionDeclared(seq=5, who="a", action=Attack(target="b")),
    ):
        line = encode_event(event)
        decoded = decode_event(line)
        assert decoded == event and type(decoded) is type(event)
        assert encode_event(decoded) == line


def test_an_unregistered_tag_is_a_format_error_naming_the_line() -> None:
    from tests.events.test_log import sample_bytes

    data = sample_bytes().replace(b'"type":"Attack"', b'"type":"nowhere.Attack"')
    with pytest.raises(LogFormatError, match="line 3: not a valid event"):
        parse_log(data)


@pytest.mark.parametrize("tag", ["Lunge", "Attack", ".Lunge", "Lunge."])
def test_a_tag_must_be_namespaced_by_its_ruleset(tag: str) -> None:
    cls = type(Action)("Bad", (Action,), {"__annotations__": {}}, frozen=True, tag=tag)
    with pytest.raises(ValueError, match="must be namespaced"):
        register_actions(cls)


def test_a_tag_cannot_be_taken_twice() -> None:
    class Other(Action, frozen=True, tag="vocabtest.Lunge"):
        pass

    register_actions(Lunge)
    with pytest.raises(ValueError, match="registered twice"):
        register_actions(Other)
