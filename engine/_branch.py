"""Forked fights: an independent copy a policy can try decisions on (look-ahead)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from initiative.events import Action, IllegalActionError, Offer, Window

from ._protocol import Decision, PriorityToken, View
from ._stepper import Stepper


def _nothing(*args: object, **kwargs: object) -> None:
    return None


class _Silent:
    # The levels the engine logs at, found without ``__getattr__`` (a fork logs every round).
    debug = info = warning = error = staticmethod(_nothing)

    def __getattr__(self, name: str) -> Callable[..., None]:
        return _nothing


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
        if isinstance(decision, Offer):  # a slip for its action; it would end the turn
            raise IllegalActionError("send(offer.action), not the Offer")
        self.decisions += 1
        return self.apply(decision)

    def play(  # type: ignore[override]
        self,
        decide: Callable[[View], Any],
        *,
        limit: int | None = None,
        through: int | None = None,
    ) -> int:
        """Go on with ``decide(view) -> action`` for everyone, to the end or ``limit`` more
        decisions; with ``through``, stop before a decision of a round after that one (a
        look-ahead's horizon). Returns how many decisions it made.

        Exceptions raised by ``decide`` stop the fight where it stands."""
        return super().play(lambda token: decide(token.view), limit=limit, through=through)

    def _made(self, count: int) -> None:
        self.decisions += count
