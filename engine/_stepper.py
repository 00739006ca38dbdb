"""One way to step a fight: whose priority it is, what is legal, one decision at a time.

:class:`Stepper` is the only thing that drives :meth:`Fight.run`'s generator. The Trio
scheduler (``actors``), the in-line executor, re-simulation (``Fight.play``, ``verify``), forks
(``Fight.fork``, ``View.fork``), look-ahead and the library's ``initiative.SteppedFight``
(``initiative.step`` and the environments) all step fights through it, the way a game
program steps OpenSpiel's ``State``: read :attr:`Stepper.token` (who holds priority, their
view, the legal offers), answer with :meth:`Stepper.apply`, until :attr:`Stepper.over`.
Chance is not a player here: the fight rolls its own dice, and records every die.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from initiative.events import (
    Action,
    Event,
    IllegalOverrideError,
    Offer,
    Override,
)

from ._gm import as_override
from ._protocol import Decision, PriorityToken, View

if TYPE_CHECKING:
    from ._branch import Paused
    from ._fight import Fight
    from ._live import LiveState, Snapshot


class Stepper:
    """A fight stepped one decision at a time.

    ``token`` is the :class:`PriorityToken` the fight waits on (``None`` once it has ended):
    ``token.who`` holds priority, ``token.view`` is what they see, ``token.legal`` the offers.
    :meth:`apply` answers it and moves the fight on to the next decision.
    """

    def __init__(self, fight: Fight, *, resume: Snapshot | Paused | None = None) -> None:
        self.fight = fight
        self._drive = fight.run(resume)
        self.token: PriorityToken | None = None
        try:
            self.token = next(self._drive)
        except StopIteration:
            self.token = None

    # --- reading ------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the fight has ended (its last event is ``EncounterEnded``)."""
        return self.token is None

    @property
    def who(self) -> str | None:
        """Who holds priority now (``None`` once the fight has ended)."""
        return None if self.token is None else self.token.who

    @property
    def legal(self) -> tuple[Offer, ...]:
        """The legal offers of whoever holds priority (empty once the fight has ended)."""
        return () if self.token is None else self.token.legal

    @property
    def view(self) -> View | None:
        return None if self.token is None else self.token.view

    @property
    def state(self) -> LiveState:
        """The fight's live state (read it; it changes as the fight goes on)."""
        return self.fight.state

    @property
    def events(self) -> list[Event]:
        return self.fight.events

    # --- stepping -----------------------------------------------------------------------------

    def apply(self, decision: Decision | Action) -> PriorityToken | None:
        """Answer the pending token with ``decision`` (or a bare action); the next token."""
        if self.token is None:
            raise RuntimeError("the fight has ended")
        if not isinstance(decision, Decision):
            decision = Decision(action=decision)
        try:
            self.token = self._drive.send(decision)
        except StopIteration:
            self.token = None
        return self.token

    def play(
        self,
        decide: Callable[[PriorityToken], Decision | Action],
        *,
        limit: int | None = None,
        through: int | None = None,
    ) -> int:
        """Answer every token with ``decide(token)``, to the end or ``limit`` more decisions;
        with ``through``, stop before a decision of a round after that one (a look-ahead's
        horizon). Returns how many decisions it made.

        Exceptions raised by ``decide`` (or by the fight's sink) stop the fight where it
        stands."""
        made = 0
        drive = self._drive
        token = self.token
        fight = self.fight
        most = math.inf if limit is None else limit
        last = math.inf if through is None else through
        try:
            while token is not None and made < most and fight.state.round <= last:
                decision = decide(token)
                if not isinstance(decision, Decision):
                    decision = Decision(action=decision)
                made += 1
                token = drive.send(decision)
        except StopIteration:
            token = None
        finally:
            self.token = token
            self._made(made)
        return made

    def override(self, override: Override | dict[str, object]) -> int:
        """Apply the game master's ``override`` (an :class:`events.Override`, or its JSON
        object as a dict) at the pending decision: recorded as ``GmOverride`` with the events
        it makes, then priority is granted again in the new state (:attr:`token`). Returns the
        ``GmOverride``'s seq; raises :class:`IllegalOverrideError` with the reason when the
        rules refuse it (then nothing is recorded)."""
        if self.token is None:
            raise IllegalOverrideError("the fight is over")
        o = as_override(self.fight, override)
        reason = self.fight.check_override(o)
        if reason is not None:
            raise IllegalOverrideError(reason)
        seq = self.fight.next_seq
        self.apply(Decision(override=o))
        return seq

    def _made(self, count: int) -> None:
        """Hook: ``count`` decisions were made by :meth:`play`."""

    def fork(self, *, dice: int | None = None, paired: bool = False) -> Any:
        """An independent copy positioned at the pending decision (see :meth:`Fight.fork`)."""
        return self.fight.fork(dice=dice, paired=paired)
