"""Narration: ``replay``'s line per event, from the log alone (no rules run); the words are
the vocabulary's (:mod:`._vocabulary`), this keeps the names and the nesting of openings."""

from __future__ import annotations

from initiative.events import (
    AddCombatant,
    EncounterEnded,
    EncounterStarted,
    Event,
    GmOverride,
    OpeningClosed,
    OpeningOpened,
    Override,
    Position,
    RoundStarted,
    TurnStarted,
)

from ._gm_words import gm_words
from ._literal import literal
from ._vocabulary import header_names, told


class Narrator:
    """Turns events into Rich-markup lines; keeps the names and the nesting of openings."""

    def __init__(self, *, verbose: bool = False) -> None:
        self.names: dict[str, str] = {}
        self.gm_done: dict[int, Override] = {}
        self.depth = 0
        self.verbose = verbose

    def name(self, who: str | None) -> str:
        if who is None:
            return "-"
        return f"[bold]{literal(self.names.get(who, who))}[/bold]"

    def __call__(self, event: Event) -> str | None:
        """One line of narration for ``event``, or ``None`` for bookkeeping events."""
        text = self._line(event)
        depth = self.depth
        if isinstance(event, OpeningOpened):
            self.depth += 1
        elif isinstance(event, OpeningClosed):
            self.depth = depth = max(0, self.depth - 1)
        if text is None:
            if not self.verbose:
                return None
            text = f"[dim]{literal(type(event).__name__)} {literal(summary(event))}[/dim]"
        top = isinstance(event, (RoundStarted, TurnStarted, EncounterEnded))
        indent = "  " * (depth + (0 if top else 1))
        return f"[dim]{event.seq:>5}[/dim] {indent}{text}"

    def _line(self, event: Event) -> str | None:
        if isinstance(event, EncounterStarted):
            self.names = header_names(event)
        return told(event, self)


def who_of(event: Event) -> str | None:
    """The combatant an event is about, if any."""
    who = getattr(event, "who", None)
    if isinstance(event, GmOverride):  # about the combatant the GM changed
        o = event.override
        who = o.id if isinstance(o, AddCombatant) else getattr(o, "who", None)
    if isinstance(who, tuple):
        return ",".join(who)
    return who if isinstance(who, str) else None


def summary(event: Event) -> str:
    """A one-line, plain-text summary of an event's own fields (for tables)."""
    if isinstance(event, GmOverride):
        return gm_words(event.override, str)
    skip = {"seq", "cause", "who", "encounter"}
    parts = []
    for name in event.__struct_fields__:
        if name in skip:
            continue
        value = getattr(event, name)
        if value is None or value == () or value == "":
            continue
        if isinstance(value, Position):
            value = str(value)
        elif hasattr(value, "describe"):
            value = value.describe()
        elif hasattr(value, "__struct_fields__"):
            value = " ".join(
                f"{k}={getattr(value, k)}"
                for k in value.__struct_fields__
                if getattr(value, k) not in (None, (), "")
            )
        elif isinstance(value, tuple):
            value = ",".join(str(v) for v in value)
        parts.append(f"{name}={value}")
    return " ".join(parts)
