"""A learner that uses only the environment's API: masked PPO in numpy against ``aggressive``.

Nothing but ``reset``, ``step``, the observation and its mask (``action_masks()``): no forks,
no engine internals. The learner plays ``openings-duel`` and a 2v2 of the same ruleset
(``TWO_V_TWO``, train_example.py's transfer fight), on either side, through
:func:`initiative.env.single_agent`; the other side plays ``aggressive``, and the learner's
teammates play the learner's own current policy (``"self"``). Then it is measured as
``initiative duel`` does: each of 400 seeds fought twice, the trained policy once on each side,
against ``aggressive`` with the same dice, and an exact two-sided sign test over the seeds where
one side did better::

    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/train_api.py [--seed 0]
        [--seeds 400] [--save model.npz] [--eval-start 100001]

Its defaults are the recipe that met the goal (the discount 0.999 a decision, lr 1e-3, 1,024
decisions an update, 1,476 updates: about 25 minutes of one quiet core; ``--minutes`` caps
the CPU time); benchmarks/README.md has each training seed's figures.

The policy (one small network for every encounter of the ruleset, any side, any size): the
state (the observation's globals and combatant rows) goes through one hidden layer ``h``; each
action has a feature row (an offer's row with the row of the combatant it names, or a move
slot's row with its kind and its combatant's row), and its logit is that row times ``A h + b``;
the value is ``u . h``. PPO with the clipped objective, generalised advantage estimation and
Adam, gradients written out by hand. The training reward (:class:`Shaped`, through the
environment's ``reward=`` option) is +1 for a win of the learner's side, -1 for a loss,
``--draw`` (-1) for a fight that reached its round limit, and ``--shaping`` (0.5) times the
share of hit points each blow takes, + for a blow on an enemy and - for one on the learner's
side; each fight's seed is drawn by the environment (``reset()`` without a seed: each copy
its own). The evaluation counts wins and losses only.

Run from any folder (the encounters are the bundled example by name and train_example.py's
2v2, read from beside this file).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
from initiative.engine import decode_encounter

from initiative.env import Encoder, find_encounter, single_agent

# The 2v2 is train_example.py's transfer fight, one text for both learners (the script's own
# folder is on the path when it runs, not when a test loads it by file).
sys.path.insert(0, str(Path(__file__).parent))
from train_example import TWO_V_TWO


def encounters():
    """The two encounters by name: the bundled duel and train_example.py's 2v2."""
    return {
        "openings-duel": "openings-duel",
        "openings-2v2": decode_encounter(tomllib.loads(TWO_V_TWO), name="openings-2v2"),
    }


class Features:
    """The network's inputs from an observation (cut by the public ``Encoder.split``): the
    state vector, and one feature row per action (offers, then move slots)."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        offer = encoder.offer_features
        self.target = [i for i, n in enumerate(offer) if n.startswith("target[")]
        self.rows = encoder.max_combatants
        self.kinds = encoder.move_slots // (encoder.max_combatants - 1)
        c = len(encoder.combatant_features)
        f, m = len(offer), len(encoder.move_features)
        self.state_size = len(encoder.global_features) + self.rows * c
        # An action's row: [offer row | move row | move kind one-hot | is a move | its row]
        self.action_size = f + m + self.kinds + 1 + c
        self._f, self._m, self._c = f, m, c
        slots = np.arange(encoder.move_slots)
        self.slot_row = slots // self.kinds + 1
        self.slot_kind = slots % self.kinds

    def __call__(self, observation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        parts = self.encoder.split(observation)
        combatants = parts["combatants"]
        state = np.concatenate([parts["globals"], combatants.ravel()])
        offers, moves = parts["offers"], parts["moves"]
        f, m, k = self._f, self._m, self.kinds
        phi = np.zeros((self.encoder.actions, self.action_size), np.float32)
        o = self.encoder.max_offers
        phi[:o, :f] = offers
        named = offers[:, self.target]
        has = named.max(axis=1) > 0
        phi[:o, f + m + k + 1 :][has] = combatants[named[has].argmax(axis=1)]
        phi[o:, f : f + m] = moves
        phi[o + np.arange(len(self.slot_kind)), f + m + self.slot_kind] = 1.0
        phi[o:, f + m + k] = 1.0
        phi[o:, f + m + k + 1 :] = combatants[self.slot_row]
        return state, phi


class Policy:
    """``h = tanh(W s + c)``; logits ``phi (A h + b)`` over the mask; value ``u . h + v0``."""

    def __init__(self, features: Features, hidden: int = 64, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        s, d = features.state_size, features.action_size
        self.features = features
        self.params = {
            "W": rng.normal(0, 1 / math.sqrt(s), (hidden, s)).astype(np.float32),
            "c": np.zeros(hidden, np.float32),
            "A": rng.normal(0, 0.1 / math.sqrt(hidden), (d, hidden)).astype(np.float32),
            "b": np.zeros(d, np.float32),
            "u": np.zeros(hidden, np.float32),
            "v0": np.zeros(1, np.float32),
        }
        self.adam = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.params.items()}
        self.t = 0

    def forward(self, state, phi, mask):
        """Batched: ``state (B, S)``, ``phi (B, N, D)``, ``mask (B, N)``; probabilities, value,
        and what the backward pass needs."""
        p = self.params
        h = np.tanh(state @ p["W"].T + p["c"])
        z = h @ p["A"].T + p["b"]
        logits = np.einsum("bnd,bd->bn", phi, z)
        logits = np.where(mask, logits, -1e9)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits) * mask
        probs = e / e.sum(axis=1, keepdims=True)
        value = h @ p["u"] + p["v0"][0]
        return probs, value, h

    def act(self, observation, mask, rng, greedy=False):
        state, phi = self.features(observation)
        probs, value, _ = self.forward(state[None], phi[None], mask[None].astype(bool))
        probs = probs[0]
        action = int(np.argmax(probs)) if greedy else int(rng.choice(len(probs), p=probs))
        return action, float(np.log(probs[action] + 1e-12)), float(value[0]), state, phi

    def update(self, batch, lr, clip=0.2, entropy=0.01, value_coef=0.5):
        state, phi, mask, action, old_logp, adv, ret = batch
        p = self.params
        probs, value, h = self.forward(state, phi, mask)
        n = len(action)
        rows = np.arange(n)
        logp = np.log(probs[rows, action] + 1e-12)
        ratio = np.exp(logp - old_logp)
        clipped = (ratio < 1 - clip) & (adv < 0) | (ratio > 1 + clip) & (adv > 0)
        # d(-min(r A, clip(r) A))/dlogp = -r A where the clip does not bind
        dlogp = np.where(clipped, 0.0, -ratio * adv) / n
        onehot = np.zeros_like(probs)
        onehot[rows, action] = 1.0
        g = dlogp[:, None] * (onehot - probs)
        # entropy bonus: dH/dlogits = -p (log p + H)
        logq = np.log(probs + 1e-12) * mask
        ent = -(probs * logq).sum(axis=1)
        g += entropy / n * probs * (logq + ent[:, None]) * mask
        dz = np.einsum("bn,bnd->bd", g, phi)
        dv = value_coef * (value - ret) / n
        dh = dz @ p["A"] + dv[:, None] * p["u"][None, :]
        dpre = dh * (1 - h * h)
        grads = {
            "W": dpre.T @ state,
            "c": dpre.sum(axis=0),
            "A": dz.T @ h,
            "b": dz.sum(axis=0),
            "u": h.T @ dv,
            "v0": np.array([dv.sum()], np.float32),
        }
        self.t += 1
        for k, grad in grads.items():
            m, v = self.adam[k]
            m[:] = 0.9 * m + 0.1 * grad
            v[:] = 0.999 * v + 0.001 * grad * grad
            mhat = m / (1 - 0.9**self.t)
            vhat = v / (1 - 0.999**self.t)
            p[k] -= (lr * mhat / (np.sqrt(vhat) + 1e-8)).astype(np.float32)
        return float(-np.minimum(ratio * adv, np.clip(ratio, 1 - clip, 1 + clip) * adv).mean())

    def greedy(self, observation, mask):
        """The trained policy as a model: ``(observation, mask) -> index``."""
        return self.act(observation, mask, None, greedy=True)[0]

    def save(self, path):
        np.savez(path, **self.params)

    def load(self, path):
        """The parameters :meth:`save` wrote (of a policy made with the same ``--hidden``)."""
        with np.load(path) as saved:
            for k in self.params:
                if saved[k].shape != self.params[k].shape:
                    raise SystemExit(f"{path}: {k} is {saved[k].shape}, not {self.params[k].shape}")
                self.params[k][...] = saved[k]


class Shaped:
    """The training reward, through the environment's ``reward=`` option: +1 a win of the
    learner's side, -1 a loss, ``draw`` a fight that reached its round limit (a learner that
    only runs away must not gain by it); and, as they happen, ``shaping`` times the share of
    hit points each blow takes (of the one struck): + when an enemy is struck, - when its side
    is."""

    def __init__(self, spec, shaping=0.5, draw=-1.0):
        self.side = {c.id: c.side for c in spec.combatants}
        self.hp = {c.id: c.hp for c in spec.combatants}
        self.shaping = shaping
        self.draw = draw

    def __call__(self, event, agent):
        kind = type(event).__name__
        if kind == "EncounterEnded":
            if event.winner is None:
                return self.draw
            return 1.0 if event.winner == self.side[agent] else -1.0
        if kind == "DamageDealt" and event.who in self.side:
            share = self.shaping * event.amount / max(1, self.hp[event.who])
            return -share if self.side[event.who] == self.side[agent] else share
        return 0.0


def learners(encounter, policy, rng, shaping, draw):
    """One environment per combatant of ``encounter``: it learns; its side's others play the
    current policy (sampled), the other side ``aggressive``."""
    spec = find_encounter(encounter)
    envs = []
    for c in spec.combatants:
        others = {o.id: "self" for o in spec.combatants if o.side == c.side and o.id != c.id}
        enemy = next(s for s in spec.sides if s != c.side)
        policies = {**others, enemy: "aggressive"}

        def sampled(observation, mask):
            return policy.act(observation, mask, rng)[0]

        envs.append(
            single_agent(
                encounter,
                c.id,
                policies=policies,
                self_play=sampled,
                reward=Shaped(spec, shaping, draw),
            )
        )
    return envs


def collect(envs, policy, rng, steps, gamma=0.99, lam=0.95):
    """``steps`` learner decisions over ``envs`` (round robin); a PPO batch and the episodes'
    outcomes (+1, -1 or 0 for the learner's side)."""
    per = steps // len(envs)
    states, phis, masks, actions, logps, advs, rets = [], [], [], [], [], [], []
    outcomes = []
    for e in envs:
        if not hasattr(e, "_train_obs"):
            e._train_obs = e.reset()[0]
        obs = e._train_obs
        rew, val, don = [], [], []
        for _ in range(per):
            mask = e.action_masks()
            a, logp, v, s, phi = policy.act(obs, mask, rng)
            obs, r, term, trunc, info = e.step(a)
            states.append(s), phis.append(phi), masks.append(mask), actions.append(a)
            logps.append(logp)
            rew.append(r), val.append(v), don.append(term or trunc)
            if term or trunc:
                winner = info["winner"]
                mine = e.aec.spec.combatants[e.aec.possible_agents.index(e.learner)].side
                outcomes.append(0.0 if winner is None else 1.0 if winner == mine else -1.0)
                obs = e.reset()[0]
        e._train_obs = obs
        last = policy.act(obs, e.action_masks(), rng)[2]
        adv = np.zeros(per, np.float32)
        running = 0.0
        for t in reversed(range(per)):
            nxt = last if t == per - 1 else val[t + 1]
            nonterminal = 0.0 if don[t] else 1.0
            delta = rew[t] + gamma * nxt * nonterminal - val[t]
            running = delta + gamma * lam * nonterminal * running
            adv[t] = running
        advs.append(adv)
        rets.append(adv + np.array(val, np.float32))
    adv = np.concatenate(advs)
    batch = (
        np.array(states, np.float32),
        np.array(phis, np.float32),
        np.array(masks, bool),
        np.array(actions),
        np.array(logps, np.float32),
        (adv - adv.mean()) / (adv.std() + 1e-8),
        np.concatenate(rets),
    )
    return batch, outcomes


def sign_test(better: int, worse: int) -> float:
    """Exact two-sided sign test over the seeds where one side did better."""
    n = better + worse
    if n == 0:
        return 1.0
    k = min(better, worse)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def play(e, model, seed):
    """One fight of ``e`` (reset with ``seed``), the learner playing ``model``; its reward at
    the end: +1 its side won, -1 lost, 0 neither."""
    obs, _ = e.reset(seed=seed)
    while True:
        obs, reward, terminated, truncated, _ = e.step(model(obs, e.action_masks()))
        if terminated or truncated:
            return reward


def duel(encounter, model, seeds, start=1):
    """As ``initiative duel``: each seed fought twice, ``model`` once on each side (every
    combatant of that side: one learns, the others play ``"self"``, the same model) against
    ``aggressive``. The seeds where the model did better, worse, even; and the sign test's p."""
    spec = find_encounter(encounter)
    sides = {}
    for side in spec.sides:
        mine = [c.id for c in spec.combatants if c.side == side]
        enemy = next(s for s in spec.sides if s != side)
        sides[side] = single_agent(
            encounter,
            mine[0],
            policies={**{m: "self" for m in mine[1:]}, enemy: "aggressive"},
            self_play=model,
        )
    better = worse = even = 0
    for seed in range(start, start + seeds):
        net = sum(play(e, model, seed) for e in sides.values())
        better += net > 0
        worse += net < 0
        even += net == 0
    return better, worse, even, sign_test(better, worse)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--minutes", type=float, default=90.0, help="CPU minutes of training at most"
    )
    parser.add_argument("--steps", type=int, default=1024, help="learner decisions per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None)
    parser.add_argument(
        "--updates", type=int, default=1476, help="stop after this many (0: only --minutes)"
    )
    parser.add_argument("--shaping", type=float, default=0.5)
    parser.add_argument("--draw", type=float, default=-1.0, help="the reward of a draw")
    parser.add_argument("--gamma", type=float, default=0.999, help="the discount per decision")
    parser.add_argument("--move-bias", type=float, default=-2.0)
    parser.add_argument("--load", default=None, help="evaluate this saved model, no training")
    parser.add_argument("--eval-start", type=int, default=1, help="the first evaluation seed")
    args = parser.parse_args(argv)
    if args.load:
        args.minutes = 0.0
    started = time.process_time()
    rng = np.random.default_rng(args.seed)
    named = encounters()
    encoder = Encoder(named["openings-duel"])
    policy = Policy(Features(encoder), hidden=args.hidden, seed=args.seed)
    # Start near the engine's own offers: every move slot's logit lowered by --move-bias.
    f = policy.features
    policy.params["b"][f._f + f._m + f.kinds] = args.move_bias
    if args.load:
        policy.load(args.load)
    envs = [
        e for enc in named.values() for e in learners(enc, policy, rng, args.shaping, args.draw)
    ]
    for i, e in enumerate(envs):  # each copy its own sequence of fights
        e._train_obs = e.reset(seed=args.seed * 1_000 + 10_000 + i)[0]
    updates = decisions = 0
    recent: list[float] = []
    while time.process_time() - started < args.minutes * 60 and updates != (args.updates or -1):
        batch, outcomes = collect(envs, policy, rng, args.steps, gamma=args.gamma)
        recent = (recent + outcomes)[-400:]
        n = len(batch[3])
        decisions += n
        for _ in range(args.epochs):
            order = rng.permutation(n)
            for i in range(0, n, args.minibatch):
                pick = order[i : i + args.minibatch]
                policy.update(tuple(x[pick] for x in batch), args.lr)
        updates += 1
        if updates % 10 == 0:
            won = np.mean(np.array(recent) > 0)
            lost = np.mean(np.array(recent) < 0)
            print(
                f"update {updates}: {decisions} decisions, last {len(recent)} fights won"
                f" {won:.2f} lost {lost:.2f}, {time.process_time() - started:.0f} s of CPU",
                flush=True,
            )
    trained = time.process_time() - started
    print(f"trained: {updates} updates, {decisions} learner decisions, {trained:.0f} s of CPU")
    if args.save:
        policy.save(args.save)
    for name, encounter in named.items():
        better, worse, even, p = duel(encounter, policy.greedy, args.seeds, args.eval_start)
        verdict = "beats" if better > worse and p < 0.01 else "does not clearly beat"
        if worse > better and p < 0.01:
            verdict = "loses to"
        print(
            f"{name}: trained {verdict} aggressive: better on {better} seeds, worse on {worse},"
            f" {even} even; p = {p:.2g} (exact two-sided sign test, {args.seeds} seeds from"
            f" {args.eval_start})",
            flush=True,
        )
    print(f"total: {time.process_time() - started:.0f} s of CPU")


if __name__ == "__main__":
    main()
