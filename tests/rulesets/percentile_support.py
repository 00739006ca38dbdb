"""Shared bits of the percentile tests: inline combatants and log readers."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from initiative.events import Event

from tests.helpers import of_type

HEADER = """
ruleset = "percentile"
max_rounds = {rounds}
{options}
"""


def toml(*combatants: str, rounds: int = 3, options: str = "") -> str:
    """An encounter text from combatant tables (each a ``[[combatants]]`` body)."""
    head = HEADER.format(rounds=rounds, options=f"[options]\n{options}" if options else "")
    body = "".join(f"\n[[combatants]]\n{c.strip()}\n" for c in combatants)
    return head + body


def turns_by_round(events: list[Event]) -> dict[int, list[str]]:
    """Who started a turn, per round, in order."""
    turns: dict[int, list[str]] = defaultdict(list)
    for e in of_type(events, "TurnStarted"):
        turns[e.round].append(e.who)  # type: ignore[attr-defined]
    return dict(turns)


def fields(event: Event, *names: str) -> tuple[Any, ...]:
    return tuple(getattr(event, n) for n in names)


def dice_for(events: list[Event], purpose: str) -> list[Event]:
    return [e for e in of_type(events, "DiceRolled") if e.purpose == purpose]  # type: ignore[attr-defined]
