"""The mailbox between the scheduler and a combatant task: one message, cancellation, closing."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from initiative.actors import Mailbox


async def test_a_message_put_before_the_receiver_waits_is_kept() -> None:
    """``put`` before ``get`` (the first token reaches a task not started yet) is not lost."""
    box: Mailbox[str] = Mailbox()
    box.put("token")
    assert await box.get() == "token"


async def test_a_waiting_receiver_is_woken_with_the_message() -> None:
    """``get`` waits until ``put``; the message reaches the waiting task."""
    box: Mailbox[int] = Mailbox()
    got = []
    async with trio.open_nursery() as nursery:

        async def receive() -> None:
            got.append(await box.get())

        nursery.start_soon(receive)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []
        box.put(7)
    assert got == [7]


async def test_a_second_message_before_the_first_is_taken_is_refused() -> None:
    """The protocol never has two messages in flight: a second ``put`` is a bug, said at once."""
    box: Mailbox[int] = Mailbox()
    box.put(1)
    with pytest.raises(trio.WouldBlock):
        box.put(2)
    assert await box.get() == 1


async def test_closing_ends_a_waiting_receiver_and_later_gets() -> None:
    """``close`` wakes a waiting ``get`` with ``EndOfChannel``, after what was there is taken."""
    box: Mailbox[int] = Mailbox()
    ended = []
    async with trio.open_nursery() as nursery:

        async def receive() -> None:
            try:
                await box.get()
            except trio.EndOfChannel:
                ended.append(True)

        nursery.start_soon(receive)
        await trio.testing.wait_all_tasks_blocked()
        box.close()
    assert ended == [True]
    with pytest.raises(trio.ClosedResourceError):
        box.put(1)
    other: Mailbox[int] = Mailbox()
    other.put(3)
    other.close()
    assert await other.get() == 3
    with pytest.raises(trio.EndOfChannel):
        await other.get()


async def test_a_cancelled_wait_is_never_woken_later(autojump_clock: trio.abc.Clock) -> None:
    """A ``get`` cancelled by its deadline forgets its task: a later ``put`` waits for the next
    ``get`` instead of waking a task that no longer waits (which Trio would not survive)."""
    box: Mailbox[str] = Mailbox()
    with trio.move_on_after(1) as scope:
        await box.get()
    assert scope.cancelled_caught
    box.put("late")
    await trio.sleep(1)  # the task waits on something else now; it must not be woken
    assert await box.get() == "late"


async def test_a_cancelled_scope_wins_over_a_message_already_there() -> None:
    """In a cancelled scope ``get`` raises ``Cancelled`` even when a message waits, as a
    channel's ``receive`` would; the message stays for the next ``get``."""
    box: Mailbox[str] = Mailbox()
    box.put("token")
    with trio.CancelScope() as scope:
        scope.cancel()
        await box.get()
    assert scope.cancelled_caught
    assert await box.get() == "token"
