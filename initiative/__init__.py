"""initiative: tabletop-RPG combat as an event-sourced actor system.

The front door for scripts and notebooks::

    import initiative
    result = initiative.run("examples/openings-skirmish.toml", seed=7, out="fight.jsonl")
    log = initiative.load("fight.jsonl")
    print(initiative.verify(log).ok)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import trio

import engine
from actors import Result, run_encounter
from events import (
    EncounterFileError as EncounterFileError,
    EncounterSpec,
    IllegalActionError as IllegalActionError,
    InitiativeError as InitiativeError,
    LogContents,
    LogFormatError as LogFormatError,
    PolicyLoadError as PolicyLoadError,
    ReplayDivergedError as ReplayDivergedError,
    UnknownRulesetError as UnknownRulesetError,
    read_log,
)
from replays import Verification, state_at, verify_log

from ._logging import ensure_configured

__all__ = [
    "EncounterFileError",
    "IllegalActionError",
    "InitiativeError",
    "LogFormatError",
    "PolicyLoadError",
    "ReplayDivergedError",
    "UnknownRulesetError",
    "load",
    "load_encounter",
    "run",
    "state",
    "verify",
]


def load_encounter(path: str | os.PathLike[str]) -> EncounterSpec:
    """Read and normalize an encounter file."""
    return engine.load_encounter(path)


def run(
    encounter: str | os.PathLike[str] | EncounterSpec,
    seed: int | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    policies: Mapping[str, str] | None = None,
    executor: str = "auto",
) -> Result:
    """Fight an encounter (a file or a spec) with its policies; optionally write the log.

    ``executor="auto"`` calls the policies in line when every one is trusted and synchronous
    (the built-ins, and functions marked with :func:`actors.in_line`), else through a Trio task
    per combatant; ``"trio"`` or ``"inline"`` forces one. The log is the same either way."""
    ensure_configured()
    spec = encounter if isinstance(encounter, EncounterSpec) else engine.load_encounter(encounter)
    the_seed = spec.seed if seed is None else seed
    target = Path(out) if out is not None else None
    return trio.run(
        lambda: run_encounter(
            spec,
            the_seed,
            policies=policies,
            out=target,
            executor=executor,  # type: ignore[arg-type]
        )
    )


def load(path: str | os.PathLike[str]) -> LogContents:
    """Read a log (a torn last line is dropped and listed in ``warnings``)."""
    return read_log(path)


def verify(log: LogContents | str | os.PathLike[str]) -> Verification:
    """Re-simulate a log and compare every event."""
    contents = log if isinstance(log, LogContents) else read_log(log)
    return verify_log(contents)


def state(
    log: LogContents | str | os.PathLike[str], at: int | None = None
) -> engine.EncounterState:
    """The state after event ``at`` (the last when ``None``), folded from the log."""
    contents = log if isinstance(log, LogContents) else read_log(log)
    return state_at(contents, at)
