"""How far `review`'s chances can be trusted: predicted chance against the observed win rate.

For each ruleset it fights its bundled examples on fresh seeds (from 300,001: neither the value
weights' self-play seeds, 100,001 on, nor the search benchmark's, 201 on, nor any seed used to
choose the review's budget), each side played by a policy of a mix (`aggressive`, `cautious`,
`tactician`, `first`, chosen by the seed and the side), reviews each fight, and takes at every
decision the decider's side's chance to win before it (the prediction) and whether that side
won (the observation). It prints, per ruleset, the predictions in 10 bins of chance with each
bin's count, mean prediction and observed win rate, and the Brier score (the mean squared
difference of prediction and outcome; lower is better) beside that of a baseline: the side's
share of the hit points standing.

    nice -n 10 python benchmarks/review_calibration.py [--fights 500] [--rollouts N]
        [--width 2] [--model tactician] [--cpu-minutes M] [--wall-minutes M] [--jobs 1]
        [--seed-start 300001] [--rulesets ...]
        [--record predictions.jsonl]

`--fights` is per ruleset (500 by default, as the issue asks); `--cpu-minutes` stops once this
much CPU time (of the workers, all rulesets together) has been spent, `--wall-minutes` once this
much time has passed, the rulesets taken in turn, so each gets about as many fights; `--rollouts` defaults to each
ruleset's review default; `--width 2` (the choice and the model's, the least there is) since
only the chance before each decision is measured here, which the width does not change.
`--record FILE` appends one JSON line per prediction (ruleset, example, seed, seq, side,
policy, chance, hit-point share, won) as each fight is done, and `--tally FILE ...` prints the
tables of such records (runs added up) without fighting. The figures and the load they were measured
at are in `benchmarks/README.md`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {
    "openings": ["openings-duel", "openings-skirmish"],
    "percentile": ["percentile-wilhelm"],
    "tactical": ["tactical-bridge"],
    "thriller": ["thriller-ambush"],
}
MIX = ("aggressive", "cautious", "tactician", "first")


def fight_and_review(
    task: tuple[str, str, int, int | None, int, str],
) -> tuple[str, list[dict], float]:
    """Fight ``example`` on ``seed`` with the mix, review it: its predictions and CPU time."""
    from initiative.events import read_log
    from initiative.replays import Budget, default_rollouts, review

    import initiative

    ruleset, example, seed, rollouts, width, model = task
    start = time.process_time()
    spec = initiative.load_encounter(ROOT / "examples" / f"{example}.toml")
    sides = list(dict.fromkeys(c.side for c in spec.combatants))
    policies = {side: MIX[(seed * 7 + 3 * i) % len(MIX)] for i, side in enumerate(sides)}
    # The policies written into the encounter, so that the log's header names them (a
    # ``policies`` override is not recorded in the log, and ``--model log`` reads the header).
    combatants = tuple(msgspec.structs.replace(c, policy=policies[c.side]) for c in spec.combatants)
    spec = msgspec.structs.replace(spec, combatants=combatants)
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "fight.jsonl"
        initiative.run(spec, seed=seed, out=log)
        n = rollouts or default_rollouts(ruleset)
        data = review(read_log(log), Budget(rollouts=n, width=width, model=model))
    rows = []
    for d in data["decisions"]:
        side = d["side"]
        total = sum(d["hp"].values())
        rows.append(
            {
                "ruleset": ruleset,
                "example": example,
                "seed": seed,
                "seq": d["seq"],
                "side": side,
                "policy": policies.get(side, ""),
                "chance": d["win"][side],
                "hp_share": d["hp"][side] / total if total else 0.5,
                "won": data["winner"] == side,
                "model": model,
            }
        )
    return ruleset, rows, time.process_time() - start


def tasks(args: argparse.Namespace) -> list[tuple[str, str, int, int | None, int, str]]:
    """Every fight, the rulesets taken in turn (so a CPU cap leaves each about as many)."""
    per = {r: EXAMPLES[r] for r in args.rulesets}
    out = []
    for i in range(args.fights):
        for ruleset, examples in per.items():
            example = examples[i % len(examples)]
            out.append(
                (ruleset, example, args.seed_start + i, args.rollouts, args.width, args.model)
            )
    return out


def table(rows: list[dict]) -> str:
    lines = ["  bin        n   predicted  observed  diff   ok(n>=100, within 5 pts)"]
    for b in range(10):
        low, high = b / 10, (b + 1) / 10
        inside = [r for r in rows if low <= r["chance"] < high or (b == 9 and r["chance"] == 1.0)]
        if not inside:
            lines.append(f"  {low:.1f}-{high:.1f}  {0:>5}")
            continue
        predicted = sum(r["chance"] for r in inside) / len(inside)
        observed = sum(r["won"] for r in inside) / len(inside)
        diff = 100 * (observed - predicted)
        ok = (
            "yes" if len(inside) >= 100 and abs(diff) <= 5 else ("-" if len(inside) < 100 else "no")
        )
        lines.append(
            f"  {low:.1f}-{high:.1f}  {len(inside):>5}   {100 * predicted:6.1f}%  "
            f"{100 * observed:6.1f}%  {diff:+5.1f}  {ok}"
        )
    return "\n".join(lines)


def brier(rows: list[dict], key: str) -> float:
    return sum((r[key] - r["won"]) ** 2 for r in rows) / len(rows) if rows else float("nan")


def tally(paths: list[Path]) -> None:
    """The tables of recorded predictions (``--record`` files, added up)."""
    rows = [json.loads(line) for p in paths for line in p.read_text().splitlines() if line]
    print(f"review calibration, from {len(rows)} recorded predictions")
    for ruleset in EXAMPLES:
        mine = [r for r in rows if r["ruleset"] == ruleset]
        if not mine:
            continue
        fights = len({(r["example"], r["seed"]) for r in mine})
        cpu = sum(r.get("cpu", 0.0) for r in mine)
        print()
        print(
            f"{ruleset}: {fights} fights, {len(mine)} decisions, {cpu:.0f} s of CPU;"
            f" Brier score: review {brier(mine, 'chance'):.4f},"
            f" hit-point share {brier(mine, 'hp_share'):.4f}"
        )
        print(table(mine))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fights", type=int, default=500, help="fights per ruleset")
    parser.add_argument("--rollouts", type=int, default=None)
    parser.add_argument("--width", type=int, default=2)
    parser.add_argument("--model", default="tactician", help="the review's model (or 'log')")
    parser.add_argument("--cpu-minutes", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed-start", type=int, default=300_001)
    parser.add_argument("--rulesets", nargs="*", default=list(EXAMPLES), choices=list(EXAMPLES))
    parser.add_argument("--wall-minutes", type=float, default=None)
    parser.add_argument("--record", type=Path, default=None)
    parser.add_argument("--tally", type=Path, nargs="*", default=None)
    args = parser.parse_args()
    if args.tally:
        tally(args.tally)
        return
    todo = tasks(args)
    found: dict[str, list[dict]] = {r: [] for r in args.rulesets}
    fights = dict.fromkeys(args.rulesets, 0)
    cpu = dict.fromkeys(args.rulesets, 0.0)
    cap = None if args.cpu_minutes is None else 60 * args.cpu_minutes
    wall = time.perf_counter()
    deadline = None if args.wall_minutes is None else wall + 60 * args.wall_minutes
    with get_context("forkserver").Pool(args.jobs) as pool:
        for ruleset, rows, spent in pool.imap(fight_and_review, todo):
            found[ruleset] += rows
            fights[ruleset] += 1
            cpu[ruleset] += spent
            if args.record is not None:
                with args.record.open("a") as f:
                    for r in rows:
                        f.write(json.dumps({**r, "cpu": spent / max(1, len(rows))}) + "\n")
            if (cap is not None and sum(cpu.values()) >= cap) or (
                deadline is not None and time.perf_counter() >= deadline
            ):
                pool.terminate()
                break
    print(
        f"review calibration: seeds from {args.seed_start}, policies {', '.join(MIX)},"
        f" model {args.model};"
    )
    print(
        f"{sum(fights.values())} fights, {sum(cpu.values()) / 60:.1f} min of CPU,"
        f" {(time.perf_counter() - wall) / 60:.1f} min of wall time with {args.jobs} job(s)"
    )
    for ruleset in args.rulesets:
        rows = found[ruleset]
        print()
        print(
            f"{ruleset}: {fights[ruleset]} fights, {len(rows)} decisions,"
            f" {cpu[ruleset]:.0f} s of CPU; Brier score: review {brier(rows, 'chance'):.4f},"
            f" hit-point share {brier(rows, 'hp_share'):.4f}"
        )
        print(table(rows))


if __name__ == "__main__":
    main()
