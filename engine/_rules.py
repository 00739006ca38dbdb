"""What a ruleset's hooks may read and do: :class:`Rules`, and typed conditions and counters.

Every hook of a :class:`~engine.Ruleset` receives a :class:`Rules` (called ``fight`` in the
bundled rulesets), never the :class:`~engine.Fight` itself. It is the whole table of what rules
may touch:

=================  =========================================================================
read               ``state``, ``spec``, ``specs``, ``get``, ``standing``, ``present_ids``,
                   ``enemies_of``, ``allies_of``, ``near``, ``nearest_enemy``, ``dist``,
                   ``by_initiative``, ``can_see``, ``decided``, ``options``, ``ruleset``,
                   ``cause``
conditions         ``has``, ``conditions``, ``add_condition``, ``remove_condition``
counters           ``count``, ``set_counter``
dice               ``roll`` (the fight's dice, or dice given at the table)
change             ``set_ap``, ``move``, ``damage``, ``heal``, ``defeat``,
                   ``roll_initiative``, ``emit`` (any other event), ``caused_by``
flow (generators)  ``opening`` and ``inserted_turn``, driven with ``yield from``
kept answers       ``plain`` (standing and sight are the plain rules), ``kept`` (answers
                   found from positions alone, stamped with the state's ``layout`` count)
=================  =========================================================================

Apart from the condition and counter methods (the one layer it adds, no dearer than the string
look-ups they replace), its methods are those of the fight's parts, bound once: the reads are
its queries' (``fight.queries``), the dice and changes its recorder's (``fight.recorder``), the
generators its flow's. Calling one through a :class:`Rules` costs what calling it on the part
costs.

Conditions and counters are typed: a ruleset declares the :class:`Condition` and
:class:`Counter` subclasses it uses (``Ruleset.conditions``, ``Ruleset.counters``), and its rules
read and write them as values (``fight.has(who, PRONE)``,
``fight.add_condition(t, Dropped(weapon="axe", at=Position(x=1, y=2)))``). In the log a
condition or a counter is the string it always was (``dropped:axe@1,2``): each type converts
itself to and from that string (:meth:`Mark.wire`, :meth:`Mark.parse`), in one place; the
change itself (one event) is the recorder's, defined once, given the wire form. A
condition or counter of a type the ruleset did not declare is an error when it is emitted.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import msgspec
from initiative.events import (
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    Event,
)

from ._initiative import roll_initiative

if TYPE_CHECKING:
    from ._fight import Fight
    from ._live import LiveState
    from ._ruleset import Ruleset

M = TypeVar("M", bound="Mark")


class UndeclaredMarkError(TypeError):
    """A condition or counter the ruleset did not declare was about to be emitted."""


class Mark(msgspec.Struct, frozen=True):
    """A condition or counter key: a small frozen value with a name and a wire form.

    A mark without fields is always its ``name`` in the log (``prone``). The default codec of a
    mark with fields covers a single ``str`` field (wire: ``name`` + ``sep`` + the field, as
    ``disarmed:axe``); a type whose string is shaped otherwise overrides :meth:`wire` and
    :meth:`parse` together.
    """

    name: ClassVar[str] = ""
    """The wire name (for a mark with a field, the part before ``sep``)."""
    sep: ClassVar[str] = ":"

    def wire(self) -> str:
        """The string the log records for this mark."""
        fields = self.__struct_fields__
        if not fields:
            return self.name
        return f"{self.name}{self.sep}{getattr(self, fields[0])}"

    @classmethod
    def parse(cls: type[M], text: str) -> M | None:
        """The mark ``text`` is the wire form of, or ``None`` when it is not one of this type."""
        fields = cls.__struct_fields__
        if not fields:
            return cls() if text == cls.name else None
        head = cls.name + cls.sep
        if not text.startswith(head) or len(text) == len(head):
            return None
        return cls(text[len(head) :])


class Condition(Mark, frozen=True):
    """Base of a typed condition (recorded as ``ConditionAdded``/``ConditionRemoved``)."""


class Counter(Mark, frozen=True):
    """Base of a typed counter key (recorded as ``CounterChanged``)."""


class Hidden(Condition, frozen=True):
    """Unseen by one's enemies (what ``Ruleset.can_see`` reads by default)."""

    name = "hidden"


HIDDEN = Hidden()

_MARK_EVENTS = (ConditionAdded, ConditionRemoved, CounterChanged)


class Rules:
    """A ruleset's view of one fight: what hooks may read and do (see the module's table)."""

    __slots__ = (
        "_condition_types",
        "_conditions",
        "_counter_types",
        "_counters",
        "_emit",
        "_fight",
        "_recorder",
        "allies_of",
        "by_initiative",
        "caused_by",
        "damage",
        "decided",
        "defeat",
        "dist",
        "enemies_of",
        "get",
        "heal",
        "inserted_turn",
        "kept",
        "move",
        "near",
        "nearest_enemy",
        "opening",
        "options",
        "plain",
        "present_ids",
        "roll",
        "roll_initiative",
        "ruleset",
        "set_ap",
        "spec",
        "specs",
        "standing",
        "state",
    )

    def __init__(self, fight: Fight) -> None:
        self._fight = fight
        """The fight itself (for the bundled rulesets' own helpers; a plugin reads this table)."""
        queries = fight.queries
        recorder = fight.recorder
        self._recorder = recorder
        ruleset: Ruleset = fight.ruleset
        self.ruleset = ruleset
        """The ruleset (its options, its other hooks)."""
        self.options: Any = ruleset.options
        self.state: LiveState = fight.state
        """The live state (read it, never change it); the fight keeps it current."""
        self._condition_types: tuple[type[Condition], ...] = tuple(ruleset.conditions)
        self._counter_types: tuple[type[Counter], ...] = tuple(ruleset.counters)
        self._conditions = frozenset(self._condition_types)
        self._counters = frozenset(self._counter_types)
        self.plain: bool = queries.plain_standing and queries.plain_sight
        """Whether standing and sight are the plain rules (neither defeated nor gone; the
        Hidden condition hides): then who stands and who sees whom changes only with the
        state's ``layout`` count, and answers found from positions alone may be kept."""
        self.kept: dict[object, tuple[int, Any]] = {}
        """Answers a ruleset's helpers keep, each with the ``layout`` count it was found at
        (see :func:`engine.kit.move_offers`); only used when :attr:`plain`. Once
        a fight has been forked, the engine replaces this map as its layout, or a fork's,
        changes (the fight and its forks that stand alike share one): read ``fight.kept``
        each time, never keep the map itself."""
        # Reading: the fight's queries.
        self.spec = queries.spec
        self.specs = queries.specs
        self.get = queries.get
        self.standing = queries.standing
        self.present_ids = queries.present_ids
        self.enemies_of = queries.enemies_of
        self.allies_of = queries.allies_of
        self.near = queries.near
        self.nearest_enemy = queries.nearest_enemy
        self.dist = queries.dist
        self.by_initiative = queries.by_initiative
        self.decided = queries.decided
        # Dice and changes, each one or more events: the fight's recorder.
        self._emit = recorder.emit
        self.roll = recorder.roll
        self.set_ap = recorder.set_ap
        self.move = recorder.move
        self.damage = recorder.damage
        self.heal = recorder.heal
        self.defeat = recorder.defeat
        self.caused_by = recorder.caused_by
        self.roll_initiative = partial(roll_initiative, self)
        """See :func:`engine._initiative.roll_initiative` (of this table)."""
        # Generators, driven with ``yield from``: the fight's flow.
        self.opening = fight.opening
        self.inserted_turn = fight.inserted_turn

    @property
    def cause(self) -> int | None:
        """The seq events emitted now name as their cause."""
        return self._recorder.causes[-1]

    def can_see(self, viewer: str, other: str) -> bool:
        """Whether ``viewer`` sees ``other`` (the ruleset's ``can_see``)."""
        return self.ruleset.can_see(self, viewer, other)

    def emit(self, event: Event, *, cause: int | bool | None = True) -> int:
        """Record an event of the ruleset's own (an attack's resolution, a flight ...); its seq.

        A condition or counter event must name a declared type's wire form."""
        if isinstance(event, _MARK_EVENTS):
            text = event.name if isinstance(event, CounterChanged) else event.condition
            kinds: tuple[type[Mark], ...] = (
                self._counter_types if isinstance(event, CounterChanged) else self._condition_types
            )
            if not any(k.parse(text) is not None for k in kinds):
                raise UndeclaredMarkError(
                    f"{text!r} is not a condition or counter the {self.ruleset.name} ruleset"
                    " declares"
                )
        return self._emit(event, cause=cause)

    # --- conditions ---------------------------------------------------------------------------

    def has(self, who: str, condition: Condition) -> bool:
        """Whether ``who`` has ``condition`` now."""
        wire = condition.wire() if condition.__struct_fields__ else condition.name
        return wire in self.state.combatants[who].conditions

    def conditions(self, who: str, kind: type[M]) -> list[M]:
        """``who``'s conditions of type ``kind``, in the order gained."""
        parse = kind.parse
        found = []
        for text in self.state.combatants[who].conditions:
            mark = parse(text)
            if mark is not None:
                found.append(mark)
        return found

    def add_condition(self, who: str, condition: Condition, until: str = "") -> None:
        """Give ``who`` the condition (nothing happens when it has it already)."""
        if type(condition) not in self._conditions:
            raise _undeclared(self.ruleset, "condition", condition)
        wire = condition.wire() if condition.__struct_fields__ else condition.name
        self._recorder.add_condition(who, wire, until)

    def remove_condition(self, who: str, condition: Condition) -> None:
        """End the condition (nothing happens when ``who`` does not have it)."""
        if type(condition) not in self._conditions:
            raise _undeclared(self.ruleset, "condition", condition)
        wire = condition.wire() if condition.__struct_fields__ else condition.name
        self._recorder.remove_condition(who, wire)

    # --- counters -----------------------------------------------------------------------------

    def count(self, who: str, counter: Counter) -> int:
        """The value of ``who``'s counter (0 when never set)."""
        name = counter.wire() if counter.__struct_fields__ else counter.name
        for key, value in self.state.combatants[who].counters:
            if key == name:
                return value
        return 0

    def set_counter(self, who: str, counter: Counter, value: int) -> None:
        """Set ``who``'s counter (nothing happens when it has that value already)."""
        if type(counter) not in self._counters:
            raise _undeclared(self.ruleset, "counter", counter)
        self._recorder.set_counter(who, counter.wire(), value)

    # --- decoding -----------------------------------------------------------------------------

    def parse_condition(self, text: str) -> Condition | None:
        """The declared condition ``text`` is the wire form of, or ``None``."""
        return parse_mark(self._condition_types, text)


def parse_mark(kinds: Iterable[type[M]], text: str) -> M | None:
    """The first of ``kinds`` that reads ``text`` as its wire form, or ``None``."""
    for kind in kinds:
        mark = kind.parse(text)
        if mark is not None:
            return mark
    return None


def _undeclared(ruleset: Ruleset, what: str, mark: Mark) -> UndeclaredMarkError:
    return UndeclaredMarkError(
        f"{type(mark).__name__} is not a {what} the {ruleset.name} ruleset declares"
        f" (add it to its {what}s)"
    )
