"""Train a policy with numpy alone, then pit it against ``aggressive``, as ``initiative duel`` does.

REINFORCE with a baseline over a shared per-offer scorer: every legal offer is scored by one
small network (one hidden layer) of the offer's row, the row of the combatant it names, the
actor's own row and the global features of the observation (``initiative.env.Encoder``); a
softmax over the legal offers is the policy. The same network plays every combatant of a side,
so it plays either side of ``openings-duel``, and, unchanged, any encounter of the ruleset.

It trains on ``openings-duel`` against ``aggressive`` (each episode on a side drawn at random),
then prints two figures, each a duel of 400 seeds (every seed fought twice, the trained policy
once on each side, the same dice; an exact two-sided sign test over the seeds where one did
better):

- on ``openings-duel``, where it trained;
- on ``benchmarks/openings-2v2.toml``, a 2v2 it never saw (transfer).

    python benchmarks/train_example.py [--episodes N] [--seeds N] [--save model.npz]
"""

from __future__ import annotations

# --- the example: docs/env.md shows from here to the end marker verbatim (a test holds it) ---
import numpy as np
from initiative.actors import in_line, paired

import initiative
from initiative.env import Encoder, model_policy


class Scorer:
    """One hidden layer that scores each offer row; a softmax over the legal ones."""

    def __init__(self, encoder, hidden=16, seed=0):
        self.encoder = encoder
        offers = encoder.offer_features
        self.targets = np.array([i for i, n in enumerate(offers) if n.startswith("target[")])
        self.inputs = (
            len(offers) + 2 * len(encoder.combatant_features) + len(encoder.global_features)
        )
        rng = np.random.default_rng(seed)
        self.w1 = rng.normal(0, 1 / np.sqrt(self.inputs), (self.inputs, hidden))
        self.b1 = np.zeros(hidden)
        self.w2 = np.zeros(hidden)  # every offer equally likely at first

    def features(self, observation):
        """Per offer row: the offer, the combatant it names, the actor, the globals."""
        parts = self.encoder.split(observation)
        offers, rows = parts["offers"], parts["combatants"]
        named = offers[:, self.targets] @ rows  # the target's row (0 when it names none)
        k = len(offers)
        actor = np.broadcast_to(rows[0], (k, rows.shape[1]))
        world = np.broadcast_to(parts["globals"], (k, parts["globals"].size))
        return np.concatenate([offers, named, actor, world], axis=1)

    def forward(self, x, mask):
        hidden = np.tanh(x @ self.w1 + self.b1)
        logits = np.where(mask == 1, hidden @ self.w2, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum(), hidden

    def greedy(self, observation, mask):
        p, _ = self.forward(self.features(observation), mask)
        return int(np.argmax(p))

    def save(self, path):
        np.savez(path, w1=self.w1, b1=self.b1, w2=self.w2)


def train(scorer, encounter, episodes, *, batch=16, lr=0.02, seed=0, opponent="aggressive"):
    """REINFORCE against ``opponent``: +1 for a win of the learner's side, -1 for a loss, less
    a running baseline per side; Adam on the summed log-likelihood gradients. The learner
    plays each side in turn, every combatant of it."""
    rng = np.random.default_rng(seed)
    sides = tuple(initiative.load_encounter(encounter).sides)
    baseline = dict.fromkeys(sides, 0.0)
    params = [scorer.w1, scorer.b1, scorer.w2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    trace = []  # (features of the legal offers, the index chosen) per decision

    def sample(observation, mask):
        x = scorer.features(observation)
        p, _ = scorer.forward(x, mask)
        choice = int(rng.choice(len(p), p=p))
        trace.append((x[mask == 1], choice))  # the kept offers are the mask's first entries
        return choice

    learner = in_line(model_policy(sample))
    outcomes = []
    grads = [np.zeros_like(p) for p in params]
    for episode in range(episodes):
        side = sides[episode % 2]
        other = sides[1 - episode % 2]
        trace.clear()
        result = initiative.run(
            encounter, seed=10_000 + episode, policies={side: learner, other: opponent}
        )
        reward = 1.0 if result.winner == side else -1.0 if result.winner == other else 0.0
        outcomes.append(reward)
        advantage = reward - baseline[side]
        baseline[side] += 0.05 * (reward - baseline[side])
        for x, choice in trace:
            hidden = np.tanh(x @ scorer.w1 + scorer.b1)
            logits = hidden @ scorer.w2
            p = np.exp(logits - logits.max())
            p /= p.sum()
            dlogits = -p
            dlogits[choice] += 1.0  # d log p(choice) / d logits
            dhidden = np.outer(dlogits, scorer.w2) * (1 - hidden**2)
            grads[2] += advantage * (hidden.T @ dlogits)
            grads[0] += advantage * (x.T @ dhidden)
            grads[1] += advantage * dhidden.sum(axis=0)
        if (episode + 1) % batch == 0:
            step += 1
            for i, (param, grad) in enumerate(zip(params, grads, strict=True)):
                g = -grad / batch  # ascend the expected reward
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                param -= lr * (m[i] / (1 - 0.9**step)) / (np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8)
                grad[:] = 0
    return outcomes


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
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--save", type=Path, default=None)
    args = parser.parse_args()
    started = time.process_time()
    scorer = Scorer(Encoder(duel_file))
    outcomes = train(scorer, duel_file, args.episodes)
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
