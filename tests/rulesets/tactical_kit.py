"""Building tactical encounters for tests: combatants as dicts, written out as TOML text and
fought through ``tests/helpers.fight`` (the real Trio actors), or set at a position directly
(:func:`board`) to check one rule."""

from __future__ import annotations

import json
from typing import Any

from helpers import fight
from initiative.engine import Board, position

HI = 200
"""A skill that succeeds on every roll below ``fumble_from`` (100)."""


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


def unit(cid: str, side: str, x: float = 0.0, y: float = 0.0, init: int = 5, **kw: Any) -> dict:
    """A scripted combatant at (x, y) with a given initiative die."""
    data: dict[str, Any] = {
        "id": cid,
        "side": side,
        "hp": 20,
        "position": [x, y],
        "initiative_roll": init,
        "policy": "scripted",
        "weapons": [{"name": "sword", "damage": "3"}],
    }
    data.update(kw)
    return data


def text(*units: dict, options: dict | None = None, max_rounds: int = 1) -> str:
    lines = ['ruleset = "tactical"', f"max_rounds = {max_rounds}"]
    if options:
        lines.append("[options]")
        lines += [f"{k} = {toml_value(v)}" for k, v in options.items()]
    for u in units:
        lines.append("[[combatants]]")
        lines += [f"{k} = {toml_value(v)}" for k, v in u.items()]
    return "\n".join(lines) + "\n"


def run(*units: dict, options: dict | None = None, max_rounds: int = 1, seed: int = 1):  # type: ignore[no-untyped-def]
    """Fight the combatants through the real actors; returns the ``Result``."""
    return fight(text(*units, options=options, max_rounds=max_rounds), seed)


def events(result: Any, kind: str, **fields: Any) -> list[Any]:
    """The events of type ``kind`` whose fields equal ``fields``."""
    return [
        e
        for e in result.events
        if type(e).__name__ == kind and all(getattr(e, k) == v for k, v in fields.items())
    ]


def declared(result: Any, who: str) -> list[str]:
    """Type names of the actions ``who`` declared (``EndTurn`` left out), in order."""
    names = [type(e.action).__name__ for e in events(result, "ActionDeclared", who=who)]
    return [n for n in names if n != "EndTurn"]


def rejected(result: Any, who: str) -> list[str]:
    return [e.reason for e in events(result, "ActionRejected", who=who)]


def attack(target: str, **kw: Any) -> dict:
    return {"type": "Attack", "target": target, **kw}


def act(kind: str, **kw: Any) -> dict:
    return {"type": kind, **kw}


def caster(spell: dict, target: str) -> dict:
    """``a`` (side ``x``, first in the order) who knows ``spell``, casts it on ``target`` in
    its turn and never fails to."""
    cast = act("CastMagic", spell=spell["name"], target=target)
    return unit("a", "x", init=9, skills={"magic": HI}, spells=[spell], script=[cast])


def board(*units: dict, options: dict | None = None, **at: Any) -> Board:
    """The combatants standing at a position built directly (``engine.position``): no fight
    is played to reach it. ``at`` takes ``position``'s keywords (``turn``, ``conditions`` ...);
    dice are given to :meth:`Board.act`."""
    return position("tactical", combatants=units, options=options, **at)


def kinds(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]
