"""Train a policy with numpy alone, then pit it against ``aggressive``, as ``initiative duel`` does.

Actor-critic REINFORCE over a shared per-offer scorer: every legal offer is scored by one
small network (one hidden layer) of the offer's row, the row of the combatant it names, the
actor's own row, its allies' and its enemies' rows pooled (a maximum per column) and the
global features of the observation (``initiative.env.Encoder``); a softmax over the legal
offers is the policy, and a linear critic of the same state is the baseline. The same network
plays every combatant of a side, so it plays either side of ``openings-duel``, and, unchanged,
any encounter of the ruleset. The reward is shaped by hit points (see ``train``).

It trains on ``openings-duel`` against ``aggressive`` (the sides in turn), then prints two
figures, each a duel of 400 seeds (every seed fought twice, the trained policy once on each
side, the same dice; an exact two-sided sign test over the seeds where one did better):

- on ``openings-duel``, where it trained;
- on ``benchmarks/openings-2v2.toml``, a 2v2 it never saw (transfer).

    python benchmarks/train_example.py [--episodes N] [--seeds N] [--save model.npz]
        [--hidden N] [--lr X] [--entropy X] [--shaping X] [--discount X]
"""

from __future__ import annotations

# --- the example: docs/env.md shows from here to the end marker verbatim (a test holds it) ---
import numpy as np
from initiative.actors import in_line
from initiative.batch import paired

import initiative
from initiative.env import Encoder, model_policy


class Scorer:
    """A policy and a critic over the entity observation. The policy: one hidden layer scores
    each legal offer from its row, the row of the combatant it names, and the state (the
    actor's row, its allies' and its enemies' rows pooled, the globals); a softmax over the
    legal offers. The critic: a linear value of the state."""

    def __init__(self, encoder, hidden=16, seed=0):
        self.encoder = encoder
        offers, columns = encoder.offer_features, encoder.combatant_features
        self.targets = np.array([i for i, n in enumerate(offers) if n.startswith("target[")])
        self.ally, self.enemy = columns.index("ally"), columns.index("enemy")
        self.hp = columns.index("hp_points")
        self.state_size = 3 * len(columns) + len(encoder.global_features)
        self.inputs = len(offers) + len(columns) + self.state_size
        rng = np.random.default_rng(seed)
        self.w1 = rng.normal(0, 1 / np.sqrt(self.inputs), (self.inputs, hidden))
        self.b1 = np.zeros(hidden)
        self.w2 = np.zeros(hidden)  # every offer equally likely at first
        self.value = np.zeros(self.state_size + 1)  # the critic's weights (and bias)

    def read(self, observation):
        """The state, the offers' features and the potential (own side's hit points less the
        enemies', per 50) of one observation; the kept offers only."""
        parts = self.encoder.split(observation)
        rows, offers = parts["combatants"], parts["offers"]
        offers = offers[offers[:, 0] == 1]  # the kept offers ("valid"): the mask's first entries
        allies, enemies = rows[rows[:, self.ally] == 1], rows[rows[:, self.enemy] == 1]
        pooled = [g.max(axis=0) if len(g) else np.zeros(rows.shape[1]) for g in (allies, enemies)]
        state = np.concatenate([rows[0], *pooled, parts["globals"]])
        named = offers[:, self.targets] @ rows  # the target's row (0 when it names none)
        x = np.concatenate([offers, named, np.broadcast_to(state, (len(offers), state.size))], 1)
        potential = rows[0, self.hp] + allies[:, self.hp].sum() - enemies[:, self.hp].sum()
        return state, x, potential

    def probabilities(self, x):
        logits = np.tanh(x @ self.w1 + self.b1) @ self.w2
        p = np.exp(logits - logits.max())
        return p / p.sum()

    def greedy(self, observation, mask):
        return int(np.argmax(self.probabilities(self.read(observation)[1])))

    def save(self, path):
        np.savez(path, w1=self.w1, b1=self.b1, w2=self.w2, value=self.value)


def hit_points(state, side):
    """The potential at the end: ``side``'s hit points less its enemies', per 50, as read."""
    return sum(
        min(max(c.hp, 0) / 50, 1) * (1 if c.side == side else -1) for c in state.combatants.values()
    )


def train(
    scorer,
    encounter,
    episodes,
    *,
    batch=16,
    lr=0.01,
    entropy=0.01,
    shaping=1.0,
    discount=1.0,
    seed=0,
    opponent="aggressive",
):
    """Actor-critic REINFORCE against ``opponent``. The rewards: ``shaping`` times the change
    in hit points from one of the learner's decisions to its next (own side's less the
    enemies', per 50), and at the end +1 for a win of the learner's side, -1 for a loss, 0 for
    none; a decision's return is the sum of those after it, each ``discount`` times less per
    decision. The advantage subtracts the critic's value; an entropy bonus keeps the policy
    exploring; Adam steps every ``batch`` episodes. The learner plays each side in turn, every
    combatant of it."""
    rng = np.random.default_rng(seed)
    sides = tuple(initiative.load_encounter(encounter).sides)
    params = [scorer.w1, scorer.b1, scorer.w2, scorer.value]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    trace = []  # per decision with a choice: (state, offers' features, chosen, potential)

    def sample(observation, mask):
        state, x, potential = scorer.read(observation)
        p = scorer.probabilities(x)
        choice = int(rng.choice(len(p), p=p))
        if len(p) > 1:  # a decision with one offer teaches nothing
            trace.append((state, x, choice, potential))
        return choice

    learner = in_line(model_policy(sample))
    outcomes, states, xs, chosen, returns, sizes = [], [], [], [], [], []
    for episode in range(episodes):
        side, other = sides[episode % 2], sides[1 - episode % 2]
        trace.clear()
        result = initiative.run(
            encounter, seed=10_000 + episode, policies={side: learner, other: opponent}
        )
        won = 1.0 if result.winner == side else -1.0 if result.winner == other else 0.0
        outcomes.append(won)
        after, gain = hit_points(result.state, side), won
        for state, x, choice, potential in reversed(trace):  # returns from the end backwards
            gain = shaping * (after - potential) + discount * gain
            after = potential
            chosen.append(choice)
            states.append(state)
            xs.append(x)
            sizes.append(len(x))
            returns.append(gain)
        if (episode + 1) % batch or not states:
            continue
        grads = policy_gradient(scorer, states, xs, chosen, returns, sizes, entropy)
        for i, (param, grad) in enumerate(zip(params, grads, strict=True)):
            m[i] = 0.9 * m[i] + 0.1 * grad
            v[i] = 0.999 * v[i] + 0.001 * grad * grad
            step = (episode + 1) // batch
            param += lr * (m[i] / (1 - 0.9**step)) / (np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8)
        states, xs, chosen, returns, sizes = [], [], [], [], []
    return outcomes


def policy_gradient(scorer, states, xs, chosen, returns, sizes, entropy):
    """The ascent directions of the batch, every decision at once: the actor's (advantage times
    the gradient of the chosen offer's log-probability, plus the entropy's) and the critic's."""
    s = np.hstack([np.array(states), np.ones((len(states), 1))])
    g = np.array(returns)
    advantage = g - s @ scorer.value
    x = np.concatenate(xs)
    starts = np.cumsum([0, *sizes[:-1]])
    chosen = starts + np.array(chosen)  # the chosen offers' rows in x
    segment = np.repeat(np.arange(len(sizes)), sizes)
    hidden = np.tanh(x @ scorer.w1 + scorer.b1)
    logits = hidden @ scorer.w2
    logits = logits - np.maximum.reduceat(logits, starts)[segment]
    p = np.exp(logits)
    p /= np.add.reduceat(p, starts)[segment]
    logp = np.log(p + 1e-12)
    h = -np.add.reduceat(p * logp, starts)  # each decision's entropy
    dlogits = -p * advantage[segment] - entropy * p * (logp + h[segment])
    dlogits[chosen] += advantage
    dhidden = np.outer(dlogits, scorer.w2) * (1 - hidden**2)
    n = len(sizes)
    return [x.T @ dhidden / n, dhidden.sum(0) / n, hidden.T @ dlogits / n, s.T @ advantage / n]


def duel(encounter, policy, seeds, *, start=1, opponent="aggressive"):
    """As ``initiative duel``: each seed fought twice, ``policy`` once on each side against
    ``opponent``, with the same dice. Returns the seeds where ``policy`` did better, those
    where ``opponent`` did, the even ones, and the exact two-sided sign test's p."""
    spec = initiative.load_encounter(encounter)
    one, two = spec.sides
    scores = []
    for seed in range(start, start + seeds):
        for mine, theirs in ((one, two), (two, one)):
            result = initiative.run(spec, seed=seed, policies={mine: policy, theirs: opponent})
            won = 1 if result.winner == mine else -1 if result.winner == theirs else 0
            scores.append((seed, won))
    pairs = paired(scores)
    return pairs.a_better, pairs.b_better, pairs.even, pairs.p


# --- end of the example ---


def main() -> None:
    import argparse
    import time
    from pathlib import Path

    root = Path(__file__).parents[1]
    duel_file = root / "examples" / "openings-duel.toml"
    transfer = root / "benchmarks" / "openings-2v2.toml"

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10000)
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--save", type=Path, default=None)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--shaping", type=float, default=1.0)
    parser.add_argument("--discount", type=float, default=1.0)
    args = parser.parse_args()
    started = time.process_time()
    scorer = Scorer(Encoder(duel_file), hidden=args.hidden)
    settings = {k: getattr(args, k) for k in ("lr", "entropy", "shaping", "discount")}
    outcomes = train(scorer, duel_file, args.episodes, **settings)
    trained = time.process_time() - started
    last = outcomes[-min(500, len(outcomes)) :]
    print(
        f"trained on {args.episodes} episodes of openings-duel against aggressive in"
        f" {trained:.0f} s of CPU; mean reward over the last {len(last)}: {np.mean(last):+.3f}"
    )
    if args.save:
        scorer.save(args.save)
    policy = in_line(model_policy(scorer.greedy))
    for name, encounter in (("openings-duel", duel_file), ("openings-2v2 (transfer)", transfer)):
        better, worse, even, p = duel(encounter, policy, args.seeds)
        verdict = "beats" if better > worse and p < 0.01 else "does not clearly beat"
        print(
            f"{name}: trained {verdict} aggressive: better on {better} seeds, worse on {worse},"
            f" {even} even; p = {p:.2g} (exact two-sided sign test, {args.seeds} seeds)"
        )
    print(f"total: {time.process_time() - started:.0f} s of CPU")


if __name__ == "__main__":
    main()
