"""Why: the chain of causes that led to an event, and the events it caused in turn.

Every event names its ``cause`` (the seq of the event that made it happen), so a log is a forest
of cause trees rooted at ``EncounterStarted``. Reading it needs no rules and runs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from initiative.events import Event, LogFormatError

from ._narrate import summary, who_of

_SUMMARY_WIDTH = 100


@dataclass(frozen=True)
class Step:
    """One event on a causal path: where it is, what it is, who it is about, in one line."""

    seq: int
    type: str
    who: str | None
    summary: str
    cause: int | None
    depth: int = 0
    """For effects: how many cause links below the asked-about event (1 = caused directly)."""

    def to_builtins(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "type": self.type,
            "who": self.who,
            "summary": self.summary,
            "cause": self.cause,
            "depth": self.depth,
        }


def step_of(event: Event, depth: int = 0) -> Step:
    text = summary(event)
    if len(text) > _SUMMARY_WIDTH:
        text = text[: _SUMMARY_WIDTH - 1] + "…"
    return Step(
        seq=event.seq,
        type=type(event).__name__,
        who=who_of(event),
        summary=text,
        cause=event.cause,
        depth=depth,
    )


def _check_seq(events: list[Event], seq: int, name: str) -> None:
    if not 0 <= seq < len(events):
        raise LogFormatError(f"{name}: no event {seq}: the log holds seq 0 to {len(events) - 1}")


def cause_chain(events: list[Event], seq: int, *, name: str = "<log>") -> list[Step]:
    """The events from the root cause down to event ``seq`` (inclusive), root first."""
    _check_seq(events, seq, name)
    chain: list[Step] = []
    current: int | None = seq
    while current is not None:
        event = events[current]
        chain.append(step_of(event))
        # The reader guarantees cause < seq, so this walk always ends.
        current = event.cause
    chain.reverse()
    return chain


def effects(events: list[Event], seq: int, *, name: str = "<log>") -> list[Step]:
    """Every event that ``seq`` caused, directly or through others, in log order, with depth."""
    _check_seq(events, seq, name)
    depth = {seq: 0}
    out: list[Step] = []
    for event in events[seq + 1 :]:
        if event.cause is not None and event.cause in depth:
            depth[event.seq] = depth[event.cause] + 1
            out.append(step_of(event, depth[event.seq]))
    return out


def causes_and_effects(events: list[Event]) -> dict[int, list[int]]:
    """For each seq, the seqs it caused directly (a map used by renderers)."""
    children: dict[int, list[int]] = {}
    for event in events:
        if event.cause is not None:
            children.setdefault(event.cause, []).append(event.seq)
    return children


#: Events that decide an outcome: the dice and the tests they feed.
_DECIDING = ("DiceRolled", "DiceGiven", "AttackResolved", "CheckResolved")


def deciding_rolls(events: list[Event], chain: list[Step]) -> dict[int, list[Step]]:
    """For each step of a cause chain, the rolls and tests that decided it: the events with the
    same cause recorded between that cause and the step (the attack roll, the test, the damage
    dice behind a ``DamageDealt``), which the chain of causes alone passes over."""
    out: dict[int, list[Step]] = {}
    for step in chain:
        if step.cause is None:
            continue
        rolls = [
            step_of(e)
            for e in events[step.cause + 1 : step.seq]
            if e.cause == step.cause and type(e).__name__ in _DECIDING
        ]
        if rolls:
            out[step.seq] = rolls
    return out
