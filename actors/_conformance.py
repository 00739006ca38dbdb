"""A conformance check every policy should pass (in the spirit of PettingZoo's ``api_test``).

:func:`check_policy` fights encounters with the policy playing every combatant and checks, for
every window it is offered, that it answers with one of the legal actions offered, without
raising, and that its answer is an action value. It runs the policy synchronously (awaiting it
with Trio when it is async) through the engine directly, so a failure points at the decision.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field

import trio
from initiative.engine import Decision, PriorityToken, policy_rng, simulate
from initiative.events import Action, EncounterSpec

from ._context import PolicyContext
from ._loading import load_policy


@dataclass
class Conformance:
    """What :func:`check_policy` found: decisions checked and problems (empty when it passes)."""

    decisions: int = 0
    windows: set[str] = field(default_factory=set)
    """Kinds of windows answered (``turn``, ``opening``)."""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_policy(
    name: str, encounters: Iterable[EncounterSpec], seeds: Iterable[int]
) -> Conformance:
    """Play ``name`` for every combatant of each encounter with each seed; collect problems."""
    report = Conformance()
    seeds = list(seeds)
    for spec in encounters:
        for seed in seeds:
            _one(name, spec, seed, report)
    return report


def _one(name: str, spec: EncounterSpec, seed: int, report: Conformance) -> None:
    policies = {}
    for c in spec.combatants:
        ctx = PolicyContext(combatant=c, encounter=spec, rng=policy_rng(seed, c.id))
        policies[c.id] = load_policy(name, ctx).policy

    def decide(token: PriorityToken) -> Decision:
        where = f"{spec.name or spec.ruleset} seed {seed}, {token.who} at seq {token.seq}"
        policy = policies[token.who]
        fn = getattr(policy, "decide", policy)
        try:
            is_async = inspect.iscoroutinefunction(fn)
            action = trio.run(fn, token.view) if is_async else fn(token.view)
        except Exception as err:
            report.problems.append(f"{where}: raised {type(err).__name__}: {err}")
            return Decision(failure="error", detail=str(err))
        report.decisions += 1
        report.windows.add(token.window.kind)
        if not isinstance(action, Action):
            report.problems.append(f"{where}: returned {type(action).__name__}, not an action")
        elif action not in [o.action for o in token.legal]:
            report.problems.append(f"{where}: {action.describe()} is not among the offers")
        return Decision(action=action)

    fight = simulate(spec, seed, decide)
    rejected = [e for e in fight.events if type(e).__name__ == "ActionRejected"]
    for e in rejected:
        report.problems.append(f"{spec.name} seed {seed}: the engine rejected {e}")
