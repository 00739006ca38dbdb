"""Policies for the combatants a game master brings into a fight (``AddCombatant``).

A joiner is not in the encounter the runners were made from, so it gets one when it is first
asked: the built-in policy its table names (``like``'s, for a copy), or ``aggressive`` when that
names a person, a file or anything else not built in (a log never runs code it names, and a
person at a terminal did not sit down for it).
"""

from __future__ import annotations

from initiative.engine import Fight, policy_rng

from ._builtin import BUILTIN
from ._combatant import PolicyRunner
from ._context import PolicyContext
from ._loading import load_policy

#: The policy of a joiner whose table names none that is built in and decides by itself.
JOINER_POLICY = "aggressive"


def joiner_policy(name: str) -> str:
    """The built-in policy a joiner whose table names ``name`` is played by."""
    return name if name in BUILTIN and name not in ("scripted",) else JOINER_POLICY


def joiner_runner(fight: Fight, who: str) -> PolicyRunner:
    """A runner for ``who``, a combatant the GM brought in."""
    spec = fight.rules.spec(who)
    ctx = PolicyContext(combatant=spec, encounter=fight.encounter, rng=policy_rng(fight.seed, who))
    loaded = load_policy(joiner_policy(spec.policy), ctx)
    return PolicyRunner(loaded, fight.encounter.decision_timeout, who=who)
