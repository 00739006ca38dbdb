"""The recorder: the one writer of a fight's events, and the one that changes its state.

A :class:`Recorder` stamps each event with its seq and cause (:meth:`Recorder.emit`), records
it through the fight's :class:`~engine._sink.LogSink` (its line, the chain, the hooks that see
it), keeps it, and folds it into the :class:`~engine._live.LiveState` through the one state
transition (:data:`~engine._live.CHANGES`, the functions :func:`engine.fold` runs to rebuild a
log). Around that it holds what decides an event's content without being rules:

- causes: the seq events emitted now name as their cause (:meth:`Recorder.caused_by`);
- dice: the generator, a paired fork's streams, dice given at the table (:meth:`Recorder.roll`);
- reseeding: after the events a fork's new luck names, the dice come from a new seed, and a
  ``SeedChanged`` says so;
- digests (``StateDigested``) and the end's chain (:meth:`Recorder.end`);
- the changes each of which is one event (``set_ap``, ``move``, ``damage``, ...).

It knows nothing of the flow or of forks. Whoever keeps answers by the state's ``layout`` count
(a forked fight's shared layouts, ``engine/_forks.py``) sets :attr:`Recorder.watch`, which hears
of each event that changed the layout.

The fight (``_fight.py``) holds one recorder for its whole life; :class:`~engine.Rules` binds
its methods once, so a ruleset's ``fight.roll(...)`` costs one call, as it always did.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from initiative.events import (
    APChanged,
    CombatantDefeated,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    DiceGiven,
    DiceRolled,
    EncounterEnded,
    Event,
    Healed,
    Moved,
    Position,
    SeedChanged,
    StateDigested,
    encode_event,
)

from ._dice import parse_dice
from ._geometry import distance
from ._given import DiceSource
from ._live import CHANGES, LiveState, Snapshot
from ._rng import PairedDice, Rng
from ._sink import LogSink
from ._state import chain_step, state_digest

_stamp = msgspec.structs.replace


class _CausedBy:
    """The context manager :meth:`Recorder.caused_by` returns (a class: it is entered a lot)."""

    __slots__ = ("_causes", "_seq")

    def __init__(self, causes: list[int | None], seq: int | None) -> None:
        self._causes = causes
        self._seq = seq

    def __enter__(self) -> None:
        self._causes.append(self._seq)

    def __exit__(self, *exc: object) -> None:
        self._causes.pop()


class Recorder:
    """One fight's writer: its events, their seqs and causes, its dice, its state's changes."""

    __slots__ = (
        "causes",
        "dice_source",
        "digested",
        "events",
        "given",
        "keep_events",
        "last_event",
        "next_seq",
        "owner",
        "paired",
        "pending_reseeds",
        "reseed",
        "rng",
        "sink",
        "state",
        "watch",
    )

    def __init__(
        self,
        state: LiveState,
        seed: int,
        sink: LogSink,
        *,
        keep_events: bool = True,
        reseed: dict[int, int] | None = None,
        dice: DiceSource | None = None,
        owner: object = None,
    ) -> None:
        self.state = state
        """The live state every event is folded into (a fork's restore replaces it)."""
        self.sink = sink
        """What every event is recorded through: its line, the log file, the hooks that see
        it; its ``encoding`` says whether lines are made at all (a look-ahead's fork and a batch
        that keeps no logs skip them: then the digests and the end's chain are empty)."""
        self.events: list[Event] = []
        """Every event emitted, as recorded (while :attr:`keep_events`)."""
        self.keep_events = keep_events
        self.next_seq = 0
        self.last_event: Event | None = None
        """The last event emitted, as recorded (with its seq and cause)."""
        self.causes: list[int | None] = [None]
        """The causes in force, innermost last (see :meth:`caused_by`)."""
        self.rng = Rng(seed, "dice")
        self.paired: PairedDice | None = None
        """In a fork with paired dice (``fork(dice=k, paired=True)``): where its dice come from
        instead of :attr:`rng`, by who rolls and for what (see :class:`~engine._rng.PairedDice`)."""
        self.reseed: dict[int, int] = dict(reseed or {})
        """``{seq: seed}``: after event ``seq``, the dice come from ``seed`` (a fork's new luck).
        Kept whole for the fight's forks; :attr:`pending_reseeds` are those still to come."""
        self.pending_reseeds = dict(self.reseed)
        self.dice_source = dice
        """Where dice rolled at the table come from (see :mod:`engine._given`); ``None``: all
        dice are the generator's."""
        self.owner = owner
        """What a dice source is told it gives dice to (the fight)."""
        self.given: dict[int, tuple[int, ...]] = {}
        """The faces of every die given so far, by the seq of its ``DiceGiven``."""
        self.digested = -1
        """The seq of the last ``StateDigested``."""
        self.watch: Callable[[Event], None] | None = None
        """Told of each event (unstamped) that changed the state's ``layout`` count, if set."""

    # --- recording ----------------------------------------------------------------------------

    @property
    def cause(self) -> int | None:
        """The seq events emitted now name as their cause."""
        return self.causes[-1]

    def caused_by(self, seq: int | None) -> _CausedBy:
        """Events emitted inside the block name ``seq`` as their cause."""
        return _CausedBy(self.causes, seq)

    def emit(self, event: Event, *, cause: int | bool | None = True) -> int:
        """Record ``event`` (stamping its seq and cause), fold it into the state; its seq."""
        seq = self.next_seq
        real_cause = self.causes[-1] if cause is True else (None if cause is False else cause)
        stamped = _stamp(event, seq=seq, cause=real_cause)
        self.next_seq = seq + 1
        sink = self.sink
        if sink.encoding:
            sink.record(stamped)
        self.last_event = stamped
        state = self.state  # ``state.apply(stamped)``, in line: the one transition, CHANGES
        state.seq = seq
        change = CHANGES.get(type(stamped))
        if change is not None:
            watch = self.watch
            if watch is None:
                change(state, stamped)
            else:
                layout = state.layout
                change(state, stamped)
                if state.layout != layout:
                    watch(event)
        if self.keep_events:
            self.events.append(stamped)
        see = sink.on_event
        if see is not None:
            see(stamped)
        if self.pending_reseeds and seq in self.pending_reseeds:
            self._reseed(seq)
        return seq

    def _reseed(self, seq: int) -> None:
        """After event ``seq``, the dice come from the seed the reseeds name for it."""
        new_seed = self.pending_reseeds.pop(seq)
        self.rng = Rng(new_seed, "dice")
        self.paired = None  # the new luck is one stream, in a fork as in the fight
        self.emit(SeedChanged(seed=new_seed), cause=None)

    def roll(self, who: str | None, purpose: str, expr: str) -> DiceRolled:
        """Roll dice for ``purpose`` and record every die."""
        dice = parse_dice(expr)
        given = None
        if self.dice_source is not None and dice.sides:
            self.sink.flush()  # the log so far is on disk before a die is asked
            given = self.dice_source.faces(self.owner, who, purpose, dice)
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
            return _stamp(event, seq=seq, cause=self.causes[-1])
        return stamped  # type: ignore[return-value]

    def digest(self, *, cause: int | None) -> None:
        """Record a digest of the whole state as it is now (``StateDigested``).

        A fight that records no lines (a look-ahead's fork, see :attr:`sink`) has no log for
        a digest to be checked in: its digest is left empty, as its end's chain is."""
        # A LiveState reads as the state it stands for.
        digest = state_digest(self.state) if self.sink.encoding else ""  # type: ignore[arg-type]
        self.emit(StateDigested(round=self.state.round, digest=digest), cause=cause)
        self.digested = self.next_seq - 1

    def end(self, winner: str | None, reason: str, *, cause: int) -> None:
        """Record the end: a digest unless the last event is one, then ``EncounterEnded`` with
        the chain over every line before it; the whole log is flushed."""
        if self.digested != self.next_seq - 1:
            self.digest(cause=cause)
        ended = EncounterEnded(
            winner=winner, reason=reason, rounds=self.state.round, seq=self.next_seq, cause=cause
        )
        sink = self.sink
        chain = chain_step(sink.chain, encode_event(ended)).hex() if sink.encoding else ""
        self.emit(_stamp(ended, chain=chain), cause=cause)
        sink.flush()  # the whole log is on disk at the end

    def restore(self, snap: Snapshot, state: LiveState) -> None:
        """Stand where ``snap`` stood, in ``state`` (a copy of the snapshot's): the dice, the
        log position, the reseeds still to come; no layout is watched any more."""
        self.state = state
        self.rng = Rng(*snap.rng)
        self.paired = None if snap.paired is None else snap.paired.copy()
        self.next_seq = snap.next_seq
        self.sink.chain = snap.chain
        self.sink.last_line = snap.last_line
        self.digested = snap.digested
        self.pending_reseeds = {seq: n for seq, n in self.reseed.items() if seq >= snap.next_seq}
        self.watch = None

    # --- changing state (each one event) ------------------------------------------------------

    def set_ap(self, who: str, ap: int, reason: str) -> None:
        if self.state.combatants[who].ap != ap:
            self.emit(APChanged(who=who, ap=ap, reason=reason))

    def set_counter(self, who: str, name: str, value: int) -> None:
        if self.state.combatants[who].count(name) != value:
            self.emit(CounterChanged(who=who, name=name, value=value))

    def add_condition(self, who: str, condition: str, until: str = "") -> None:
        if not self.state.combatants[who].has(condition):
            self.emit(ConditionAdded(who=who, condition=condition, until=until))

    def remove_condition(self, who: str, condition: str) -> None:
        if self.state.combatants[who].has(condition):
            self.emit(ConditionRemoved(who=who, condition=condition))

    def move(self, who: str, to: Position) -> None:
        start = self.state.combatants[who].position
        self.emit(Moved(who=who, start=start, to=to, distance=distance(start, to)))

    def damage(
        self, who: str, amount: int, *, source: str | None = None, location: str | None = None
    ) -> None:
        """Deal damage; a combatant brought to 0 hit points or below is defeated."""
        hp = self.state.combatants[who].hp - amount
        seq = self.emit(
            DamageDealt(who=who, amount=amount, hp=hp, source=source, location=location)
        )
        if hp <= 0 and not self.state.combatants[who].defeated:
            self.emit(CombatantDefeated(who=who), cause=seq)

    def heal(self, who: str, amount: int) -> None:
        c = self.state.combatants[who]
        hp = min(c.max_hp, c.hp + amount)
        self.emit(Healed(who=who, amount=hp - c.hp, hp=hp))

    def defeat(self, who: str, reason: str) -> None:
        if not self.state.combatants[who].defeated:
            self.emit(CombatantDefeated(who=who, reason=reason))
