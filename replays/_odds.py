"""Live odds: each side's chance to win from where a log stands, as the review finds it.

A served fight's GM may watch them change after every decision (``serve --gm-odds``). The
chance is the review's *chance before the decision* (:mod:`._review`): the fight is re-simulated
with its recorded decisions up to the decision it waits on, forked there, and played to its end
by the model ``budget.rollouts`` times, rollout ``k`` on the same paired dice as the review's, so
the odds of a position are the ``win`` the review gives that decision with the same budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from initiative.events import EncounterEnded, LogContents

from ._review import Budget, _rollouts, _sides, _stepper, wilson

ODDS_ROLLOUTS = 32
"""The rollouts of the live odds by default: a chance near one half to about 17 points either
way (95%), for well under a second of CPU per decision on the bundled examples."""


@dataclass(frozen=True)
class Odds:
    """Each side's chance to win from one position of a fight."""

    seq: int
    """The ``PriorityGranted`` the fight waits on (the last event's, once it is over)."""
    round: int
    win: dict[str, float]
    """Each side's share of the rollouts it won (a draw counts for nobody); once the fight is
    over, 1 for the winner and 0 for the others."""
    interval: dict[str, tuple[float, float]]
    """Each side's 95% Wilson interval."""
    rollouts: int
    """Rollouts played (0 once the fight is over)."""
    ended: bool = False
    who: str | None = None
    """Who decides there (``None`` once the fight is over)."""


def odds(
    contents: LogContents,
    budget: Budget | None = None,
    *,
    stop: Callable[[], bool] | None = None,
) -> Odds | None:
    """Each side's chance to win from where ``contents`` stands (the decision its last
    ``PriorityGranted`` waits on): ``budget.rollouts`` (default :data:`ODDS_ROLLOUTS`) fights
    played to their end by ``budget.model``. The log is re-simulated, not verified (see
    :func:`check_log` for one that is not trusted). ``stop()`` is asked before each rollout:
    when it says so, the work is dropped and the answer is ``None`` (a newer position came)."""
    budget = budget or Budget(rollouts=ODDS_ROLLOUTS)
    budget.check()
    sides = _sides(contents)
    last = contents.events[-1] if contents.events else None
    if isinstance(last, EncounterEnded):
        win = {s: 1.0 if s == last.winner else 0.0 for s in sides}
        return Odds(
            seq=last.seq,
            round=_round(contents),
            win=win,
            interval={s: (p, p) for s, p in win.items()},
            rollouts=0,
            ended=True,
        )
    stepper, decisions = _stepper(contents)
    for recorded in decisions:
        if stepper.token is None:
            break
        stepper.apply(recorded.decision)
    token = stepper.token
    if token is None:  # (a log cut before its end, with no decision left to wait on)
        return None
    encounter = contents.header.encounter
    spec = next((c for c in encounter.combatants if c.id == token.who), encounter.combatants[0])
    stopped = False

    def enough(_k: int) -> bool:
        nonlocal stopped
        stopped = stopped or (stop is not None and stop())
        return stopped

    (tally,) = _rollouts(stepper, [None], budget, encounter, spec, enough)
    if stopped:
        return None
    return Odds(
        seq=token.seq,
        round=token.view.round,
        win={s: round(tally.chance(s), 4) for s in sides},
        interval={
            s: (round(lo, 4), round(hi, 4))
            for s in sides
            for lo, hi in [wilson(tally.chance(s), tally.n)]
        },
        rollouts=tally.n,
        who=token.who,
    )


def _round(contents: LogContents) -> int:
    rounds = [getattr(e, "round", 0) for e in contents.events]
    return max((r for r in rounds if isinstance(r, int)), default=0)


__all__ = ["ODDS_ROLLOUTS", "Odds", "odds"]
