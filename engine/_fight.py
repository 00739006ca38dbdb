"""The scheduler's logic: one encounter as a generator that yields priority tokens.

:class:`Fight` owns the flow every seed shares (header, joins, initiative, rounds, turns,
priority, openings, the end) and is the only writer of events and the only one who changes
state. It contains no Trio: :meth:`Fight.run` is a generator that yields a
:class:`PriorityToken` whenever a combatant must decide and is sent back a :class:`Decision`.
Every driver steps it through one :class:`engine.Stepper` (``_stepper.py``): the Trio
scheduler in ``actors`` forwards its tokens to combatant tasks, the in-line executor calls
trusted policies directly, a replay feeds recorded decisions, and a look-ahead policy steps a
fork. All of them produce the same events.

The state a fight keeps is a :class:`~engine._live.LiveState`, changed in place per event by
the one state transition (``_live.py``) that :func:`engine.fold` also runs to rebuild a log, so
the digest recorded at each round's end is the one a replay finds.

A fight is split by what it does; this module holds the recording (``emit``, ``roll``), the
changes (one event each), the flow, one decision (``ask``, the view) and the end. Apart:

- ``_queries.py``: :class:`~engine._queries.Queries`, the fight's base: its reads of the state
  through the ruleset (``get``, ``standing``, ``near``, ``nearest_enemy``, ``decided``, ...)
  with the answers they keep;
- ``_forks.py``: :meth:`Fight.fork`'s machinery (:class:`~engine._forks.Forks`, made at the
  first fork) and the answers forks of one place share (:class:`~engine._forks.Layouts`);
- ``_initiative.py`` and ``_gm.py``: initiative, and the game master's overrides, as functions
  of a fight;
- ``_rules.py``: :class:`~engine.Rules`, the table of what a ruleset's hooks may read and do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from types import MappingProxyType
from typing import Any

import msgspec
import structlog
from initiative.events import (
    LOG_FORMAT,
    Action,
    ActionDeclared,
    ActionRejected,
    APChanged,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantSpec,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    DecisionFailed,
    DiceGiven,
    DiceRolled,
    EncounterEnded,
    EncounterSpec,
    EncounterStarted,
    EndTurn,
    Event,
    Healed,
    InsertedTurnEnded,
    Moved,
    Offer,
    OpeningClosed,
    OpeningOpened,
    Override,
    Pass,
    Position,
    PriorityGranted,
    PriorityPassed,
    RoundEnded,
    RoundStarted,
    SeedChanged,
    StateDigested,
    Trigger,
    TurnEnded,
    TurnInserted,
    TurnStarted,
    Window,
    encode_event,
)

from . import _gm
from ._branch import Branch, Paused
from ._dice import parse_dice
from ._forks import Forks, Layouts, forker
from ._geometry import distance
from ._given import DiceSource
from ._initiative import groups, roll_initiative
from ._live import CHANGES, LiveState, Snapshot
from ._odds import Sighted
from ._protocol import Decision, Drive, PriorityToken, Reaction, View
from ._queries import Queries
from ._rng import ALGORITHM, PairedDice, Rng
from ._rules import Rules
from ._ruleset import find_ruleset
from ._sink import LogSink
from ._state import chain_step, state_digest
from ._stepper import Stepper

log = structlog.get_logger("initiative.engine")

_stamp = msgspec.structs.replace

try:
    ENGINE_VERSION = version("initiative")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    ENGINE_VERSION = "0+unknown"


_END_TURN = Offer(action=EndTurn(), cost=0)
_PASS = Offer(action=Pass(), cost=0)
"""The closing offers (immutable values, shared by every list of offers)."""


class EncounterOver(Exception):
    """Raised inside the flow when one side is left standing; caught by :meth:`Fight.run`."""


class _CausedBy:
    """The context manager :meth:`Fight.caused_by` returns (a class: it is entered a lot)."""

    __slots__ = ("_causes", "_seq")

    def __init__(self, causes: list[int | None], seq: int | None) -> None:
        self._causes = causes
        self._seq = seq

    def __enter__(self) -> None:
        self._causes.append(self._seq)

    def __exit__(self, *exc: object) -> None:
        self._causes.pop()


class Fight(Queries):
    """One encounter being fought: the state, the dice, the log, and the flow.

    Its reads of the state (``get``, ``standing``, ``near``, ...) are those of its base,
    :class:`~engine._queries.Queries`; its forks are made by :mod:`engine._forks`."""

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
        super().__init__(encounter, find_ruleset(encounter.ruleset)(encounter), LiveState())
        self.seed = seed
        self.options = self.ruleset.options
        self.rng = Rng(seed, "dice")
        self.paired: PairedDice | None = None
        """In a fork with paired dice (``fork(dice=k, paired=True)``): where its dice come from
        instead of :attr:`rng`, by who rolls and for what (see :class:`~engine._rng.PairedDice`)."""
        self.events: list[Event] = []
        self.keep_events = keep_events
        self.sink = sink if isinstance(sink, LogSink) else LogSink(on_event=sink)
        """What every event is recorded through: its line, the log file, the hooks that see it
        (a plain function given as ``sink`` is the sink's ``on_event``)."""
        self.parent = parent
        self.engine_version = engine_version
        """Recorded in the header; a re-simulation keeps the recorded log's."""
        self.next_seq = 0
        self.last_event: Event | None = None
        """The last event emitted, as recorded (with its seq and cause)."""
        self._digested = -1
        self.reseed: dict[int, int] = dict(reseed or {})
        """``{seq: seed}``: after event ``seq``, the dice come from ``seed`` (a fork's new luck).
        Kept whole for the fight's forks; ``emit`` consumes its own copy."""
        self._reseed = dict(self.reseed)
        self.snapshot: Snapshot | None = None
        """Taken at the start of the current round: what a fork resumes from."""
        self._causes: list[int | None] = [None]
        self.log: Any = log
        """The engine's own logger (a fork's is silent)."""
        self.dice_source = dice
        """Where dice rolled at the table come from (see :mod:`engine._given`); ``None``: all
        dice are the generator's."""
        self.given: dict[int, tuple[int, ...]] = {}
        """The faces of every die given so far, by the seq of its ``DiceGiven``."""
        self.decisions: list[Decision] = []
        """Every decision sent to :meth:`run` so far, in order (what :meth:`fork` replays)."""
        self.acted_in_round = 0
        """The last round in which an action (not ``EndTurn`` or ``Pass``) was declared."""
        self._calm: dict[int, tuple[int, tuple[tuple[str, int, bool], ...]]] = {}
        """With the encounter's ``stalemate_rounds``: after each round (0: before the first),
        the last round whose end found hit points or who stands changed, and what they were
        (kept by round, so a fork resumed in a round reads its past from its parent's)."""
        self._sighted: tuple[object, dict[str, Mapping[str, Sighted]]] = (None, {})
        """The ``View.known`` maps by side, and the specs they were made from."""
        self._retreats: dict[str, int] = {}
        """The withdrawal rule: each combatant's own turns in a row that it ended farther
        from its nearest enemy than it began them, aiming nothing at an enemy."""
        self._turn_from: tuple[float | None, bool] = (None, False)
        """The current turn's distance to the nearest enemy when it began, and whether its
        taker has aimed an action at an enemy since."""
        self.rules = Rules(self)
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
        self._layouts: Layouts | None = None
        """Where this fight stands among the layouts it shares answers on: a fork of a kept
        place, or a fight from its first kept place on (``None``: it shares no answers; see
        :class:`~engine._forks.Layouts`)."""

    # --- recording ----------------------------------------------------------------------------

    @property
    def chain(self) -> bytes:
        """The tamper-evidence chain over every line emitted so far (see ``EncounterEnded``)."""
        return self.sink.chain

    @chain.setter
    def chain(self, chain: bytes) -> None:
        self.sink.chain = chain

    @property
    def last_line(self) -> bytes:
        """The encoded line of the last event emitted."""
        return self.sink.last_line

    @last_line.setter
    def last_line(self, line: bytes) -> None:
        self.sink.last_line = line

    @property
    def recording(self) -> bool:
        """Whether events are encoded and chained as log lines (the sink's ``encoding``). A
        policy's look-ahead fork (``View.fork``) and a batch that keeps no logs skip that: the
        ``last_line`` and ``chain`` stay as they were, and the state digests are empty."""
        return self.sink.encoding

    @recording.setter
    def recording(self, on: bool) -> None:
        self.sink.encoding = on

    @property
    def cause(self) -> int | None:
        return self._causes[-1]

    def caused_by(self, seq: int | None) -> _CausedBy:
        """Events emitted inside the block name ``seq`` as their cause."""
        return _CausedBy(self._causes, seq)

    def emit(self, event: Event, *, cause: int | bool | None = True) -> int:
        """Record ``event`` (stamping its seq and cause), fold it into the state; its seq."""
        seq = self.next_seq
        real_cause = self._causes[-1] if cause is True else (None if cause is False else cause)
        stamped = _stamp(event, seq=seq, cause=real_cause)
        self.next_seq = seq + 1
        sink = self.sink
        if sink.encoding:
            sink.record(stamped)
        self.last_event = stamped
        state = self.state  # state.apply(stamped), in line
        state.seq = seq
        change = CHANGES.get(type(stamped))
        if change is not None:
            if self._layouts is None:
                change(state, stamped)
            else:
                layout = state.layout
                change(state, stamped)
                if state.layout != layout:
                    self._next_layout(self._layouts, event)
        if self.keep_events:
            self.events.append(stamped)
        see = sink.on_event
        if see is not None:
            see(stamped)
        if self._reseed and seq in self._reseed:
            new_seed = self._reseed.pop(seq)
            self.rng = Rng(new_seed, "dice")
            self.paired = None  # the new luck is one stream, in a fork as in the fight
            self.emit(SeedChanged(seed=new_seed), cause=None)
        return seq

    def roll(self, who: str | None, purpose: str, expr: str) -> DiceRolled:
        """Roll dice for ``purpose`` and record every die."""
        dice = parse_dice(expr)
        given = None
        if self.dice_source is not None and dice.sides:
            self.sink.flush()  # the log so far is on disk before a die is asked
            given = self.dice_source.faces(self, who, purpose, dice)
        if given is not None:
            self.given[self.next_seq] = given
            faces, total = given, dice.total(given)
            kind: type[DiceGiven] | type[DiceRolled] = DiceGiven
        else:
            paired = self.paired
            faces, total = dice.roll(self.rng if paired is None else paired.stream(who, purpose))
            kind = DiceRolled
        event = kind(
            who=who,
            purpose=purpose,
            expr=str(dice),
            dice=faces,
            modifier=dice.modifier,
            total=total,
        )
        seq = self.emit(event)
        stamped = self.last_event
        if stamped is None or stamped.seq != seq:  # a reseed recorded its SeedChanged since
            return msgspec.structs.replace(event, seq=seq, cause=self.cause)
        return stamped  # type: ignore[return-value]

    # --- changing state (each one event) ------------------------------------------------------

    def set_ap(self, who: str, ap: int, reason: str) -> None:
        if self.get(who).ap != ap:
            self.emit(APChanged(who=who, ap=ap, reason=reason))

    def set_counter(self, who: str, name: str, value: int) -> None:
        if self.get(who).count(name) != value:
            self.emit(CounterChanged(who=who, name=name, value=value))

    def add_condition(self, who: str, condition: str, until: str = "") -> None:
        if not self.get(who).has(condition):
            self.emit(ConditionAdded(who=who, condition=condition, until=until))

    def remove_condition(self, who: str, condition: str) -> None:
        if self.get(who).has(condition):
            self.emit(ConditionRemoved(who=who, condition=condition))

    def move(self, who: str, to: Position) -> None:
        start = self.get(who).position
        self.emit(Moved(who=who, start=start, to=to, distance=distance(start, to)))

    def damage(
        self, who: str, amount: int, *, source: str | None = None, location: str | None = None
    ) -> None:
        """Deal damage; a combatant brought to 0 hit points or below is defeated."""
        hp = self.get(who).hp - amount
        seq = self.emit(
            DamageDealt(who=who, amount=amount, hp=hp, source=source, location=location)
        )
        if hp <= 0 and not self.get(who).defeated:
            self.emit(CombatantDefeated(who=who), cause=seq)

    def heal(self, who: str, amount: int) -> None:
        c = self.get(who)
        hp = min(c.max_hp, c.hp + amount)
        self.emit(Healed(who=who, amount=hp - c.hp, hp=hp))

    def defeat(self, who: str, reason: str) -> None:
        if not self.get(who).defeated:
            self.emit(CombatantDefeated(who=who, reason=reason))

    def roll_initiative(
        self, ids: list[str], *, insert: bool = False, drop_defeated: bool = False
    ) -> None:
        """See :func:`engine._initiative.roll_initiative`."""
        roll_initiative(self, ids, insert=insert, drop_defeated=drop_defeated)

    def groups(self, ids: list[str]) -> list[list[str]]:
        """See :func:`engine._initiative.groups`."""
        return groups(self, ids)

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
        header = EncounterStarted(
            format=LOG_FORMAT,
            engine=self.engine_version,
            ruleset=R.name,
            ruleset_version=R.version,
            rng=ALGORITHM,
            seed=self.seed,
            encounter=self.encounter,
            parent=self.parent,
        )
        root = self.emit(header, cause=False)
        self.log.info("encounter started", ruleset=R.name, seed=self.seed)
        with self.caused_by(root):
            for c in self.encounter.combatants:
                if c.arrives <= 1:
                    self._join(c, 0)
            yield from R.start(self.rules)

    def _join(self, c: CombatantSpec, round_: int) -> None:
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
        if self.encounter.stalemate_window and number - 1 not in self._calm:
            self._calm[number - 1] = (number - 1, self._standing_print())
        if paused is None:
            started = self.emit(RoundStarted(round=number))
            self.log.debug("round started", round=number)
        else:
            started = paused.round_started
        with self.caused_by(started):
            if paused is None:
                arrivals = [c for c in self.encounter.combatants if c.arrives == number > 1]
                for c in arrivals:
                    self._join(c, number)
                if arrivals:
                    yield from R.arrive(self.rules, [c.id for c in arrivals])
                yield from R.round_started(self.rules)
                self.check_end()
                order, first = list(self.state.order), 0
            else:  # a copy: the GM's Reorder changes the rest of the round's (engine._gm)
                order, first = list(paused.order), paused.index
            for index in range(first, len(order)):
                who = order[index]
                if paused is not None and index == first:
                    self._place = (started, order, index)
                    yield from self._turn(who, paused)
                    self.check_end()
                elif self.standing(who):
                    self._place = (started, order, index)
                    yield from self._turn(who)
                    self.check_end()
        ended = self.emit(RoundEnded(round=number))
        with self.caused_by(ended):
            yield from R.round_ended(self.rules)
            if self.state.timed:
                self._expire(number)
        self.digest(cause=ended)
        self.check_end()
        self._check_idle()
        self._check_stalemate()

    def _expire(self, number: int) -> None:
        """End the conditions the GM gave for rounds that end with round ``number``."""
        for (who, condition), last in sorted(self.state.timed.items()):
            if last <= number:
                self.remove_condition(who, condition)

    def _turn(self, who: str, paused: Paused | None = None) -> Drive:
        R = self.ruleset
        if paused is None:
            started = self.emit(TurnStarted(who=who, round=self.state.round))
            if self.options.withdraw_turns > 0:
                self._turn_from = (self._nearest_distance(who), False)
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
        if self.options.withdraw_turns > 0:
            self._withdraw(who, ended)
        with self.caused_by(ended):
            yield from R.turn_ended(self.rules, who)

    def _turn_decisions(
        self, who: str, *, top: bool = False, paused: Paused | None = None
    ) -> Drive:
        """``who``'s decisions in a turn (``top``: its own turn, not an inserted one); with
        ``paused``, from a fork's decision on."""
        R = self.ruleset
        turn = Window(kind="turn") if paused is None else paused.window
        first = 0 if paused is None else paused.done
        for done in range(first, self.options.max_decisions_per_turn):
            if paused is not None and done == first:
                got = yield from self.ask(who, turn, at=first, paused=paused)
            else:
                if not self.standing(who):
                    return "defeated"
                got = yield from self.ask(who, turn, at=done if top else None)
            if got is None:
                return self._gone(who) or "decision failed"
            action, declared = got
            if isinstance(action, EndTurn):
                return "ended"
            causes = self._causes  # ``with self.caused_by(declared)``, in line (per action)
            causes.append(declared)
            try:
                yield from R.perform(self.rules, who, action, turn)
            finally:
                causes.pop()
            if self.decided():
                return "encounter decided"
            over = R.turn_over(self.rules, who)
            if over:
                return over
        return "decision limit"

    def _gone(self, who: str) -> str | None:
        """Why ``who`` can no longer act (defeated, left), or ``None`` while it stands."""
        c = self.state.combatants.get(who)
        if c is None or self.standing(who):
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
        window = Window(kind="opening", trigger=trigger, depth=depth)
        eligible = [
            c
            for c in self.by_initiative(candidates)
            if self.standing(c) and self.ruleset.offers(self.rules, c, window)
        ]
        if not eligible:
            return []
        holder = self.state.priority
        opened = self.emit(OpeningOpened(trigger=trigger, offered=tuple(eligible), depth=depth))
        reactions: list[Reaction] = []
        with self.caused_by(opened):
            for who in eligible:
                if self.decided():
                    break
                found = self.ruleset.offers(self.rules, who, window) if self.standing(who) else []
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
        R = self.ruleset
        last_rejection: int | None = None
        attempt = 0
        fresh = True  # the first grant (``paused`` and ``found`` are for it alone)
        while attempt < self.options.max_rejections:
            if paused is not None and fresh:
                offers, granted = paused.offers, paused.granted
            else:
                if found is not None and fresh:
                    offers = (*found, _END_TURN if window.is_turn else _PASS)
                else:  # ``tuple(self.offers(who, window))``, one tuple made
                    closing = _END_TURN if window.is_turn else _PASS
                    offers = (*R.offers(self.rules, who, window), closing)
                granted = self.emit(
                    PriorityGranted(who=who, window=window, ap=self.get(who).ap, offers=len(offers))
                )
                if self.sink.pending:  # the log so far is on disk before anyone is asked
                    self.sink.flush()
            token = PriorityToken(
                who=who,
                window=window,
                view=self.view(who, window, offers, granted),
                legal=offers,
                seq=granted,
            )
            fresh = False
            if at is not None and attempt == 0:
                self._pending = (granted, at, window, offers)
                if self._forks is not None and self._forks.eager:
                    self._forks.keep(self._pending)
                decision = yield token
                if decision.override is not None:
                    decision = yield from self._checked(token, decision)
                self._pending = None
            else:
                decision = yield token
                if decision.override is not None:
                    decision = yield from self._checked(token, decision)
            self.decisions.append(decision)
            if decision.override is not None:
                # The GM stepped in: recorded, then priority is granted again in the new state
                # (not a rejection: no attempt is spent).
                yield from _gm.perform(self, decision.override, granted)
                self.check_end()
                if not self.standing(who):
                    return None
                continue
            attempt += 1
            causes = self._causes  # ``with self.caused_by(granted)``, in line (per decision)
            causes.append(granted)
            try:
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
                if isinstance(action, EndTurn) and window.is_turn:
                    return action, self.emit(ActionDeclared(who=who, action=action, cost=0))
                for offer in offers:
                    if offer.action is action:
                        # The very action offered: legal at its cost, as every offer is (a
                        # test holds each ruleset to it), so not checked again.
                        reason, cost = None, offer.cost
                        break
                else:
                    reason = self._check(who, action, window)
                    cost = R.cost(self.rules, who, action, window) if reason is None else 0
                if reason is None:
                    self.acted_in_round = self.state.round
                    declared = self.emit(ActionDeclared(who=who, action=action, cost=cost))
                    target = getattr(action, "target", None)
                    if target is not None and self.options.withdraw_turns > 0:
                        self._aimed(who, target)
                    if cost:
                        self.emit(
                            APChanged(who=who, ap=self.get(who).ap - cost, reason="spent"),
                            cause=declared,
                        )
                    return action, declared
                last_rejection = self.emit(ActionRejected(who=who, action=action, reason=reason))
            finally:
                causes.pop()
        self.emit(PriorityPassed(who=who, reason="too many illegal actions"), cause=last_rejection)
        return None

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
            if cost > self.get(who).ap:
                return f"needs {cost} AP, has {self.get(who).ap}"
        return reason

    def offers(self, who: str, window: Window) -> list[Offer]:
        """The legal actions with their costs, ending with ``EndTurn`` or ``Pass``."""
        offers = self.ruleset.offers(self.rules, who, window)
        return [*offers, _END_TURN if window.is_turn else _PASS]

    def view(self, who: str, window: Window, offers: tuple[Offer, ...], seq: int) -> View:
        """All ``who`` may see at the grant ``seq`` (its token's view), ``offers`` its legal."""
        state = self.state
        me = state.combatants[who]
        if self.plain_sight and not state.holding.get("hidden"):
            # Everyone is in plain sight: the standing index has both lists ready.
            allies = state.allies_standing(who, me.side)
            enemies = state.others_standing(me.side)
        else:
            allies = []
            enemies = []
            for c in self.state.standing():
                if c.id == who:
                    continue
                if c.side == me.side:
                    allies.append(c)
                elif self.ruleset.can_see(self.rules, who, c.id):
                    enemies.append(c)
        return View(
            me=me,
            spec=self._specs[who],
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
            nearest=self._nearest_at_grant(who, seq) if enemies else None,
            known=self._known(me.side),
            estimate=partial(self.ruleset.odds, self.rules, who),
        )

    def _known(self, side: str) -> Mapping[str, Sighted]:
        """What the table knows of the combatants not on ``side`` (one read-only map per side,
        made once; anew when the GM brings someone in, which makes new specs)."""
        specs, maps = self._sighted
        if specs is not self._specs:
            specs, maps = self._specs, {}
            self._sighted = (specs, maps)
        found = maps.get(side)
        if found is None:
            reveal = self.ruleset.reveal
            found = maps[side] = MappingProxyType(
                {c.id: reveal(c) for c in specs.values() if c.side != side}
            )
        return found

    # --- the end ------------------------------------------------------------------------------

    def check_end(self) -> None:
        """End the encounter if at most one side is left; raises :class:`EncounterOver`."""
        if not self.decided():  # (counted in the standing index: no list of sides to build)
            return
        sides = self.sides_standing()
        if len(sides) <= 1:
            winner = sides[0] if sides else None
            reason = f"only {winner} is left standing" if winner else "no one is left standing"
            self._end(winner, reason)

    def _check_idle(self) -> None:
        """End the encounter after ``idle_rounds`` rounds in a row without any action, counted
        from the last arrival, once nobody is still to arrive (see ``Options.idle_rounds``)."""
        idle = self.options.idle_rounds
        number = self.state.round
        arrivals = [c.arrives for c in self.encounter.combatants]
        if idle <= 0 or max(arrivals) > number:
            return
        if number - max(self.acted_in_round, max(arrivals) - 1) >= idle:
            self._end(None, self.ruleset.idle_end(self.rules, idle))

    def _check_stalemate(self) -> None:
        """End the encounter undecided, as a stalemate, once ``stalemate_rounds`` rounds in a
        row have ended with the same hit points and the same combatants standing (see
        ``EncounterSpec.stalemate_rounds``; off unless the encounter gives it)."""
        window = self.encounter.stalemate_window
        if not window:
            return
        number = self.state.round
        now = self._standing_print()
        since, before = self._calm.get(number - 1, (number, ()))
        if now != before:
            since = number
        self._calm[number] = (since, now)
        if number - since >= window:
            self._end(None, f"stalemate: no hit points changed in {window} rounds")

    def _nearest_distance(self, who: str) -> float | None:
        enemy = self.nearest_enemy(who)
        return None if enemy is None else distance(self.get(who).position, enemy.position)

    def _aimed(self, who: str, target: str) -> None:
        """``who`` aimed an action at ``target``: if at an enemy, it is not running away."""
        c = self.state.combatants.get(target)
        if c is not None and c.side != self.get(who).side:
            self._retreats[who] = 0
            if who == self.state.active:
                self._turn_from = (self._turn_from[0], True)

    def _withdraw(self, who: str, ended: int) -> None:
        """At the end of ``who``'s turn: a turn it ended farther from its nearest enemy than
        it began it, without aiming an action at an enemy, is a step of a retreat; after
        ``withdraw_turns`` such turns in a row it has left the battle (``CombatantLeft``,
        reason ``withdrew``). The seeds are silent on it: a plain default, so that a combatant
        that keeps running cannot draw a fight out to ``max_rounds``."""
        start, aimed = self._turn_from
        self._turn_from = (None, False)
        if not self.standing(who):
            return
        now = self._nearest_distance(who)
        if aimed or start is None or now is None or now <= start + 0.01:
            self._retreats[who] = 0
            return
        turns = self._retreats.get(who, 0) + 1
        self._retreats[who] = turns
        if turns >= self.options.withdraw_turns:
            del self._retreats[who]
            self.emit(CombatantLeft(who=who, reason="withdrew"), cause=ended)

    def _standing_print(self) -> tuple[tuple[str, int, bool], ...]:
        """Every combatant present: its hit points and whether it stands (join order)."""
        return tuple((c.id, c.hp, c.standing) for c in self.state.combatants.values())

    def digest(self, *, cause: int | None) -> None:
        """Record a digest of the whole state as it is now (``StateDigested``).

        A fight that records no lines (a look-ahead's fork, see :attr:`recording`) has no log
        for a digest to be checked in: its digest is left empty, as its end's chain is."""
        # A LiveState reads as the state it stands for.
        digest = state_digest(self.state) if self.recording else ""  # type: ignore[arg-type]
        self.emit(StateDigested(round=self.state.round, digest=digest), cause=cause)
        self._digested = self.next_seq - 1

    def _end(self, winner: str | None, reason: str) -> None:
        last = self.next_seq - 1
        if self.state.active is not None:
            last = self.emit(
                TurnEnded(who=self.state.active, reason="encounter decided"), cause=last
            )
        if self._digested != self.next_seq - 1:
            self.digest(cause=last)
        ended = EncounterEnded(
            winner=winner, reason=reason, rounds=self.state.round, seq=self.next_seq, cause=last
        )
        chain = chain_step(self.chain, encode_event(ended)).hex() if self.recording else ""
        self.emit(msgspec.structs.replace(ended, chain=chain), cause=last)
        self.sink.flush()  # the whole log is on disk at the end
        self.log.info("encounter ended", winner=winner, rounds=self.state.round)
        raise EncounterOver

    # --- where the fight stands (what resumes and forks start from) ---------------------------

    def _take_snapshot(self) -> Snapshot:
        """Where the fight stands, as data: a copy of the live state, the dice and log
        positions, the decisions so far (kept at each round's start, and in a kept place)."""
        rng = self.rng
        return Snapshot(
            state=self.state.copy(),
            rng=(rng.seed, rng.stream, rng.counter),
            paired=None if self.paired is None else self.paired.copy(),
            next_seq=self.next_seq,
            chain=self.chain,
            last_line=self.last_line,
            digested=self._digested,
            decisions=len(self.decisions),
            retreats=(tuple(self._retreats.items()), self._turn_from),
        )

    def _restore(self, snap: Snapshot) -> None:
        """Stand where ``snap`` stood (the answers kept by layout start anew)."""
        self._nearest_by = {}
        self.rules.kept = {}  # (a new one: the old one may be shared with other forks)
        self._layouts = None
        self.state = self.rules.state = snap.state.copy()
        self.rng = Rng(*snap.rng)
        self.paired = None if snap.paired is None else snap.paired.copy()
        self.next_seq = snap.next_seq
        self.chain = snap.chain
        self.last_line = snap.last_line
        self._digested = snap.digested
        self._retreats = dict(snap.retreats[0])
        self._turn_from = snap.retreats[1]
        self._reseed = {seq: n for seq, n in self.reseed.items() if seq >= snap.next_seq}

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
        :attr:`recording`), which is all a look-ahead needs.
        """
        forks = self._forks
        if forks is None:
            forks = self._forks = Forks(self)
        return forks.fork(dice, upto, record, paired)

    def _next_layout(self, node: Layouts, event: Event) -> None:
        """``event`` changed the layout of this fight (``emit`` calls this when it shares
        answers): on to the node shared after it."""
        node.follow(event, self)


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
