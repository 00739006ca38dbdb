"""The one flat exceptions module of initiative.

Every error a user can cause derives from :class:`InitiativeError`, so the command line can catch
one type, print its message and exit 2 without a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class InitiativeError(Exception):
    """Base of every error initiative raises on purpose."""


class EncounterFileError(InitiativeError):
    """An encounter file is unreadable, malformed, or names something unknown."""


class UnknownRulesetError(EncounterFileError):
    """An encounter or log names a ruleset that is not installed."""


class IllegalActionError(InitiativeError):
    """An action is not legal in the current window (raised only by direct library use)."""


class IllegalOverrideError(InitiativeError):
    """The game master's override cannot be done now; the message says why."""


class LogFormatError(InitiativeError):
    """A log file is damaged: a malformed line that is not a torn last line, or a bad header."""


class LogNeverStartedError(LogFormatError):
    """A log holds no complete event: its process stopped before the header was written."""


class LogBusyError(InitiativeError):
    """Another process holds a log's write lock: it is still writing that log."""


class ReplayDivergedError(InitiativeError):
    """A re-simulation produced an event different from the recorded one."""


class UnknownNameError(InitiativeError):
    """A command names a combatant or an event type that the log does not hold."""


class PolicyLoadError(InitiativeError):
    """A policy name could not be resolved to a callable."""


class PolicyFailedError(InitiativeError):
    """A policy failed a decision (raised, returned something that is not an action, or ran
    past its deadline) in a fight run with ``strict=True``; the policy's own exception, when
    there is one, is its ``__cause__``."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` when ``name`` is a near miss of one of ``known``, else ``""``.

    Case, ``-``, ``_`` and spaces are ignored when comparing, so ``lightning_reflex`` finds
    ``Lightning Reflexes``.
    """

    def loose(text: str) -> str:
        return " ".join(text.lower().replace("_", " ").replace("-", " ").split())

    by_loose = {loose(k): k for k in sorted(known)}
    close = difflib.get_close_matches(loose(name), list(by_loose), n=1, cutoff=0.6)
    return f" (did you mean {by_loose[close[0]]!r}?)" if close else ""
