"""Train a policy with numpy alone, then pit it against ``aggressive``, as ``initiative duel`` does.

Approximate policy iteration in two parts, one small network: every legal offer is scored by
one hidden layer over the offer's row, the row of the combatant it names, the actor's own row,
its allies' and its enemies' rows pooled (a maximum per column) and the global features of the
observation (``initiative.env.Encoder``). Two heads read the hidden layer:

- **imitation**: softmax logits trained (cross-entropy) to choose what ``aggressive`` chose in
  the same observation, a warm start that plays as well as the opponent;
- **advantage**: trained (squared error) to predict each offer's advantage measured by
  rollouts: at a decision of the training fights, every offer is tried on ``forks`` copies of
  the fight with paired dice (``view.fork(dice=k, paired=True)``: each roll drawn from a
  stream of who rolls and for what, so that every offer meets the same dice; fresh streams at
  each decision), the rest of each copy played out as the training fight is, and the offer's
  value is the mean outcome (+1 a win of the learner's side, -1 a loss, 0 neither; plus
  ``margin`` times the hit points left, its side's less the enemies', per 50), less the mean
  over the offers.

Policy iteration in ``rounds``: in the first, the training fights and rollouts are
``aggressive`` against itself; in each later one, the learner's side plays the policy of the
round before (in the training fights and in the rollouts), so that the advantages measured are
those of departing from the improved policy, and both heads are fitted again on all the data.
The policy takes the imitation's choice unless the offer of the highest predicted advantage is
better than it by more than ``tau``, from the observation and its mask alone
(``initiative.env.model_policy``); ``tau`` is chosen after each round by paired duels against
``aggressive`` on validation seeds. The same network plays every
combatant of a side, so it plays either side of ``openings-duel`` and, unchanged, any
encounter of the ruleset.

It trains on ``openings-duel`` (training seeds from 10,000 in the first round, 20,000 in the
second, and so on; validation seeds from 5,001), then
prints two figures, each a duel of 400 seeds (1 to 400; every seed fought twice, the trained
policy once on each side, the same dice; an exact two-sided sign test over the seeds where one
did better):

- on ``openings-duel``, where it trained;
- on ``TWO_V_TWO`` (below), a 2v2 of the same ruleset it never saw (transfer).

    python benchmarks/train_example.py [--games N] [--forks N] [--rounds N] [--round-games N]
        [--round-forks N] [--plain] [--margin X] [--seeds N] [--save model.npz] [--hidden N]
        [--steps N] [--taus T,T,...] [--validation N]
"""

from __future__ import annotations

# --- the example: docs/env.md shows from here to the end marker verbatim (a test holds it) ---
import numpy as np
from initiative.actors import aggressive, in_line
from initiative.batch import paired

import initiative
from initiative.env import Encoder, find_encounter, model_policy


class Scorer:
    """One hidden layer scores each legal offer from its row, the row of the combatant it
    names, and the state (the actor's row, its allies' and its enemies' rows pooled, the
    globals). Two heads: the imitation logits and the advantage; the policy takes the
    imitation's choice unless the offer of the highest advantage is predicted better than it
    by more than ``tau``."""

    def __init__(self, encoder, hidden=32, seed=0):
        self.encoder = encoder
        offers, columns = encoder.offer_features, encoder.combatant_features
        self.targets = np.array([i for i, n in enumerate(offers) if n.startswith("target[")])
        self.ally, self.enemy = columns.index("ally"), columns.index("enemy")
        inputs = len(offers) + 4 * len(columns) + len(encoder.global_features)
        rng = np.random.default_rng(seed)
        self.w1 = rng.normal(0, 1 / np.sqrt(inputs), (inputs, hidden))
        self.b1 = np.zeros(hidden)
        self.logit = np.zeros(hidden)  # the imitation head
        self.advantage = np.zeros(hidden)  # the advantage head
        self.tau = np.inf  # the imitation alone, until a tau is chosen

    def read(self, observation):
        """The features of each kept offer (one row per offer, in the mask's order)."""
        parts = self.encoder.split(observation)
        rows, offers = parts["combatants"], parts["offers"]
        offers = offers[offers[:, 0] == 1]  # the kept offers ("valid"): the mask's first entries
        allies, enemies = rows[rows[:, self.ally] == 1], rows[rows[:, self.enemy] == 1]
        pooled = [g.max(axis=0) if len(g) else np.zeros(rows.shape[1]) for g in (allies, enemies)]
        state = np.concatenate([rows[0], *pooled, parts["globals"]])
        named = offers[:, self.targets] @ rows  # the target's row (0 when it names none)
        return np.concatenate([offers, named, np.broadcast_to(state, (len(offers), state.size))], 1)

    def heads(self, x):
        hidden = np.tanh(x @ self.w1 + self.b1)
        return hidden, hidden @ self.logit, hidden @ self.advantage

    def greedy(self, observation, mask):
        _, logit, advantage = self.heads(self.read(observation))
        imitated, best = int(np.argmax(logit)), int(np.argmax(advantage))
        return best if advantage[best] - advantage[imitated] > self.tau else imitated

    def decide(self, view):
        """The greedy policy's action in ``view`` (for the rollouts of a later round)."""
        observation, mask = self.encoder(view)
        return self.encoder.action(view, self.greedy(observation, mask))

    def save(self, path):
        np.savez(path, w1=self.w1, b1=self.b1, logit=self.logit, advantage=self.advantage,
                 tau=self.tau)  # fmt: skip


def outcome(state, side, margin=0.0):
    """+1 if ``side`` won, -1 if another side did, 0 for no winner; plus ``margin`` times the
    hit points left, ``side``'s less its enemies' (per 50, at most 1 a combatant)."""
    won = 1.0 if state.winner == side else -1.0 if state.winner else 0.0
    left = sum(
        min(max(c.hp, 0) / 50, 1) * (1 if c.side == side else -1) for c in state.combatants.values()
    )
    return won + margin * left


def collect(
    scorer, encounter, games, *, forks=4, margin=1.0, seed=10_000, paired=True, learner=aggressive
):
    """Fights against ``aggressive``, the learner's side in turn, played on that side by
    ``learner`` (``aggressive`` itself in the first round, the current policy after); at each
    of the learner's decisions with a choice: the offers' features, the offer ``aggressive``
    would choose there, and each offer's value by rollouts on forks, the rest of each fork
    played as the fight is (``learner`` on its side, ``aggressive`` on the other)."""
    spec = find_encounter(encounter)
    sides = tuple(spec.sides)
    side_of = {c.id: c.side for c in spec.combatants}
    xs, chosen, values = [], [], []
    for game in range(games):
        mine = sides[game % 2]

        def play(view, mine=mine):
            return learner(view) if side_of[view.me.id] == mine else aggressive(view)

        fight = initiative.step(spec, seed=seed + game)
        while not fight.over:
            view = fight.view
            if side_of[view.me.id] == mine and len(view.legal) > 1:
                x = scorer.read(scorer.encoder(view)[0])
                value = np.zeros(len(x))
                first = forks * len(xs)  # fresh dice streams at each decision
                for i, offer in enumerate(view.legal[: len(x)]):
                    for dice in range(first, first + forks):
                        branch = view.fork(dice=dice, paired=paired)
                        branch.send(offer.action)
                        branch.play(play)
                        value[i] += outcome(branch.fight.state, mine, margin) / forks
                xs.append(x)
                chosen.append([o.action for o in view.legal].index(aggressive(view)))
                values.append(value - value.mean())
            fight.send(play(view))
    return xs, chosen, values


def fit(scorer, xs, chosen, values, *, steps=1000, lr=0.003, l2=1e-4):
    """Both heads at once, full batch with Adam: the imitation's cross-entropy per decision
    plus the advantage's squared error per offer."""
    sizes = np.array([len(x) for x in xs])
    starts = np.cumsum([0, *sizes[:-1]])
    segment = np.repeat(np.arange(len(sizes)), sizes)
    picked = starts + np.array(chosen)
    x, target = np.concatenate(xs), np.concatenate(values)
    n = len(sizes)
    params = [scorer.w1, scorer.b1, scorer.logit, scorer.advantage]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for step in range(1, steps + 1):
        hidden, logit, advantage = scorer.heads(x)
        logit = logit - np.maximum.reduceat(logit, starts)[segment]
        p = np.exp(logit)
        p /= np.add.reduceat(p, starts)[segment]
        dlogit = p
        dlogit[picked] -= 1  # the cross-entropy's gradient
        dadvantage = (advantage - target) * n / len(x)
        dhidden = (np.outer(dlogit, scorer.logit) + np.outer(dadvantage, scorer.advantage)) * (
            1 - hidden**2
        )
        grads = [
            x.T @ dhidden / n + l2 * scorer.w1,
            dhidden.sum(0) / n,
            hidden.T @ dlogit / n + l2 * scorer.logit,
            hidden.T @ dadvantage / n + l2 * scorer.advantage,
        ]
        for i, (param, grad) in enumerate(zip(params, grads, strict=True)):
            m[i] = 0.9 * m[i] + 0.1 * grad
            v[i] = 0.999 * v[i] + 0.001 * grad * grad
            param -= lr * (m[i] / (1 - 0.9**step)) / (np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8)


def duel(encounter, policy, seeds, *, start=1, opponent="aggressive"):
    """As ``initiative duel``: each seed fought twice, ``policy`` once on each side against
    ``opponent``, with the same dice. Returns the seeds where ``policy`` did better, those
    where ``opponent`` did, the even ones, and the exact two-sided sign test's p."""
    spec = find_encounter(encounter)
    one, two = spec.sides
    scores = []
    for seed in range(start, start + seeds):
        for mine, theirs in ((one, two), (two, one)):
            result = initiative.run(spec, seed=seed, policies={mine: policy, theirs: opponent})
            won = 1 if result.winner == mine else -1 if result.winner == theirs else 0
            scores.append((seed, won))
    pairs = paired(scores)
    return pairs.a_better, pairs.b_better, pairs.even, pairs.p


def choose_tau(scorer, encounter, taus, seeds, *, start=5_001):
    """The ``tau`` whose policy did best against ``aggressive`` on the validation seeds (the
    most seeds better less worse; the largest of equals). Returns it and every duel's result."""
    policy = in_line(model_policy(scorer.greedy))
    results = {}
    for tau in taus:
        scorer.tau = tau
        results[tau] = duel(encounter, policy, seeds, start=start)
    scorer.tau = max(taus, key=lambda t: (results[t][0] - results[t][1], t))
    return scorer.tau, results


# --- end of the example ---

#: A 2v2 under the ``openings`` rules: a policy trained on ``openings-duel`` (one against two)
#: is evaluated here unchanged (transfer).
TWO_V_TWO = """\
ruleset = "openings"
name = "Bridge brawl"
description = "A swordsman and a hound on each bank."
seed = 5

[options]
reaction_move = 2.0

[[combatants]]
id = "ilse"
side = "north"
hp = 24
position = [0, 0]
stats = { agility = 5, strength = 4, defense = 5 }
weapons = [{ name = "rapier", damage = "1d8+1", reach = 1.5 }]
policy = "aggressive"

[[combatants]]
id = "wolf"
side = "north"
hp = 10
position = [-1, 2]
speed = 9
stats = { agility = 6, strength = 2, defense = 2 }
weapons = [{ name = "bite", damage = "1d6" }]
policy = "aggressive"

[[combatants]]
id = "tomas"
side = "south"
hp = 22
position = [6, 0]
stats = { agility = 3, strength = 4, defense = 3 }
weapons = [{ name = "longsword", damage = "1d10+1", reach = 2.0 }]
policy = "aggressive"

[[combatants]]
id = "hound"
side = "south"
hp = 9
position = [7, 2]
speed = 9
stats = { agility = 6, strength = 2, defense = 2 }
weapons = [{ name = "bite", damage = "1d6" }]
policy = "aggressive"
"""


def main() -> None:
    import argparse
    import time
    import tomllib
    from pathlib import Path

    from initiative.engine import decode_encounter

    # The bundled example by its name, and the 2v2 from the text below: the script runs from
    # any folder, copied anywhere, with initiative installed.
    duel_file = "openings-duel"
    transfer = decode_encounter(tomllib.loads(TWO_V_TWO), name="openings-2v2")

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--forks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--round-games", type=int, default=100)
    parser.add_argument("--round-forks", type=int, default=2)
    parser.add_argument("--plain", action="store_true", help="plain forks, not paired ones")
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--save", type=Path, default=None)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--taus", default="0.06,0.1,0.15")
    parser.add_argument("--validation", type=int, default=200)
    args = parser.parse_args()
    started = time.process_time()
    scorer = Scorer(Encoder(duel_file), hidden=args.hidden)
    data = ([], [], [])
    for n in range(1, args.rounds + 1):
        begun = time.process_time()
        games, forks = (args.games, args.forks) if n == 1 else (args.round_games, args.round_forks)
        learner = aggressive if n == 1 else scorer.decide
        more = collect(
            scorer, duel_file, games, forks=forks, margin=args.margin, seed=10_000 * n,
            paired=not args.plain, learner=learner,
        )  # fmt: skip
        data = tuple(old + new for old, new in zip(data, more, strict=True))
        collected = time.process_time() - begun
        player = "aggressive" if n == 1 else f"the policy of round {n - 1}"
        kind = "plain" if args.plain else "paired"
        print(
            f"round {n}: collected {len(more[0])} decisions of {games} training fights ({player}"
            f" on the learner's side), each offer tried on {forks} {kind} forks,"
            f" in {collected:.0f} s of CPU"
        )
        fit(scorer, *data, steps=args.steps)
        taus = [float(t) for t in args.taus.split(",")]
        tau, results = choose_tau(scorer, duel_file, taus, args.validation)
        print(
            f"round {n}: fitted and validated in {time.process_time() - begun - collected:.0f}"
            f" s of CPU; tau = {tau:g} (validation, {args.validation} seeds from 5001: "
            + ", ".join(f"{t:g}: {r[0]}/{r[1]}" for t, r in results.items())
            + " better/worse)"
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
