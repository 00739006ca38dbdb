"""Helpers for tests: fight an encounter written inline as TOML, and look at its events."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

from initiative.actors import Result, run_encounter, run_encounter_sync
from initiative.events import EncounterSpec, Event

from initiative import engine

ROOT = Path(__file__).parents[1]
"""The repository's top folder."""
_EXAMPLES = ROOT / "examples"
DUEL = _EXAMPLES / "openings-duel.toml"
"""The plainest bundled fight: one against one, under ``openings``."""

#: A bundled example of each ruleset, by ruleset.
EXAMPLE_OF_RULESET = {
    "openings": DUEL,
    "thriller": _EXAMPLES / "thriller-ambush.toml",
    "percentile": _EXAMPLES / "percentile-wilhelm.toml",
    "tactical": _EXAMPLES / "tactical-bridge.toml",
}


#: Each ruleset's plainest stats: agility alone, as inline TOML (inside ``stats = { ... }``),
#: for the rules tests whose combatants only need to stand and be ordered.
AGILITY_ONLY = {
    "openings": "agility = 1",
    "thriller": "agility = 10",
    "percentile": "agility = 30",
    "tactical": "ag = 10",
}


def sword_duel(header: str = "seed = 2", *, a_hp: int = 20, a_stats: str = "") -> str:
    """Two swordsmen a metre apart, ``a`` (red) and ``b`` (blue), both ``aggressive``: the
    encounter the actor tests fight, as TOML text. ``header``: the lines above the combatants
    (after the ruleset); ``a_hp``, and ``a_stats`` added to ``a``'s stats (``, initiative = 50``)."""
    return f"""
ruleset = "openings"
{header}
[[combatants]]
id = "a"
side = "red"
hp = {a_hp}
position = [0, 0]
stats = {{ strength = 3, defense = 2{a_stats} }}
weapons = [{{ name = "sword", damage = "1d8" }}]
policy = "aggressive"
[[combatants]]
id = "b"
side = "blue"
hp = 20
position = [1, 0]
stats = {{ strength = 3, defense = 2 }}
weapons = [{{ name = "sword", damage = "1d8" }}]
policy = "aggressive"
"""


def encounter(text: str) -> EncounterSpec:
    """Decode and normalize an encounter written as TOML text."""
    return engine.decode_encounter(tomllib.loads(text), name="<test>")


def fight(text: str, seed: int = 1, policies: Mapping[str, str] | None = None) -> Result:
    """Fight an inline encounter to its end with its policies (through the Trio actors)."""
    return run_encounter_sync(encounter(text), seed, policies=policies)


async def afight(text: str, seed: int = 1, **kwargs: object) -> Result:
    """:func:`fight` inside a running Trio test."""
    return await run_encounter(encounter(text), seed, **kwargs)  # type: ignore[arg-type]


def of_type(events: list[Event], name: str) -> list[Event]:
    """The events whose type tag is ``name``, in log order."""
    return [e for e in events if type(e).__name__ == name]


def examples(count: int) -> int:
    """How many examples a cross-surface property draws: ``count``, times the whole number in
    ``INITIATIVE_STRESS`` when it is set (``INITIATIVE_STRESS=20 pytest tests/test_gm_properties.py``
    plays twenty times the fights, to hunt for what the usual sample misses)."""
    factor = os.environ.get("INITIATIVE_STRESS", "1")
    if not factor.isdigit() or int(factor) < 1:
        raise ValueError(f"INITIATIVE_STRESS must be a whole number of 1 or more, not {factor!r}")
    return count * int(factor)
