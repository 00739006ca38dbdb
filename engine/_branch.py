"""Forked fights: an independent copy a policy can try decisions on (look-ahead)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from initiative.events import Action

from ._protocol import Decision, PriorityToken, View
from ._stepper import Stepper


class _Silent:
    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


SILENT_LOG = _Silent()


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
