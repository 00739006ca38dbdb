"""initiative: tabletop-RPG combat as an event-sourced actor system.

The front door for scripts and notebooks::

    import initiative
    result = initiative.run("examples/openings-skirmish.toml", seed=7, out="fight.jsonl")
    log = initiative.load("fight.jsonl")
    print(initiative.verify(log).ok)

Policies are names, functions, async functions, objects with ``decide`` or classes
(``policies={"north": lambda view: view.legal[0].action}``). Fights can also be stepped one
decision at a time (:func:`step`) or awaited from Trio code (:func:`run_async`). The library is
quiet: its warnings are records of the standard ``logging`` module under ``initiative.*``
(never raw lines on standard error) unless the caller configures structlog. See ``docs/library.md``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._logging import ensure_configured

if TYPE_CHECKING:
    from initiative import engine
    from initiative.actors import PolicyChoice, Result
    from initiative.events import (
        EncounterFileError as EncounterFileError,
        EncounterSpec,
        IllegalActionError as IllegalActionError,
        InitiativeError as InitiativeError,
        LogContents,
        LogFormatError as LogFormatError,
        PolicyFailedError as PolicyFailedError,
        PolicyLoadError as PolicyLoadError,
        ReplayDivergedError as ReplayDivergedError,
        UnknownRulesetError as UnknownRulesetError,
    )
    from initiative.replays import Verification

    from ._stepping import SteppedFight as SteppedFight

ensure_configured()

#: The errors this package re-exports from ``initiative.events``.
_ERRORS = frozenset(
    (
        "EncounterFileError",
        "IllegalActionError",
        "InitiativeError",
        "LogFormatError",
        "PolicyFailedError",
        "PolicyLoadError",
        "ReplayDivergedError",
        "UnknownRulesetError",
    )
)


def __getattr__(name: str) -> Any:
    # The events, the engine, the actors and Trio load on first use, so that the command line
    # (which imports this package) starts without them: ``initiative --help`` needs none.
    if name in _ERRORS:
        from initiative import events

        value = getattr(events, name)
        globals()[name] = value
        return value
    if name == "SteppedFight":
        from ._stepping import SteppedFight

        return SteppedFight
    if name == "Stepper":  # the old name, deprecated: ``Stepper`` now means engine.Stepper alone
        import warnings

        from ._stepping import SteppedFight

        warnings.warn(
            "initiative.Stepper is now initiative.SteppedFight (engine.Stepper is the engine's"
            " stepping object)",
            DeprecationWarning,
            stacklevel=2,
        )
        return SteppedFight
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "EncounterFileError",
    "IllegalActionError",
    "InitiativeError",
    "LogFormatError",
    "PolicyFailedError",
    "PolicyLoadError",
    "ReplayDivergedError",
    "SteppedFight",
    "UnknownRulesetError",
    "load",
    "load_encounter",
    "run",
    "run_async",
    "state",
    "step",
    "verify",
]


def load_encounter(path: str | os.PathLike[str]) -> EncounterSpec:
    """Read and normalize an encounter file."""
    from initiative import engine

    return engine.load_encounter(path)


#: Encounter files read by :func:`run`, :func:`run_async` and :func:`step`: by the path as
#: given and as absolute, the file's size and modification time (ns), and what it read as.
_LOADED: dict[tuple[str, str], tuple[int, int, EncounterSpec]] = {}
_LOADED_MOST = 32


def _spec(encounter: str | os.PathLike[str] | EncounterSpec) -> EncounterSpec:
    """The encounter itself, or the file's: read again only when the file changed (its size or
    modification time), so a loop of ``run(path, seed)`` reads and checks it once."""
    from initiative import engine
    from initiative.events import EncounterSpec

    if isinstance(encounter, EncounterSpec):
        return encounter
    given = os.fspath(encounter)
    key = (given, os.path.abspath(given))
    try:
        found = os.stat(given)
    except OSError:
        return engine.load_encounter(encounter)  # it says what is wrong with the path
    kept = _LOADED.get(key)
    if kept is not None and kept[:2] == (found.st_size, found.st_mtime_ns):
        return kept[2]
    spec = engine.load_encounter(encounter)
    if len(_LOADED) >= _LOADED_MOST:
        del _LOADED[next(iter(_LOADED))]
    _LOADED[key] = (found.st_size, found.st_mtime_ns, spec)
    return spec


def run(
    encounter: str | os.PathLike[str] | EncounterSpec,
    seed: int | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    policies: Mapping[str, PolicyChoice] | None = None,
    timeout: float | None = None,
    executor: str = "auto",
    strict: bool = False,
) -> Result:
    """Fight an encounter (a file or a spec) to its end; optionally write the log.

    ``policies`` overrides by combatant id or side; each a policy name, a function or async
    function of a :class:`engine.View`, an object with ``decide``, or a class. A key that is
    neither a combatant nor a side is refused with :class:`PolicyLoadError`. The result has
    ``events``, ``state`` (the final state), ``winner``, ``rounds`` and ``to_dicts()``.

    ``executor="auto"`` calls the policies in line when every one is trusted and synchronous
    (the built-ins, and functions marked with :func:`actors.in_line`), else through a Trio task
    per combatant; ``"trio"`` or ``"inline"`` forces one. The log is the same either way.

    A policy that fails a decision (raises, returns something that is not an action, or runs
    past ``timeout``) is recorded in the log and passes, and the fight goes on (with a warning
    in the program's log); with ``strict=True`` the first such failure stops the fight with
    :class:`PolicyFailedError` instead, the policy's own exception as its ``__cause__``.
    """
    from initiative.actors import run_encounter_sync

    ensure_configured()
    spec = _spec(encounter)
    the_seed = spec.seed if seed is None else seed
    fighters = _fighters(spec, the_seed, policies, timeout, strict)
    target = Path(out) if out is not None else None
    with _chained(fighters):
        return run_encounter_sync(spec, the_seed, out=target, executor=executor, **fighters)


def _fighters(
    spec: EncounterSpec,
    seed: int,
    policies: Mapping[str, PolicyChoice] | None,
    timeout: float | None,
    strict: bool,
) -> dict[str, Any]:
    """The policies of a fight as ``run_encounter`` takes them: by name, or (``strict``) as
    loaded runners whose failures the fight's event sink raises."""
    if not strict:
        return {"policies": policies, "timeout": timeout}
    from initiative.actors import Strict, make_runners

    check = Strict()
    runners = check.runners(make_runners(spec, seed, policies, timeout=timeout))
    return {"runners": runners, "on_event": check}


@contextmanager
def _chained(fighters: dict[str, Any]) -> Iterator[None]:
    """A strict fight's :class:`PolicyFailedError` leaves with the policy's exception as its
    cause (the actor executor re-raises it from its nursery without one)."""
    from initiative.events import PolicyFailedError

    try:
        yield
    except PolicyFailedError as failed:
        check = fighters.get("on_event")
        if failed.__cause__ is None and check is not None:
            failed.__cause__ = check.cause
        raise


async def run_async(
    encounter: str | os.PathLike[str] | EncounterSpec,
    seed: int | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    policies: Mapping[str, PolicyChoice] | None = None,
    timeout: float | None = None,
    executor: str = "auto",
    strict: bool = False,
) -> Result:
    """:func:`run` for Trio code: ``await initiative.run_async(...)`` inside ``trio.run``."""
    from initiative.actors import run_encounter

    ensure_configured()
    spec = _spec(encounter)
    the_seed = spec.seed if seed is None else seed
    target = Path(out) if out is not None else None
    fighters = _fighters(spec, the_seed, policies, timeout, strict)
    with _chained(fighters):
        return await run_encounter(spec, the_seed, out=target, executor=executor, **fighters)  # type: ignore[arg-type]


def step(
    encounter: str | os.PathLike[str] | EncounterSpec,
    seed: int | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
) -> SteppedFight:
    """A fight stepped by the caller, one decision at a time (see :class:`SteppedFight`)::

    fight = initiative.step("examples/openings-duel.toml", seed=3)
    while not fight.over:
        fight.send(fight.offers[0].action)
    """
    from ._stepping import SteppedFight

    ensure_configured()
    spec = _spec(encounter)
    return SteppedFight(spec, spec.seed if seed is None else seed, out=out)


def load(path: str | os.PathLike[str]) -> LogContents:
    """Read a log (a torn last line is dropped and listed in ``warnings``)."""
    from initiative.events import read_log

    ensure_configured()
    return read_log(path)


def verify(log: LogContents | str | os.PathLike[str]) -> Verification:
    """Re-simulate a log and compare every event."""
    from initiative.events import LogContents, read_log
    from initiative.replays import verify_log

    ensure_configured()
    contents = log if isinstance(log, LogContents) else read_log(log)
    return verify_log(contents)


def state(
    log: LogContents | str | os.PathLike[str], at: int | None = None
) -> engine.EncounterState:
    """The state after event ``at`` (the last when ``None``), folded from the log."""
    from initiative.events import LogContents, read_log
    from initiative.replays import state_at

    ensure_configured()
    contents = log if isinstance(log, LogContents) else read_log(log)
    return state_at(contents, at)
