"""The hooks a ruleset overrides, as a typed Protocol: the one statement of their signatures.

:class:`~engine.Ruleset` satisfies :class:`RulesetHooks` (mypy holds it to it), the table of
hooks in docs/rulesets.md is made from it (``tests/engine/test_hooks.py`` holds the page to it),
and a ruleset found by name or checked by :func:`engine.check_ruleset` has each hook it
overrides held to it when it is loaded: one that cannot take the arguments the engine passes is
refused there, in one line naming the hook and its signature, before a fight starts (not as a
``TypeError`` in the middle of one).
"""

from __future__ import annotations

import inspect
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Protocol

from initiative.events import Action, CombatantSpec, Offer, Window

from ._odds import Odds, Sighted
from ._rules import Rules

if TYPE_CHECKING:
    from ._protocol import Decision, PriorityToken

#: What a hook generator yields to the driver and what it gets back: a hook that can open an
#: opening is a generator driven with ``yield from``, so that others may decide meanwhile; its
#: return value is the hook's result.
Hook = Generator["PriorityToken", "Decision", Any]


class RulesetHooks(Protocol):
    """The hooks the engine calls on a ruleset, in the order a fight meets them. ``fight`` is the
    :class:`~engine.Rules` table a hook reads and changes the fight through; a hook typed
    ``Hook`` is a generator (``return ...; yield`` when it opens no opening)."""

    def max_ap(self, c: CombatantSpec) -> int:
        """The AP a combatant has when full."""
        ...

    def initiative_dice(self, c: CombatantSpec) -> str:
        """The initiative dice of a combatant (``1d20``, or ``2d20kh1`` for an advantage)."""
        ...

    def initiative_modifier(self, c: CombatantSpec) -> int:
        """What a combatant adds to its initiative roll."""
        ...

    def tie_keys(self, fight: Rules, who: str) -> tuple[int, ...]:
        """Keys that break initiative ties before a roll-off, highest first."""
        ...

    def start(self, fight: Rules) -> Hook:
        """Before round 1: initiative for everyone present, surprise, checks before the fight."""
        ...

    def arrive(self, fight: Rules, arrivals: list[str]) -> Hook:
        """Combatants joining in a later round have joined: place them in the order."""
        ...

    def round_started(self, fight: Rules) -> Hook:
        """At a round's start."""
        ...

    def round_ended(self, fight: Rules) -> Hook:
        """At a round's end: conditions that end with it."""
        ...

    def turn_started(self, fight: Rules, who: str) -> Hook:
        """At the start of a turn: AP back; returns a reason to skip the turn, or ``None``."""
        ...

    def turn_ended(self, fight: Rules, who: str) -> Hook:
        """After ``TurnEnded``: the openings that ending a turn makes, end-of-turn effects."""
        ...

    def turn_over(self, fight: Rules, who: str) -> str | None:
        """A reason the turn must end although its taker did not end it, or ``None``."""
        ...

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        """The legal actions with their costs (by default the units' offers, in order)."""
        ...

    def check(self, fight: Rules, who: str, action: Any, window: Window) -> str | None:
        """Why an action is illegal now, or ``None`` (by default its unit's check)."""
        ...

    def cost(self, fight: Rules, who: str, action: Any, window: Window) -> int:
        """The AP a legal action spends (by default its unit's cost)."""
        ...

    def perform(self, fight: Rules, who: str, action: Any, window: Window) -> Hook:
        """What a declared, paid-for action does (by default its unit's ``perform``)."""
        ...

    def idle_end(self, fight: Rules, rounds: int) -> str:
        """The reason recorded when ``rounds`` rounds in which nobody acted end the fight."""
        ...

    def standing(self, fight: Rules, who: str) -> bool:
        """Whether a combatant still fights (neither defeated nor gone, by default)."""
        ...

    def can_see(self, fight: Rules, viewer: str, other: str) -> bool:
        """Whether ``viewer`` sees ``other`` (the Hidden condition hides one from enemies)."""
        ...

    def reveal(self, c: CombatantSpec) -> Sighted:
        """What the table knows of ``c`` by looking at it (``View.known``): by default its
        weapons, armour, reach, range, speed and size as the encounter states them."""
        ...

    def odds(self, fight: Rules, who: str, action: Action) -> Odds | None:
        """``action``'s chance to hit and mean damage if ``who`` took it now (``View.odds``);
        ``None`` for an action that is no attack, and by default."""
        ...


#: The hooks' names, in the Protocol's order.
HOOKS: tuple[str, ...] = tuple(
    name for name in RulesetHooks.__dict__ if not name.startswith("_") and name != "mro"
)


def signature(name: str) -> str:
    """Hook ``name``'s signature as the Protocol states it: ``round_started(fight: Rules) ->
    Hook`` (``self`` left out)."""
    fn = RulesetHooks.__dict__[name]
    notes = fn.__annotations__
    params = list(inspect.signature(fn).parameters)[1:]
    listed = ", ".join(f"{p}: {notes[p]}" for p in params)
    return f"{name}({listed}) -> {notes['return']}"


def summary(name: str) -> str:
    """Hook ``name``'s docstring on one line: when the engine calls it, what it answers."""
    doc = inspect.getdoc(RulesetHooks.__dict__[name]) or ""
    return " ".join(doc.split())


def wrong_hook(cls: type) -> str | None:
    """Why ``cls`` (a ruleset class) overrides a hook with a signature the engine cannot call,
    in one line naming the hook and its expected signature; ``None`` when every hook fits.

    An override must accept ``self`` and the Protocol's arguments given by position (the engine
    passes them so); it may add parameters with defaults."""
    for name in HOOKS:
        fn = getattr(cls, name, None)
        if fn is None:
            return f"{cls.__name__} has no hook {name}: expected {signature(name)}"
        try:
            params = inspect.signature(fn)
        except (TypeError, ValueError):
            continue  # (a callable without a signature to read: taken on trust)
        wanted = len(inspect.signature(RulesetHooks.__dict__[name]).parameters)
        try:
            params.bind(*range(wanted))
        except TypeError:
            shown = ", ".join(str(p).replace("'", "") for p in list(params.parameters.values())[1:])
            return (
                f"{cls.__name__}'s hook {name}({shown}) does not take the arguments the engine"
                f" passes: expected {signature(name)}"
            )
    return None
