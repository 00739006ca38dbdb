"""Re-simulation: the engine fed the recorded decisions, compared with the log event by event.

A log records every decision (the event answering each ``PriorityGranted``) and every die, so
re-running the header's encounter with the header's seed and those decisions must reproduce the
log byte for byte. No policy code runs and nothing in the log is executed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from engine import Decision, Fight, PriorityToken, find_ruleset
from events import (
    ActionDeclared,
    ActionRejected,
    DecisionFailed,
    EncounterStarted,
    Event,
    LogContents,
    LogFormatError,
    Pass,
    PriorityGranted,
    PriorityPassed,
    UnknownRulesetError,
    encode_event,
)


@dataclass(frozen=True)
class Recorded:
    """One recorded decision: the grant it answers and the decision itself."""

    grant: int
    who: str
    decision: Decision


def recorded_decisions(events: list[Event]) -> list[Recorded]:
    """The decisions of a log, in order: for each ``PriorityGranted``, the event answering it."""
    grants: dict[int, str] = {}
    out: list[Recorded] = []
    for event in events:
        if isinstance(event, PriorityGranted):
            grants[event.seq] = event.who
            continue
        if event.cause not in grants:
            continue
        match event:
            case ActionDeclared(action=action) | ActionRejected(action=action):
                decision = Decision(action=action)
            case PriorityPassed():
                decision = Decision(action=Pass())
            case DecisionFailed(kind=kind, detail=detail):
                decision = Decision(failure=kind, detail=detail)
            case _:
                continue
        out.append(Recorded(grant=event.cause, who=grants.pop(event.cause), decision=decision))
    return out


class OutOfDecisions(Exception):
    """The re-simulation asked for a decision the log does not hold."""


def check_header(header: EncounterStarted, name: str) -> None:
    """Refuse a log whose ruleset is unknown or was recorded under another rules version."""
    try:
        ruleset = find_ruleset(header.ruleset)
    except UnknownRulesetError as err:
        raise LogFormatError(f"{name}: {err}") from None
    if header.ruleset_version != ruleset.version:
        raise LogFormatError(
            f"{name}: recorded under {header.ruleset} rules version {header.ruleset_version},"
            f" but this initiative has version {ruleset.version}; it cannot be re-simulated"
        )


def replay_decider(decisions: list[Recorded]) -> Callable[[PriorityToken], Decision]:
    """A decide function that answers each token with the next recorded decision.

    If the fight has taken another course, the decision is handed on anyway: the comparison of
    events, not this function, names where the course changed.
    """
    queue = iter(decisions)

    def decide(token: PriorityToken) -> Decision:
        try:
            return next(queue).decision
        except StopIteration:
            raise OutOfDecisions(token.seq) from None

    return decide


@dataclass
class Divergence:
    """Where a re-simulation first differs from the log."""

    seq: int
    expected: bytes | None
    """The line the log holds (``None`` when the log ended first)."""
    got: bytes | None
    """The line the engine produced (``None`` when the engine stopped first)."""


@dataclass
class Verification:
    """The outcome of :func:`verify_log`."""

    events: int
    divergence: Divergence | None
    complete: bool

    @property
    def ok(self) -> bool:
        return self.divergence is None and self.complete


class _Stop(Exception):
    pass


def verify_log(contents: LogContents) -> Verification:
    """Re-simulate ``contents`` from its header and recorded decisions; compare every line."""
    header = contents.header
    check_header(header, contents.path or "<log>")
    lines = contents.lines
    found: list[Divergence] = []
    produced = 0

    def sink(event: Event) -> None:
        nonlocal produced
        line = encode_event(event)
        index = event.seq
        expected = lines[index] if index < len(lines) else None
        if expected is None and not contents.complete:
            raise OutOfDecisions(index)  # the log stops here: everything before it matched
        produced = index + 1
        if expected != line:
            found.append(Divergence(seq=index, expected=expected, got=line))
            raise _Stop

    fight = Fight(
        header.encounter,
        header.seed,
        sink=sink,
        parent=header.parent,
        keep_events=False,
        engine_version=header.engine,
    )
    try:
        fight.play(replay_decider(recorded_decisions(contents.events)))
    except _Stop:
        pass
    except OutOfDecisions:
        # The log ends before the encounter did: everything present matched.
        return Verification(events=produced, divergence=None, complete=False)
    if not found and produced < len(lines):
        found.append(Divergence(seq=produced, expected=lines[produced], got=None))
    divergence = found[0] if found else None
    return Verification(events=produced, divergence=divergence, complete=contents.complete)


def differing_fields(expected: bytes, got: bytes) -> list[tuple[str, object, object]]:
    """The top-level fields that differ between two encoded events."""
    a = msgspec.json.decode(expected)
    b = msgspec.json.decode(got)
    if not isinstance(a, dict) or not isinstance(b, dict):
        return [("line", a, b)]
    keys = list(dict.fromkeys([*a, *b]))
    return [(k, a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)]


def resimulate(contents: LogContents, upto: int | None = None) -> Fight:
    """A :class:`Fight` re-run from the log's header and decisions (to its end, or until the
    decisions run out)."""
    header = contents.header
    check_header(header, contents.path or "<log>")
    fight = Fight(header.encounter, header.seed, parent=header.parent, engine_version=header.engine)
    decisions = recorded_decisions(contents.events)
    if upto is not None:
        decisions = [d for d in decisions if d.grant <= upto]
    with contextlib.suppress(OutOfDecisions):
        fight.play(replay_decider(decisions))
    return fight
