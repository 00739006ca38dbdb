"""Forked fights: an independent copy a policy can try decisions on (look-ahead)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from initiative.events import Action, Offer, Window

from ._protocol import Decision, PriorityToken, View
from ._stepper import Stepper


class _Silent:
    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


SILENT_LOG = _Silent()


class Paused:
    """Where a fight waits for a decision of a turn's own window, as data: what a fork needs,
    beside a copy of the live state and the dice position, to go on from that very decision
    (:meth:`engine.Fight.run` resumes from one) instead of replaying the round so far."""

    __slots__ = (
        "done",
        "granted",
        "index",
        "offers",
        "order",
        "round_started",
        "turn_started",
        "window",
    )

    def __init__(
        self,
        *,
        round_started: int,
        order: list[str],
        index: int,
        turn_started: int,
        done: int,
        window: Window,
        offers: tuple[Offer, ...],
        granted: int,
    ) -> None:
        self.round_started = round_started
        """The seq of the round's ``RoundStarted`` (the cause of its turns)."""
        self.order = order
        """The round's turn order as it stood at the round's start (not changed)."""
        self.index = index
        """Whose turn it is, as an index in ``order``."""
        self.turn_started = turn_started
        self.done = done
        """The decisions the turn had before this one."""
        self.window = window
        self.offers = offers
        self.granted = granted
        """The seq of the ``PriorityGranted`` the fight waits on (already recorded)."""


class Branch(Stepper):
    """A forked fight: a :class:`Stepper` over a copy that writes no log and no sink."""

    decisions = 0
    """Decisions made on this branch since the fork."""

    def send(self, decision: Decision | Action) -> PriorityToken | None:
        """Answer the pending token with a decision (or a bare action); the next token."""
        if self.token is None:
            raise RuntimeError("the forked fight has ended")
        self.decisions += 1
        return self.apply(decision)

    def play(self, decide: Callable[[View], Any], *, limit: int | None = None) -> None:  # type: ignore[override]
        """Go on with ``decide(view) -> action`` for everyone, to the end or ``limit`` more
        decisions."""
        super().play(lambda token: decide(token.view), limit=limit)

    def _made(self, count: int) -> None:
        self.decisions += count
