"""Stepping a fight from outside, one decision at a time, with no Trio and no policy tasks.

:class:`SteppedFight` wraps the engine's one stepping object (:class:`engine.Stepper`) for
everything in this package that steps a fight by hand: :func:`initiative.step` and the
PettingZoo and Gymnasium environments. It says whose priority it is and what is legal, takes
one decision, and writes the log through the fight's sink (:class:`engine.LogSink`), so the log
is on disk up to each token it hands out and a stepped fight's log verifies like any other.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from initiative.engine import (
    Decision,
    EncounterState,
    Fight,
    LogSink,
    PriorityToken,
    Stepper,
    View,
)
from initiative.events import (
    Action,
    EncounterSpec,
    Event,
    IllegalActionError,
    IllegalOverrideError,
    Offer,
    Override,
    Window,
)

_NO_WINDOW = Window(kind="turn")


def refuse_offer(decision: object) -> None:
    """An :class:`Offer` sent as a decision is a slip for its ``.action``: refuse it loudly
    rather than record an invalid decision that silently ends the turn."""
    if isinstance(decision, Offer):
        raise IllegalActionError(
            f"send(offer.action), not the Offer: got Offer({type(decision.action).__name__},"
            f" cost={decision.cost})"
        )


class _Silent:
    """A logger that drops everything."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


class SteppedFight:
    """One fight stepped from outside: ``token`` is the decision it waits for (``None`` once
    the encounter has ended); :meth:`send` answers it.

    >>> step = SteppedFight(initiative.load_encounter("examples/openings-duel.toml"), seed=1)
    >>> while not step.over:
    ...     step.send(step.offers[0].action)
    >>> step.winner
    """

    def __init__(
        self,
        encounter: EncounterSpec,
        seed: int,
        *,
        out: str | os.PathLike[str] | None = None,
        on_event: Callable[[Event], None] | None = None,
        quiet: bool = False,
    ) -> None:
        self.encounter = encounter
        self.seed = seed
        sink = LogSink(out, keep_lines=True, on_event=on_event)
        self.lines = sink.lines
        """Every encoded line of the log so far (the bytes a log file of this fight holds)."""
        self.fight = Fight(encounter, seed, sink=sink)
        if quiet:  # an environment's agents fail decisions on purpose while they learn
            self.fight.log = _Silent()
        self._step = Stepper(self.fight)
        if self._step.over:
            self.close()

    def close(self) -> None:
        """Release the log file (done by itself when the encounter ends)."""
        self.fight.sink.close()

    # what is waiting is the stepper's: read through it, never kept twice

    @property
    def token(self) -> PriorityToken | None:
        """The decision the fight waits for (``None`` once the encounter has ended)."""
        return self._step.token

    @property
    def over(self) -> bool:
        return self._step.over

    @property
    def who(self) -> str | None:
        """The combatant that holds priority (``None`` once over)."""
        return self._step.who

    @property
    def view(self) -> View | None:
        return self._step.view

    @property
    def offers(self) -> tuple[Offer, ...]:
        """The legal actions now, with their costs; the closing one (EndTurn/Pass) is last."""
        return self._step.legal

    @property
    def state(self) -> EncounterState:
        """The state now, as an immutable value."""
        return self.fight.state.freeze()

    @property
    def events(self) -> list[Event]:
        return self.fight.events

    @property
    def winner(self) -> str | None:
        return self.fight.state.winner

    def view_of(self, who: str) -> View:
        """What ``who`` would see now (its offers only when it holds priority)."""
        if self.token is not None and self.token.who == who:
            return self.token.view
        window = self.token.window if self.token is not None else _NO_WINDOW
        return self.fight.view(who, window, (), self.fight.next_seq - 1)

    def override(self, override: Override | dict[str, Any]) -> int:
        """The game master steps in at the pending decision (an override object such as
        ``SetHp(who="bo", hp=7)``, or its JSON form ``{"type": "SetHp", ...}``): recorded in
        the log as ``GmOverride`` with what it makes, then priority is granted again in the
        new state. Returns the ``GmOverride``'s seq; raises :class:`IllegalOverrideError` with
        the rules' reason when it cannot be done (nothing is recorded then)."""
        if self.token is None:
            raise IllegalOverrideError("the encounter has ended")
        seq = self._step.override(override)
        if self._step.over:
            self.close()
        return seq

    def send(self, decision: Decision | Action | Any) -> PriorityToken | None:
        """Answer the pending token with an action (or a :class:`Decision`); the next token.

        Anything that is not an action is recorded as an invalid decision, as for any policy,
        except an :class:`Offer`, which is refused with :class:`IllegalActionError`: its
        ``.action`` is what to send. Sending after the end raises :class:`IllegalActionError`.
        """
        if self.token is None:
            raise IllegalActionError("the encounter has ended: nothing is waiting for a decision")
        refuse_offer(decision)
        if not isinstance(decision, Decision):
            decision = Decision(action=decision)
        token = self._step.apply(decision)
        if token is None:
            self.close()
        return token
