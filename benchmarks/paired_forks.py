"""Do paired dice narrow the comparison of two offers? (``view.fork(dice=k, paired=True)``)

At a few turn decisions of fights played by ``aggressive`` (every decision with at least two
offers, of ``--positions`` seeds), the offer ``aggressive`` takes (A) and each other offer (B)
are played on ``--playouts`` forks each: ``k = 0 .. N-1``, the offer sent, then ``aggressive``
for everyone to the end of the fight (or, with ``--rounds R``, of the R-th round after this
one, as ``lookahead`` does with R = 1). The outcome of a fork is, for the side of the one
deciding, ``hp_balance`` (its share of hit points left less the enemies', plus one for a win,
minus one for a loss). For each pair of offers it prints the standard deviation over k of
``outcome(A, k) - outcome(B, k)`` three ways:

- ``indep``: A on fork ``k``, B on fork ``N + k`` (independent dice, the worst case);
- ``plain``: both on ``fork(dice=k)`` (today's forks: the same stream, drawn in turn);
- ``paired``: both on ``fork(dice=k, paired=True)`` (each roll from its own key's stream);

with the mean difference (paired) and ``plain / paired``, the factor by which pairing shrinks
the spread (its square is how many times fewer playouts tell the two offers apart as well).

    python benchmarks/paired_forks.py [--playouts N] [--positions N] [--per-fight N]
        [--rounds R] [--examples a.toml,b.toml]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from initiative.actors import aggressive, hp_balance
from initiative.engine import Decision, Fight, PriorityToken, load_encounter

ROOT = Path(__file__).parents[1]
EXAMPLES = ("examples/openings-duel.toml", "examples/percentile-wilhelm.toml")


def positions(example: str, seed: int, per_fight: int) -> list[tuple[Fight, PriorityToken]]:
    """``per_fight`` turn decisions with two offers or more of ``example`` at ``seed``, spread
    evenly over the fight, each a fight of its own stopped there (a fork is taken from a
    fight waiting on it)."""
    spec = load_encounter(ROOT / example)

    def play(stop: int) -> tuple[Fight, PriorityToken | None, int]:
        """The fight stopped at its ``stop``-th such decision (or played out), and how many
        it had."""
        fight = Fight(spec, seed)
        drive = fight.run()
        seen = 0
        try:
            token = next(drive)
            while True:
                if token.window.kind == "turn" and len(token.legal) > 1:
                    if seen == stop:
                        return fight, token, seen
                    seen += 1
                token = drive.send(Decision(action=aggressive(token.view)))
        except StopIteration:
            return fight, None, seen

    count = play(-1)[2]
    stops = sorted({round(i * (count - 1) / max(per_fight - 1, 1)) for i in range(per_fight)})
    found = []
    for stop in stops[: min(per_fight, count)]:
        fight, token, _ = play(stop)
        assert token is not None
        found.append((fight, token))
    return found


def outcome(token: PriorityToken, offer: object, dice: int, paired: bool, rounds: int) -> float:
    assert token.view.fork is not None
    branch = token.view.fork(dice=dice, paired=paired)
    branch.send(offer)
    through = None if rounds == 0 else token.view.round + rounds
    branch.play(aggressive, through=through)
    return hp_balance(branch.state, token.view.me.side)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--playouts", type=int, default=200)
    parser.add_argument("--positions", type=int, default=2, help="seeds per example")
    parser.add_argument("--per-fight", type=int, default=3, help="decisions per seed")
    parser.add_argument("--rounds", type=int, default=0, help="0: play to the end")
    parser.add_argument("--examples", default=",".join(EXAMPLES))
    args = parser.parse_args()
    n = args.playouts
    started = time.process_time()
    print(
        f"{n} playouts per offer and way; horizon: "
        f"{'the end' if args.rounds == 0 else f'{args.rounds} round(s)'}"
    )
    print(
        f"{'example':<20} {'seed':>4} {'rnd':>3} {'who':<8} {'B (A = aggressive)':<28} "
        f"{'mean':>7} {'indep':>6} {'plain':>6} {'paired':>6} {'ratio':>6}"
    )
    ratios = []
    rows: list[dict[str, float]] = []
    pooled = {"indep": 0.0, "plain": 0.0, "paired": 0.0}
    for example in args.examples.split(","):
        for seed in range(1, args.positions + 1):
            for _, token in positions(example, seed, args.per_fight):
                a = aggressive(token.view)
                ways = (("indep", False, n), ("plain", False, 0), ("paired", True, 0))
                mine = {
                    way: [outcome(token, a, k, paired, args.rounds) for k in range(n)]
                    for way, paired, _ in ways
                }
                for offer in token.legal:
                    b = offer.action
                    if b == a:
                        continue
                    diffs = {
                        way: [
                            mine[way][k] - outcome(token, b, k + shift, paired, args.rounds)
                            for k in range(n)
                        ]
                        for way, paired, shift in ways
                    }
                    sd = {w: statistics.pstdev(d) for w, d in diffs.items()}
                    for way in sd:
                        pooled[way] += sd[way] ** 2
                    rows.append(sd)
                    if sd["plain"] == 0:  # both offers come to the same, whatever the dice
                        ratio = float("nan")
                    else:
                        ratio = sd["plain"] / sd["paired"] if sd["paired"] else float("inf")
                        ratios.append(ratio)
                    name = Path(example).stem
                    text = repr(b)[:28]
                    print(
                        f"{name:<20} {seed:>4} {token.view.round:>3} {token.who:<8} {text:<28} "
                        f"{statistics.fmean(diffs['paired']):>7.3f} {sd['indep']:>6.3f} "
                        f"{sd['plain']:>6.3f} {sd['paired']:>6.3f} {ratio:>6.2f}",
                        flush=True,
                    )
    finite = [r for r in ratios if r != float("inf")]
    print(
        f"{len(ratios)} pairs of offers whose plain spread is not 0; plain/paired spread: "
        f"median {statistics.median(ratios):.2f}, min {min(ratios):.2f}, max {max(finite):.2f}"
        f" and {len(ratios) - len(finite)} with no spread at all when paired"
    )
    pairs = len(rows)
    rms = {way: (v / max(pairs, 1)) ** 0.5 for way, v in pooled.items()}
    print(
        f"root mean square spread over all {pairs} pairs: indep {rms['indep']:.3f}, "
        f"plain {rms['plain']:.3f}, paired {rms['paired']:.3f} (plain/paired "
        f"{rms['plain'] / rms['paired']:.2f}); {time.process_time() - started:.0f} s of CPU"
    )


if __name__ == "__main__":
    main()
