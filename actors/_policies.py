"""Policies: the brains that answer priority.

A policy is a plain function or an async function of a :class:`~engine.View` that returns an
action, or an object with such a ``decide`` method (and optionally ``observe(event)``, called
with every event before each decision). It sees an immutable view and the legal actions with
their costs, and can change nothing but through the action it returns.

Built-in policies are made by factories that receive a :class:`PolicyContext` (the combatant's
description, the encounter, and the combatant's own random stream).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter, indexOf
from typing import Any

from initiative.engine import CombatantState, Rng, View, distance
from initiative.events import (
    Action,
    Attack,
    CombatantSpec,
    EncounterSpec,
    EndTurn,
    Move,
    Offer,
    Pass,
)


def offers_that(view: View, marker: str, *, reaction: bool | None = None) -> list[Offer]:
    """The legal offers whose action has ``marker`` (``is_attack``, ``is_defence``, ``is_hold``,
    ``is_aim``, ``is_guard``: see :class:`events.Action`), optionally only those that are or are not
    reactions. Policies never match actions by class name."""
    return [
        o
        for o in view.legal
        if getattr(o.action, marker) and (reaction is None or o.action.is_reaction == reaction)
    ]


@dataclass(frozen=True)
class PolicyContext:
    """What a policy factory gets: who it decides for, the encounter, its random stream."""

    combatant: CombatantSpec
    encounter: EncounterSpec
    rng: Rng = field(compare=False)


def closing(view: View) -> Action:
    """``EndTurn`` in a turn, ``Pass`` in an opening."""
    return EndTurn() if view.window.is_turn else Pass()


_id_of = attrgetter("id")


def _weakest_target(view: View, offers: list[Offer]) -> Offer:
    if len(offers) == 1:  # (the minimum of one, whatever its key)
        return offers[0]
    nearest = view.nearest
    hp: dict[str, int] = {}
    wanted: set[str] = set()  # targets other than the nearest enemy, looked up below
    for offer in offers:
        target = getattr(offer.action, "target", "")
        if nearest is not None and target == nearest.id:
            hp[target] = nearest.hp  # the nearest is one of the enemies (same state)
        elif target:
            wanted.add(target)
    enemies = view.enemies
    for target in wanted.difference(hp):
        try:  # a search in C that stops at the target (not a list of every enemy's id)
            at = indexOf(map(_id_of, enemies), target)
        except ValueError:  # not an enemy it sees: counted as 0 hit points
            continue
        hp[target] = enemies[at].hp
    return min(offers, key=lambda o: (hp.get(getattr(o.action, "target", ""), 0), o.cost))


def _closer_move(view: View) -> Offer | None:
    """The offered Move that ends nearest the nearest enemy, if it gets closer."""
    nearest = view.nearest_enemy()
    if nearest is None:
        return None
    now = view.distance_to(nearest)
    best = None
    for offer in view.offers_of(Move):
        assert isinstance(offer.action, Move)
        gap = distance(offer.action.to, nearest.position)
        if gap < now - 0.01 and (best is None or gap < best[0]):
            best = (gap, offer)
    return best[1] if best else None


def aggressive(view: View) -> Action:
    """Attack the weakest enemy in reach; otherwise close in; react with any attack offered,
    else with a defence."""
    if view.window.is_turn:
        attacks = view.offers_of(Attack)
        if attacks:
            return _weakest_target(view, attacks).action
        move = _closer_move(view)
        return move.action if move else EndTurn()
    attacks = offers_that(view, "is_attack")
    if attacks:
        return _weakest_target(view, attacks).action
    defences = offers_that(view, "is_defence")
    return defences[0].action if defences else Pass()


def _hurt(me: CombatantState) -> bool:
    return me.hp * 5 <= me.max_hp * 2


class Cautious:
    """Keep AP back for reactions: at most one attack a turn, defend whenever offered, and
    step back once a turn when badly hurt and an enemy is close."""

    def __init__(self, ctx: PolicyContext | None = None) -> None:
        self.acted: tuple[int, str] | None = None

    def decide(self, view: View) -> Action:
        if not view.window.is_turn:
            defences = offers_that(view, "is_defence")
            if defences:
                return defences[0].action
            attacks = offers_that(view, "is_attack")
            return _weakest_target(view, attacks).action if attacks else Pass()
        me = view.me
        turn = (view.round, me.id)
        if self.acted == turn:
            return EndTurn()
        nearest = view.nearest_enemy()
        if nearest is not None and _hurt(me) and view.distance_to(nearest) <= 2.5:
            aways = [
                o
                for o in view.offers_of(Move)
                if isinstance(o.action, Move)
                and distance(o.action.to, nearest.position) > view.distance_to(nearest)
            ]
            if aways:
                self.acted = turn
                return aways[0].action
        attacks = view.offers_of(Attack)
        if attacks:
            self.acted = turn
            return _weakest_target(view, attacks).action
        move = _closer_move(view)
        if move is not None and me.ap - move.cost >= (_max_ap(view) + 1) // 2:
            return move.action
        return EndTurn()


class Tactician:
    """Uses each ruleset's reactions where they pay, and holds its turn when that helps.

    - In an opening: an Attack of Opportunity, Retaliate or Counter-Attack is free damage, so it
      always takes one (on the weakest enemy). A defence (Dodge, Parry, Block, Evade) against an
      attack aimed at itself is taken when it is hurt (at most 60% of its hit points), when the
      defence costs nothing, or when no attack is offered instead; otherwise it strikes back.
      It Intercepts for an ally who is hurt.
    - In its turn: Aim once first when it can still attack afterwards; attack the weakest enemy
      in reach; with no one in reach it delays (a ``DelayTurn``-like action, where the ruleset
      offers one) while the nearest enemy is coming anyway, so that the enemy walks into its
      reach and it strikes first; else it closes in. (Holding by ending the turn early does not
      pay where the one who closes in attacks in the same turn, so it does not do that.)
    """

    def __init__(self, ctx: PolicyContext | None = None) -> None:
        self.aimed: tuple[int, str] | None = None
        self.held: tuple[int, str] | None = None
        self.last_distance: dict[str, float] = {}

    def decide(self, view: View) -> Action:
        return self._turn(view) if view.window.is_turn else self._react(view)

    def _react(self, view: View) -> Action:
        free = offers_that(view, "is_attack", reaction=True)
        if free:
            return _weakest_target(view, free).action
        me = view.me
        trigger = view.window.trigger
        aimed_at_me = trigger is not None and trigger.target in (me.id, None)
        attacks = view.offers_of(Attack)
        defences = offers_that(view, "is_defence")
        if defences and aimed_at_me:
            cheapest = min(defences, key=lambda o: o.cost)
            if _hurt_at(me, 3) or cheapest.cost == 0 or not attacks:
                return cheapest.action
        intercepts = offers_that(view, "is_guard")
        if intercepts and trigger is not None:
            ally = next((a for a in view.allies if a.id == trigger.target), None)
            if ally is not None and _hurt_at(ally, 3):
                return intercepts[0].action
        if attacks:
            return _weakest_target(view, attacks).action
        return Pass()

    def _turn(self, view: View) -> Action:
        me = view.me
        turn = (view.round, me.id)
        attacks = view.offers_of(Attack)
        aims = offers_that(view, "is_aim")
        if attacks and aims and self.aimed != turn:
            cheapest = min(attacks, key=lambda o: o.cost)
            if me.ap - aims[0].cost >= cheapest.cost:
                self.aimed = turn
                return aims[0].action
        if attacks:
            return _weakest_target(view, attacks).action
        nearest = view.nearest_enemy()
        if nearest is None:
            return EndTurn()
        gap = view.distance_to(nearest)
        before = self.last_distance.get(nearest.id)
        self.last_distance[nearest.id] = gap
        coming = before is not None and gap < before - 0.01
        holds = offers_that(view, "is_hold")
        if coming and holds and self.held != turn:
            self.held = turn
            return holds[0].action
        move = _closer_move(view)
        return move.action if move else EndTurn()


def _hurt_at(c: CombatantState, fifths: int) -> bool:
    return c.hp * 5 <= c.max_hp * fifths


def cautious(view: View) -> Action:
    """A stateless :class:`Cautious` step (it may attack more than once a turn)."""
    return Cautious().decide(view)


def _max_ap(view: View) -> int:
    return view.spec.ap if view.spec.ap is not None else max(view.me.ap, 1)


class RandomPolicy:
    """A uniformly random legal action, from the combatant's own seeded stream."""

    def __init__(self, ctx: PolicyContext) -> None:
        self.rng = ctx.rng

    def decide(self, view: View) -> Action:
        return view.legal[self.rng.below(len(view.legal))].action


class Scripted:
    """Plays the encounter file's ``script`` in its own turns and ``reactions`` in openings,
    in order; when a list runs out it ends its turns and passes."""

    def __init__(self, ctx: PolicyContext) -> None:
        self.turns = list(ctx.combatant.script)
        self.reactions = list(ctx.combatant.reactions)

    def decide(self, view: View) -> Action:
        queue = self.turns if view.window.is_turn else self.reactions
        return queue.pop(0) if queue else closing(view)


def _stateless(fn: Callable[[View], Action]) -> Callable[[PolicyContext], Any]:
    def factory(ctx: PolicyContext) -> Callable[[View], Action]:
        return fn

    factory.__doc__ = fn.__doc__
    return factory


#: Built-in policies by name: factories from a :class:`PolicyContext` to a policy.
BUILTIN: dict[str, Callable[[PolicyContext], Any]] = {
    "aggressive": _stateless(aggressive),
    "cautious": Cautious,
    "random": RandomPolicy,
    "scripted": Scripted,
    "tactician": Tactician,
}


def _lookahead(ctx: PolicyContext) -> Any:
    from ._lookahead import Lookahead

    return Lookahead(ctx)


_lookahead.__doc__ = "Tries each candidate on forks of the fight (see actors._lookahead)."
BUILTIN["lookahead"] = _lookahead


def _search(ctx: PolicyContext) -> Any:
    from ._search import Search

    return Search(ctx)


_search.__doc__ = "Monte Carlo tree search over forks of the fight (see actors._search)."
BUILTIN["search"] = _search


def _human(ctx: PolicyContext) -> Any:
    from ._human import Human

    return Human(ctx)


_human.__doc__ = "A person at this terminal chooses from numbered offers (see actors._human)."
BUILTIN["human"] = _human
