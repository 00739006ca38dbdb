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
from math import hypot
from operator import attrgetter, indexOf
from typing import Any

from initiative.engine import CombatantState, Rng, Sighted, View, distance, find_ruleset
from initiative.events import (
    Action,
    Attack,
    CombatantSpec,
    EncounterSpec,
    EndTurn,
    Move,
    Offer,
    Pass,
    Position,
    ReadyWeapon,
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

    @property
    def known(self) -> dict[str, Sighted]:
        """What the table knows of the combatant's enemies in the encounter, by id, as the
        ruleset reveals them (the same as every ``View.known`` of the fight): for a policy
        that sizes up its enemies once, when it is made."""
        ruleset = find_ruleset(self.encounter.ruleset)(self.encounter)
        side = self.combatant.side
        return {c.id: ruleset.reveal(c) for c in self.encounter.combatants if c.side != side}


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
    """The offered move (any action with a destination ``to`` that is not a defence: a Move,
    a Dash) that ends nearest the nearest enemy, if it gets closer; the cheapest of equals."""
    nearest = view.nearest_enemy()
    if nearest is None:
        return None
    now = view.distance_to(nearest)
    best = None
    for offer in view.legal:
        to = getattr(offer.action, "to", None)
        if to is None or offer.action.is_defence:
            continue
        gap = distance(to, nearest.position)
        if gap < now - 0.01 and (best is None or (gap, offer.cost) < best[:2]):
            best = (gap, offer.cost, offer)
    return best[2] if best else None


def _hostile(view: View) -> list[Offer]:
    """Offers that strike at an enemy: those marked ``is_attack``, else any other action aimed
    at an enemy (a spell, a bash: an action whose ``target`` is an enemy's id)."""
    attacks = offers_that(view, "is_attack")
    if attacks:
        return attacks
    aimed = [
        o
        for o in view.legal
        if getattr(o.action, "target", None) is not None
        and not (o.action.is_defence or o.action.is_guard or o.action.is_aim)
    ]
    if not aimed:  # (most turns: no set of every enemy's id to make)
        return aimed
    enemies = {e.id for e in view.enemies}
    return [o for o in aimed if getattr(o.action, "target", None) in enemies]


def _reload(view: View) -> Offer | None:
    """A ``ReadyWeapon`` offer that reloads or draws a weapon (so that it can strike again)."""
    for offer in view.offers_of(ReadyWeapon):
        assert isinstance(offer.action, ReadyWeapon)
        if offer.action.mode in ("reload", "draw"):
            return offer
    return None


def _step_back(view: View) -> Offer | None:
    """With AP left that buys no blow, a step away out of the enemies' reach (hit and run: an
    enemy must spend its own AP to close in again), unless leaving gives an enemy a blow at
    it (see :func:`_provokes`). The ``Move`` that ends farthest from the enemies."""
    nearest = view.nearest_enemy()
    if nearest is None:
        return None
    now = view.distance_to(nearest)
    if now > _reach(view) + 0.01:
        return None
    best = None
    positions: list[Position] = []
    for offer in view.offers_of(Move):
        assert isinstance(offer.action, Move)
        if not positions:
            positions = [e.position for e in view.enemies]
        gap = _gap(offer.action.to, positions)
        if gap > now + 0.01 and (best is None or gap > best[0]):
            best = (gap, offer)
    if best is None or _provokes(view, best[1]):
        return None
    return best[1]


def _gap(to: Position, positions: list[Position]) -> float:
    """``min(distance(to, p) for p in positions)``, with one rounding: the unrounded lengths
    (the very ``hypot`` that :func:`engine.distance` rounds) are compared, and only the least
    is rounded, which gives the same value since rounding never reverses an order."""
    x, y = to.x, to.y
    lengths = [hypot(x - p.x, y - p.y) for p in positions]
    return distance(to, positions[lengths.index(min(lengths))])


def _provokes(view: View, offer: Offer) -> bool:
    """Whether taking ``offer`` gives an enemy an opening with a blow at oneself: tried on a
    fork of the fight (its own dice), where one exists; otherwise guessed, from any enemy
    close by holding as much AP as one's own cheapest blow costs."""
    me = view.me
    nearest = view.nearest
    near = view.distance_to(nearest or me) + 1.0
    # (The nearest enemy first: it is close by, so when it has AP no one else is looked at.)
    if not (nearest is not None and nearest.ap > 0) and not any(
        e.ap > 0 and view.distance_to(e) <= near for e in view.enemies
    ):
        return False  # no enemy close by has AP for anything
    if view.fork is None:
        price = min((o.cost for o in _hostile(view)), default=me.ap + 1)
        return any(view.distance_to(e) <= near and e.ap >= max(price, 1) for e in view.enemies)
    branch = view.fork(dice=0)
    token = branch.send(offer.action)
    # Everyone the step opens a window for, in turn (each passing on the fork), until the
    # fight is back in a turn or someone else's deed opens a window.
    for _ in range(len(view.enemies) + len(view.allies) + 1):
        if token is None or token.view.window.is_turn:
            return False
        trigger = token.view.window.trigger
        if trigger is None or trigger.by != me.id:
            return False
        if token.view.me.side != me.side and any(
            o.action.is_attack and getattr(o.action, "target", me.id) == me.id for o in token.legal
        ):
            return True
        token = branch.send(closing(token.view))
    return False


def _reach(view: View) -> float:
    """One's longest melee reach."""
    return max((w.reach for w in view.spec.weapons if not w.ranged), default=1.5)


def _press(view: View) -> Action:
    """A turn of plain aggression: strike the weakest enemy; else reload; else close in; else
    step back out of reach with what AP is left; else end the turn."""
    hostile = _hostile(view)
    if hostile:
        return _weakest_target(view, hostile).action
    reload = _reload(view)
    if reload is not None:
        return reload.action
    move = _closer_move(view)
    if move is not None:
        return move.action
    back = _step_back(view)
    return back.action if back else EndTurn()


def _close_in(view: View) -> Offer | None:
    """In an opening with no blow to strike: a reaction move that closes in on the nearest
    enemy (AP kept until one's turn starts again is often lost; spent here, it brings the next
    opening's attack into reach)."""
    nearest = view.nearest_enemy()
    if nearest is None or view.distance_to(nearest) <= _reach(view):
        return None
    return _closer_move(view)


def aggressive(view: View) -> Action:
    """Strike the weakest enemy (an attack, else any action aimed at an enemy); otherwise
    reload, close in, or step back out of reach with AP that buys no blow. In an opening:
    any attack offered, else a defence, else a move that closes in."""
    if view.window.is_turn:
        return _press(view)
    attacks = offers_that(view, "is_attack")
    if attacks:
        return _weakest_target(view, attacks).action
    defences = offers_that(view, "is_defence")
    if defences:
        return defences[0].action
    closer = _close_in(view)
    return closer.action if closer else Pass()


def first(view: View) -> Action:
    """The baseline: take the first legal offer, whatever it is."""
    return view.legal[0].action


def _hurt(me: CombatantState) -> bool:
    return me.hp * 5 <= me.max_hp * 2


class Cautious:
    """Keeps AP back for reactions: it strikes again in a turn only while the AP for a defence
    (the cheapest it has been offered) stays in hand; defends whenever offered; hits and steps
    back out of reach when leaving gives no enemy a blow; retreats when badly hurt; closes in
    only while keeping half its AP."""

    def __init__(self, ctx: PolicyContext | None = None) -> None:
        self.acted: tuple[int, str] | None = None
        self.reserve = 0
        """The AP of the cheapest defence offered so far (what it keeps back)."""

    def decide(self, view: View) -> Action:
        if not view.window.is_turn:
            defences = offers_that(view, "is_defence")
            if defences:
                cheapest = min(defences, key=lambda o: o.cost)
                self.reserve = max(self.reserve, cheapest.cost)
                return cheapest.action
            attacks = offers_that(view, "is_attack")
            if attacks:
                return _weakest_target(view, attacks).action
            closer = _close_in(view)
            return closer.action if closer else Pass()
        me = view.me
        turn = (view.round, me.id)
        hostile = _hostile(view)
        if hostile:
            best = _weakest_target(view, hostile)
            if self.acted != turn or me.ap - best.cost >= self.reserve:
                self.acted = turn
                return best.action
        reload = _reload(view)
        if reload is not None and self.acted != turn:
            return reload.action
        if self.acted == turn or _hurt(me):
            back = _step_back(view)
            if back is not None:
                return back.action
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
        self.keeps_a_blow = False
        """Learned: an opening at the end of someone's turn offered it a blow, so AP kept
        through its turn buys a blow at an enemy who comes up and ends its turn there."""
        self.price = 0
        """The AP of the cheapest blow it has been offered in its turn."""

    def decide(self, view: View) -> Action:
        return self._turn(view) if view.window.is_turn else self._react(view)

    def _react(self, view: View) -> Action:
        trigger = view.window.trigger
        if trigger is not None and trigger.kind == "turn_ended" and offers_that(view, "is_attack"):
            self.keeps_a_blow = True
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
        closer = _close_in(view)
        return closer.action if closer else Pass()

    def _turn(self, view: View) -> Action:
        me = view.me
        turn = (view.round, me.id)
        attacks = _hostile(view)
        aims = offers_that(view, "is_aim")
        if attacks and aims and self.aimed != turn:
            cheapest = min(attacks, key=lambda o: o.cost)
            if me.ap - aims[0].cost >= cheapest.cost:
                self.aimed = turn
                return aims[0].action
        if attacks:
            self.price = min(o.cost for o in attacks)
            return _weakest_target(view, attacks).action
        reload = _reload(view)
        if reload is not None:
            return reload.action
        move = _closer_move(view)
        if move is not None and self.keeps_a_blow and me.ap - move.cost < self.price:
            return EndTurn()  # no blow this turn after that step: keep the AP for an opening
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
        return _press(view)


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
    "first": _stateless(first),
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
    from ._search import tuned

    return tuned(ctx)


_search.__doc__ = (
    "Monte Carlo tree search over forks of the fight, set for the encounter's ruleset"
    " (see actors._search)."
)
BUILTIN["search"] = _search


def _human(ctx: PolicyContext) -> Any:
    from ._human import Human

    return Human(ctx)


_human.__doc__ = "A person at this terminal chooses from numbered offers (see actors._human)."
BUILTIN["human"] = _human
