"""Analysis over many fights: leagues of policies, sweeps of a varied value, and the
self-contained HTML reports that ``batch``, ``duel``, ``league`` and ``sweep`` write.

The library functions live in :mod:`initiative.analysis._league` and
:mod:`initiative.analysis._sweep`; nothing is imported here, so that a report never loads the
actors it does not need.
"""
