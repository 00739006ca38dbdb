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
from initiative.engine import (
    Decision,
    Fight,
    LiveState,
    PriorityToken,
    chain_step,
    find_ruleset,
    recorded_dice,
    state_digest,
)
from initiative.events import (
    ActionDeclared,
    ActionRejected,
    DecisionFailed,
    EncounterEnded,
    EncounterStarted,
    Event,
    GmOverride,
    LogContents,
    LogFormatError,
    Pass,
    PriorityGranted,
    PriorityPassed,
    SeedChanged,
    StateDigested,
    UnknownRulesetError,
    decode_event,
    encode_event,
)


@dataclass(frozen=True)
class Recorded:
    """One recorded decision: the grant it answers and the decision itself."""

    grant: int
    who: str
    decision: Decision
    answer: int = -1
    """Seq of the event that records the decision."""


def recorded_decisions(events: list[Event]) -> list[Recorded]:
    """The decisions of a log, in order: for each ``PriorityGranted``, the event answering it
    (or the GM's override that interrupted it, after which priority is granted again)."""
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
            case GmOverride(override=override):
                # The GM stepped in at this grant: fed back at the same point, as a decision.
                decision = Decision(override=override)
            case _:
                continue
        out.append(
            Recorded(
                grant=event.cause, who=grants.pop(event.cause), decision=decision, answer=event.seq
            )
        )
    return out


def reseeds(events: list[Event]) -> dict[int, int]:
    """Where a log's dice changed seed (a fork's ``--seed``): ``{seq before: new seed}``."""
    return {e.seq - 1: e.seed for e in events if isinstance(e, SeedChanged)}


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
        line = fight.sink.last_line  # the engine's own encoding of ``event``
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
        reseed=reseeds(contents.events),
        dice=recorded_dice(contents.events),
    )
    try:
        fight.play(replay_decider(recorded_decisions(contents.events)))
    except _Stop:
        pass
    except OutOfDecisions:
        # The engine waits for a decision the log does not hold. Every line up to here matched;
        # a line after it (forged damage, a defeat) is one the rules never produced.
        if produced < len(lines):
            found.append(Divergence(seq=produced, expected=lines[produced], got=None))
            return Verification(events=produced, divergence=found[0], complete=contents.complete)
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
    fight = Fight(
        header.encounter,
        header.seed,
        parent=header.parent,
        engine_version=header.engine,
        reseed=reseeds(contents.events),
        dice=recorded_dice(contents.events),
    )
    decisions = recorded_decisions(contents.events)
    if upto is not None:
        decisions = [d for d in decisions if d.grant <= upto]
    with contextlib.suppress(OutOfDecisions):
        fight.play(replay_decider(decisions))
    return fight


@dataclass(frozen=True)
class ChainCheck:
    """The outcome of :func:`check_chain` on a log's raw bytes."""

    status: str
    """``ok`` (the chain matches), ``absent`` (no chain recorded: an old or unfinished log) or
    ``broken`` (lines were edited, reordered or removed)."""
    detail: str = ""

    @property
    def tampered(self) -> bool:
        return self.status == "broken"


def check_chain(data: bytes) -> ChainCheck:
    """Check the tamper-evidence chain that ``EncounterEnded.chain`` records over every line.

    Works on raw bytes, before the lines are parsed, so reordered or removed lines are reported
    as tampering rather than as a format error. A torn last line is ignored, as the reader does.
    """
    lines = [line + b"\n" for line in data.split(b"\n")[:-1]]
    ends: list[tuple[int, EncounterEnded]] = []
    for index, line in enumerate(lines):
        if b"EncounterEnded" not in line:
            continue
        try:
            event = decode_event(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if isinstance(event, EncounterEnded):
            ends.append((index, event))
    if not ends:
        return ChainCheck("absent", "the log has no EncounterEnded (unfinished)")
    index, ended = ends[-1]
    if not ended.chain:
        return ChainCheck("absent", "EncounterEnded records no chain (written by an older engine)")
    if len(ends) > 1:
        return ChainCheck("broken", f"{len(ends)} EncounterEnded lines")
    if index != len(lines) - 1:
        return ChainCheck(
            "broken", f"EncounterEnded is line {index + 1} of {len(lines)}, not the last"
        )
    h = b""
    for line in lines[:-1]:
        h = chain_step(h, line)
    h = chain_step(h, encode_event(msgspec.structs.replace(ended, chain="")))
    if h.hex() != ended.chain:
        return ChainCheck(
            "broken",
            "the chain recorded in EncounterEnded does not match the log's lines"
            " (lines were edited, reordered or removed)",
        )
    return ChainCheck("ok")


@dataclass(frozen=True)
class DigestMismatch:
    """A recorded state digest that the fold of the log's own events does not reproduce."""

    seq: int
    round: int
    recorded: str
    folded: str


def check_digests(events: list[Event]) -> tuple[int, DigestMismatch | None]:
    """Fold the log's events and compare each ``StateDigested`` with the folded state.

    Returns how many digests were checked and the first mismatch (``None`` when all match)."""
    state = LiveState()  # the engine's own transition, one event at a time
    checked = 0
    for event in events:
        if isinstance(event, StateDigested):
            checked += 1
            folded = state_digest(state.freeze())
            if folded != event.digest:
                return checked, DigestMismatch(event.seq, event.round, event.digest, folded)
        state.apply(event)
    return checked, None
