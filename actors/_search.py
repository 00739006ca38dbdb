"""``search``: Monte Carlo tree search over forks of the fight.

Each iteration of the search takes a fork of the fight at the decision being asked
(:attr:`engine.View.fork`) with dice of its own, walks down a tree of this combatant's own
decisions, adds one node, plays on with the rollout policy to a horizon in game time (the end
of the second round after this one, by default; the start of its own next turn, with
``turns``; or the fight's end) and scores the position it reaches with the evaluation (by
default :func:`outcome`: a win or a loss, and the sides' hit points); the score is added to
every node on the way down. (The structure is the usual select / expand / simulate /
back-propagate loop, as in OpenSpiel's ``MCTSBot``.)

- **Budget.** ``rollouts`` iterations, and at most ``steps`` decisions made in all the forks of
  one search (both deterministic: a step costs about the same CPU time in a ruleset, so
  ``steps`` holds a decision's cost near a fixed CPU time where rollouts are long, and lets
  short ones run the full count); ``seconds`` optionally caps CPU time.
- **Chance by sampling.** The dice are not in the tree: every iteration rolls fresh ones (a
  fork's own stream, drawn from this policy's stream), so a node's mean is over the dice as
  well as over what follows (open-loop search, as open-loop UCT does for stochastic games).
  The ``k``-th try of every candidate of the decision rolls the same stream (common random
  numbers), so the candidates are compared on the same luck, as ``lookahead`` compares them.
  A plain fork draws that stream in turn, so once two candidates' actions differ their rolls
  fall out of step; with ``paired`` the forks' dice are keyed by who rolls and for what
  (``fork(dice=k, paired=True)``), which keeps them paired longer.
- **The tree holds this combatant's decisions only.** A node is the sequence of its own
  actions since the root; everyone else (the enemies and its allies) is played by the rollout
  policy (the enemies by ``opponent``, when given), in the tree as after it: the opponent is
  modelled, not minimized over. With tens of rollouts a decision, a tree that also branched
  on every enemy's choice would stay a few nodes deep, and the model is what the rollouts
  assume anyway. Decisions with a single legal offer are taken without a node. Because the
  dice differ, the offers at a node differ from one visit to the next: each visit chooses
  among the children legal at that visit.
- **The root: sequential halving.** The candidates are the first ``width`` of the prior order
  (the rollout policy's own choice, then one offer of each other kind of action, then the
  rest; see :meth:`_Tree._prior`); the budget is shared between them in phases, the worse
  half dropped after each (never the prior), as simple-regret searches do at the root, where
  only the choice counts.
- **Below it: UCT with progressive widening.** A node visited ``n`` times considers at most
  ``ceil(widening * sqrt(n + 1))`` of its offers, in the prior order, so a decision with many
  offers is explored deep before wide; among those tried it takes the highest upper confidence
  bound ``Q + exploration * sqrt(ln N / n)``, with ``Q`` the mean score scaled to [0, 1] by the
  lowest and highest scores this search has seen.
- **The answer:** the candidate with the best mean, if it beats the prior's choice on the same
  dice by ``confidence`` standard errors of the paired differences (their variance shrunk
  toward the spread of all the root's scores); else the prior's choice.
  A small budget plays like the rollout policy; a larger one leaves it where the forks show a
  clearly better offer.

By name, ``search`` plays the settings its ruleset declares (:attr:`engine.Ruleset.search_profile`,
an :class:`engine.SearchProfile`: for the bundled ones the learned value at the end of the
decision's round, or at the start of the searcher's next turn in ``thriller``, and a budget
that costs well under 0.1 s of CPU a decision there); :class:`Search`'s own defaults are the
generic ones, for a ruleset that declares none (``SearchProfile()``).

Deterministic: the search's random stream is derived from the policy's own (``ctx.rng``) and
the seq of the decision, so the same game seed, combatant and budget give the same choices
(and so the same log), and the policy keeps nothing from one decision to the next. A budget
in ``seconds`` (CPU time of this process, :func:`time.process_time`) stops the search early
and is not deterministic: it depends on the machine and its load.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from initiative.engine import Rng, SearchProfile, View
from initiative.events import Action, Offer, PolicyLoadError

from ._context import PolicyContext
from ._lookahead import hp_balance
from ._policies import PLAIN
from ._profile import search_profile
from ._value import Value

Evaluation = Callable[[Any, str], float]
"""``evaluate(state, side) -> score``: how good a fork's state is for ``side`` (higher is
better); ``state`` is the fork's live state (``combatants``, ``ended``, ``winner``, ...)."""

ROLLOUTS = 20
"""The default budget: rollouts per decision (see ``docs/policies.md`` for what it costs)."""

STEPS = 600
"""The default cap on the decisions the forks of one search make (all rollouts together): a
budget proportional to CPU time that is still deterministic (see ``docs/policies.md``)."""

ROUNDS = 2
"""The default horizon: rounds played on after the decision's round."""

ROLLOUT = "tactician"
"""The default rollout policy (by name: made anew for each decision): the prior and the model
of everyone in the forks."""


def outcome(state: Any, side: str) -> float:
    """The score of a fight's end for ``side``: one for a win, minus one for a loss, nothing
    for no winner, plus a half of the difference between the sides' mean shares of hit points
    left (so a close fight scores apart from a rout, and a fight cut short by the horizon or
    the round limit by who was ahead)."""
    mine = theirs = 0.0
    n_mine = n_theirs = 0
    for c in state.combatants.values():
        share = max(c.hp, 0) / c.max_hp if c.max_hp > 0 else 0.0
        if c.side == side:
            mine += share
            n_mine += 1
        else:
            theirs += share
            n_theirs += 1
    score = 0.5 * (mine / max(n_mine, 1) - theirs / max(n_theirs, 1))
    if state.ended and state.winner is not None:
        score += 1.0 if state.winner == side else -1.0
    return score


def first_offer(view: View) -> Action:
    """The first legal offer: the search's default model of everyone in a fork. It is the
    fastest policy there is, and the rulesets list attacks and reactions before moves and the
    closing ``EndTurn``/``Pass``, so it plays a plain, hard-hitting game (one that the
    heuristic built-ins do not beat on the bundled examples)."""
    return view.legal[0].action


class _Node:
    """One of the searching combatant's decisions, reached by a sequence of its own actions."""

    __slots__ = ("action", "children", "total", "values", "visits")

    def __init__(self, action: Action | None = None) -> None:
        self.action = action
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.values: list[float] = []
        """A child of the root keeps each visit's score (the ``k``-th rolled sample ``k``)."""

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


def kinds_first(offers: Sequence[Offer], first: Offer) -> list[Offer]:
    """``first`` (one of ``offers``), then the first offer of each other kind of action, then
    the rest, each in the offers' order: the order in which a small budget compares different
    plans rather than two targets of the same blow (search's prior, review's candidates)."""
    kinds = {type(first.action)}
    head = [first]
    tail = []
    for offer in offers:
        if offer is first:
            continue
        kind = type(offer.action)
        if kind in kinds:
            tail.append(offer)
        else:
            kinds.add(kind)
            head.append(offer)
    return head + tail


class Search:
    """Monte Carlo tree search over forks of the fight (see the module's docs).

    ``rollouts`` is the budget of iterations per decision and ``steps`` (None: no cap) the
    most decisions all its forks may make (both deterministic); ``seconds``, when given, also
    stops the search once this much CPU time has gone (not deterministic). ``rollout`` plays
    everyone but this combatant in the tree, and everyone after it (``opponent``, when given,
    plays the enemies instead); ``evaluate`` scores the fork's state at the horizon, the end of
    round ``rounds`` after the decision's round (None: the fight's end, or ``horizon``
    decisions; a fight that ends earlier is scored where it ends); with ``turns``, the start
    of this combatant's ``turns``-th turn after the decision instead (everyone else has had a
    turn: a defence that lasts to the start of its next turn is scored whole), or the end of
    round ``turns`` after the decision's, for a fork in which it has no such turn. ``width``
    is how many offers the root compares (None: a quarter of the rollouts, at least two). ``paired``
    rolls the forks' dice with ``fork(dice=k, paired=True)``: each roll keyed by who rolls and
    for what, so the candidates' ``k``-th tries stay on the same luck after their actions
    differ (see the module's docs).
    """

    warm = False
    """It keeps nothing between decisions, so a resumed or forked fight need not show it the
    replayed ones (each would cost a whole search)."""

    def __init__(
        self,
        ctx: PolicyContext | None = None,
        *,
        rollouts: int = ROLLOUTS,
        seconds: float | None = None,
        rollout: Callable[[View], Action] | str | None = None,
        evaluate: Evaluation = outcome,
        rounds: int | None = ROUNDS,
        exploration: float = 0.3,
        widening: float = 1.0,
        confidence: float = 1.5,
        horizon: int = 2000,
        steps: int | None = STEPS,
        width: int | None = 3,
        opponent: Callable[[View], Action] | str | None = None,
        paired: bool = False,
        turns: int | None = None,
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"search needs at least one rollout, got {rollouts}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"search's seconds must be positive, got {seconds}")
        if steps is not None and steps < 1:
            raise ValueError(f"search's steps must be at least 1, got {steps}")
        if width is not None and width < 2:
            raise ValueError(f"search's width must be at least 2, got {width}")
        if rounds is not None and rounds < 0:
            raise ValueError(f"search's rounds must be 0 or more, got {rounds}")
        if turns is not None and turns < 1:
            raise ValueError(f"search's turns must be at least 1, got {turns}")
        rng = ctx.rng if ctx is not None else Rng(0, "policy/search")
        self.seed = rng.seed
        self.stream = f"{rng.stream}/search"
        self.rollouts = rollouts
        self.seconds = seconds
        self.ctx = ctx
        if rollout is None:  # the default: the built-in ROLLOUT, or the first offer with no ctx
            rollout = first_offer if ctx is None else ROLLOUT
        self.model, given = _model_or_callable(rollout, ctx)
        """The rollout policy's built-in name, when given by name (made anew each decision)."""
        self.rollout: Callable[[View], Action] = given or first_offer
        self.evaluate = evaluate
        self.rounds = rounds
        self.exploration = exploration
        self.widening = widening
        self.confidence = confidence
        self.horizon = horizon
        self.steps = steps
        self.width = width
        self.opponent_model, self.opponent = _model_or_callable(opponent, ctx)
        """The enemies' model's built-in name, when given by name (made anew each decision)."""
        self.paired = paired
        self.turns = turns
        self.searched = 0
        """Decisions it searched (those with more than one offer), for curiosity and tests."""
        self.iterations = 0
        """Iterations (rollouts) it has made over all its decisions."""

    def decide(self, view: View) -> Action:
        if len(view.legal) == 1:
            return view.legal[0].action
        if view.fork is None:  # no fight to fork (a child process's view): play the model
            return self.rollout(view)
        self.searched += 1
        if self.model:  # a fresh one: a policy with memory must not carry it between searches
            assert self.ctx is not None
            self.rollout = _model(self.model, self.ctx)
        if self.opponent_model:
            assert self.ctx is not None
            self.opponent = _model(self.opponent_model, self.ctx)
        return _Tree(self, view).run()


class _Turns:
    """The horizon ``turns``: counts the turns of ``me`` begun in a fork since the decision."""

    __slots__ = ("active", "begun", "me", "state", "turns")

    def __init__(self, me: str, state: Any, turns: int) -> None:
        self.me = me
        self.state = state
        self.turns = turns
        self.active = state.active
        self.begun = 0

    def reached(self) -> bool:
        """Whether its ``turns``-th turn has begun (looked at before each decision)."""
        active = self.state.active
        if active != self.active:
            self.active = active
            if active == self.me:
                self.begun += 1
        return self.begun >= self.turns


class _Tree:
    """One decision's search."""

    def __init__(self, search: Search, view: View) -> None:
        self.s = search
        self.view = view
        self.me = view.me.id
        self.side = view.me.side
        self.last = None if search.rounds is None else view.round + search.rounds
        if search.turns is not None:  # its own turns end the forks; a round bounds them
            self.last = view.round + search.turns
        self.made = 0
        """Decisions the forks have made (the ``steps`` budget)."""
        self.rng = Rng(search.seed, f"{search.stream}/{view.seq}")
        self.dice: list[int] = []
        self.root = _Node()
        self.low = math.inf
        self.high = -math.inf

    def run(self) -> Action:
        s = self.s
        stop = None if s.seconds is None else time.process_time() + s.seconds
        offers = self._prior(self.view)
        width = min(len(offers), s.width or max(2, s.rollouts // 4))
        live = [self._child(self.root, o.action) for o in offers[:width]]
        phases = max(1, math.ceil(math.log2(len(live))))
        done = 0
        for phase in range(phases + 1):
            # Sequential halving: each phase shares the budget among the candidates left, the
            # last one (``phases``) spends whatever is left over on the final ones.
            share = s.rollouts // phases if phase < phases else s.rollouts - done
            each = max(1, share // len(live))
            for _ in range(each):
                for child in live:
                    if (
                        done >= s.rollouts
                        or (s.steps is not None and self.made >= s.steps)
                        or (stop is not None and done and time.process_time() >= stop)
                    ):
                        return self._answer(live, offers[0].action)
                    self._iterate(child)
                    done += 1
            if phase < phases - 1:  # the prior's choice stays: it is what the others must beat
                rest = sorted(live[1:], key=lambda n: -n.mean)
                live = [live[0], *rest[: max(1, math.ceil(len(live) / 2) - 1)]]
        return self._answer(live, offers[0].action)

    def _answer(self, live: list[_Node], prior: Action) -> Action:
        """The candidate with the best mean, if it beats the prior's choice clearly on the
        same dice (a paired comparison); the prior's choice otherwise."""
        visited = [n for n in live if n.visits]
        best = max(visited, key=lambda n: n.mean)
        base = next((n for n in visited if n.action == prior), None)
        if base is None or best is base:
            assert best.action is not None
            return best.action
        k = min(len(best.values), len(base.values))
        if k < 2:
            return prior
        diffs = [a - b for a, b in zip(best.values[:k], base.values[:k], strict=True)]
        mean = sum(diffs) / k
        # The variance of the differences, shrunk toward the spread of all the scores at the
        # root (as if one more difference that large had been seen): a few tries that happen
        # to differ by the same amount (two misses) are not certainty.
        scores = [v for n in visited for v in n.values]
        centre = sum(scores) / len(scores)
        spread = sum((v - centre) ** 2 for v in scores) / len(scores)
        variance = (sum((d - mean) ** 2 for d in diffs) + 2 * spread) / k
        if mean > 0 and mean >= self.s.confidence * math.sqrt(variance / k):
            assert best.action is not None
            return best.action
        return prior

    def _child(self, node: _Node, action: Action) -> _Node:
        child = node.children.get(action)
        if child is None:
            child = node.children[action] = _Node(action)
        return child

    def _sample(self, k: int) -> int:
        """The ``k``-th dice sample of this search (the same for every child of the root)."""
        while len(self.dice) <= k:
            self.dice.append(self.rng.next64())
        return self.dice[k]

    def _prior(self, view: View) -> list[Offer]:
        """The offers in the order they are tried: the rollout policy's choice first, then
        the first offer of each other kind of action (an attack, a move, a defence, the
        closing ``EndTurn`` or ``Pass``), then the rest, each in the ruleset's order: a small
        budget compares different plans rather than two targets of the same blow."""
        offers = list(view.legal)
        try:
            chosen = self.s.rollout(view)
        except Exception:  # a model that fails here is simply not a prior
            chosen = offers[0].action
        return kinds_first(offers, next((o for o in offers if o.action == chosen), offers[0]))

    def _iterate(self, child: _Node) -> None:
        s = self.s
        s.iterations += 1
        assert child.action is not None
        assert self.view.fork is not None
        branch: Any = self.view.fork(dice=self._sample(child.visits), paired=s.paired)
        path = [child]
        branch.send(child.action)
        node = child
        expanded = False
        me = self.me
        last = self.last
        rollout = s.rollout
        side = self.side
        other = s.opponent
        if other is not None:
            mine = rollout

            def rollout(view: View) -> Action:
                return (mine if view.me.side == side else other)(view)

        state = branch.state
        turns = None if s.turns is None else _Turns(me, state, s.turns)
        while not expanded and branch.token is not None and (last is None or state.round <= last):
            token = branch.token
            if turns is not None and turns.reached():
                break
            if token.who != me:
                branch.send(rollout(token.view))
                continue
            if len(token.legal) == 1:
                branch.send(token.legal[0].action)
                continue
            node, expanded = self._select(node, self._prior(token.view))
            path.append(node)
            branch.send(node.action)
        if turns is None:
            branch.play(rollout, limit=s.horizon, through=last)
        else:  # (``last`` is a round: ``turns`` sets it)
            left = s.horizon
            while (token := branch.token) is not None and left > 0 and state.round <= last:
                if turns.reached():
                    break
                branch.send(rollout(token.view))
                left -= 1
        self.made += branch.decisions
        value = s.evaluate(state, self.side)
        self.low = min(self.low, value)
        self.high = max(self.high, value)
        child.values.append(value)
        for n in path:
            n.visits += 1
            n.total += value

    def _select(self, node: _Node, offers: Sequence[Offer]) -> tuple[_Node, bool]:
        """The child to visit among ``offers`` (legal at this visit), and whether it is new."""
        children = node.children
        tried = [children[o.action] for o in offers if o.action in children]
        width = math.ceil(self.s.widening * math.sqrt(node.visits + 1))
        if len(tried) < min(width, len(offers)):
            for offer in offers:
                if offer.action not in children:
                    new = children[offer.action] = _Node(offer.action)
                    return new, True
        if not tried:  # (cannot happen: width >= 1 and offers is not empty)
            raise AssertionError("no child to visit")
        unvisited = [n for n in tried if n.visits == 0]
        if unvisited:
            return unvisited[0], False
        spread = self.high - self.low
        scale = 1.0 / spread if spread > 0 else 0.0
        low = self.low
        c = self.s.exploration
        log_n = math.log(max(node.visits, 1))
        best = tried[0]
        best_score = -math.inf
        for n in tried:
            q = (n.mean - low) * scale
            score = q + c * math.sqrt(log_n / n.visits)
            if score > best_score:
                best, best_score = n, score
        return best, False


# --- by name: ``search`` and ``search:rollouts=64,rounds=2,...`` ----------------------------------

_NUMBERS: dict[str, type] = {
    "rollouts": int,
    "seconds": float,
    "rounds": int,
    "steps": int,
    "width": int,
    "exploration": float,
    "widening": float,
    "confidence": float,
    "turns": int,
}


def profile_settings(profile: SearchProfile) -> dict[str, str]:
    """A ruleset's search profile in the parameters' syntax (``{"rollouts": "60", ...}``): the
    fields it sets, the search's own (``value``, ``review``) left out. What the bare name
    ``search`` plays, and what ``search:KEY=VALUE,...`` starts from."""
    settings = {}
    for name in profile.__struct_fields__:
        value = getattr(profile, name)
        if value is None or name in ("value", "review"):
            continue
        settings[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return settings


def tuned(ctx: PolicyContext, params: str = "") -> Search:
    """The :class:`Search` that ``search:PARAMS`` names for the combatant in ``ctx``: the
    settings its encounter's ruleset declares (:attr:`engine.Ruleset.search_profile`),
    overridden by ``params``; :class:`PolicyLoadError` for a parameter or value it does not
    know, or for a malformed profile."""
    settings = profile_settings(search_profile(ctx.encounter.ruleset))
    try:
        settings.update(_items(params))  # the name's own override the ruleset's
        return Search(ctx, **_parse(settings, ctx))
    except ValueError as err:
        raise PolicyLoadError(
            f"policy 'search:{params}': {err} (parameters: {', '.join([*_NUMBERS, 'rollout', 'opponent', 'evaluate', 'paired'])})"
        ) from None


def _items(params: str) -> dict[str, str]:
    """``KEY=VALUE,...`` as a dict (a later key overrides an earlier one); :class:`ValueError`
    for an item that is not ``KEY=VALUE``."""
    items: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq:
            raise ValueError(f"{item!r} is not KEY=VALUE")
        items[key] = value
    return items


def _parse(settings: dict[str, str], ctx: PolicyContext) -> dict[str, Any]:
    """The keywords of :class:`Search` that ``settings`` give: the numbers ``rollouts``,
    ``steps``, ``seconds``, ``rounds`` (or ``end``), ``width``, ``exploration``,
    ``widening``, ``confidence``; ``rollout`` and ``opponent``, a built-in policy's name;
    ``evaluate``, ``outcome``, ``hp_balance`` or ``value`` (learned:
    :class:`actors._value.Value`); ``paired``, ``true`` or ``false``. :class:`ValueError`
    for anything else."""
    kwargs: dict[str, Any] = {}
    for key, value in settings.items():
        if key in ("rollout", "opponent"):
            kwargs[key] = value
        elif key == "paired":
            if value.lower() not in _BOOLEANS:
                raise ValueError(f"paired is true or false, not {value!r}")
            kwargs[key] = _BOOLEANS[value.lower()]
        elif key == "rounds" and value == "end":
            kwargs[key] = None
        elif key == "evaluate":
            if value == "value":  # learned per ruleset, and knows the encounter's weapons
                kwargs[key] = Value(ctx.encounter)
            elif value in _EVALUATIONS:
                kwargs[key] = _EVALUATIONS[value]
            else:
                names = ", ".join([*_EVALUATIONS, "value"])
                raise ValueError(f"evaluate is one of {names}, not {value!r}")
        elif key in _NUMBERS:
            try:
                kwargs[key] = _NUMBERS[key](value)
            except ValueError:
                raise ValueError(f"{key} is a number, not {value!r}") from None
        else:
            raise ValueError(f"unknown parameter {key!r}")
    return kwargs


_EVALUATIONS: dict[str, Evaluation] = {"outcome": outcome, "hp_balance": hp_balance}

_BOOLEANS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}

_NOT_MODELS = ("search", "human", "scripted", "lookahead", "random")
"""Built-ins that cannot play everyone in a fork: a person, a script, a search of its own, or
one that draws on the combatant's random stream (a search keeps no state between decisions)."""


def _model_or_callable(
    model: Callable[[View], Action] | str | None, ctx: PolicyContext | None
) -> tuple[str, Callable[[View], Action] | None]:
    """A model given as ``rollout`` or ``opponent``: ``(name, None)`` for a built-in's name
    (checked here, made anew for each decision by :func:`_model`), ``("", model)`` for a
    callable or None; :class:`ValueError` for a name that is not a built-in able to play in
    a fork, or any name without a context."""
    if not isinstance(model, str):
        return "", model
    if ctx is None or model not in PLAIN or model in _NOT_MODELS:
        raise ValueError(f"{model!r} is not a built-in policy to roll out with")
    return model, None


def _model(name: str, ctx: PolicyContext) -> Callable[[View], Action]:
    policy = PLAIN[name](ctx)
    decide: Callable[[View], Action] = getattr(policy, "decide", policy)
    return decide
