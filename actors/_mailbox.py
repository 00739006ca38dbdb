"""The hand-off between the scheduler and a combatant task: one message at a time.

The priority protocol never has two messages in flight between the scheduler and one
combatant: the scheduler sends a token and waits for that combatant's answer before it sends
anything else. So a memory channel's generality (many senders and receivers, a sender that
waits for its receiver) buys nothing here and costs a fight two extra trips through Trio's run
loop per decision: :meth:`trio.MemorySendChannel.send` yields even when a receiver is waiting.
A :class:`Mailbox` holds at most one message; :meth:`Mailbox.put` never waits and wakes the
receiver if it waits; :meth:`Mailbox.get` waits for the message. A decision then costs two task
switches, the least two tasks taking turns can cost.

It is built on :func:`trio.lowlevel.wait_task_rescheduled` the way the function's documentation
asks: the waiting task records itself before it sleeps, whoever wakes it forgets it before
calling :func:`trio.lowlevel.reschedule` (so it is rescheduled at most once per wait), and the
abort callback forgets it too and answers :data:`~trio.lowlevel.Abort.SUCCEEDED` (so a
cancelled wait is never woken later). A cancelled scope still interrupts a wait at once, as it
would a channel's ``receive``. Both methods are protected from ``KeyboardInterrupt`` (as
:class:`trio.lowlevel.ParkingLot`'s are), so a Ctrl-C never lands between the two halves of a
hand-off.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import trio
from trio.lowlevel import (
    Abort,
    RaiseCancelT,
    Task,
    checkpoint_if_cancelled,
    current_task,
    enable_ki_protection,
    reschedule,
    wait_task_rescheduled,
)

T = TypeVar("T")


class Mailbox(Generic[T]):
    """One message at a time from one task to another.

    ``put`` stores the message (or hands it straight to the task waiting in ``get``); ``get``
    takes it, waiting until there is one. ``close`` (by the sending side) ends it: a ``get``
    that finds it empty and closed raises :exc:`trio.EndOfChannel`, waiting or not.
    """

    __slots__ = ("_abort_fn", "_closed", "_full", "_value", "_waiter")

    def __init__(self) -> None:
        self._waiter: Task | None = None
        self._value: T | None = None
        self._full = False
        self._closed = False
        self._abort_fn = self._abort

    def _abort(self, _: RaiseCancelT) -> Abort:
        self._waiter = None
        return Abort.SUCCEEDED

    def _wake(self) -> None:
        """Wake the task waiting in :meth:`get`, if any: forgotten first, so it is
        rescheduled at most once per wait."""
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            reschedule(waiter)

    @enable_ki_protection
    def put(self, value: T) -> None:
        """Leave ``value`` for the receiver, waking it if it waits. Never waits itself.

        Raises :exc:`trio.ClosedResourceError` after :meth:`close`, and :exc:`trio.WouldBlock`
        if the last message was not taken yet (the protocol never does that)."""
        if self._closed:
            raise trio.ClosedResourceError("the mailbox was closed")
        if self._full:
            raise trio.WouldBlock
        self._value = value
        self._full = True
        self._wake()

    @enable_ki_protection
    def close(self) -> None:
        """No more messages: the receiver's ``get`` ends with :exc:`trio.EndOfChannel` once
        it has taken what is there. Closing twice is harmless."""
        self._closed = True
        self._wake()

    @enable_ki_protection
    async def get(self) -> T:
        """The message, as soon as there is one.

        A checkpoint whenever it has to wait; else only a cancellation point (a cancelled
        scope raises :exc:`trio.Cancelled` before a message already there is taken)."""
        if self._full or self._closed:
            await checkpoint_if_cancelled()
        else:
            if self._waiter is not None:
                raise trio.BusyResourceError("another task is already waiting on this mailbox")
            self._waiter = current_task()
            await wait_task_rescheduled(self._abort_fn)
        if not self._full:
            raise trio.EndOfChannel
        value = self._value
        self._value = None
        self._full = False
        return value  # type: ignore[return-value]
