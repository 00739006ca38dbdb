"""Seats: a combatant decided from outside, with the actor's deadline over the round trip."""

from __future__ import annotations

import trio
from helpers import encounter, of_type
from initiative.actors import PolicyRunner, Seat, make_runners, schedule
from initiative.engine import Fight
from serve_support import ENCOUNTER


def seated(seat: Seat) -> tuple[Fight, dict[str, PolicyRunner]]:
    spec = encounter(ENCOUNTER)
    runners = make_runners(spec, 5)
    for who in seat.combatants:
        runners[who] = seat.runner(who)
    return Fight(spec, 5), runners


async def test_answers_reach_the_fight() -> None:
    """Whoever answers the pending request decides for the seated combatant."""
    seat = Seat("south", ("bo", "cur"))
    changed = trio.Event()

    def wake() -> None:
        nonlocal changed
        changed.set()
        changed = trio.Event()

    seat.on_change = wake
    fight, runners = seated(seat)
    answered = []
    async with trio.open_nursery() as nursery:

        async def player() -> None:
            while True:
                waiting = changed
                request = seat.pending
                if request is not None and not request.answered.is_set():
                    answered.append((request.who, request.seq))
                    last = request.view.legal[-1].action
                    assert seat.answer(request.who, request.seq, last) is None
                await waiting.wait()

        nursery.start_soon(player)
        await schedule(fight, runners)
        nursery.cancel_scope.cancel()
    granted = [(e.who, e.seq) for e in of_type(fight.events, "PriorityGranted")]
    assert answered == [g for g in granted if g[0] in ("bo", "cur")]
    assert answered and of_type(fight.events, "DecisionFailed") == []


async def test_silence_is_a_recorded_timeout(autojump_clock: trio.abc.Clock) -> None:
    """Nobody answers: each of the seat's decisions fails at the deadline; the fight ends."""
    seat = Seat("ana", ("ana",), deadline=3.0)
    fight, runners = seated(seat)
    await schedule(fight, runners)
    failed = of_type(fight.events, "DecisionFailed")
    assert failed and {(e.who, e.kind) for e in failed} == {("ana", "timeout")}
    assert seat.missed == [e.cause for e in failed]
    assert fight.state.winner is not None


async def test_a_drop_while_deciding_is_a_recorded_error() -> None:
    """The holder goes away while the seat holds priority, with no grace: that decision fails
    at once."""
    seat = Seat("ana", ("ana",), deadline=3.0, grace=0)
    holder, newer = object(), object()
    assert seat.attach(newer) is None and seat.attach(holder) is newer  # a takeover

    def drop_on_request() -> None:
        if seat.pending is not None and seat.holder is holder:
            seat.detach(holder)

    seat.on_change = drop_on_request
    fight, runners = seated(seat)
    with trio.fail_after(60):
        done = trio.Event()
        async with trio.open_nursery() as nursery:

            async def rest() -> None:
                await schedule(fight, runners)
                done.set()

            nursery.start_soon(rest)
            # After the drop the seat is free and later requests wait; answer them.
            while not done.is_set():
                request = seat.pending
                if request is not None and not request.answered.is_set():
                    seat.answer(request.who, request.seq, request.view.legal[-1].action)
                await trio.sleep(0.01)
    failed = of_type(fight.events, "DecisionFailed")
    assert [(e.kind, e.detail.split(" (")[0]) for e in failed] == [
        ("error", "SeatDropped: the connection to seat 'ana' dropped")
    ]


def test_answers_for_others_or_out_of_turn_are_refused() -> None:
    """A seat answers only for its combatants, and only the request it is waiting on."""
    seat = Seat("ana", ("ana",))
    assert seat.answer("bo", 3, None) == "'bo' is not played from seat 'ana'"
    assert seat.answer("ana", 3, None) == "no decision is awaited from seat 'ana' now"


def test_tokens_are_secret_and_compared_whole() -> None:
    """Tokens are long, random, and only an exact string matches."""
    a, b = Seat("a", ("a",)), Seat("b", ("b",))
    assert a.token != b.token and len(a.token) >= 22
    assert a.token_matches(a.token)
    for wrong in [b.token, a.token[:-1], a.token + "x", "", None, 123]:
        assert not a.token_matches(wrong)


async def test_a_drop_has_its_grace(autojump_clock: trio.abc.Clock) -> None:
    """A holder that drops mid-decision and comes back inside the grace answers the same
    request (no fault); one that stays away past it is a recorded failure, 5 s after the drop."""
    seat = Seat("ana", ("ana",), deadline=60.0, grace=5.0)
    holder = object()
    seat.attach(holder)
    drops: list[tuple[int, float]] = []

    def drop_on_request() -> None:
        request = seat.pending
        fresh = not drops or drops[-1][0] != (request.seq if request else None)
        if request is not None and seat.holder is holder and len(drops) < 2 and fresh:
            drops.append((request.seq, trio.current_time()))
            seat.detach(holder)

    seat.on_change = drop_on_request
    fight, runners = seated(seat)
    answered: list[int] = []
    async with trio.open_nursery() as nursery:

        async def player() -> None:
            # The first drop: back after 4 s, the same request is answered. The second: gone.
            await trio.sleep(4)
            seat.attach(holder)
            while fight.state.winner is None:
                request = seat.pending
                if request is not None and not request.answered.is_set() and seat.holder:
                    answered.append(request.seq)
                    seat.answer(request.who, request.seq, request.view.legal[-1].action)
                await trio.sleep(1)
                if (
                    len(drops) == 2
                    and seat.holder is None
                    and trio.current_time() > drops[1][1] + 6
                ):
                    seat.attach(holder)

        nursery.start_soon(player)
        await schedule(fight, runners)
        nursery.cancel_scope.cancel()
    (kept, _), (lost, _) = drops
    assert answered[0] == kept
    failed = of_type(fight.events, "DecisionFailed")
    assert [(e.kind, e.cause) for e in failed] == [("error", lost)]
    assert "did not come back within 5 s" in failed[0].detail
