"""Seats: combatants whose decisions come from outside the process, over a connection.

A :class:`Seat` holds one combatant or a whole side. For each combatant it hands the actor an
async policy (:meth:`Seat.policy`) whose ``decide`` publishes the token as the seat's *pending
request* and waits for whoever holds the seat to answer it. The seat knows nothing of sockets:
a server attaches a connection (:meth:`Seat.attach`), reads the pending request to send it, and
passes answers in (:meth:`Seat.answer`). So the actor's deadline covers the whole round trip, and
a missing or silent connection costs the fight one recorded timeout, exactly like a policy's.

A connection that drops while its seat holds priority starts the seat's *grace*: ``grace``
seconds (capped by what is left of the deadline) in which whoever reconnects with the token gets
the same pending request; past it, the drop is a recorded failure (:class:`SeatDropped`).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from initiative.engine import View
from initiative.events import InitiativeError

from ._combatant import PolicyRunner
from ._loading import LoadedPolicy

_EARLY = 0.25
"""How long before its deadline a wait may be cut and still count as the deadline's (the
deadline's clock starts just before the request is published)."""


class SeatDropped(InitiativeError):
    """The connection holding a seat went away while the seat held priority."""


@dataclass(eq=False)
class Request:
    """A token waiting for its seat's answer."""

    view: View
    asked_at: float
    """When it was asked (Trio's clock): the deadline counts from here."""
    deadline: float
    answered: trio.Event = field(default_factory=trio.Event)
    action: Any = None
    dropped: bool = False
    grace_ends: float | None = None
    """While the seat's connection is gone in the middle of this request: when its grace ends."""
    wake: trio.Event = field(default_factory=trio.Event)

    def left(self) -> float:
        """Seconds left before the deadline (never below zero)."""
        return max(0.0, self.asked_at + self.deadline - trio.current_time())

    def grace_left(self) -> float:
        """Seconds left of the grace (zero when there is none)."""
        if self.grace_ends is None:
            return 0.0
        return max(0.0, self.grace_ends - trio.current_time())

    def poke(self) -> None:
        """Wake :meth:`Seat.ask` to look at the request again."""
        self.wake.set()
        self.wake = trio.Event()

    @property
    def who(self) -> str:
        return self.view.me.id

    @property
    def seq(self) -> int:
        return self.view.seq


def new_token() -> str:
    """A seat's secret: 128 bits from :mod:`secrets`, URL-safe."""
    return secrets.token_urlsafe(16)


class Seat:
    """One seat: a name (a combatant id or a side), the combatants it plays, and its secret.

    ``on_change`` is called (synchronously, never awaited) whenever the pending request
    changes, so a server can wake the connection that must send it; nothing here ever waits on
    a client.
    """

    def __init__(
        self,
        name: str,
        combatants: tuple[str, ...],
        *,
        token: str | None = None,
        deadline: float = 60.0,
        grace: float = 30.0,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.name = name
        self.combatants = combatants
        self._token = token if token is not None else new_token()
        self.deadline = deadline
        self.grace = grace
        """Seconds a connection that dropped while the seat held priority has to come back."""
        self.on_change = on_change
        self.pending: Request | None = None
        self.holder: object | None = None
        """The connection that holds the seat now (any object; ``None`` when free)."""
        self.missed: list[int] = []
        """Seqs of requests whose deadline passed, for the holder to be told."""

    @property
    def token(self) -> str:
        """The secret, for the game master's eyes only (never log it)."""
        return self._token

    def token_matches(self, offered: str | None) -> bool:
        """Compare in constant time, so the answer's timing says nothing about the secret."""
        if not isinstance(offered, str):
            return False
        return hmac.compare_digest(offered.encode(), self._token.encode())

    def attach(self, conn: object) -> object | None:
        """Give the seat to ``conn``; the connection that held it until now, if any (the token
        is what counts: a client that reconnects takes over from its old connection, which may
        not even know yet that it is gone). A pending request carries on, its grace over."""
        displaced = self.holder
        self.holder = conn
        request = self.pending
        if request is not None and request.grace_ends is not None:
            request.grace_ends = None  # back in time: the same request goes on
            request.poke()
        self.on_change()
        return displaced

    def detach(self, conn: object) -> None:
        """``conn`` is gone. If the seat held priority, its grace starts (or, with no grace,
        that decision fails at once): the fight goes on either way."""
        if self.holder is not conn:
            return
        self.holder = None
        request = self.pending
        if request is not None and not request.answered.is_set():
            if self.grace > 0:
                now = trio.current_time()
                request.grace_ends = min(now + self.grace, request.asked_at + request.deadline)
            else:
                request.dropped = True
                request.answered.set()
            request.poke()
        self.on_change()

    def in_grace(self) -> Request | None:
        """The pending request, while its seat's connection is gone and its grace runs."""
        request = self.pending
        if request is None or request.grace_ends is None or request.answered.is_set():
            return None
        return request

    def answer(self, who: str, seq: int, action: Any) -> str | None:
        """Answer the pending request; the reason when the answer is refused."""
        if who not in self.combatants:
            return f"{who!r} is not played from seat {self.name!r}"
        request = self.pending
        if request is None or request.answered.is_set():
            return f"no decision is awaited from seat {self.name!r} now"
        if request.who != who or request.seq != seq:
            return f"the decision awaited is for {request.who!r} at seq {request.seq}, not {who!r} at seq {seq}"
        request.action = action
        request.answered.set()
        request.poke()
        return None

    async def ask(self, view: View) -> Any:
        """Publish ``view`` as the pending request and wait for the answer, or for a grace to
        run out (the caller's deadline cancels this wait)."""
        request = Request(view=view, asked_at=trio.current_time(), deadline=self.deadline)
        self.pending = request
        self.on_change()
        try:
            while not request.answered.is_set():
                wake = request.wake
                ends = request.grace_ends
                # A grace that lasts to the deadline is no timer of its own: the deadline
                # cancels this wait, and the fault is a timeout.
                if ends is None or ends >= request.asked_at + request.deadline:
                    await wake.wait()
                    continue
                with trio.move_on_at(ends):
                    await wake.wait()
                if request.grace_ends == ends and trio.current_time() >= ends:
                    request.dropped = True
                    request.answered.set()
        finally:
            self.pending = None
            # Unanswered at its deadline: a recorded timeout the seat is told of. (Called off
            # before it, the GM having taken the combatant out or ended the fight: not one.)
            timed_out = trio.current_time() >= request.asked_at + request.deadline - _EARLY
            if not request.answered.is_set() and timed_out:
                self.missed.append(request.seq)
            self.on_change()
        if request.dropped:
            if self.grace > 0:
                raise SeatDropped(
                    f"the connection to seat {self.name!r} dropped"
                    f" and did not come back within {self.grace:g} s"
                )
            raise SeatDropped(f"the connection to seat {self.name!r} dropped")
        return request.action

    def policy(self, who: str) -> SeatPolicy:
        return SeatPolicy(self, who)

    def runner(self, who: str) -> PolicyRunner:
        """The actor's decider for ``who``: the seat's policy under the seat's deadline."""
        loaded = LoadedPolicy(name=f"seat {self.name}", policy=self.policy(who), trusted=False)
        # A task in the fight's own Trio loop (it awaits the connection there), cancelled at the
        # seat's deadline; whoever holds the seat is untrusted, but this code is ours.
        return PolicyRunner(loaded, self.deadline, host="task")


class SeatPolicy:
    """The async policy an actor hosts for a seated combatant: it asks the seat."""

    warm = False
    """A person is never asked again what a resumed fight's log already holds."""

    def __init__(self, seat: Seat, who: str) -> None:
        self.seat = seat
        self.who = who

    async def decide(self, view: View) -> Any:
        return await self.seat.ask(view)
