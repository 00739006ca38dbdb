"""The scheduler's logic: one encounter as a generator that yields priority tokens.

:class:`Fight` is the flow every seed shares (header, joins, initiative, rounds, turns,
priority, openings, the end). It contains no Trio: :meth:`Fight.run` is a generator that yields
a :class:`PriorityToken` whenever a combatant must decide and is sent back a :class:`Decision`.
Every driver steps it through one :class:`engine.Stepper` (``_stepper.py``): the Trio
scheduler in ``actors`` forwards its tokens to combatant tasks, the in-line executor calls
trusted policies directly, a replay feeds recorded decisions, and a look-ahead policy steps a
fork. All of them produce the same events.

A fight is split along its seams, as OpenSpiel keeps one ``State`` small by leaving chance and
observation to their own objects. This module holds the flow, one decision (``ask``, the view)
and where the fight stands (snapshots); it holds its parts by composition:

- ``_recorder.py``: :class:`~engine._recorder.Recorder` (``fight.recorder``), the only writer:
  every event (``emit``, stamped with its seq and cause, recorded through the sink, folded into
  the :class:`~engine._live.LiveState` by the one state transition that :func:`engine.fold`
  also runs), the dice (``roll``), causes, reseeding, digests and the changes of one event
  each (``set_ap``, ``move``, ``damage``, ...);
- ``_queries.py``: :class:`~engine._queries.Queries` (``fight.queries``), the reads of the
  state through the ruleset (``get``, ``standing``, ``near``, ``nearest_enemy``, ``decided``,
  ...) with the answers they keep;
- ``_endings.py``: :class:`~engine._endings.Endings` (``fight.endings``), whether the fight is
  over (decided, idle, stalemate) and the withdrawal rule;
- ``_rules.py``: :class:`~engine.Rules` (``fight.rules``), the table of what a ruleset's hooks
  may read and do, bound once from those parts;
- ``_forks.py``: :meth:`Fight.fork`'s machinery (:class:`~engine._forks.Forks`, made at the
  first fork) and the answers forks of one place share (:class:`~engine._forks.Layouts`, which
  watch the recorder for events that change the layout);
- ``_initiative.py`` and ``_gm.py``: initiative, and the game master's overrides, as functions
  of the rules table and of a fight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from types import MappingProxyType
from typing import Any

import structlog
from initiative.events import (
    LOG_FORMAT,
    Action,
    ActionDeclared,
    ActionRejected,
    APChanged,
    CombatantJoined,
    CombatantSpec,
    DecisionFailed,
    EncounterSpec,
    EncounterStarted,
    EndTurn,
    Event,
    InsertedTurnEnded,
    Offer,
    OpeningClosed,
    OpeningOpened,
    Override,
    Pass,
    PriorityGranted,
    PriorityPassed,
    RoundEnded,
    RoundStarted,
    Trigger,
    TurnEnded,
    TurnInserted,
    TurnStarted,
    Window,
)

from . import _gm
from ._branch import Branch, Paused
from ._endings import Endings
from ._forks import Forks, forker
from ._given import DiceSource
from ._live import LiveState, Snapshot
from ._odds import Sighted
from ._protocol import Decision, Drive, PriorityToken, Reaction, View
from ._queries import Queries
from ._recorder import Recorder
from ._rng import ALGORITHM
from ._rules import Rules
from ._ruleset import find_ruleset
from ._sink import LogSink
from ._stepper import Stepper

log = structlog.get_logger("initiative.engine")

try:
    ENGINE_VERSION = version("initiative")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    ENGINE_VERSION = "0+unknown"


_END_TURN = Offer(action=EndTurn(), cost=0)
_PASS = Offer(action=Pass(), cost=0)
"""The closing offers (immutable values, shared by every list of offers)."""


class EncounterOver(Exception):
    """Raised inside the flow when one side is left standing; caught by :meth:`Fight.run`."""


class Fight:
    """One encounter being fought: the flow, over its parts.

    ``recorder`` writes (events, dice, causes, the changes), ``queries`` reads the state
    through the ruleset, ``endings`` says when it is over; ``rules`` is what the ruleset's
    hooks receive, bound from those parts. Its forks are made by :mod:`engine._forks`."""

    def __init__(
        self,
        encounter: EncounterSpec,
        seed: int,
        *,
        sink: LogSink | Callable[[Event], None] | None = None,
        parent: str | None = None,
        keep_events: bool = True,
        engine_version: str = ENGINE_VERSION,
        reseed: dict[int, int] | None = None,
        dice: DiceSource | None = None,
    ) -> None:
        self.encounter = encounter
        self.seed = seed
        self.ruleset = find_ruleset(encounter.ruleset)(encounter)
        self.options = self.ruleset.options
        self.state = LiveState()
        """The live state, changed in place by every event (read it, never change it; a fork's
        restore replaces it, in every part at once: :meth:`_restore`)."""
        self.sink = sink if isinstance(sink, LogSink) else LogSink(on_event=sink)
        """What every event is recorded through: its line, the log file, the hooks that see it
        (a plain function given as ``sink`` is the sink's ``on_event``)."""
        self.recorder = recorder = Recorder(
            self.state,
            seed,
            self.sink,
            keep_events=keep_events,
            reseed=reseed,
            dice=dice,
            owner=self,
        )
        """The one writer: every event, die, cause and change goes through it."""
        self.events = recorder.events
        """Every event emitted (the recorder's list, kept unless ``keep_events=False``)."""
        self.emit = recorder.emit
        self.caused_by = recorder.caused_by
        """The recorder's ``emit`` and ``caused_by``, bound once: the flow writes through them
        at every step, at the cost of one call, as :class:`Rules` binds them for the rules."""
        self.queries = queries = Queries(encounter, self.ruleset, self.state)
        """The reads of the state through the ruleset (``get``, ``standing``, ``decided``...)."""
        self.endings = Endings(encounter, self.options, queries, recorder.emit)
        """Whether the fight is over (decided, idle, stalemate) and the withdrawal rule."""
        self.parent = parent
        self.engine_version = engine_version
        """Recorded in the header; a re-simulation keeps the recorded log's."""
        self.snapshot: Snapshot | None = None
        """Taken at the start of the current round: what a fork resumes from."""
        self.log: Any = log
        """The engine's own logger (a fork's is silent)."""
        self.decisions: list[Decision] = []
        """Every decision sent to :meth:`run` so far, in order (what :meth:`fork` replays)."""
        self.acted_in_round = 0
        """The last round in which an action (not ``EndTurn`` or ``Pass``) was declared."""
        self._sighted: tuple[object, dict[str, Mapping[str, Sighted]]] = (None, {})
        """The ``View.known`` maps by side, and the specs they were made from."""
        self.rules = queries.rules = Rules(self)
        """What the ruleset's hooks receive: the table of what rules may read and do."""
        self._place: tuple[int, list[str], int] = (-1, [], 0)
        """Where the round stands: the seq of its ``RoundStarted``, its turn order, whose turn."""
        self._turn_seq = -1
        """The seq of the current (not inserted) turn's ``TurnStarted``."""
        self._pending: tuple[int, int, Window, tuple[Offer, ...]] | None = None
        """While the fight waits for a decision in a turn's own window (not an opening, not an
        inserted turn, not a repeat after a rejection): the grant's seq, how many decisions the
        turn had before it, the window and the offers; a fork resumes right there."""
        self._forks: Forks | None = None
        """The fork machinery, made at the first fork (it keeps the turn decisions forked, and
        each one once a fork was taken elsewhere: see :class:`~engine._forks.Forks`)."""

    @property
    def next_seq(self) -> int:
        """The seq the next event will have (how many have been emitted): read by dice
        sources, steppers and summaries; the recorder keeps it."""
        return self.recorder.next_seq

    # --- the flow -----------------------------------------------------------------------------

    def run(self, resume: Snapshot | Paused | None = None) -> Drive:
        """The whole encounter: yields priority tokens, is sent decisions, ends with the log.

        With ``resume`` (a :class:`Snapshot` this fight's encounter and seed took at the start
        of a round) it starts at that round instead of at the header, with the snapshot's
        state, dice position and log position: a fork's way to skip the fight so far. With a
        :class:`~engine._branch.Paused` (the fight's state, dice and log position already
        copied in), it starts at that very decision of a turn.
        Drive it through a :class:`engine.Stepper` rather than by hand.
        """
        try:
            if resume is None:
                yield from self._begin()
            elif isinstance(resume, Paused):
                yield from self._round(self.state.round, resume)
            else:
                self._restore(resume)
            while True:
                number = self.state.round + 1
                if number > self.encounter.max_rounds:
                    self._end(None, f"round limit ({self.encounter.max_rounds}) reached")
                    return self.events
                self.snapshot = self._take_snapshot()
                yield from self._round(number)
        except EncounterOver:
            return self.events

    def play(self, decide: Callable[[PriorityToken], Decision]) -> None:
        """Run the encounter to its end synchronously, asking ``decide`` for every decision.

        Exceptions raised by ``decide`` (or by the sink) stop the fight where it stands.
        """
        Stepper(self).play(decide)

    def _begin(self) -> Drive:
        R = self.ruleset
        root = self.emit(self.header(), cause=False)
        self.log.info("encounter started", ruleset=R.name, seed=self.seed)
        with self.caused_by(root):
            for c in self.encounter.combatants:
                if c.arrives <= 1:
                    self.join(c, 0)
            yield from R.start(self.rules)

    def header(self) -> EncounterStarted:
        """The log's first line for this fight (what a position set up by hand starts with too)."""
        R = self.ruleset
        return EncounterStarted(
            format=LOG_FORMAT,
            engine=self.engine_version,
            ruleset=R.name,
            ruleset_version=R.version,
            rng=ALGORITHM,
            seed=self.seed,
            encounter=self.encounter,
            parent=self.parent,
        )

    def join(self, c: CombatantSpec, round_: int) -> None:
        """``c`` joins the fight in round ``round_`` (0 before the first), with its full AP."""
        self.emit(
            CombatantJoined(
                who=c.id,
                side=c.side,
                hp=c.hp,
                ap=self.ruleset.max_ap(c),
                position=c.position,
                round=round_,
            )
        )

    def _round(self, number: int, paused: Paused | None = None) -> Drive:
        """Round ``number``; with ``paused``, the rest of it from a fork's decision."""
        R = self.ruleset
        self.endings.before_round(number)
        if paused is None:
            started = self.emit(RoundStarted(round=number))
            self.log.debug("round started", round=number)
        else:
            started = paused.round_started
        with self.caused_by(started):
            if paused is None:
                arrivals = [c for c in self.encounter.combatants if c.arrives == number > 1]
                for c in arrivals:
                    self.join(c, number)
                if arrivals:
                    yield from R.arrive(self.rules, [c.id for c in arrivals])
                yield from R.round_started(self.rules)
                self.check_end()
                order, first = list(self.state.order), 0
            else:  # a copy: the GM's Reorder changes the rest of the round's (engine._gm)
                order, first = list(paused.order), paused.index
            standing = self.queries.standing
            for index in range(first, len(order)):
                who = order[index]
                if paused is not None and index == first:
                    self._place = (started, order, index)
                    yield from self._turn(who, paused)
                    self.check_end()
                elif standing(who):
                    self._place = (started, order, index)
                    yield from self._turn(who)
                    self.check_end()
        ended = self.emit(RoundEnded(round=number))
        with self.caused_by(ended):
            yield from R.round_ended(self.rules)
            if self.state.timed:
                self._expire(number)
        self.recorder.digest(cause=ended)
        self.check_end()
        reason = self.endings.after_round(self.acted_in_round)
        if reason is not None:
            self._end(None, reason)

    def _expire(self, number: int) -> None:
        """End the conditions the GM gave for rounds that end with round ``number``."""
        for (who, condition), last in sorted(self.state.timed.items()):
            if last <= number:
                self.recorder.remove_condition(who, condition)

    def _turn(self, who: str, paused: Paused | None = None) -> Drive:
        R = self.ruleset
        withdrawal = self.options.withdraw_turns > 0
        if paused is None:
            started = self.emit(TurnStarted(who=who, round=self.state.round))
            if withdrawal:
                self.endings.turn_began(who)
        else:
            started = paused.turn_started
        self._turn_seq = started
        reason = "ended"
        with self.caused_by(started):
            if paused is not None:
                reason = yield from self._turn_decisions(who, top=True, paused=paused)
            else:
                skip = yield from R.turn_started(self.rules, who)
                if skip:
                    reason = skip
                else:
                    reason = yield from self._turn_decisions(who, top=True)
        ended = self.emit(TurnEnded(who=who, reason=reason), cause=started)
        if withdrawal:
            self.endings.turn_ended(who, ended)
        with self.caused_by(ended):
            yield from R.turn_ended(self.rules, who)

    def _turn_decisions(
        self, who: str, *, top: bool = False, paused: Paused | None = None
    ) -> Drive:
        """``who``'s decisions in a turn (``top``: its own turn, not an inserted one); with
        ``paused``, from a fork's decision on."""
        R = self.ruleset
        q = self.queries
        turn = Window(kind="turn") if paused is None else paused.window
        first = 0 if paused is None else paused.done
        for done in range(first, self.options.max_decisions_per_turn):
            if paused is not None and done == first:
                got = yield from self.ask(who, turn, at=first, paused=paused)
            else:
                if not q.standing(who):
                    return "defeated"
                got = yield from self.ask(who, turn, at=done if top else None)
            if got is None:
                return self._gone(who) or "decision failed"
            action, declared = got
            if isinstance(action, EndTurn):
                return "ended"
            causes = self.recorder.causes  # ``with self.caused_by(declared)``, in line
            causes.append(declared)
            try:
                yield from R.perform(self.rules, who, action, turn)
            finally:
                causes.pop()
            if q.decided():
                return "encounter decided"
            over = R.turn_over(self.rules, who)
            if over:
                return over
        return "decision limit"

    def _gone(self, who: str) -> str | None:
        """Why ``who`` can no longer act (defeated, left), or ``None`` while it stands."""
        c = self.state.combatants.get(who)
        if c is None or self.queries.standing(who):
            return None
        return "left" if c.left else "defeated"

    def inserted_turn(self, who: str, reason: str = "") -> Drive:
        """Give ``who`` a turn in the middle of another's (a delayed turn taken as a reaction).

        Records ``TurnInserted``, asks ``who`` for decisions in a turn window as in a normal
        turn (without the ruleset's turn hooks: AP and effects are as they are), then records
        ``InsertedTurnEnded`` and the interrupted turn goes on. Returns why it ended.
        """
        outer = self.state.active
        started = self.emit(
            TurnInserted(who=who, round=self.state.round, interrupts=outer, reason=reason)
        )
        with self.caused_by(started):
            ended = yield from self._turn_decisions(who)
        self.emit(InsertedTurnEnded(who=who, reason=ended, returns_to=outer), cause=started)
        return ended

    def opening(self, trigger: Trigger, candidates: Iterable[str]) -> Drive:
        """Make an opening: each candidate with a legal reaction gets priority in initiative
        order and may take one reaction; then priority returns to whoever held it.

        Returns the reactions taken, as :class:`Reaction` values, in the order taken.
        """
        depth = self.state.depth + 1
        if depth > self.options.max_opening_depth:
            return []
        q = self.queries
        window = Window(kind="opening", trigger=trigger, depth=depth)
        eligible = [
            c
            for c in q.by_initiative(candidates)
            if q.standing(c) and self.ruleset.offers(self.rules, c, window)
        ]
        if not eligible:
            return []
        holder = self.state.priority
        opened = self.emit(OpeningOpened(trigger=trigger, offered=tuple(eligible), depth=depth))
        reactions: list[Reaction] = []
        with self.caused_by(opened):
            for who in eligible:
                if q.decided():
                    break
                found = self.ruleset.offers(self.rules, who, window) if q.standing(who) else []
                if not found:
                    self.emit(PriorityPassed(who=who, reason="no longer able to react"))
                    continue
                got = yield from self.ask(who, window, found=found)
                if got is None:
                    continue
                action, declared = got
                with self.caused_by(declared):
                    result = yield from self.ruleset.perform(self.rules, who, action, window)
                reactions.append(Reaction(who=who, action=action, seq=declared, result=result))
            self.emit(OpeningClosed(returns_to=holder, reactions=len(reactions)))
        return reactions

    # --- one decision -------------------------------------------------------------------------

    def ask(
        self,
        who: str,
        window: Window,
        *,
        at: int | None = None,
        paused: Paused | None = None,
        found: list[Offer] | None = None,
    ) -> Drive:
        """Grant ``who`` priority until it makes a legal decision (bounded), and record it.

        Returns ``(action, seq of ActionDeclared)``, or ``None`` when it passed or failed.
        ``at``: the decision is the turn's ``at``-th in its own turn (a fork can resume there);
        ``paused``: a fork resuming at its grant, already recorded; ``found``: the ruleset's
        offers, asked of this very state just before (not asked again).
        """
        last_rejection: int | None = None
        attempt = 0
        while attempt < self.options.max_rejections:
            if paused is not None:  # (the first grant alone, as ``found`` is)
                offers, granted, paused = paused.offers, paused.granted, None
            else:
                offers, granted = self._grant(who, window, found)
            found = None
            token = PriorityToken(
                who=who,
                window=window,
                view=self.view(who, window, offers, granted),
                legal=offers,
                seq=granted,
            )
            pending = None if at is None or attempt else (granted, at, window, offers)
            if pending is not None:  # the turn's own grant: a fork may resume right here
                self._pending = pending
                forks = self._forks
                if forks is not None and forks.eager:
                    forks.keep(pending)
            decision = yield token
            if decision.override is not None:
                decision = yield from self._checked(token, decision)
            if pending is not None:
                self._pending = None
            self.decisions.append(decision)
            if decision.override is not None:
                # The GM stepped in: recorded, then priority is granted again in the new state
                # (not a rejection: no attempt is spent).
                yield from _gm.perform(self, decision.override, granted)
                self.check_end()
                if not self.queries.standing(who):
                    return None
                continue
            attempt += 1
            causes = self.recorder.causes  # ``with self.caused_by(granted)``, in line
            causes.append(granted)
            try:
                action = self._taken(who, window, decision)
                if action is None:
                    return None
                taken, seq = self._declare(who, window, offers, action)
            finally:
                causes.pop()
            if taken:
                return action, seq
            last_rejection = seq
        self.emit(PriorityPassed(who=who, reason="too many illegal actions"), cause=last_rejection)
        return None

    def _grant(
        self, who: str, window: Window, found: list[Offer] | None
    ) -> tuple[tuple[Offer, ...], int]:
        """Record ``who``'s grant of priority: its offers (``found``, the ruleset's, when
        given), closed by ``EndTurn`` or ``Pass``, and the grant's seq."""
        closing = _END_TURN if window.is_turn else _PASS
        if found is None:
            offers = (*self.ruleset.offers(self.rules, who, window), closing)
        else:
            offers = (*found, closing)
        granted = self.emit(
            PriorityGranted(
                who=who, window=window, ap=self.state.combatants[who].ap, offers=len(offers)
            )
        )
        if self.sink.pending:  # the log so far is on disk before anyone is asked
            self.sink.flush()
        return offers, granted

    def _checked(self, token: PriorityToken, decision: Decision) -> Drive:
        """``decision`` if it is an override the rules accept; one they refuse is dropped,
        nothing recorded, and the same token is asked again until an answer comes."""
        while True:
            o = decision.override
            if o is None:
                return decision
            reason = self.check_override(o) if isinstance(o, Override) else "not an override"
            if reason is None:
                return decision
            self.log.warning("override refused", reason=reason)
            decision = yield token

    def _taken(self, who: str, window: Window, decision: Decision) -> Any:
        """The action ``decision`` answers with (an :class:`Action`; ``Any`` as the events'
        ``action`` fields take the union of every action type); ``None`` when it gives
        priority up (a failure, recorded, or a ``Pass`` in an opening), recorded as passed."""
        action = decision.action
        if decision.failure is None and not isinstance(action, Action):
            decision = Decision(
                failure="invalid",
                detail=f"the policy returned {type(action).__name__}, not an action",
            )
        if decision.failure is not None:
            failed = self.emit(
                DecisionFailed(who=who, kind=decision.failure, detail=decision.detail)
            )
            # info: the actor that hosts the policy has warned, with the detail; a
            # verification or resume replaying a recorded fault has nothing to warn of
            self.log.info("decision failed", who=who, kind=decision.failure)
            self.emit(PriorityPassed(who=who, reason=decision.failure), cause=failed)
            return None
        if isinstance(action, Pass) and not window.is_turn:
            self.emit(PriorityPassed(who=who))
            return None
        return action

    def _declare(
        self, who: str, window: Window, offers: tuple[Offer, ...], action: Any
    ) -> tuple[bool, int]:
        """Record ``action`` as declared (its AP spent) if legal, else as rejected:
        ``(declared, seq of its ActionDeclared or ActionRejected)``."""
        if isinstance(action, EndTurn) and window.is_turn:
            return True, self.emit(ActionDeclared(who=who, action=action, cost=0))
        for offer in offers:
            if offer.action is action:
                # The very action offered: legal at its cost, as every offer is (a test holds
                # each ruleset to it), so not checked again.
                reason, cost = None, offer.cost
                break
        else:
            reason = self._check(who, action, window)
            cost = self.ruleset.cost(self.rules, who, action, window) if reason is None else 0
        if reason is not None:
            return False, self.emit(ActionRejected(who=who, action=action, reason=reason))
        self.acted_in_round = self.state.round
        declared = self.emit(ActionDeclared(who=who, action=action, cost=cost))
        target = getattr(action, "target", None)
        if target is not None and self.options.withdraw_turns > 0:
            self.endings.aimed(who, target)
        if cost:
            ap = self.state.combatants[who].ap - cost
            self.emit(APChanged(who=who, ap=ap, reason="spent"), cause=declared)
        return True, declared

    def check_override(self, override: Override) -> str | None:
        """Why the game master cannot do ``override`` now, in words; ``None`` if it can."""
        return _gm.check(self, override)

    def _check(self, who: str, action: Action, window: Window) -> str | None:
        if isinstance(action, EndTurn):
            return "EndTurn ends one's own turn; in an opening, answer Pass"
        if isinstance(action, Pass):
            return "Pass is for openings; in one's own turn, answer EndTurn"
        reason = self.ruleset.check(self.rules, who, action, window)
        if reason is None:
            cost = self.ruleset.cost(self.rules, who, action, window)
            if cost > self.state.combatants[who].ap:
                return f"needs {cost} AP, has {self.state.combatants[who].ap}"
        return reason

    def view(self, who: str, window: Window, offers: tuple[Offer, ...], seq: int) -> View:
        """All ``who`` may see at the grant ``seq`` (its token's view), ``offers`` its legal."""
        state = self.state
        q = self.queries
        me = state.combatants[who]
        if q.plain_sight and not state.holding.get("hidden"):
            # Everyone is in plain sight: the standing index has both lists ready.
            allies = state.allies_standing(who, me.side)
            enemies = state.others_standing(me.side)
        else:
            allies = []
            enemies = []
            for c in state.standing():
                if c.id == who:
                    continue
                if c.side == me.side:
                    allies.append(c)
                elif self.ruleset.can_see(self.rules, who, c.id):
                    enemies.append(c)
        return View(
            me=me,
            spec=q.specs_by_id[who],
            allies=tuple(allies),
            enemies=tuple(enemies),
            window=window,
            legal=offers,
            round=state.round,
            active=state.active,
            order=state.order,
            ruleset=self.ruleset.name,
            seq=seq,
            fork=forker(self, len(self.decisions)),
            nearest=q._nearest_at_grant(who, seq) if enemies else None,
            known=self._known(me.side),
            estimate=partial(self.ruleset.odds, self.rules, who),
        )

    def _known(self, side: str) -> Mapping[str, Sighted]:
        """What the table knows of the combatants not on ``side`` (one read-only map per side,
        made once; anew when the GM brings someone in, which makes new specs)."""
        specs, maps = self._sighted
        now = self.queries.specs_by_id
        if specs is not now:
            specs, maps = now, {}
            self._sighted = (specs, maps)
        found = maps.get(side)
        if found is None:
            reveal = self.ruleset.reveal
            found = maps[side] = MappingProxyType(
                {c.id: reveal(c) for c in now.values() if c.side != side}
            )
        return found

    # --- the end ------------------------------------------------------------------------------

    def check_end(self) -> None:
        """End the encounter if at most one side is left; raises :class:`EncounterOver`."""
        decided = self.endings.decided()
        if decided is not None:
            self._end(*decided)

    def _end(self, winner: str | None, reason: str) -> None:
        last = self.recorder.next_seq - 1
        if self.state.active is not None:
            last = self.emit(
                TurnEnded(who=self.state.active, reason="encounter decided"), cause=last
            )
        self.recorder.end(winner, reason, cause=last)
        self.log.info("encounter ended", winner=winner, rounds=self.state.round)
        raise EncounterOver

    # --- where the fight stands (what resumes and forks start from) ---------------------------

    def _take_snapshot(self) -> Snapshot:
        """Where the fight stands, as data: a copy of the live state, the dice and log
        positions, the decisions so far (kept at each round's start, and in a kept place)."""
        rec = self.recorder
        rng = rec.rng
        endings = self.endings
        return Snapshot(
            state=self.state.copy(),
            rng=(rng.seed, rng.stream, rng.counter),
            paired=None if rec.paired is None else rec.paired.copy(),
            next_seq=rec.next_seq,
            chain=self.sink.chain,
            last_line=self.sink.last_line,
            digested=rec.digested,
            decisions=len(self.decisions),
            retreats=(tuple(endings.retreats.items()), endings.turn_from),
        )

    def _restore(self, snap: Snapshot) -> None:
        """Stand where ``snap`` stood, every part in the same copy of its state (the answers
        kept by layout start anew)."""
        state = snap.state.copy()
        self.recorder.restore(snap, state)
        self.state = self.queries.state = self.rules.state = state
        self.queries.nearest_by = {}
        self.rules.kept = {}  # (a new one: the old one may be shared with other forks)
        self.endings.retreats = dict(snap.retreats[0])
        self.endings.turn_from = snap.retreats[1]

    # --- forks --------------------------------------------------------------------------------

    def fork(
        self,
        *,
        dice: int | None = None,
        upto: int | None = None,
        record: bool = True,
        paired: bool = False,
    ) -> Branch:
        """An independent copy of this fight, positioned at the decision it is waiting for
        (with ``upto``, at the ``upto``-th of all its decisions so far).

        The copy is a new :class:`Fight` of the same encounter and seed with its own state,
        dice counter and events, writing to no sink; see :mod:`engine._forks` for where it
        resumes. It keeps this fight's reseeds (``fork --seed``). With ``dice``, its dice from
        here on come from the stream ``fork/<dice>`` instead of the real fight's, so its
        future rolls are not the real ones; with ``paired=True`` as well, each roll comes from
        a stream of its key, who rolls and for what, and its count (the ``n``-th roll of a key
        draws from ``fork/<dice>/<who>/<purpose>/<n>``: :class:`~engine._rng.PairedDice`), so
        forks of one decision with the same ``dice`` roll the same faces for the same roll even
        after their actions differ (common random numbers, for comparing offers). A fork of a
        paired fork without ``dice`` goes on with its parent's paired dice. With
        ``record=False`` the copy does not encode and chain its events as log lines (see
        :class:`~engine._sink.LogSink`'s ``encoding``), which is all a look-ahead needs.
        """
        forks = self._forks
        if forks is None:
            forks = self._forks = Forks(self)
        return forks.fork(dice, upto, record, paired)


def simulate(
    encounter: EncounterSpec,
    seed: int,
    decide: Callable[[PriorityToken], Decision],
    **kwargs: Any,
) -> Fight:
    """Run a whole encounter synchronously, asking ``decide`` for every decision."""
    fight = Fight(encounter, seed, **kwargs)
    fight.play(decide)
    return fight
