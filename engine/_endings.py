"""How a fight ends, and how a combatant leaves it without falling: :class:`Endings`.

The fight's flow asks after each turn and round whether the fight is over; these are the
answers, found from the state and what they remember of it, never recorded here:

- decided: at most one side is left standing or still to arrive;
- idle: ``idle_rounds`` rounds in a row without any action (``Options.idle_rounds``);
- stalemate: ``stalemate_rounds`` rounds in a row ended with the same hit points and the same
  combatants standing (``EncounterSpec.stalemate_rounds``; off unless the encounter gives it);
- the withdrawal rule (``Options.withdraw_turns``): a combatant that ends its own turns farther
  from its nearest enemy, aiming nothing at an enemy, that many times in a row has left the
  battle (``CombatantLeft``, reason ``withdrew``; the one event this part emits).

The seeds are silent on the last three: plain defaults, so that a fight that has stopped
moving, or a combatant that keeps running, cannot draw a fight out to ``max_rounds``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from initiative.events import CombatantLeft, EncounterSpec

from ._geometry import distance
from ._queries import Queries

_Print = tuple[tuple[str, int, bool], ...]


class Endings:
    """The answers to "is the fight over?", and the memory they need, for one fight."""

    __slots__ = ("calm", "emit", "encounter", "options", "queries", "retreats", "turn_from")

    def __init__(
        self, encounter: EncounterSpec, options: Any, queries: Queries, emit: Callable[..., int]
    ) -> None:
        self.encounter = encounter
        self.options = options
        self.queries = queries
        self.emit = emit
        self.calm: dict[int, tuple[int, _Print]] = {}
        """With the encounter's ``stalemate_rounds``: after each round (0: before the first),
        the last round whose end found hit points or who stands changed, and what they were
        (kept by round, so a fork resumed in a round reads its past from its parent's)."""
        self.retreats: dict[str, int] = {}
        """Each combatant's own turns in a row that it ended farther from its nearest enemy
        than it began them, aiming nothing at an enemy."""
        self.turn_from: tuple[float | None, bool] = (None, False)
        """The current turn's distance to the nearest enemy when it began, and whether its
        taker has aimed an action at an enemy since."""

    # --- the end ------------------------------------------------------------------------------

    def decided(self) -> tuple[str | None, str] | None:
        """``(winner, reason)`` once at most one side is left; ``None`` while two are."""
        q = self.queries
        if not q.decided():  # (counted in the standing index: no list of sides to build)
            return None
        sides = q.sides_standing()
        if len(sides) > 1:
            return None
        winner = sides[0] if sides else None
        return winner, f"only {winner} is left standing" if winner else "no one is left standing"

    def before_round(self, number: int) -> None:
        """Round ``number`` starts: with a stalemate window, remember how the fight stood
        before it, if no round's end did (the first round, a fork's first)."""
        if self.encounter.stalemate_window and number - 1 not in self.calm:
            self.calm[number - 1] = (number - 1, self._print())

    def after_round(self, acted_in_round: int) -> str | None:
        """At the end of the round: why the fight ends undecided now, or ``None``."""
        return self._idle(acted_in_round) or self._stalemate()

    def _idle(self, acted_in_round: int) -> str | None:
        """After ``idle_rounds`` rounds in a row without any action, counted from the last
        arrival, once nobody is still to arrive."""
        idle = self.options.idle_rounds
        number = self.queries.state.round
        arrivals = [c.arrives for c in self.encounter.combatants]
        if idle <= 0 or max(arrivals) > number:
            return None
        if number - max(acted_in_round, max(arrivals) - 1) >= idle:
            q = self.queries
            return str(q.ruleset.idle_end(q.rules, idle))
        return None

    def _stalemate(self) -> str | None:
        window = self.encounter.stalemate_window
        if not window:
            return None
        number = self.queries.state.round
        now = self._print()
        since, before = self.calm.get(number - 1, (number, ()))
        if now != before:
            since = number
        self.calm[number] = (since, now)
        if number - since >= window:
            return f"stalemate: no hit points changed in {window} rounds"
        return None

    def _print(self) -> _Print:
        """Every combatant present: its hit points and whether it stands (join order)."""
        return tuple((c.id, c.hp, c.standing) for c in self.queries.state.combatants.values())

    # --- the withdrawal rule ------------------------------------------------------------------

    def turn_began(self, who: str) -> None:
        """``who``'s own turn began: how far its nearest enemy is now."""
        self.turn_from = (self._nearest_distance(who), False)

    def aimed(self, who: str, target: str) -> None:
        """``who`` aimed an action at ``target``: if at an enemy, it is not running away."""
        state = self.queries.state
        c = state.combatants.get(target)
        if c is not None and c.side != state.combatants[who].side:
            self.retreats[who] = 0
            if who == state.active:
                self.turn_from = (self.turn_from[0], True)

    def turn_ended(self, who: str, ended: int) -> None:
        """At the end of ``who``'s turn (``ended``, the seq of its ``TurnEnded``): a turn it
        ended farther from its nearest enemy than it began it, without aiming an action at an
        enemy, is a step of a retreat; after ``withdraw_turns`` such turns in a row it has
        left the battle."""
        start, aimed = self.turn_from
        self.turn_from = (None, False)
        if not self.queries.standing(who):
            return
        now = self._nearest_distance(who)
        if aimed or start is None or now is None or now <= start + 0.01:
            self.retreats[who] = 0
            return
        turns = self.retreats.get(who, 0) + 1
        self.retreats[who] = turns
        if turns >= self.options.withdraw_turns:
            del self.retreats[who]
            self.emit(CombatantLeft(who=who, reason="withdrew"), cause=ended)

    def _nearest_distance(self, who: str) -> float | None:
        q = self.queries
        enemy = q.nearest_enemy(who)
        return None if enemy is None else distance(q.get(who).position, enemy.position)
