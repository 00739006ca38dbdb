"""Delay Turn and the delayed turn it inserts later (a free reaction): one unit each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from initiative.engine.kit import Say, listed, words
from initiative.events import Offer, Window

from ._actions import DelayTurn, TakeDelayedTurn
from ._conditions import clear_delay, end_of_turn
from ._marks import DASHES, DELAYING, INSERTED, MOVED, DelayOn
from ._options import DELAY_TRIGGERS
from ._unit import TacticalUnit, legal

if TYPE_CHECKING:
    from initiative.engine.kit import Hook, Rules


class Delaying(TacticalUnit[DelayTurn]):
    """Seed 002 Delay Turn (0 AP): declare triggers, skip the turn, insert it later."""

    action = DelayTurn
    free = True
    implies = (DELAYING.name,)

    def check(self, fight: Rules, who: str, action: DelayTurn, window: Window) -> str | None:
        triggers = action.triggers
        if fight.count(who, INSERTED):
            return "a delayed turn cannot be delayed again"
        if not triggers:
            return "Delay Turn must declare at least one trigger condition"
        for t in triggers:
            if t not in DELAY_TRIGGERS:
                return f"unknown trigger {t!r} (known: {', '.join(sorted(DELAY_TRIGGERS))})"
        return None

    def resolve(self, fight: Rules, who: str, action: DelayTurn, window: Window) -> None:
        """Seed 002: "Declare a set of trigger conditions, then skip the Turn without spending AP."
        The conditions ``delaying`` and ``delay_on:TRIGGER`` hold the declaration."""
        fight.add_condition(who, DELAYING, until=f"{who}'s next turn")
        for trigger in dict.fromkeys(action.triggers):
            fight.add_condition(who, DelayOn(trigger))

    def told(self, action: DelayTurn, say: Say) -> str:
        until = action.triggers
        return "delays their turn" + (
            f" until {listed([words(str(x)) for x in until])}" if until else ""
        )


class TakingDelayedTurn(TacticalUnit[TakeDelayedTurn]):
    """Seed 002: insert one's delayed turn as a free reaction when a declared trigger happens."""

    action = TakeDelayedTurn
    kind = "reaction"
    free = True
    when = ("opening",)
    answers = ("delayed",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        t = window.trigger
        if t is None or t.kind != "delayed":
            return []
        return legal(fight, who, window, [TakeDelayedTurn()])

    def check(self, fight: Rules, who: str, action: TakeDelayedTurn, window: Window) -> str | None:
        t = window.trigger
        if t is None or t.kind != "delayed" or not fight.has(who, DELAYING):
            return "no delayed turn of yours is triggered here"
        return None

    def perform(self, fight: Rules, who: str, action: TakeDelayedTurn, window: Window) -> Hook:
        """Seed 002: "they may insert their delayed Turn as a free reaction": an inserted turn
        with the AP kept, a fresh base movement, and no further delay."""
        clear_delay(fight, who)
        fight.set_counter(who, INSERTED, 1)
        fight.set_counter(who, MOVED, 0)
        fight.set_counter(who, DASHES, 0)
        yield from fight.inserted_turn(who, "delayed turn")
        fight.set_counter(who, INSERTED, 0)
        end_of_turn(fight, who)
        return None

    def told(self, action: TakeDelayedTurn, say: Say) -> str:
        return "takes their delayed turn"
