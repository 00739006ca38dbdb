"""The protocol's values: what a combatant is sent (a token with its view) and sends back."""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

import msgspec
from initiative.events import Action, CombatantSpec, Event, Offer, Window

from ._geometry import distance
from ._odds import Odds, Sighted
from ._state import CombatantState


class View(msgspec.Struct, frozen=True, kw_only=True):
    """What a combatant sees when it holds priority. Immutable: a policy cannot change state."""

    me: CombatantState
    spec: CombatantSpec
    """Its own static description (weapons, stats, items)."""
    allies: tuple[CombatantState, ...]
    enemies: tuple[CombatantState, ...]
    """Enemies it can see that are still standing."""
    window: Window
    legal: tuple[Offer, ...]
    round: int
    active: str | None
    order: tuple[str, ...]
    ruleset: str
    seq: int
    """Seq of the ``PriorityGranted`` this view belongs to."""
    fork: Callable[..., Any] | None = None
    """``fork(dice=None, paired=False)``: an independent simulated copy of the fight
    positioned at this very decision (a :class:`Branch`). Nothing done to the copy reaches the
    real fight, its dice or its log. With ``dice`` (an int, e.g. drawn from the policy's own
    stream) the copy's future dice come from a fresh stream, so a look-ahead cannot peek at
    the real fight's dice. With ``paired=True`` too, each die comes from a stream of its own
    key, who rolls it and for what, with a count per key: the forks of this decision made with
    the same ``dice`` roll the same faces for the same die (Ilse's third attack roll on the
    ogre) whatever each rolled before it, so two offers played on such forks differ by what
    they do, not by their luck (common random numbers). Without ``paired`` the dice are drawn
    in turn from one stream, and once two forks' actions differ, so do all their dice."""

    nearest: CombatantState | None = None
    """The nearest enemy it can see (ties by id), found by the engine's position grid; ``None``
    when there is none. :meth:`nearest_enemy` returns it."""
    known: Mapping[str, Sighted] = msgspec.field(default_factory=dict)
    """What the table knows of every enemy in the encounter, by id, as the ruleset reveals it
    (:meth:`Ruleset.reveal`): weapons, armour, reach, range, speed, size. Read-only, the same
    for every decision of the fight; :meth:`sighted` gives the one of an enemy it can see."""
    estimate: Callable[..., Any] | None = None
    """``estimate(action)``: the ruleset's :class:`Odds` of ``action`` if taken now
    (:meth:`Ruleset.odds`), or ``None``; :meth:`odds` calls it."""

    def plain(self) -> View:
        """The view as data, to send or compare: without ``fork`` and ``estimate`` (a
        look-ahead and the odds cannot leave the process that holds the fight; ``odds``
        answers ``None`` there), and ``known`` as a plain dict."""
        return msgspec.structs.replace(self, fork=None, estimate=None, known=dict(self.known))

    def odds(self, what: Offer | Action) -> Odds | None:
        """The chance that an offer (or action) hits and the mean damage of a hit, as the
        ruleset computes them from the dice for this very decision, before any reaction;
        ``None`` for an action that is no attack, or where the ruleset does not say."""
        if self.estimate is None:
            return None
        action = what.action if isinstance(what, Offer) else what
        found: Odds | None = self.estimate(action)
        return found

    def sighted(self, enemy: CombatantState | str) -> Sighted | None:
        """What the table knows of ``enemy`` (its weapons, armour, reach ...), or ``None`` for
        a combatant that is not an enemy."""
        return self.known.get(enemy if isinstance(enemy, str) else enemy.id)

    def distance_to(self, other: CombatantState) -> float:
        return distance(self.me.position, other.position)

    def nearest_enemy(self) -> CombatantState | None:
        """The nearest enemy it can see, ties broken by id (``None`` when none is left)."""
        if self.nearest is not None or not self.enemies:
            return self.nearest
        return min(self.enemies, key=lambda e: (self.distance_to(e), e.id), default=None)

    def offers_of(self, *kinds: type[Action]) -> list[Offer]:
        return [o for o in self.legal if isinstance(o.action, kinds)]


class PriorityToken(msgspec.Struct, frozen=True, kw_only=True):
    """Priority, sent to exactly one combatant: the window, its view and its legal actions."""

    who: str
    window: Window
    view: View
    legal: tuple[Offer, ...]
    seq: int
    news: tuple[Event, ...] = ()
    """Events since this combatant's last token, for policies that observe (else empty)."""


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's answer to priority: an action, or a recorded failure."""

    action: Any = None
    """The action chosen (anything a policy returned; the scheduler checks it)."""
    failure: str | None = None
    """``timeout``, ``error``, ``invalid``, ``busy`` or ``crashed`` when the policy failed (see
    ``DecisionFailed.kind``)."""
    detail: str = ""
    override: Any = None
    """Instead of an answer: the game master's override (``events.Override``), applied before
    priority is granted again in the new state (see :mod:`engine._gm`)."""


class Reaction(msgspec.Struct, frozen=True, kw_only=True):
    """A reaction taken in an opening, with what its resolution returned."""

    who: str
    action: Action
    seq: int
    result: Any = None


Drive = Generator[PriorityToken, Decision, Any]
