"""No hidden number reaches a seat or a default spectator, as a property (issue 34).

A real server on a loopback port (``serve_fight``, in this process) and real clients over TCP:
a seat playing one side with random choices, the GM stepping in with random overrides while
the seat decides, and a spectator with the default view. Random encounters in the four
rulesets. Every frame the seat and the spectator receive is scanned, every string included:
no ``news`` (a log line holds every number); no hit points, most hit points or AP of a
combatant of an unseated side in any object that names it; no place on the map of one that is
hidden from the seat; and no string that names such a combatant and says one of the hit-point
or AP values it had in the fight ("hit points to 7", "7 hp", "7 / 10", "3 AP"). The server
works out the GM's live odds (``--gm-odds``) all along, and neither the seat nor the spectator
gets an ``odds`` or ``review_status`` frame (the GM's alone), while the GM does get odds."""

from __future__ import annotations

import contextlib
import json
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import HealthCheck, given, settings, strategies as st
from initiative.engine import LiveState
from initiative.events import EncounterSpec, read_log
from initiative.replays import verify_log

from initiative.table._reviews import ReviewOptions
from initiative.table._serve import serve_fight
from tests.helpers import examples
from tests.test_determinism import encounters

#: What an override may be, drawn as (kind, a combatant's index, another index, a number, quiet).
KINDS = ["SetHp", "SetHp", "SetHp", "MoveToken", "AddCombatant", "RemoveCombatant", "Reorder",
         "AddCondition", "Undo", "Undo", "GmNote", "GmRoll"]  # fmt: skip

#: What the GM's notes and secret rolls say, which no seat or spectator may read.
SECRET = "SECRET-NOTE"

overrides = st.lists(
    st.tuples(
        st.integers(0, 6),  # at the seat's how-many-th decision
        st.sampled_from(KINDS),
        st.integers(0, 20),
        st.integers(0, 20),
        st.integers(-2, 20),
        st.booleans(),
    ),
    max_size=6,
)


def override_of(draw: tuple[Any, ...], ids: list[str], made: int) -> dict[str, Any]:
    _, kind, a, b, n, quiet = draw
    who, other = ids[a % len(ids)], ids[b % len(ids)]
    match kind:
        case "SetHp":
            return {"type": "SetHp", "who": who, "hp": n, "quiet": quiet}
        case "MoveToken":
            return {"type": "MoveToken", "who": who, "to": [float(n % 7), float(a % 5)]}
        case "AddCombatant":
            return {"type": "AddCombatant", "id": f"late{made}", "like": who}
        case "RemoveCombatant":
            return {"type": "RemoveCombatant", "who": who, "reason": "fled"}
        case "Reorder":
            return {"type": "Reorder", "who": who, "before": other if a % 3 else None}
        case "Undo":
            return {"type": "Undo"}
        case "GmNote":
            return {"type": "GmNote", "text": f"{SECRET} {made}"}
        case "GmRoll":
            return {"type": "GmRoll", "expr": f"1d6+{700 + made}", "secret": True}
    return {"type": "AddCondition", "who": who, "condition": "prone", "rounds": 1 + n % 3}


class Line:
    """Newline-delimited JSON frames over a TCP stream."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def send(self, frame: dict[str, Any]) -> None:
        await self.stream.send_all(json.dumps(frame).encode() + b"\n")

    async def receive(self) -> dict[str, Any] | None:
        while b"\n" not in self.buffer:
            try:
                chunk = await self.stream.receive_some(65536)
            except trio.BrokenResourceError:  # (a reset once the fight is over)
                return None
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)  # type: ignore[no-any-return]


async def connect(port: int, hello: dict[str, Any]) -> Line:
    line = Line(await trio.open_tcp_stream("127.0.0.1", port))
    await line.send({"type": "hello", "version": 1, **hello})
    return line


async def served_fight(
    spec: EncounterSpec, seed: int, plan: list[tuple[Any, ...]], out: Path
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Play the fight with a seat for the first side, the GM's ``plan`` and a spectator, the
    live odds on; the frames the seat, the spectator and the GM received (the GM's only while
    it waited for its overrides' results)."""
    seat_side = spec.combatants[0].side
    ids = [c.id for c in spec.combatants]
    choose = random.Random(seed)
    seat_frames: list[dict[str, Any]] = []
    watched: list[dict[str, Any]] = []
    gm_frames: list[dict[str, Any]] = []
    async with trio.open_nursery() as nursery:
        served = await nursery.start(
            lambda task_status: serve_fight(
                spec,
                seed,
                [seat_side],
                out=out,
                deadline=30,
                linger=10,
                review=ReviewOptions(odds=True),
                task_status=task_status,
            )
        )
        watcher = await connect(served.port, {"role": "spectator", "token": served.spectator_token})
        gm = await connect(served.port, {"role": "gm", "token": served.gm_token})
        seat = await connect(
            served.port, {"seat": seat_side, "token": served.seats[seat_side].token}
        )

        async def watch() -> None:
            while (frame := await watcher.receive()) is not None:
                watched.append(frame)

        nursery.start_soon(watch)
        decisions = made = 0
        stale: dict[str, Any] | None = None
        asked = -1
        while True:
            frame = None
            with trio.move_on_after(10 if stale else math.inf):
                frame = await seat.receive()
            if frame is None and stale is not None:
                # The GM's override changed the fight while the seat decided: it is asked
                # again in the new state (or its combatant is out, or the fight over), never
                # left waiting on the frame it had.
                raise AssertionError(f"seat not asked again after an override at {stale}")
            if frame is None:
                break
            seat_frames.append(frame)
            if frame["type"] == "end":
                break
            if frame["type"] != "priority":
                continue
            # One priority frame per grant: a refused override sends no second copy of it.
            assert frame["seq"] > asked, f"priority at seq {frame['seq']} sent twice"
            asked = frame["seq"]
            stale = None
            now = [p for p in plan if p[0] == decisions]
            decisions += 1
            stepped = False
            for drawn in now:
                made += 1
                override = override_of(drawn, ids, made)
                try:
                    await gm.send({"type": "gm", "id": made, "override": override})
                    while (answer := await gm.receive()) and answer["type"] != "gm_result":
                        gm_frames.append(answer)
                except trio.BrokenResourceError:
                    answer = None
                if answer is None:  # the fight ended (an override took the last one out)
                    stepped = True
                    break
                if answer["ok"] and override["type"] == "AddCombatant":
                    ids.append(override["id"])
                stepped = stepped or answer["ok"]
            if stepped:
                stale = frame  # asked again in the new state (or the fight is over)
                continue
            offers = frame["offers"]
            pick = choose.randrange(len(offers))
            with contextlib.suppress(trio.BrokenResourceError):  # (over: its end comes next)
                await seat.send({"type": "decision", "who": frame["who"], "seq": frame["seq"],
                                 "offer": pick})  # fmt: skip
        with trio.move_on_after(10):  # (what the GM was sent since its last result)
            while (frame := await gm.receive()) is not None:
                gm_frames.append(frame)
                if frame["type"] == "end":
                    break
        with trio.move_on_after(10):
            while not watched or watched[-1]["type"] != "end":
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    for line in (watcher, gm, seat):
        await line.stream.aclose()
    return seat_frames, watched, gm_frames


async def within(fight: Any) -> Any:
    """A served fight, given at most a minute (a hang fails the test, never the suite)."""
    with trio.fail_after(60):
        return await fight


def hidden_values(out: Path, seen_side: str) -> dict[str, set[int]]:
    """For each combatant not on ``seen_side`` (the GM's joiners too): every hit-point, most
    hit-point and AP value it had in the fight, from the full log."""
    contents = read_log(out)
    assert verify_log(contents).ok
    state = LiveState()
    values: dict[str, set[int]] = {}
    for event in contents.events:
        state.apply(event)
        for c in state.combatants.values():
            if c.side != seen_side:
                values.setdefault(c.id, set()).update((c.hp, c.max_hp, c.ap))
    return values


#: How a string could say a number of hit points or AP.
SAYS = [
    re.compile(r"hit points (?:to |of |at |are |is )?(-?\d+)"),
    re.compile(r"(-?\d+) ?(?:hp|HP|hit points|AP)\b"),
    re.compile(r"(-?\d+) ?(?:/|of) ?(-?\d+)"),
    re.compile(r"wounds:? (-?\d+)"),
]


def strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in strings(v)]
    return []


def leaks(frame: dict[str, Any], hidden: dict[str, set[int]]) -> list[str]:
    """What ``frame`` says that its receiver may not know."""
    found = []
    if frame["type"] == "news":
        found.append(f"a news frame: {frame['event']}")
    if frame["type"] in ("odds", "review_status"):
        found.append(f"the GM's {frame['type']} frame: {frame}")

    def walk(data: Any) -> None:
        if isinstance(data, dict):
            who = data.get("id")
            if who in hidden:
                found.extend(
                    f"{who}'s {key} = {data[key]}"
                    for key in ("hp", "max_hp", "ap")
                    if data.get(key) is not None
                )
            for value in data.values():
                walk(value)
        elif isinstance(data, list):
            for value in data:
                walk(value)

    walk(frame)
    board = frame.get("board") or {}
    found.extend(  # the place of one hidden from its enemies (tactical's Hide)
        f"{t['id']} hidden, at {t['at']}"
        for t in board.get("tokens", [])
        if t["id"] in hidden and any(c[0] == "hidden" for c in t["conditions"])
    )
    for text in strings(frame):
        if SECRET in text or re.search(r"[+=] ?7\d\d\b", text):
            found.append(f"{text!r}: the GM's private note or secret roll")
        for who, values in hidden.items():
            if not re.search(rf"(?<![\w-]){re.escape(who)}(?![\w-])", text):
                continue
            for pattern in SAYS:
                for match in pattern.finditer(text):
                    said = {int(g) for g in match.groups()}
                    if said & values:
                        found.append(f"{text!r} says {sorted(said & values)} of {who}")
    return found


def check(case: tuple[EncounterSpec, int], plan: list[tuple[Any, ...]], tmp: Path) -> None:
    spec, seed = case
    out = tmp / f"fight-{len(list(tmp.iterdir()))}.jsonl"
    seat_frames, watched, gm_frames = trio.run(lambda: within(served_fight(spec, seed, plan, out)))
    hidden = hidden_values(out, spec.combatants[0].side)
    assert seat_frames[-1]["type"] == "end" and watched[-1]["type"] == "end"
    assert any(f["type"] == "odds" for f in gm_frames), "the GM was told no odds"
    for who, frames in [("seat", seat_frames), ("spectator", watched)]:
        found = [leak for frame in frames for leak in leaks(frame, hidden)]
        assert not found, f"the {who} was told: {found[:5]}"


@settings(max_examples=examples(6), deadline=None, suppress_health_check=list(HealthCheck))
@given(case=encounters(), plan=overrides)
def test_no_hidden_number_reaches_a_seat_or_a_spectator(
    case: tuple[EncounterSpec, int], plan: list[tuple[Any, ...]], tmp_path: Path
) -> None:
    """A few random served fights with random GM overrides: nothing hidden is told."""
    check(case, plan, tmp_path)


@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(case=encounters(), plan=overrides)
def test_no_hidden_number_reaches_a_seat_or_a_spectator_in_many_fights(
    case: tuple[EncounterSpec, int], plan: list[tuple[Any, ...]], tmp_path: Path
) -> None:
    """The same, over many more fights."""
    check(case, plan, tmp_path)
