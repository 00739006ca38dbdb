"""The one flat exceptions module of initiative.

Every error a user can cause derives from :class:`InitiativeError`, so the command line can catch
one type, print its message and exit 2 without a traceback.
"""

from __future__ import annotations


class InitiativeError(Exception):
    """Base of every error initiative raises on purpose."""


class EncounterFileError(InitiativeError):
    """An encounter file is unreadable, malformed, or names something unknown."""


class UnknownRulesetError(EncounterFileError):
    """An encounter or log names a ruleset that is not installed."""


class IllegalActionError(InitiativeError):
    """An action is not legal in the current window (raised only by direct library use)."""


class LogFormatError(InitiativeError):
    """A log file is damaged: a malformed line that is not a torn last line, or a bad header."""


class LogNeverStartedError(LogFormatError):
    """A log holds no complete event: its process stopped before the header was written."""


class LogBusyError(InitiativeError):
    """Another process holds a log's write lock: it is still writing that log."""


class ReplayDivergedError(InitiativeError):
    """A re-simulation produced an event different from the recorded one."""


class PolicyLoadError(InitiativeError):
    """A policy name could not be resolved to a callable."""
