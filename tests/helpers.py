"""Helpers for tests: fight an encounter written inline as TOML, and look at its events."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping

from initiative.actors import Result, run_encounter, run_encounter_sync
from initiative.events import EncounterSpec, Event

from initiative import engine


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
