"""Forks: independent copies of a fight, positioned at a decision, and the answers they share.

A fork is a new fight of the same encounter and seed, with its own state, dice counter and
events, writing to no sink, stepped through a :class:`~engine._branch.Branch`. It copies the
fight where it stands rather than replaying it:

- while the fight waits for a decision of a turn's own window, the fork starts right there:
  a copy of the live state, the dice position, the log position and the place in the flow
  (:class:`~engine._branch.Paused`), resumed at the very grant, nothing replayed;
- otherwise (an opening, a repeat after a rejection, or an earlier decision) it resumes from
  the latest turn decision the fight kept (once forked so, a fight keeps one at each) or from
  the snapshot the fight took at the start of its round, and is fed the decisions made since;
  a fork of a decision before the current round is replayed from the header.

:class:`Forks` is that machinery for one fight, made at its first fork; once a fork was taken
elsewhere than at the turn decision the fight waits on, the fight tells it of each turn
decision from then on (:meth:`Forks.keep`, :attr:`Forks.eager`). :class:`Layouts` are the answers
forks of one kept place share by layout. This module depends on the fight (it reads the fight's
place, snapshot and caches, and makes new fights); the fight knows only :meth:`Forks.fork`,
:meth:`Forks.keep` and :func:`forker`; a walk over the layouts (:class:`Walk`) watches
the fight's recorder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from initiative.events import Event, Offer, Window

from ._branch import SILENT_LOG, Branch, Paused
from ._given import RecordedDice
from ._live import Snapshot
from ._protocol import Decision
from ._rng import PairedDice, Rng

if TYPE_CHECKING:
    from ._fight import Fight

_Point = tuple[Paused, Snapshot, int]
"""A kept turn decision: the place in the flow, a copy of the fight there, and the last round
with an action."""

_Pending = tuple[int, int, Window, tuple[Offer, ...]]
"""A turn decision the fight waits on (``Fight._pending``): the grant's seq, how many decisions
the turn had before it, the window and the offers."""


class Layouts:
    """The answers kept by ``layout`` count (nearest enemies, the ruleset helpers' ``kept``)
    at one layout, shared by everyone who stands there: a fight that has been forked, and the
    forks of its kept places.

    Who stands where and who is seen follow from the state at a place and the events that
    changed the layout since, so fights that stood alike and recorded equal such events
    (equal values, their seq and cause not yet stamped) stand alike again and may share
    answers: the node for each next layout is found under the event that made it. The forks
    of a look-ahead, played on from one place with the same policy, often do; so does the
    fight itself, whose next layout is often one its forks tried.

    The fight walks these nodes too from its first kept place on (:meth:`Forks.keep`), so the
    maps it writes to hold the answers of its own layout only, and a fork of a kept place
    takes that place's node as it is, whatever the number of combatants (rather than sifting
    the fight's answers of every layout for those of its own)."""

    __slots__ = ("kept", "nearest", "next")

    def __init__(
        self,
        kept: dict[object, tuple[int, Any]] | None = None,
        nearest: dict[str, tuple[int, str | None]] | None = None,
    ) -> None:
        self.kept: dict[object, tuple[int, Any]] = {} if kept is None else kept
        self.nearest: dict[str, tuple[int, str | None]] = {} if nearest is None else nearest
        self.next: dict[Event, Layouts] = {}

    def enter(self, fight: Fight) -> None:
        """Make ``fight`` keep its answers by layout in this node's maps, and walk on from it
        as its recorder reports layouts changed (:class:`Walk`)."""
        fight.recorder.watch = Walk(self, fight)


class Walk:
    """A fight's walk over the :class:`Layouts` nodes: its recorder's watcher, told of each
    event (unstamped) that changed the layout, on to the node those who stood at this one
    share after it (in line: forks of a look-ahead change layout at about every move)."""

    __slots__ = ("node", "queries", "rules")

    def __init__(self, node: Layouts, fight: Fight) -> None:
        self.node = node
        self.queries = fight.queries
        self.rules = fight.rules
        self.queries.nearest_by = node.nearest
        self.rules.kept = node.kept

    def __call__(self, event: Event) -> None:
        node = self.node
        try:
            child = node.next.get(event)
            if child is None:
                child = node.next[event] = Layouts()
        except TypeError:  # an event that cannot be a key: this fork goes on alone
            child = Layouts()
        self.node = child
        self.queries.nearest_by = child.nearest
        self.rules.kept = child.kept


def forker(fight: Fight, upto: int) -> Callable[..., Branch]:
    """``View.fork`` for the view of decision ``upto``: a fork there that records no lines
    (``Fight.fork``'s, with one call fewer: a look-ahead forks at about every decision)."""

    def fork(dice: int | None = None, paired: bool = False) -> Branch:
        forks = fight._forks
        if forks is None:
            forks = fight._forks = Forks(fight)
        # A policy's look-ahead reads the copy's state, never its lines: none are made.
        return forks.fork(dice, upto, False, paired)

    return fork


class Forks:
    """The fork machinery of one fight that has been forked: the turn decision it kept last,
    and the answers its forks of that place share."""

    __slots__ = ("eager", "fight", "point", "shared")

    def __init__(self, fight: Fight) -> None:
        self.fight = fight
        self.point: _Point | None = None
        """The last turn decision kept for forks (see :meth:`keep`)."""
        self.shared: tuple[object, Layouts] | None = None
        """The answers the forks of the kept place share (see :class:`Layouts`)."""
        self.eager = False
        """Whether the fight keeps each turn decision it waits on (:meth:`keep`): from the
        first fork taken elsewhere (an opening, an earlier decision), which resumes from the
        last one kept. Until then a turn decision is kept when it is forked: keeping one
        costs the fight's next events copies of the containers they change, which grow with
        the number of combatants, and a policy that forks only where it decides (``aggressive``
        trying a step back) forks at a quarter of them."""

    def fork(
        self, dice: int | None, upto: int | None, record: bool, paired: bool = False
    ) -> Branch:
        """A fork of the fight at its ``upto``-th decision (``None``: the one it waits for),
        resumed as the module's text says (``dice``, ``record`` and ``paired``: see
        ``Fight.fork``)."""
        if paired and dice is None:
            raise ValueError("paired dice need a stream: fork(dice=k, paired=True)")
        fight = self.fight
        now = len(fight.decisions)
        upto = now if upto is None else upto
        pending = fight._pending
        if pending is not None and upto == now:
            point = self.point
            if point is None or point[1].decisions != now:
                # Kept now (unless every turn decision is): the next fork here reuses it.
                point = self.keep(pending)
            return self._fork_from(point, upto, dice, record, paired)
        point = self.point
        snap = fight.snapshot
        self.eager = True  # (a fork elsewhere: keep every turn decision from now on)
        if (
            point is not None
            and point[1].decisions <= upto
            and (snap is None or point[1].decisions >= snap.decisions)
        ):
            return self._fork_from(point, upto, dice, record, paired)
        copy = self._copy(record)
        if snap is not None and snap.decisions <= upto:
            copy.decisions = fight.decisions[: snap.decisions]
            copy.snapshot = snap
            if upto == now:
                copy.acted_in_round = fight.acted_in_round  # a replayed action sets it anew
            past = fight.decisions[snap.decisions : upto]
        else:
            snap = None
            past = fight.decisions[:upto]
        return self._feed(Branch(copy, resume=snap), past, dice, paired)

    def _copy(self, record: bool = True) -> Fight:
        """A new fight of the same encounter, seed, reseeds and given dice, at its start."""
        fight = self.fight
        copy = type(fight)(
            fight.encounter,
            fight.seed,
            parent=fight.parent,
            keep_events=False,
            engine_version=fight.engine_version,
            reseed=fight.recorder.reseed,
            dice=RecordedDice(fight.recorder.given) if fight.recorder.given else None,
        )
        copy.log = SILENT_LOG
        # (with the GM's joiners; never changed in place)
        copy.queries.specs_by_id = fight.queries.specs_by_id
        copy.sink.encoding = record and fight.sink.encoding
        if fight.endings.calm:  # the rounds before a fork's are its own past
            copy.endings.calm = dict(fight.endings.calm)
        return copy

    def _layouts_at(self, point: object, layout: int) -> Layouts:
        """The answers the forks of ``point`` (a kept place, at ``layout``) start from and
        share: the node the fight stood at when it kept the place (:meth:`keep`). An answer
        found at a later count belongs to the fight's own future, which a fork may not share:
        a node holds the answers of its own layout only."""
        shared = self.shared
        if shared is not None and shared[0] is point:
            return shared[1]
        # (Not the last place kept: its node is the fight's if the fight has not moved since.)
        node = self._here() if self.fight.state.layout == layout else Layouts()
        self.shared = (point, node)
        return node

    def _here(self) -> Layouts:
        """The node of the layout the fight stands at. At its first kept place the fight's
        maps become a node's as they are (an answer in them found at an earlier count is not
        read at this one), and from then on the fight walks the nodes as its forks do."""
        fight = self.fight
        walk = fight.recorder.watch
        if isinstance(walk, Walk):
            return walk.node
        node = Layouts(kept=fight.rules.kept, nearest=fight.queries.nearest_by)
        node.enter(fight)
        return node

    def _feed(self, branch: Branch, past: list[Decision], dice: int | None, paired: bool) -> Branch:
        """Replay ``past`` on ``branch`` with the fight's own dice, then give it its own."""
        for decision in past:
            if branch.token is None:
                break
            branch.apply(decision)
        branch.decisions = 0
        if dice is not None:
            rec = branch.fight.recorder
            rec.rng = Rng(self.fight.seed, f"fork/{dice}")
            rec.paired = PairedDice(self.fight.seed, f"fork/{dice}") if paired else None
        return branch

    def keep(self, pending: _Pending) -> _Point:
        """Keep the turn decision the fight now waits on, for the forks taken from here on:
        where the fight waits, as data a fork resumes from (the place in the flow, a copy of
        the live state, the dice and log positions, and the last round with an action)."""
        fight = self.fight
        granted, done, window, offers = pending
        round_started, order, index = fight._place
        paused = Paused(
            round_started=round_started,
            order=list(order),
            index=index,
            turn_started=fight._turn_seq,
            done=done,
            window=window,
            offers=offers,
            granted=granted,
        )
        point = self.point = (paused, fight._take_snapshot(), fight.acted_in_round)
        here = self._here()  # what the forks of this place share
        shared = self.shared
        if shared is not None and shared[1] is here:
            # The fight has not moved since the last place kept: the layouts that place's
            # forks went on to are let go, as before the fight walked the nodes, so that they
            # do not pile up (a look-ahead's, every decision) while the fight's layout stands.
            here.next.clear()
        self.shared = (point, here)
        return point

    def _fork_from(
        self, point: _Point, upto: int, dice: int | None, record: bool, paired: bool
    ) -> Branch:
        """A fork resumed at a kept turn decision and fed the decisions made since, up to
        ``upto`` (none when it is the decision the fight waits on)."""
        fight = self.fight
        paused, snap, acted = point
        copy = self._copy(record)
        copy._restore(snap)
        self._layouts_at(point, copy.state.layout).enter(copy)
        copy.acted_in_round = acted
        copy.recorder.given = dict(fight.recorder.given)
        copy.decisions = fight.decisions[: snap.decisions]
        copy.snapshot = fight.snapshot
        branch = Branch(copy, resume=paused)
        return self._feed(branch, fight.decisions[snap.decisions : upto], dice, paired)
