"""How strong `search` is: duels on the bundled examples, and its strength against its budget.

For each example (two sides each), `search` plays the strongest built-in heuristic and a
first-legal-offer policy over paired seeds: each seed is fought twice, `search` on one side
and then on the other, so the dice and the side's advantage cancel inside a pair. For each
pairing it prints the games won, lost and undecided by `search`, the pairs where `search` did
better or worse (and even), the exact two-sided sign test's p over the pairs that were not even
(`actors.paired`, as `initiative duel` reports it), and the CPU time of a `search` decision (µs,
decisions with more than one offer, measured in the worker with `time.process_time`). Then it
prints `search`'s win rate against the strongest built-in at three budgets of rollouts, a
quarter and a half of the example's own and its own (whose games are those of the first
table): a strength-against-time curve.

`search` is the bare name: the settings its example's ruleset declares (`search_profile`).

    python benchmarks/search_strength.py [--seeds 60] [--seeds-of openings-duel=200 ...]
        [--seed-start 201]
        [--curve-seeds 40] [--jobs 2] [--opponent tactician] [--budgets 0.25 0.5]
        [--examples openings-duel ...]
        [--search paired=true ...] [--no-curve] [--no-first] [--record games.jsonl]

`--seeds-of EXAMPLE=N` gives one example more seeds than `--seeds` (where its games are cheap
or most of its seeds are even: the dice decide both games whoever plays); by default
`thriller-ambush` plays 500 against `tactician`, `openings-duel` 200, `tactical-bridge` 120,
`percentile-wilhelm` 40 (`SEEDS_OF`), `openings-skirmish` 60, and each at most 60 against the
first offer, a one-sided pairing everywhere (`FIRST_SEEDS`); the curve plays at most
`--curve-seeds` (40) at each budget. Every game is queued at once, so both workers stay busy
from row to row. The default run's time with two jobs is in `benchmarks/README.md` (under an
hour). `--search OPTIONS`
(repeatable) plays `search:OPTIONS` (over the ruleset's settings) instead of the bare search,
one set of rows for each, on the same seeds (so two variants, `--search paired=false --search
paired=true`, or the ruleset's settings against another evaluation, `--search '' --search
evaluate=outcome,rounds=2`, are compared on the same games of their opponents); `--no-curve`
leaves out the budgets' curve; `--no-first` plays only the strongest built-in (for tuning);
`--record FILE` appends one JSON line per game (example, search,
opponent, seed, swapped, score, CPU, decisions), so runs over different seeds can be added up:
`--tally FILE` prints such a record's rows (over the seeds it holds for every variant and
opponent of an example) and, for two variants or more, each against the first on the same
seeds: the seeds where its two games against an opponent scored more or less than the first
variant's two (a paired sign test of the variants, through their common opponents).

Each game is an ordinary fight of named policies (`search:rollouts=N`, `tactician`, ...),
stepped in line as `batch` steps it, so ``initiative run EXAMPLE --seed S --policy SIDE=...``
fights any of them again to the same log. Figures depend on the machine and its load (quote
`uptime` beside them); the decisions, and so the wins, do not.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from initiative.actors import BUILTIN, PolicyContext, load_policy
from initiative.actors._search import ROLLOUTS, STEPS, profile_settings
from initiative.batch import paired, sign_test, wilson
from initiative.engine import Fight, Stepper, View, find_ruleset, load_encounter, policy_rng
from initiative.events import Action

ROOT = Path(__file__).parents[1]
EXAMPLES = [
    "openings-duel",
    "openings-skirmish",
    "tactical-bridge",
    "thriller-ambush",
    "percentile-wilhelm",
]


SEEDS_OF = {
    "openings-duel": 200,
    "tactical-bridge": 120,
    "thriller-ambush": 500,
    "percentile-wilhelm": 40,
}
"""Paired seeds per example, unless ``--seeds`` says otherwise (else ``--seeds``' 60): more
where most seeds are even (the dice decide both games, whoever plays) or the pairing is close,
fewer where it is one-sided and its games are dear (``percentile-wilhelm``: 40-8 and 39-10 in
60); so the default run fits in an hour with two jobs."""

FIRST_SEEDS = 60
"""By default, the most paired seeds an example plays against the first offer: a one-sided
pairing in every example (seeds 201 to 260 showed it at p 0.002 or less in each, 201 to 240 in
``percentile-wilhelm``), so the seeds beyond it go to ``tactician``, the close one
(``thriller-ambush`` 500)."""

CURVE_SEEDS = 40
"""The most paired seeds an example's curve plays at each budget (``--curve-seeds``)."""


def first(view: View) -> Action:
    """The baseline: the first legal offer, whatever it is (when no built-in `first` exists)."""
    return view.legal[0].action


FIRST = "first"


@dataclass(frozen=True)
class Game:
    example: str
    seed: int
    search: str
    """The search's policy name (``search:rollouts=N``)."""
    opponent: str
    swapped: bool
    """Whether search plays the encounter's second side (else its first)."""


@dataclass(frozen=True)
class Outcome:
    game: Game
    score: int
    """+1 search won, -1 it lost, 0 no winner."""
    cpu: float
    """CPU seconds of search's decisions that had more than one offer."""
    searched: int


def play(game: Game) -> Outcome:
    """Fight one game in this process; the search's CPU time measured around its decisions."""
    spec = load_encounter(ROOT / "examples" / f"{game.example}.toml")
    sides = list(spec.sides)
    mine = sides[1] if game.swapped else sides[0]
    decide = {}
    for c in spec.combatants:
        name = game.search if c.side == mine else game.opponent
        if name == FIRST and FIRST not in BUILTIN:
            decide[c.id] = first
            continue
        ctx = PolicyContext(combatant=c, encounter=spec, rng=policy_rng(game.seed, c.id))
        policy = load_policy(name, ctx).policy
        decide[c.id] = getattr(policy, "decide", policy)
    searching = {c.id for c in spec.combatants if c.side == mine}
    fight = Fight(spec, game.seed)
    stepper = Stepper(fight)
    cpu = 0.0
    searched = 0
    clock = time.process_time
    while (token := stepper.token) is not None:
        if token.who in searching and len(token.legal) > 1:
            start = clock()
            action = decide[token.who](token.view)
            cpu += clock() - start
            searched += 1
        else:
            action = decide[token.who](token.view)
        stepper.apply(action)
    winner = fight.state.winner
    score = 0 if winner is None else (1 if winner == mine else -1)
    return Outcome(game, score, cpu, searched)


def games(example: str, search: str, opponent: str, seeds: range) -> list[Game]:
    return [Game(example, s, search, opponent, swapped) for s in seeds for swapped in (False, True)]


def report(outcomes: list[Outcome]) -> str:
    won = sum(1 for o in outcomes if o.score > 0)
    lost = sum(1 for o in outcomes if o.score < 0)
    pairs = paired((o.game.seed, o.score) for o in outcomes)
    searched = sum(o.searched for o in outcomes)
    us = 1e6 * sum(o.cpu for o in outcomes) / searched if searched else 0.0
    rate = won / len(outcomes) if outcomes else 0.0
    low, high = wilson(won, len(outcomes))
    return (
        f"{won:3d}-{lost:3d}-{len(outcomes) - won - lost:3d}  pairs {pairs.a_better:2d}-"
        f"{pairs.b_better:2d} (even {pairs.even:2d})  paired p {pairs.p:8.2g}  games p"
        f" {sign_test(won, lost):8.2g}  win {rate:4.0%} [{low:.0%}, {high:.0%}]"
        f"  {us:9,.0f} µs/decision ({searched} decisions)"
    )


def tally(path: Path) -> None:
    """Print the rows of a ``--record`` file, and each variant against the first."""
    rows: dict[tuple[str, str, str], dict[tuple[int, bool], Outcome]] = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        game = Game(r["example"], r["seed"], r["search"], r["opponent"], r["swapped"])
        outcome = Outcome(game, r["score"], r["cpu"], r["searched"])
        rows.setdefault((game.example, game.search, game.opponent), {})[
            (game.seed, game.swapped)
        ] = outcome
    variants = list(dict.fromkeys(search for _, search, _ in rows))
    examples = list(dict.fromkeys(example for example, _, _ in rows))
    opponents = list(dict.fromkeys(opponent for _, _, opponent in rows))
    print(f"{path}: {sum(len(r) for r in rows.values())} games")
    overall: dict[tuple[str, str], list[int]] = {}
    for example in examples:
        keys = [(example, v, o) for v in variants for o in opponents if (example, v, o) in rows]
        common = set.intersection(*(set(rows[k]) for k in keys))
        seeds = sorted({seed for seed, swapped in common if (seed, not swapped) in common})
        print(
            f"\n{example}: {len(seeds)} paired seeds ({seeds[0] if seeds else '-'} to {seeds[-1] if seeds else '-'})"
        )
        for key in keys:
            outcomes = [rows[key][(seed, swapped)] for seed in seeds for swapped in (False, True)]
            print(f"  {key[1]:34s} vs {key[2]:10s} {report(outcomes)}")
        for variant in variants[1:]:
            for opponent in opponents:
                a, b = (example, variant, opponent), (example, variants[0], opponent)
                if a not in rows or b not in rows:
                    continue
                net = [
                    sum(rows[a][(seed, w)].score - rows[b][(seed, w)].score for w in (False, True))
                    for seed in seeds
                ]
                better = sum(1 for n in net if n > 0)
                worse = sum(1 for n in net if n < 0)
                was = overall.get((variant, opponent), [0, 0])
                overall[(variant, opponent)] = [was[0] + better, was[1] + worse]
                print(
                    f"  {variant} against {variants[0]} (vs {opponent}): seeds better-worse"
                    f" {better}-{worse} (even {len(net) - better - worse}), p {sign_test(better, worse):.2g}"
                )
    if overall:
        print("\nall examples:")
        both = [0, 0]
        for (variant, opponent), (better, worse) in overall.items():
            both = [both[0] + better, both[1] + worse]
            print(
                f"  {variant} against {variants[0]} (vs {opponent}): seeds better-worse"
                f" {better}-{worse}, p {sign_test(better, worse):.2g}"
            )
        print(f"  both opponents: {both[0]}-{both[1]}, p {sign_test(*both):.2g}")


def profiles() -> dict[str, str]:
    """The bundled rulesets' search settings, as the bare ``search`` plays them."""
    settings = {n: profile_settings(find_ruleset(n).search_profile) for n in BUNDLED}
    return {n: ",".join(f"{k}={v}" for k, v in s.items()) for n, s in settings.items()}


BUNDLED = ("openings", "percentile", "tactical", "thriller")


def budget_of(example: str) -> int:
    """The rollouts the bare ``search`` spends on ``example`` (its ruleset's settings)."""
    spec = load_encounter(ROOT / "examples" / f"{example}.toml")
    return find_ruleset(spec.ruleset).search_profile.rollouts or ROLLOUTS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--seeds", type=int, default=60, help="paired seeds (two games each) per example"
    )
    parser.add_argument(
        "--seeds-of",
        action="append",
        default=[],
        metavar="EXAMPLE=N",
        help="paired seeds for one example (where its games are cheap); repeatable",
    )
    parser.add_argument(
        "--seed-start",
        type=int,
        default=201,
        help="the first paired seed (201: where the reported runs start, apart from the seeds"
        " played while search was developed)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--opponent", default="tactician", help="the strongest built-in")
    parser.add_argument(
        "--budgets",
        type=float,
        nargs="+",
        default=[0.25, 0.5],
        help="the curve's budgets, as fractions of the example's own rollouts",
    )
    parser.add_argument("--examples", nargs="+", default=EXAMPLES, choices=EXAMPLES)
    parser.add_argument(
        "--search",
        action="append",
        default=[],
        metavar="OPTIONS",
        help="search's options (KEY=VALUE,... over its ruleset's); repeat to compare variants",
    )
    parser.add_argument("--no-curve", action="store_true", help="leave out the budgets' curve")
    parser.add_argument(
        "--curve-seeds",
        type=int,
        default=CURVE_SEEDS,
        help="the most paired seeds the curve plays at each budget",
    )
    parser.add_argument(
        "--no-first", action="store_true", help="play only the strongest built-in (for tuning)"
    )
    parser.add_argument("--record", type=Path, help="append one JSON line per game to this file")
    parser.add_argument("--tally", type=Path, help="print the rows of a --record file and stop")
    args = parser.parse_args()
    if args.tally:
        tally(args.tally)
        return
    for flag, value in (("--seeds", args.seeds), ("--curve-seeds", args.curve_seeds)):
        if value < 1:
            parser.error(f"{flag} {value}: at least one paired seed")
    counts = {example: args.seeds for example in args.examples}
    against_first: dict[str, int] = {}  # fewer seeds against the first offer, by default
    if args.seeds == parser.get_default("seeds"):  # the examples' own counts
        counts.update((e, n) for e, n in SEEDS_OF.items() if e in counts)
        against_first.update((e, min(n, FIRST_SEEDS)) for e, n in counts.items())
    for item in args.seeds_of:
        example, _, n = item.partition("=")
        if example not in counts or not n.isdigit() or int(n) < 1:
            parser.error(f"--seeds-of {item!r}: not EXAMPLE=N for one of {', '.join(counts)}")
        counts[example] = int(n)
        against_first.pop(example, None)
    tops = [f"search:{options}" if options else "search" for options in args.search or [""]]
    plan: dict[tuple[str, str, str], list[Game]] = {}
    for example in args.examples:
        for name in tops:
            for opponent in (args.opponent,) if args.no_first else (args.opponent, FIRST):
                n = against_first.get(example, counts[example]) if opponent == FIRST else None
                seeds = range(args.seed_start, args.seed_start + (n or counts[example]))
                plan[(example, name, opponent)] = games(example, name, opponent, seeds)
    curve: dict[str, list[tuple[int, str]]] = {}
    for example in [] if args.no_curve else args.examples:
        seeds = range(args.seed_start, args.seed_start + min(counts[example], args.curve_seeds))
        full = budget_of(example)
        points = sorted({max(1, round(f * full)) for f in args.budgets if f < 1})
        curve[example] = [*((b, f"search:rollouts={b}") for b in points), (full, tops[0])]
        for _, name in curve[example][:-1]:
            plan[(example, name, args.opponent)] = games(example, name, args.opponent, seeds)
    print(
        f"search_strength: paired seeds from {args.seed_start}"
        f" ({', '.join(f'{e} {n}' for e, n in counts.items())}"
        f"{f'; against the first offer at most {FIRST_SEEDS}' if against_first else ''}),"
        f" jobs {args.jobs};"
        f" search's settings by ruleset: {profiles()} (else {ROLLOUTS} rollouts, at most"
        f" {STEPS} fork decisions); load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    started = time.monotonic()
    done: dict[tuple[str, str, str], list[Outcome]] = {}
    with get_context("spawn").Pool(args.jobs) as pool:
        print(
            f"\n{' and '.join(f'`{t}`' for t in tops)} against each (search's games won-lost-undecided):",
            flush=True,
        )
        # Every game is queued at once, in the order printed, so both workers stay busy
        # across the rows (a row's last game no longer waits alone).
        queued = {key: pool.map_async(play, batch, chunksize=1) for key, batch in plan.items()}
        for (example, search, opponent), pending in queued.items():
            if search not in tops:
                continue
            done[(example, search, opponent)] = outcomes = pending.get()
            variant = f" {search.partition(':')[2] or 'default':14s}" if len(tops) > 1 else ""
            print(f"  {example:20s}{variant} vs {opponent:10s} {report(outcomes)}", flush=True)
            if args.record:
                with args.record.open("a") as out:
                    for o in outcomes:
                        line = {
                            "example": example,
                            "search": search,
                            "opponent": opponent,
                            "seed": o.game.seed,
                            "swapped": o.game.swapped,
                            "score": o.score,
                            "cpu": o.cpu,
                            "searched": o.searched,
                        }
                        out.write(json.dumps(line) + "\n")
        if curve:
            print(
                f"\nwin rate against {args.opponent} by budget (rollouts per decision),"
                f" over at most {args.curve_seeds} paired seeds:"
            )
        for example, points in curve.items():
            cells = []
            for budget, name in points:
                key = (example, name, args.opponent)
                if key not in done:
                    done[key] = queued[key].get()
                # (its own budget's games are the first table's: those of the curve's seeds)
                outcomes = [
                    o for o in done[key] if o.game.seed < args.seed_start + args.curve_seeds
                ]
                won = sum(1 for o in outcomes if o.score > 0)
                searched = sum(o.searched for o in outcomes)
                ms = 1e3 * sum(o.cpu for o in outcomes) / searched if searched else 0.0
                cells.append(f"{budget:3d}: {won / len(outcomes):4.0%} ({ms:5.1f} ms)")
            print(f"  {example:20s} " + "   ".join(cells), flush=True)
    everything = [o for outcomes in done.values() for o in outcomes]
    searched = sum(o.searched for o in everything)
    print(
        f"\n{len(everything)} games in {time.monotonic() - started:.0f} s wall,"
        f" {sum(o.cpu for o in everything):.0f} s CPU in {searched} search decisions;"
        f" load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
