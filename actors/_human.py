"""The ``human`` policy: a person at this terminal decides for the combatant.

Shows the screen of :mod:`actors._screen` (names, the situation, numbered offers in plain
words) and reads the number typed, or a point to move to (``3,1.5``, ``toward Bo 2 m``, ``away
from Bo``: see :mod:`actors._typed`), which is sent as the ruleset's move action for the rules
to check; a refusal is shown with the rules' reason before the decision is asked again. ``?``
shows help, ``s`` the situation again, ``gm ...`` lets the game master step in (``gm help``,
:mod:`actors._gm_commands`). A person has no
deadline unless the fight is given one (``--timeout``); then a decision not typed in time is
recorded as a timeout, like any policy's, and the fight goes on.
"""

from __future__ import annotations

from initiative.engine import Decision, View
from initiative.events import Action, ActionRejected, Event, Override, visible

from ._context import PolicyContext
from ._gm_commands import GM_HELP, is_gm, parse_gm, roster_text
from ._screen import HELP, Names, parse_choice, present, render
from ._terminal import Terminal, TimedOut, terminal
from ._typed import MOVE_HELP, NotAMove, looks_like_move, move_hint, typed_move


class Human:
    """A person at the terminal."""

    person = True
    """Marks a person: no deadline unless one is given."""
    warm = False
    """A resumed fight never asks a person again what the log already holds."""

    def __init__(self, ctx: PolicyContext, term: Terminal | None = None) -> None:
        self.names = Names(ctx.encounter)
        self.id = ctx.combatant.id
        self.me = self.names(self.id)
        self.term = term
        self.timeout: float | None = None
        self.refused: str | None = None
        """The rules' reason for refusing the last action chosen, until it is shown."""

    def observe(self, event: Event) -> None:
        self.names.learn(event)
        if isinstance(event, ActionRejected) and event.who == self.id:
            self.refused = event.reason

    def gm(self, text: str, view: View, term: Terminal) -> Override | None:
        """A ``gm`` command: the override to send, once a copy of the fight at this very
        decision (``view.fork``) says the rules accept it; else the reason is shown."""
        found = parse_gm(text)
        if found == "help":
            term.say(GM_HELP)
            return None
        if found == "who":
            specs = self.names.specs.values()
            term.say(roster_text((c.id, c.display, c.side) for c in specs))
            return None
        if isinstance(found, str):
            term.say(visible(found))
            return None
        if view.fork is not None:
            reason = view.fork().fight.check_override(found)
            if reason is not None:
                term.say(f"The GM cannot do that: {visible(reason)}")
                return None
        return found

    def decide(self, view: View) -> Action | Decision:
        term = self.term or terminal()
        if self.refused is not None:
            term.say(f"Not allowed: {visible(self.refused)}")
            self.refused = None
        presented = present(view, self.names)
        move = presented.move
        shown = render(presented)
        if move is not None:
            shown += "\n" + move_hint(move)
        term.say("\n" + shown)
        while True:
            try:
                text = term.ask(f"{self.me}> ", self.timeout)
            except TimedOut:
                return Decision(
                    failure="timeout", detail=f"no choice typed within {self.timeout:g} s"
                )
            if text.strip() in ("?", "help", "h"):
                term.say(HELP + "\n" + MOVE_HELP)
                continue
            if text.strip() in ("s", "situation"):
                term.say(shown)
                continue
            if is_gm(text):
                override = self.gm(text, view, term)
                if override is not None:
                    return Decision(override=override)
                continue
            index = parse_choice(text, len(view.legal))
            if index is not None:
                return view.legal[index].action
            if move is not None and looks_like_move(text):
                try:
                    return typed_move(text, view, self.names, move)
                except NotAMove as err:
                    term.say(str(err))
                    continue
            also = ", a point to move to" if move is not None else ""
            term.say(f"Type a number from 1 to {len(view.legal)}{also}, or ? for help.")
