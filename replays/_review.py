"""Game review: each side's chance to win before every decision of a log, the choice made against
the best alternative found, and the dice and events that moved the chance most.

The log is re-simulated with its recorded decisions (it must verify: a log that does not is
refused, naming its first divergence; one that stops before its end is reviewed up to there).
At every *point* (a recorded decision with more than one legal offer, and every GM override)
the fight is forked with :meth:`engine.Fight.fork` and played to its end by a *model* of
everyone (by default ``tactician``, the rollout policy of ``search``), many times:

- **Candidates.** The choice made, the model's own choice, then one offer of each other kind of
  action, then the rest, each in the ruleset's order (``search``'s prior), the first ``width`` of
  them. Each is sent to ``rollouts`` forks and played out.
- **Paired dice.** Rollout ``k`` of every candidate rolls the dice of the stream
  ``fork(dice=d_k, paired=True)``, each die keyed by who rolls it and for what, with ``d_k``
  drawn from the review's seed and the decision's seq: the candidates are compared on the same
  luck (common random numbers), and the same log, budget and seed give the same numbers,
  whatever ran them and in which order (no clock is read unless ``seconds`` is given).
- **The chance to win before the decision** is that of the model's choice (what the fork would
  do if the decider played on as the model): for each side, the share of rollouts it won
  (an undecided fight counts for nobody), with a Wilson score interval (95%).
- **Loss** is ``max(0, best - chosen)``: the deciding side's chance with the best candidate
  found, less its chance with the choice made. **Grades**, in points of win chance
  (:data:`GRADES`): ``best`` (the choice made was the best found), ``good`` (lost under 5),
  ``inaccuracy`` (5 to 10), ``mistake`` (10 to 20), ``blunder`` (20 or more).
- **Luck.** Between two points, the chance moves by what the dice and everyone's forced moves did:
  the chance at the next point less the chance the choice made promised. The largest such
  swings, and every GM override (with the swing it brought), are the *turning points*, told
  with the narration of the events between.

A point's cost is ``width`` times ``rollouts`` fights played to their end by the model.
"""

from __future__ import annotations

import difflib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from initiative.actors import BUILTIN, PolicyContext, check_names, kinds_first
from initiative.engine import (
    Decision,
    Fight,
    PriorityToken,
    Rng,
    Stepper,
    find_ruleset,
    recorded_dice,
)
from initiative.events import (
    CombatantSpec,
    EncounterEnded,
    InitiativeError,
    LogContents,
    Offer,
    ReplayDivergedError,
    UnknownRulesetError,
    parse_log,
)
from rich.text import Text

from ._resim import Recorded, differing_fields, recorded_decisions, reseeds, verify_log
from ._table_talk import TableNarrator, _Say
from ._vocabulary import action_words, failure_words

ROLLOUTS = 32
"""The default budget: rollouts per candidate at each point (see ``docs/review.md``)."""


def default_rollouts(ruleset: str) -> int:
    """The rollouts per candidate a review of a ``ruleset`` fight makes by default: what the
    ruleset declares (``SearchProfile.review`` of its ``search_profile``; each bundled one
    chose it so that the review of a typical fight of its examples costs well under a minute
    or two of CPU, ``docs/review.md``, *Cost*), else :data:`ROLLOUTS`."""
    try:
        declared = find_ruleset(ruleset).search_profile.review
    except UnknownRulesetError:
        return ROLLOUTS
    return declared or ROLLOUTS


WIDTH = 4
"""The default number of candidates compared at each point (the choice made among them)."""

MODEL = "tactician"
"""The default model: the built-in that plays everyone in the rollouts (``search``'s rollout
policy)."""

MODELS = ("aggressive", "cautious", "first", "tactician")
"""Built-ins that can play everyone in a fork deterministically (no person, script, search of
its own, or random stream)."""

LOG = "log"
"""The model that plays each combatant by the policy its log names, when that is one of
:data:`MODELS` (else by :data:`MODEL`): the chances of the fight as it was being played."""

LIMIT = 20_000
"""The most decisions one rollout makes (a fight still going then counts for nobody)."""

GRADES: tuple[tuple[str, float], ...] = (
    ("good", 0.05),
    ("inaccuracy", 0.10),
    ("mistake", 0.20),
    ("blunder", math.inf),
)
"""Each grade below ``best`` with the loss (in win chance) it stays under."""

TURNING = 0.05
"""A swing of luck smaller than this (in win chance) is never a turning point; nor is one
within :data:`Z` standard errors of the two estimates it is the difference of."""

CONFIDENCE = 1.5
"""How many standard errors of the paired differences an alternative must be ahead of the
choice made to be the better move found (else the choice made counts as the best)."""

TURNING_POINTS = 5
"""How many swings of luck the review lists (the largest; GM overrides come in addition)."""

Z = 1.959964
"""The normal quantile of a 95% interval."""


def grade(loss: float, best: bool) -> str:
    """The grade of a decision that gave up ``loss`` (``best``: the choice made was the best
    candidate found)."""
    if best or loss <= 0.0:
        return "best"
    return next(name for name, below in GRADES if loss < below)


def wilson(p: float, n: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a share ``p`` of ``n`` trials, inside [0, 1]."""
    if n <= 0:
        return (0.0, 1.0)
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def accuracy(loss: float) -> float:
    """A decision's accuracy in percent from its loss (Lichess's curve over points of win
    chance: 100 for no loss, about 65 for 10 points, 0 from about 80)."""
    points = 100.0 * loss
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * points) - 3.1669))


@dataclass(frozen=True)
class Budget:
    """What a review spends: ``rollouts`` per candidate, ``width`` candidates per point, the
    ``model`` that plays everyone in the rollouts, the ``seed`` of the rollouts' dice, and
    optionally ``seconds`` of CPU time for the whole review (shared equally among the points;
    a point stops after the rollout round that spends its share, at least two; not
    deterministic)."""

    rollouts: int = ROLLOUTS
    width: int = WIDTH
    model: str = MODEL
    seed: int = 0
    seconds: float | None = None
    played: tuple[tuple[str, str], ...] = ()
    """Who played, as ``(combatant id or side, policy)`` pairs, in place of the policies the
    log's header names (the encounter file's): what ``--policy`` gave ``run`` or ``batch``,
    which the log does not record. Credited in the summaries, and played by ``--model log``."""

    def policy_of(self, c: CombatantSpec) -> str:
        """The policy that played ``c``: by its id, then its side, else the log's."""
        chosen = dict(self.played)
        return chosen.get(c.id) or chosen.get(c.side) or c.policy

    def check(self) -> None:
        """:class:`ValueError` naming what is wrong with these settings."""
        if self.rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {self.rollouts}")
        if self.width < 2:
            raise ValueError(f"width must be at least 2, got {self.width}")
        if self.model not in MODELS and self.model != LOG:
            close = difflib.get_close_matches(self.model, [*MODELS, LOG], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(
                f"model {self.model!r} cannot play everyone in a fork{hint}; one of"
                f" {', '.join(MODELS)} or {LOG!r} (each by its own policy, where it is one of them)"
            )
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"seconds must be positive, got {self.seconds}")


@dataclass
class Tally:
    """Rollout results: the wins of each side, and how many were played."""

    wins: dict[str, int] = field(default_factory=dict)
    n: int = 0
    winners: list[str | None] = field(default_factory=list)
    """Each rollout's winner, in order (the ``k``-th on the ``k``-th dice)."""

    def add(self, winner: str | None) -> None:
        self.n += 1
        self.winners.append(winner)
        if winner is not None:
            self.wins[winner] = self.wins.get(winner, 0) + 1

    def chance(self, side: str) -> float:
        return self.wins.get(side, 0) / self.n if self.n else 0.0


@dataclass
class Point:
    """One reviewed point: a decision with a choice, or a GM override."""

    index: int
    """The decision's index among the log's recorded decisions."""
    seq: int
    """The seq of the ``PriorityGranted`` it answers."""
    who: str
    side: str
    round: int
    offers: int
    override: bool
    candidates: list[Decision]
    """The choice made first (none for an override), then the others compared."""
    tallies: list[Tally]
    model: int
    """The index in ``candidates`` of the model's own choice."""
    hp: dict[str, int] = field(default_factory=dict)
    """Each side's hit points standing, at the decision."""


# --- the rollouts -----------------------------------------------------------------------------


def _model(budget: Budget, encounter: Any, spec: CombatantSpec, seq: int, k: int) -> Any:
    """The model of everyone for rollout ``k`` of the decision at ``seq`` (made anew for each:
    a policy with memory carries none from one rollout to another)."""

    def made(name: str, who: CombatantSpec, stream: str) -> Any:
        ctx = PolicyContext(combatant=who, encounter=encounter, rng=Rng(budget.seed, stream))
        policy = BUILTIN[name](ctx)
        return getattr(policy, "decide", policy)

    if budget.model != LOG:
        return made(budget.model, spec, f"review/{seq}/{k}")
    own = {
        c.id: made(
            p if (p := budget.policy_of(c)) in MODELS else MODEL, c, f"review/{seq}/{k}/{c.id}"
        )
        for c in encounter.combatants
    }
    anyone = made(MODEL, spec, f"review/{seq}/{k}")

    def decide(view: Any) -> Any:
        return own.get(view.me.id, anyone)(view)

    return decide


def _key(decision: Decision) -> object:
    return (decision.action, decision.failure, decision.override)


def _candidates(
    token: PriorityToken, made: Decision, modelled: object, width: int
) -> tuple[list[Decision], int]:
    """The choice made, the model's choice, one offer of each other kind, the rest; the first
    ``width`` (and the index of the model's)."""
    offers: list[Offer] = list(token.legal)
    first = next((o for o in offers if o.action == modelled), offers[0])
    out = [made]
    seen = {_key(made)}
    for offer in kinds_first(offers, first):
        d = Decision(action=offer.action)
        if _key(d) not in seen and len(out) < width:
            out.append(d)
            seen.add(_key(d))
    # (The model's choice is in: it comes first after the choice made, and width >= 2.)
    model = next(i for i, d in enumerate(out) if d.action == first.action and d.failure is None)
    return out, model


def _evaluate(
    stepper: Stepper,
    recorded: Recorded,
    index: int,
    budget: Budget,
    encounter: Any,
    specs: dict[str, CombatantSpec],
    share: float | None,
) -> Point:
    token = stepper.token
    assert token is not None
    spec = specs.get(token.who) or next(iter(specs.values()))
    override = recorded.decision.override is not None
    try:
        modelled = _model(budget, encounter, spec, token.seq, -1)(token.view)
    except Exception:  # a model that cannot decide here: its choice is the first offer
        modelled = token.legal[0].action
    if override:  # the GM's, not the combatant's: only the chance before it
        only = Decision(
            action=next(
                (o.action for o in token.legal if o.action == modelled), token.legal[0].action
            )
        )
        candidates, model = [only], 0
    else:
        candidates, model = _candidates(token, recorded.decision, modelled, budget.width)
    stop = None if share is None else time.process_time() + share
    tallies = _rollouts(stepper, candidates, budget, encounter, spec, lambda k: (
        stop is not None and k >= 2 and time.process_time() >= stop
    ))  # fmt: skip
    side = token.view.me.side
    return Point(
        index=index,
        seq=token.seq,
        who=token.who,
        side=side,
        round=token.view.round,
        offers=len(token.legal),
        override=override,
        candidates=candidates,
        tallies=tallies,
        model=model,
        hp=_hp(stepper),
    )


def _rollouts(
    stepper: Stepper,
    candidates: Sequence[Decision | None],
    budget: Budget,
    encounter: Any,
    spec: CombatantSpec,
    enough: Callable[[int], bool],
) -> list[Tally]:
    """Play each candidate (``None``: the model's own choice) to the end ``budget.rollouts``
    times from the decision ``stepper`` waits on, rollout ``k`` of every candidate on the same
    dice; ``enough(k)`` stops before rollout ``k``."""
    token = stepper.token
    assert token is not None
    rng = Rng(budget.seed, f"review/{token.seq}")
    tallies = [Tally() for _ in candidates]
    for k in range(budget.rollouts):
        if enough(k):
            break
        dice = rng.next64()
        for decision, tally in zip(candidates, tallies, strict=True):
            branch = stepper.fork(dice=dice, paired=True)
            if decision is not None:
                branch.send(decision)
            if branch.token is not None:
                branch.play(_model(budget, encounter, spec, token.seq, k), limit=LIMIT)
            state = branch.state
            tally.add(state.winner if state.ended else None)
    return tallies


def _hp(stepper: Stepper) -> dict[str, int]:
    hp: dict[str, int] = {}
    for c in stepper.state.combatants.values():
        hp[c.side] = hp.get(c.side, 0) + (max(c.hp, 0) if c.standing else 0)
    return hp


def _stepper(contents: LogContents) -> tuple[Stepper, list[Recorded]]:
    header = contents.header
    fight = Fight(
        header.encounter,
        header.seed,
        parent=header.parent,
        keep_events=False,
        engine_version=header.engine,
        reseed=reseeds(contents.events),
        dice=recorded_dice(contents.events),
    )
    return Stepper(fight), recorded_decisions(contents.events)


def points_of(contents: LogContents) -> list[int]:
    """The indices (among the recorded decisions) of the points a review evaluates: decisions
    with more than one legal offer, and GM overrides."""
    stepper, decisions = _stepper(contents)
    out = []
    for i, recorded in enumerate(decisions):
        token = stepper.token
        if token is None:
            break
        if len(token.legal) > 1 or recorded.decision.override is not None:
            out.append(i)
        stepper.apply(recorded.decision)
    return out


def evaluate_points(
    contents: LogContents, indices: Sequence[int], budget: Budget, share: float | None = None
) -> Iterator[Point]:
    """Evaluate the points at ``indices`` (increasing), in order (one re-simulation)."""
    stepper, decisions = _stepper(contents)
    encounter = contents.header.encounter
    specs = {c.id: c for c in encounter.combatants}
    wanted = iter(indices)
    target = next(wanted, None)
    for i, recorded in enumerate(decisions):
        if target is None or stepper.token is None:
            return
        if i == target:
            yield _evaluate(stepper, recorded, i, budget, encounter, specs, share)
            target = next(wanted, None)
        stepper.apply(recorded.decision)


def _work(
    data: bytes, name: str, indices: list[int], budget: Budget, share: float | None
) -> list[Point]:
    """A worker process's task: evaluate ``indices`` of the log in ``data``."""
    return list(evaluate_points(parse_log(data, name=name), indices, budget, share))


# --- the review -------------------------------------------------------------------------------


def check_log(contents: LogContents) -> bool:
    """Refuse a log that does not verify (:class:`ReplayDivergedError` naming its first
    divergence; an unknown ruleset or rules version is a ``LogFormatError``); ``True`` when it
    is complete, ``False`` when it stops before its end (it is reviewed up to there)."""
    name = contents.path or "<log>"
    result = verify_log(contents)
    d = result.divergence
    if d is not None:
        if d.expected is None:
            what = "the log ends there, but the rules go on"
        elif d.got is None:
            what = "the rules stop before it"
        else:
            fields = [f for f, _, _ in differing_fields(d.expected, d.got)]
            verb = "differs" if len(fields) <= 1 else "differ"
            what = f"{', '.join(fields) or 'the line'} {verb} from the re-simulation"
        raise ReplayDivergedError(
            f"{name} does not verify: its first divergence is at seq {d.seq} ({what});"
            " only a log that verifies can be reviewed (see `initiative verify`)"
        )
    return result.complete


def review(
    contents: LogContents,
    budget: Budget | None = None,
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    data: bytes | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The review of a log, as JSON-ready data (see ``docs/review.md`` for its shape).

    ``jobs`` > 1 evaluates the points in that many processes (``executor``, or a process pool
    made here; ``data`` is the log's bytes, read again from ``contents.path`` when not given);
    the result is the same whatever the jobs. ``progress(done, total)`` is called as points are
    evaluated."""
    budget = budget or Budget()
    budget.check()
    check_names(
        contents.header.encounter,
        [who for who, _ in budget.played],
        what="--policy {name}=...",
        where=contents.path or None,
    )
    complete = check_log(contents)
    indices = points_of(contents)
    total = len(indices)
    share = None if budget.seconds is None else budget.seconds / max(1, total)
    points: list[Point] = []
    if progress is not None:
        progress(0, total)
    if jobs <= 1 or total < 2:
        for point in evaluate_points(contents, indices, budget, share):
            points.append(point)
            if progress is not None:
                progress(len(points), total)
    else:
        points = _in_processes(contents, indices, budget, share, jobs, executor, data, progress)
    return _assemble(contents, points, complete, budget)


def _in_processes(
    contents: LogContents,
    indices: list[int],
    budget: Budget,
    share: float | None,
    jobs: int,
    executor: Executor | None,
    data: bytes | None,
    progress: Callable[[int, int], None] | None,
) -> list[Point]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if data is None:
        assert contents.path, "jobs > 1 needs the log's bytes or its path"
        with open(contents.path, "rb") as f:
            data = f.read()
    name = contents.path or "<log>"
    size = max(1, min(8, math.ceil(len(indices) / (4 * jobs))))
    chunks = [indices[i : i + size] for i in range(0, len(indices), size)]
    own = executor is None
    pool = executor or ProcessPoolExecutor(
        jobs, mp_context=multiprocessing.get_context("forkserver")
    )
    try:
        futures = [pool.submit(_work, data, name, chunk, budget, share) for chunk in chunks]
        done: list[Point] = []
        for future in as_completed(futures):
            done.extend(future.result())
            if progress is not None:
                progress(len(done), len(indices))
    finally:
        if own:
            pool.shutdown(cancel_futures=True)
    return sorted(done, key=lambda p: p.index)


def _r(x: float) -> float:
    return round(x, 4)


def _plain(markup: str) -> str:
    return Text.from_markup(markup).plain


class _Words:
    """Names, actions and the narration of a log's events, for the review's sentences."""

    def __init__(self, contents: LogContents) -> None:
        self.narrator = TableNarrator()
        self.told: dict[int, str] = {}
        for event in contents.events:
            try:
                line = self.narrator(event)
            except Exception:  # narration is a courtesy: a line it cannot tell is left out
                line = None
            if line:
                told = (_plain(part).strip() for part in line.splitlines())
                self.told[event.seq] = "; ".join(part for part in told if part)

    def name(self, who: str | None) -> str:
        return _plain(self.narrator.name(who))

    def decision(self, who: str, decision: Decision) -> str:
        if decision.failure is not None:
            return f"{self.name(who)} {_plain(failure_words(decision.failure))}"
        action = decision.action
        try:
            n = self.narrator
            told = _plain(action_words(who, action, _Say(n, who), n._unit(action)))
        except Exception:  # an action its unit cannot tell: its name
            told = f"{self.name(who)}: {type(action).__name__}"
        to = getattr(action, "to", None)
        x, y = getattr(to, "x", None), getattr(to, "y", None)
        if isinstance(x, float) and isinstance(y, float) and " to (" not in told:
            told += f" to ({x:g}, {y:g})"  # (two moves differ by where they go)
        return told

    def between(self, first: int, last: int) -> str:
        return "; ".join(self.told[s] for s in range(first, last + 1) if s in self.told)


def _possessive(side: str) -> str:
    return f"the {side}' chance" if side.endswith("s") else f"the {side}'s chance"


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


def _sides(contents: LogContents) -> list[str]:
    sides: list[str] = []
    for c in contents.header.encounter.combatants:
        if c.side not in sides:
            sides.append(c.side)
    for e in contents.events:
        side = getattr(getattr(e, "override", None), "side", None)
        if isinstance(side, str) and side and side not in sides:
            sides.append(side)
    return sides


def _assemble(
    contents: LogContents, points: list[Point], complete: bool, budget: Budget
) -> dict[str, Any]:
    sides = _sides(contents)
    events = contents.events
    winner: str | None = None
    ended = events[-1] if complete else None
    if isinstance(ended, EncounterEnded):
        winner = ended.winner
    words = _Words(contents)
    decisions = recorded_decisions(events)
    policies = {c.id: budget.policy_of(c) for c in contents.header.encounter.combatants}

    def chances(t: Tally) -> dict[str, float]:
        return {s: _r(t.chance(s)) for s in sides}

    def intervals(t: Tally) -> dict[str, list[float]]:
        return {s: [_r(x) for x in wilson(t.chance(s), t.n)] for s in sides}

    rows: list[dict[str, Any]] = []
    swings: list[dict[str, Any]] = []
    # The chance after each point (the choice made, or the override) and where it was.
    after: tuple[dict[str, float], int, Point, int] | None = None
    for point in points:
        before_t = point.tallies[point.model]
        before = chances(before_t)
        recorded = decisions[point.index]
        if after is not None:
            swings.append(_swing(after, (before, before_t.n), point.seq, words))
        if point.override:
            after = (before, recorded.answer, point, before_t.n)
            continue
        side = point.side
        chosen_t = point.tallies[0]
        best_i = _best(point.tallies, side)
        best_t = point.tallies[best_i]
        chosen_p = chosen_t.chance(side)
        is_best = best_i == 0 or best_t.chance(side) <= chosen_p
        loss = 0.0 if is_best else max(0.0, best_t.chance(side) - chosen_p)
        g = grade(loss, is_best)
        chosen_words = words.decision(point.who, point.candidates[0])
        row: dict[str, Any] = {
            "seq": point.seq,
            "who": point.who,
            "name": words.name(point.who),
            "side": side,
            "policy": policies.get(point.who, ""),
            "round": point.round,
            "offers": point.offers,
            "rollouts": before_t.n,
            "hp": {s: point.hp.get(s, 0) for s in sides},
            "win": before,
            "interval": intervals(before_t),
            "chosen": {
                "action": chosen_words,
                "win": _r(chosen_p),
                "interval": [_r(x) for x in wilson(chosen_p, chosen_t.n)],
            },
            "best": None,
            "loss": _r(loss),
            "grade": g,
        }
        best_words = ""
        if not is_best:
            best_words = words.decision(point.who, point.candidates[best_i])
            row["best"] = {
                "action": best_words,
                "win": _r(best_t.chance(side)),
                "interval": [_r(x) for x in wilson(best_t.chance(side), best_t.n)],
            }
        row["text"] = _decision_text(row, chosen_words, best_words, words.name(point.who))
        rows.append(row)
        after = (chances(chosen_t), recorded.answer, point, chosen_t.n)
    if after is not None and complete:
        final = {s: (1.0 if s == winner else 0.0) for s in sides}
        swings.append(_swing(after, (final, 0), len(events) - 1, words))
    turning = _turning(swings)
    return {
        "log": contents.path or "<log>",
        "encounter": contents.header.encounter.name,
        "ruleset": contents.header.ruleset,
        "seed": contents.header.seed,
        "complete": complete,
        "sides": sides,
        "winner": winner,
        "budget": {
            "rollouts": budget.rollouts,
            "width": budget.width,
            "model": budget.model,
            "seed": budget.seed,
            "seconds": budget.seconds,
            **({"played": dict(budget.played)} if budget.played else {}),
        },
        "decisions": rows,
        "turning_points": turning,
        "overrides": [s for s in swings if s["kind"] == "override"],
        "combatants": _summaries(rows, "who", words),
        "policies": _summaries(rows, "policy", None),
        "per_side": _summaries(rows, "side", None),
    }


def _decision_text(row: dict[str, Any], chosen: str, best: str, name: str) -> str:
    side = row["side"]
    before = row["win"][side]
    now = row["chosen"]["win"]
    moves = "falls" if now < before else "rises" if now > before else "stays"
    text = f"{chosen}: {_possessive(side)} {moves} from {_pct(before)} to {_pct(now)}"
    if moves == "stays":
        text = f"{chosen}: {_possessive(side)} stays at {_pct(now)}"
    if row["best"] is not None:
        instead = best[len(name) :].lstrip(": ") if best.startswith(name) else best
        text += f"; {instead} instead kept {_pct(row['best']['win'])}"
    return f"{text} ({row['grade']})"


def better(chosen: Tally, other: Tally, side: str) -> bool:
    """Whether ``other`` beat ``chosen`` for ``side`` clearly on the same dice: the mean of the
    paired differences of their rollouts (won or not) is above :data:`CONFIDENCE` standard
    errors (a difference of a few rollouts that happen to differ is not a better move)."""
    diffs = [(a == side) - (b == side) for a, b in zip(other.winners, chosen.winners, strict=False)]
    n = len(diffs)
    if n == 0:
        return False
    mean = sum(diffs) / n
    if mean <= 0:
        return False
    if n < 2:
        return True
    # One more squared deviation of 1 than seen (as if a pair had differed by one win more than
    # the mean), so that a few pairs that all differ alike are not taken for certainty.
    variance = (sum((d - mean) ** 2 for d in diffs) + 1.0) / n
    return mean > CONFIDENCE * math.sqrt(variance / n)


def _best(tallies: list[Tally], side: str) -> int:
    """The index of the best candidate found: the one with the highest chance among those
    that beat the choice made (index 0) clearly; 0 when none does."""
    found = [i for i in range(1, len(tallies)) if better(tallies[0], tallies[i], side)]
    return max(found, key=lambda i: (tallies[i].chance(side), -i), default=0)


def _swing(
    after: tuple[dict[str, float], int, Point, int],
    reached: tuple[dict[str, float], int],
    upto: int,
    words: _Words,
) -> dict[str, Any]:
    """What moved the chance from a point (after the choice made, or the override) to the next
    (``reached``: its chances and their rollouts; none for the fight's result)."""
    was, since, point, n_was = after
    now, n_now = reached
    delta = {s: _r(now[s] - was[s]) for s in was}
    variance = max((_variance(was[s], n_was) + _variance(now[s], n_now) for s in was), default=0.0)
    if point.override:
        kind = "override"
        event_text = words.between(since, since)
    else:
        kind = "dice"
        event_text = words.between(since, upto)
    return {
        "seq": since,
        "to": upto,
        "kind": kind,
        "who": point.who,
        "before": was,
        "after": now,
        "swing": delta,
        "size": _r(max((abs(v) for v in delta.values()), default=0.0)),
        "noise": _r(math.sqrt(variance)),
        "text": event_text,
    }


def _variance(p: float, n: int) -> float:
    """The variance of a share ``p`` of ``n`` rollouts (none for an exact result, ``n`` 0),
    with a win and a loss added to the count, so that 4 wins of 4 are not certainty."""
    if n <= 0:
        return 0.0
    shrunk = (p * n + 1) / (n + 2)
    return shrunk * (1 - shrunk) / n


def _turning(swings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The largest swings of luck (at least :data:`TURNING`), the largest first."""
    luck = [
        s for s in swings if s["kind"] != "override" and s["size"] >= max(TURNING, Z * s["noise"])
    ]
    luck.sort(key=lambda s: (-s["size"], s["seq"]))
    return luck[:TURNING_POINTS] + [s for s in swings if s["kind"] == "override"]


def _summaries(rows: list[dict[str, Any]], key: str, words: _Words | None) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row)
    out = []
    for k, group in groups.items():
        losses = [r["loss"] for r in group]
        counts = {g: 0 for g in ("best", *(name for name, _ in GRADES))}
        for r in group:
            counts[r["grade"]] += 1
        item: dict[str, Any] = {key: k}
        if words is not None or key == "who":
            item["name"] = words.name(k) if words is not None else group[0]["name"]
            item["side"] = group[0]["side"]
            item["policy"] = group[0]["policy"]
        item.update(
            decisions=len(group),
            mean_loss=_r(sum(losses) / len(losses)),
            grades=counts,
            accuracy=round(sum(accuracy(x) for x in losses) / len(losses), 1),
        )
        out.append(item)
    return out


def review_folder(
    paths: Sequence[Path],
    budget: Budget | None = None,
    *,
    jobs: int = 1,
    per_ruleset: bool = False,
    progress: Callable[[int, int, int, int], None] | None = None,
) -> dict[str, Any]:
    """The reviews of many logs (``batch --keep-logs``'s folder), added up: per log its
    outcome and its sides' accuracy; per policy, combatant (by id) and side over every log,
    the decisions, mean loss, grades and accuracy. A log that cannot be reviewed (it does not
    verify, it is not a log) is listed in ``skipped`` with the reason, and the others go on.
    With ``per_ruleset``, each log gets its ruleset's default rollouts (:func:`default_rollouts`)
    instead of ``budget.rollouts``. ``progress(log, logs, done, total)`` follows each log's
    points."""
    budget = budget or Budget()
    budget.check()
    logs: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    rows: list[dict[str, Any]] = []
    for i, path in enumerate(paths):
        try:
            data = path.read_bytes()
            contents = parse_log(data, name=str(path))
            step = None
            if progress is not None:
                step = partial(progress, i, len(paths))
            mine = budget
            if per_ruleset:
                mine = replace(budget, rollouts=default_rollouts(contents.header.ruleset))
            one = review(contents, mine, jobs=jobs, data=data, progress=step)
        except (InitiativeError, OSError) as problem:
            skipped.append({"log": str(path), "reason": str(problem)})
            continue
        for row in one["decisions"]:
            rows.append({**row, "log": str(path)})
        logs.append(
            {
                "log": str(path),
                "encounter": one["encounter"],
                "ruleset": one["ruleset"],
                "seed": one["seed"],
                "complete": one["complete"],
                "winner": one["winner"],
                "decisions": len(one["decisions"]),
                "per_side": one["per_side"],
            }
        )
    return {
        "logs": logs,
        "skipped": skipped,
        "budget": {
            "rollouts": None if per_ruleset else budget.rollouts,
            "width": budget.width,
            "model": budget.model,
            "seed": budget.seed,
            "seconds": budget.seconds,
            **({"played": dict(budget.played)} if budget.played else {}),
        },
        "decisions": len(rows),
        "policies": _summaries(rows, "policy", None),
        "combatants": _summaries(rows, "who", None),
        "per_side": _summaries(rows, "side", None),
        "worst": sorted(
            (
                {k: r[k] for k in ("log", "seq", "who", "name", "policy", "loss", "grade", "text")}
                for r in rows
                if r["grade"] in ("mistake", "blunder")
            ),
            key=lambda r: (-r["loss"], r["log"], r["seq"]),
        )[:10],
    }


__all__ = [
    "Budget",
    "review_folder",
    "better",
    "default_rollouts",
    "Point",
    "Tally",
    "accuracy",
    "check_log",
    "grade",
    "review",
    "wilson",
]
