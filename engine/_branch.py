"""Forked fights: an independent copy a policy can try decisions on (look-ahead)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from events import Action

from ._protocol import Decision, Drive, PriorityToken, View
from ._state import EncounterState

if TYPE_CHECKING:
    from ._fight import Fight


class _Silent:
    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


SILENT_LOG = _Silent()


class Branch:
    """A forked fight: its state, and the token it waits on (``None`` once it has ended)."""

    def __init__(self, fight: Fight, drive: Drive, token: PriorityToken | None) -> None:
        self.fight = fight
        self._drive = drive
        self.token = token
        self.decisions = 0
        """Decisions made on this branch since the fork."""

    @property
    def state(self) -> EncounterState:
        return self.fight.state

    @property
    def over(self) -> bool:
        return self.token is None

    def send(self, decision: Decision | Action) -> PriorityToken | None:
        """Answer the pending token with a decision (or a bare action); the next token."""
        if self.token is None:
            raise RuntimeError("the forked fight has ended")
        if not isinstance(decision, Decision):
            decision = Decision(action=decision)
        self.decisions += 1
        try:
            self.token = self._drive.send(decision)
        except StopIteration:
            self.token = None
        return self.token

    def play(self, decide: Callable[[View], Any], *, limit: int | None = None) -> None:
        """Go on with ``decide(view) -> action`` for everyone, to the end or ``limit`` more
        decisions."""
        made = 0
        while self.token is not None and (limit is None or made < limit):
            self.send(decide(self.token.view))
            made += 1
