"""A position built directly, like a chess FEN: to check one rule without playing a fight to it.

:func:`position` makes a :class:`Fight` of the given combatants and records the events that put
it where the test says (joins, the initiative order, the round, whose turn it is, hit points,
AP, conditions, counters), through the same ``emit`` the fight uses, so the state is a real
one. A :class:`Board` then asks the ruleset about it through the :class:`~engine.Rules` its
hooks receive: which actions are offered, why one is illegal, what happens when one is taken,
with dice given in the order they are rolled, what a hook such as ``turn_started`` does. The
position is where the turn has begun: no hook has run for it (run one with :meth:`Board.hook`)::

    board = position(
        "tactical",
        combatants=[
            {"id": "ann", "side": "a", "hp": 20, "position": [0, 0]},
            {"id": "orc", "side": "b", "hp": 12, "position": [1, 0]},
        ],
        conditions={"orc": ["prone"]},
        turn="ann",
    )
    events = board.act("ann", Attack(target="orc"), dice=[(12,), (3,)])

Conditions and counters are written in their log form (``"prone"``, ``"dropped:axe@1,2"``,
``{"attacks": 1}``); each must be one the ruleset declares.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping, Sequence
from typing import Any

from initiative.events import (
    Action,
    APChanged,
    ConditionAdded,
    CounterChanged,
    DamageDealt,
    EncounterFileError,
    Event,
    InitiativeOrdered,
    Offer,
    Pass,
    RoundStarted,
    TurnStarted,
    Window,
)

from ._dice import Dice
from ._encounter import decode_encounter
from ._fight import Fight
from ._protocol import Decision, PriorityToken
from ._rules import Rules, parse_mark
from ._state import CombatantState

TURN = Window(kind="turn")


class IllegalAction(ValueError):
    """The action asked of :meth:`Board.act` is not legal at the position (the reason)."""


class GivenDice:
    """Dice given in order (one tuple of faces per roll); when they run out the fight rolls."""

    def __init__(self, rolls: Iterable[Sequence[int]] = ()) -> None:
        self.rolls = [tuple(r) for r in rolls]
        self.asked: list[str] = []
        """The purpose of every roll made, given or not (what a test may print on failure)."""

    def faces(
        self, fight: object, who: str | None, purpose: str, dice: Dice
    ) -> tuple[int, ...] | None:
        self.asked.append(purpose)
        return self.rolls.pop(0) if self.rolls else None


class Board:
    """A fight standing at a position: ask the ruleset about it, or let a combatant act."""

    def __init__(self, fight: Fight, dice: GivenDice) -> None:
        self.fight = fight
        self.rules: Rules = fight.rules
        self.ruleset = fight.ruleset
        self.dice = dice

    def get(self, who: str) -> CombatantState:
        return self.fight.queries.get(who)

    def offers(self, who: str, window: Window = TURN) -> list[Action]:
        """The actions the ruleset offers ``who`` here (``EndTurn``/``Pass`` left out)."""
        return [o.action for o in self.offer_list(who, window)]

    def offer_list(self, who: str, window: Window = TURN) -> list[Offer]:
        return self.ruleset.offers(self.rules, who, window)

    def check(self, who: str, action: Action, window: Window = TURN) -> str | None:
        """Why ``action`` is illegal for ``who`` here (AP included), or ``None``."""
        return self.fight._check(who, action, window)

    def act(
        self,
        who: str,
        action: Action,
        *,
        dice: Iterable[Sequence[int]] = (),
        reactions: Mapping[str, Action] | None = None,
        window: Window = TURN,
    ) -> list[Event]:
        """``who`` declares ``action`` (it must be legal) and it is resolved, with ``dice``
        given in the order rolled; in an opening, a combatant named in ``reactions`` takes
        that reaction and the others pass. Returns the events recorded."""
        self.dice.rolls += [tuple(r) for r in dice]
        answers = dict(reactions or {})
        start = len(self.fight.events)
        asking = self.fight.ask(who, window)
        next(asking)
        try:
            asking.send(Decision(action=action))
        except StopIteration as done:
            got = done.value
        else:
            asking.close()
            rejected = self.fight.events[-2]
            raise IllegalAction(getattr(rejected, "reason", "rejected"))
        if got is None:
            raise IllegalAction("the action was not taken")
        taken, declared = got
        with self.fight.caused_by(declared):
            self._drive(self.ruleset.perform(self.rules, who, taken, window), answers)
        return self.fight.events[start:]

    def hook(self, name: str, *args: Any, reactions: Mapping[str, Action] | None = None) -> Any:
        """Run the ruleset's hook ``name`` (``"turn_started"``, ``"round_ended"`` ...) with
        ``args`` after the rules table, as the scheduler would; a generator hook is driven to
        its end, openings answered from ``reactions``. Returns what the hook returns."""
        result = getattr(self.ruleset, name)(self.rules, *args)
        if isinstance(result, Generator):
            return self._drive(result, dict(reactions or {}))
        return result

    def _drive(self, hook: Any, answers: dict[str, Action]) -> Any:
        try:
            token: PriorityToken = next(hook)
            while True:
                answer = answers.get(token.who, Pass())
                token = hook.send(Decision(action=answer))
        except StopIteration as done:
            return done.value

    def events(self, since: int = 0) -> list[Event]:
        return self.fight.events[since:]


def position(
    ruleset: str,
    *,
    combatants: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None = None,
    turn: str | None = None,
    round: int = 1,
    order: Sequence[str] | None = None,
    hp: Mapping[str, int] | None = None,
    ap: Mapping[str, int] | None = None,
    conditions: Mapping[str, Sequence[str]] | None = None,
    counters: Mapping[str, Mapping[str, int]] | None = None,
    dice: Iterable[Sequence[int]] = (),
    seed: int = 1,
) -> Board:
    """A :class:`Board` at the position described (see the module's docs).

    ``combatants`` are encounter-file tables; ``order`` is the initiative order (default: as
    listed); ``turn`` is whose turn it is (default: the first in the order) in round
    ``round``; ``ap`` defaults to each one's full AP, ``hp`` to its ``hp``.
    """
    data: dict[str, Any] = {
        "ruleset": ruleset,
        "combatants": [dict(c) for c in combatants],
        "options": dict(options or {}),
    }
    spec = decode_encounter(data, name="position")
    given = GivenDice(dice)
    fight = Fight(spec, seed, dice=given)
    rules = fight.rules
    ids = [c.id for c in spec.combatants]
    order = list(order or ids)
    active = turn if turn is not None else order[0]
    for who in [*order, active]:
        if who not in ids:
            raise EncounterFileError(f"position: no combatant {who!r}")
    emit = fight.emit
    emit(fight.header(), cause=False)
    for c in spec.combatants:
        fight.join(c, 0)
    emit(InitiativeOrdered(order=tuple(order), ties=()))
    emit(RoundStarted(round=round))
    emit(TurnStarted(who=active, round=round))
    for who, value in (hp or {}).items():
        emit(DamageDealt(who=who, amount=fight.state.combatants[who].hp - value, hp=value))
    for who, value in (ap or {}).items():
        emit(APChanged(who=who, ap=value, reason="position"))
    for who, names in (conditions or {}).items():
        for text in names:
            if rules.parse_condition(text) is None:
                raise EncounterFileError(
                    f"position: {text!r} is not a condition the {ruleset} ruleset declares"
                )
            emit(ConditionAdded(who=who, condition=text))
    for who, tallies in (counters or {}).items():
        for name, value in tallies.items():
            if parse_mark(fight.ruleset.counters, name) is None:
                raise EncounterFileError(
                    f"position: {name!r} is not a counter the {ruleset} ruleset declares"
                )
            emit(CounterChanged(who=who, name=name, value=value))
    return Board(fight, given)
