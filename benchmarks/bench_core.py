"""Core benchmarks, each figure against its ceiling measured in the same run.

    python benchmarks/bench_core.py [--repeat N]

1. Decisions per second of a standard encounter (examples/openings-skirmish.toml, built-in
   policies, through the Trio scheduler and combatant tasks), against a bare Trio channel round
   trip (a token out on a 0-size channel, a decision back): the ceiling for any actor design.
2. Events per second folded by ``state`` (parse the log into typed events, then fold), against
   raw msgspec decoding of the same lines into plain objects.

Figures are printed as ratios measured in one run, because machines are shared and noisy; no
test asserts a time.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

import msgspec
import structlog
import trio
from _timing import best_times
from initiative.actors import run_encounter
from initiative.events import PriorityGranted, encode_lines, parse_log

from initiative import engine

ROOT = Path(__file__).parents[1]
STANDARD = ROOT / "examples" / "openings-skirmish.toml"


async def _decisions(runs: int) -> tuple[int, float]:
    spec = engine.load_encounter(STANDARD)
    decisions = 0
    start = time.perf_counter()
    for seed in range(runs):
        result = await run_encounter(spec, seed)
        decisions += sum(isinstance(e, PriorityGranted) for e in result.events)
    return decisions, time.perf_counter() - start


async def _round_trips(count: int) -> float:
    token_tx, token_rx = trio.open_memory_channel[object](0)
    reply_tx, reply_rx = trio.open_memory_channel[object](0)

    async def combatant() -> None:
        async with token_rx, reply_tx:
            async for token in token_rx:
                await reply_tx.send(token)

    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(combatant)
        async with token_tx, reply_rx:
            for i in range(count):
                await token_tx.send(i)
                await reply_rx.receive()
    return time.perf_counter() - start


def _fold_vs_decode(repeat: int) -> tuple[int, float, float]:
    spec = engine.load_encounter(STANDARD)
    result = trio.run(lambda: run_encounter(spec, 7))
    raw = encode_lines(result.events)
    lines = raw.splitlines()
    decoder = msgspec.json.Decoder()

    def decode_raw() -> None:
        for line in lines:
            decoder.decode(line)

    best_state, best_raw = best_times(
        repeat, lambda: engine.fold(parse_log(raw).events), decode_raw
    )
    return len(lines), best_state, best_raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="repetitions (best is kept)")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    decisions, seconds = trio.run(_decisions, args.repeat * 4)
    engine_rate = decisions / seconds
    trips = 20_000
    ceiling = trips / trio.run(_round_trips, trips)
    print(f"decisions/s, standard encounter (Trio actors): {engine_rate:12,.0f}")
    print(f"round trips/s, bare Trio channel (ceiling):    {ceiling:12,.0f}")
    print(f"ratio engine / ceiling:                        {engine_rate / ceiling:12.3f}")

    events, state_s, raw_s = _fold_vs_decode(args.repeat)
    print(f"events/s folded by state (parse + fold):       {events / state_s:12,.0f}")
    print(f"events/s raw msgspec decode (ceiling):         {events / raw_s:12,.0f}")
    print(f"ratio state / raw decode:                      {raw_s / state_s:12.3f}")


if __name__ == "__main__":
    main()
