"""Conditions in words, for every screen and narration: the state a screen lists (``in cover``,
``disarmed (axe)``, ``blinded by Goblin``) and what the table says when one is given or taken
away (``is in cover``, ``leaves cover``). Defined here, below the screens
(:mod:`._screen`) and the narrators (``replays``), so that both say a condition alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from initiative.engine.kit import words
from initiative.events import visible

#: What is said when a condition is given and when it is taken away, where its name alone
#: (``is shaken``, ``is no longer shaken``) would not do.
_SAID = {
    "surprised": ("is surprised", "is no longer surprised"),
    "shaken": ("is shaken", "is no longer shaken"),
    "in_cover": ("is in cover", "leaves cover"),
    "full_defense": ("is on full defence", "is no longer on full defence"),
    "intercepted": ("is shielded by an ally", "is no longer shielded"),
    "prone": ("falls prone", "is no longer prone"),
    "defensive_stance": ("is in a defensive stance", "leaves the defensive stance"),
    "disengaged": ("is disengaged", "is no longer disengaged"),
    "advantage": ("has the advantage", "loses the advantage"),
    "delaying": ("is delaying their turn", "no longer delays"),
    "feint": ("is thrown off guard", "is no longer off guard"),
    "disarmed": ("is disarmed", "is no longer disarmed"),
    "hidden": ("is hidden", "is no longer hidden"),
}

Form = Literal["state", "given", "taken"]
"""``state``: as a screen lists it; ``given``/``taken``: what is said when it begins or ends."""


def condition_words(
    condition: str,
    named: Callable[[str], str],
    *,
    form: Form = "state",
    shown: Callable[[object], str] = visible,
) -> str:
    """``in_cover`` -> ``in cover`` (``is in cover``, ``leaves cover``); ``blinded_by:gob`` ->
    ``blinded by Goblin``; ``disarmed:axe`` -> ``disarmed (axe)``. ``named`` shows what
    follows the colon (a combatant's name for an id); ``shown`` shows the condition's own
    words (control characters made visible; markup escaped too, for a narration)."""
    head, sep, tail = condition.partition(":")
    state = shown(words(head))
    said = _SAID.get(head)
    if form == "state":
        text = state
    elif said is not None:
        text = said[0] if form == "given" else said[1]
    else:
        text = f"is {state}" if form == "given" else f"is no longer {state}"
    if not sep:
        return text
    return f"{text} {named(tail)}" if text.endswith(" by") else f"{text} ({named(tail)})"
