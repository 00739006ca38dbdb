"""A small kit for the thriller tests: encounters written as TOML in a line or two, and
lookups in their logs; or combatants set at a position directly (:func:`board`)."""

from __future__ import annotations

from typing import Any

from helpers import fight
from initiative.actors import Result
from initiative.engine import Board, position
from initiative.events import Event


def fighter(
    cid: str, side: str, *, stats: str = "agility = 10", x: float = 0.0, y: float = 0.0, **keys: str
) -> str:
    """One ``[[combatants]]`` table, scripted unless ``policy`` is given; ``keys`` are raw TOML."""
    lines = [
        "[[combatants]]",
        f'id = "{cid}"',
        f'side = "{side}"',
        f"hp = {keys.pop('hp', '100')}",
        f"stats = {{ {stats} }}",
        f"position = [{x}, {y}]",
        f'policy = "{keys.pop("policy", "scripted")}"',
    ]
    lines += [f"{k} = {v}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def run(*fighters: str, options: str = "", rounds: int = 2, seed: int = 1) -> Result:
    """Fight the encounter made of ``fighters`` under the thriller ruleset."""
    text = f'ruleset = "thriller"\nmax_rounds = {rounds}\n[options]\n{options}\n' + "\n".join(
        fighters
    )
    return fight(text, seed)


def events(result: Result, kind: str, **fields: Any) -> list[Any]:
    """Events of type ``kind`` whose fields equal ``fields``."""
    return [
        e
        for e in result.events
        if type(e).__name__ == kind and all(getattr(e, k) == v for k, v in fields.items())
    ]


def one(result: Result, kind: str, **fields: Any) -> Any:
    """The only event of type ``kind`` matching ``fields``."""
    found = events(result, kind, **fields)
    assert len(found) == 1, f"{len(found)} {kind} events match {fields}"
    return found[0]


def turn_of(result: Result, who: str, round_: int) -> list[Event]:
    """The events of ``who``'s turn in round ``round_`` (TurnStarted to TurnEnded)."""
    start = one(result, "TurnStarted", who=who, round=round_).seq
    end = next(
        e.seq
        for e in result.events
        if type(e).__name__ == "TurnEnded" and e.seq > start and e.who == who
    )
    return result.events[start : end + 1]


def declared(result: Result, who: str) -> list[Any]:
    """The ``ActionDeclared`` events of ``who`` that are not ``EndTurn``."""
    return [
        e for e in events(result, "ActionDeclared", who=who) if type(e.action).__name__ != "EndTurn"
    ]


def table(cid: str, side: str, *, x: float = 0.0, agility: int = 10, **keys: Any) -> dict:
    """One combatant as an encounter-file table, for :func:`board`."""
    return {
        "id": cid,
        "side": side,
        "hp": 100,
        "stats": {"agility": agility},
        "position": [x, 0.0],
        **keys,
    }


def board(*combatants: dict, options: dict | None = None, **at: Any) -> Board:
    """The combatants at a position built directly (``engine.position``), no fight played to
    reach it; ``at`` takes ``position``'s keywords (``turn``, ``ap``, ``counters`` ...)."""
    return position("thriller", combatants=combatants, options=options, **at)
