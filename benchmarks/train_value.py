"""Learn `search`'s `value` evaluation from self-play: each ruleset's weights, and the ones over all
of them in `actors/value_weights.json`.

For every bundled example, fights of ``--fights`` seeds (500) from ``--seed-start`` (100,001 by
default: far from the benchmark's 1 to 200 and from the seeds tuning used, 1,001 on) are played
to their end in line, each side by a policy drawn for that fight (``tactician`` or the first
legal offer, a half each; and each combatant, one time in ten, ``random`` instead, for
coverage). Every ``--every``-th decision, the state is taken as a position, from both sides'
view (the features of ``actors._value.Value``), labelled with the fight's result for that side
(1 won, 0 lost, 0.5 no winner). A logistic regression without intercept (the features are
antisymmetric) is fitted per ruleset, and over all of them together, by Newton's method with
a small ridge penalty (numpy); one fight in five is held out to report the log loss. The fit
over all of them is written to the file (the weights of a ruleset that declares none), the same
file byte for byte for the same arguments; each ruleset's own fit is printed as the ``value``
of its ``search_profile`` (``SearchProfile.value`` in the ruleset's class), for its author to
copy there.

    python benchmarks/train_value.py [--fights 500] [--every 3] [--seed-start 100001] [--out FILE]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import msgspec
import numpy as np
from initiative.actors import BUILTIN, PolicyContext, load_policy
from initiative.actors._value import FEATURES, WEIGHTS, Fit, Value, Weights
from initiative.engine import Fight, Rng, Stepper, find_ruleset, load_encounter, policy_rng

ROOT = Path(__file__).parents[1]
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.toml"))
RIDGE = 1e-3
ANY = "*"
"""The name the fit over every ruleset is printed under."""


def play(example: str, seed: int, every: int) -> tuple[str, list[tuple[float, ...]], list[float]]:
    """One self-play fight: its ruleset, the positions' features and their labels."""
    spec = load_encounter(ROOT / "examples" / f"{example}.toml")
    value = Value(spec, weights=(0.0,) * len(FEATURES))
    rng = Rng(seed, "train-value")
    sides = list(spec.sides)
    by_side = {s: ("tactician" if rng.next64() % 2 else "first") for s in sides}
    decide = {}
    for c in spec.combatants:
        name = "random" if rng.next64() % 10 == 0 else by_side[c.side]
        ctx = PolicyContext(combatant=c, encounter=spec, rng=policy_rng(seed, c.id))
        policy = load_policy(name, ctx).policy
        decide[c.id] = getattr(policy, "decide", policy)
    fight = Fight(spec, seed)
    stepper = Stepper(fight)
    taken: list[tuple[str, tuple[float, ...]]] = []
    n = 0
    while (token := stepper.token) is not None:
        if n % every == 0:
            for side in sides:
                taken.append((side, value.features(fight.state, side)))
        n += 1
        stepper.apply(decide[token.who](token.view))
    winner = fight.state.winner
    labels = [0.5 if winner is None else float(winner == side) for side, _ in taken]
    return spec.ruleset, [f for _, f in taken], labels


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Logistic regression of soft labels ``y`` on ``x`` (no intercept), Newton's method."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + RIDGE * w
        hess = (x.T * (p * (1 - p))) @ x / len(y) + RIDGE * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-(x @ w))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fights", type=int, default=500, help="self-play fights per example")
    parser.add_argument("--every", type=int, default=3, help="take every N-th decision's state")
    parser.add_argument("--seed-start", type=int, default=100_001)
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args()
    assert "first" in BUILTIN and "tactician" in BUILTIN
    started = time.process_time()
    # rows by ruleset: (features, labels, held out), and the examples each ruleset has
    rows: dict[str, list[tuple[list[tuple[float, ...]], list[float], bool]]] = {}
    examples: dict[str, list[str]] = {}
    for example in EXAMPLES:
        for k in range(args.fights):
            ruleset, x, y = play(example, args.seed_start + k, args.every)
            rows.setdefault(ruleset, []).append((x, y, k % 5 == 4))
            examples.setdefault(ruleset, [])
            if example not in examples[ruleset]:
                examples[ruleset].append(example)
        print(
            f"{example}: {args.fights} fights ({time.process_time() - started:.0f} s CPU)",
            flush=True,
        )
    fits: dict[str, Fit] = {}
    for name in [*sorted(rows), ANY]:
        games = rows[name] if name != ANY else [g for r in rows.values() for g in r]
        train = [(x, y) for x, y, held in games if not held]
        test = [(x, y) for x, y, held in games if held]
        xt = np.array([f for x, _ in train for f in x], dtype=float)
        yt = np.array([v for _, y in train for v in y], dtype=float)
        xh = np.array([f for x, _ in test for f in x], dtype=float)
        yh = np.array([v for _, y in test for v in y], dtype=float)
        w = fit(xt, yt)
        loss = log_loss(xh, yh, w)
        base = log_loss(xh, yh, np.zeros(len(FEATURES)))
        fits[name] = Fit(
            weights=tuple(round(float(v), 6) for v in w),
            examples=tuple(sorted(e for r, es in examples.items() for e in es if name in (r, ANY))),
            fights=len(games),
            positions=len(xt) + len(xh),
            log_loss=round(loss, 6),
        )
        print(
            f"{name:10s} weights {' '.join(f'{f}={v:+.3f}' for f, v in zip(FEATURES, w, strict=True))}"
            f"  held-out log loss {loss:.4f} (coin {base:.4f} = ln 2: {math.log(2):.4f}),"
            f" {len(xt) + len(xh)} positions",
            flush=True,
        )
    for name in sorted(rows):
        learned = fits[name].weights
        declared = find_ruleset(name).search_profile.value
        same = "as declared" if declared == learned else f"declared: {declared}"
        print(f"{name}: search_profile value={learned} ({same})")
    weights = Weights(
        features=FEATURES,
        fit=fits[ANY],
        seeds=f"{args.seed_start} to {args.seed_start + args.fights - 1}, every {args.every}-th decision",
    )
    args.out.write_bytes(msgspec.json.format(msgspec.json.encode(weights), indent=2) + b"\n")
    print(f"wrote {args.out} ({time.process_time() - started:.0f} s CPU)")


if __name__ == "__main__":
    main()
