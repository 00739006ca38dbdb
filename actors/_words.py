"""Conditions and openings in words, for every screen and narration, side by side.

A condition: the state a screen lists (``in cover``, ``disarmed (axe)``, ``blinded by Goblin``)
and what the table says when one is given or taken away (``is in cover``, ``leaves cover``). An
opening's trigger: what the one offered it reads on its screen (``Bo attacks you with the axe``)
and what the table says an attack in it answers (`` in answer to Bo's attack``). Defined here,
below the screens (:mod:`._screen`) and the narrators (``replays``), which cannot be imported
from here, so that a change of wording is made in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from initiative.engine.kit import words
from initiative.events import Trigger, visible

Name = Callable[[str | None], str]
"""A combatant's name by id, as the screen or the narration shows it."""

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


# --- openings ------------------------------------------------------------------------------


def trigger_words(trigger: Trigger, names: Name, me: str | None = None) -> str:
    """What an opening reacts to, as the one it is offered to reads it on a screen (``you``
    for ``me``): ``Bo attacks you with the axe``."""

    def who(x: str | None) -> str:
        return "you" if x is not None and x == me else names(x)

    by = who(trigger.by)
    target = who(trigger.target) if trigger.target else None
    detail = visible(words(trigger.detail)) if trigger.detail else None
    your = "your" if me is not None else "a"
    match trigger.kind:
        case "attacked" | "attack":
            text = f"{by} attacks {target or 'someone'}"
            if detail in ("melee", "ranged"):
                text += f" ({detail})"
            elif detail:
                text += f" with the {detail}"
            return text
        case "melee_attacked":
            return f"{by} has just attacked {target or 'someone'} in melee"
        case "left_space" | "leaves_reach" | "left_reach":
            whose = f"{target}'s" if target and target != "you" else your
            return f"{by} leaves {whose} reach"
        case "turn_ended":
            return f"{by} ends their turn"
        case "approach":
            return f"{by} comes into {your} reach"
        case "retreat":
            return f"{by} moves away within {your} reach"
        case "ranged_attack":
            return f"{by} shoots within {your} reach" + (f" ({detail})" if detail else "")
        case "spellcast":
            return f"{by} casts a spell within {your} reach"
        case "standing_up":
            return f"{by} stands up within {your} reach"
        case "ready":
            return f"{by} readies a weapon within {your} reach"
        case "delayed":
            return f"{by} does what you were waiting for" + (f" ({detail})" if detail else "")
    text = f"{by}: {words(trigger.kind)}" + (f" ({target})" if target else "")
    return text + (f" [{detail}]" if detail else "")


def answer_words(trigger: Trigger, name: Name) -> str:
    """What an attack in an opening answers, as the table tells it after the attack: `` as Ilse
    ends their turn``; ``name`` shows a name as the narration does."""
    by = name(trigger.by) if trigger.by else "someone"
    match trigger.kind:
        case "turn_ended":
            return f" as {by} ends their turn"
        case "left_space" | "leaves_reach" | "left_reach":
            return f" as {by} moves away"
        case "attacked" | "melee":
            return f" in answer to {by}'s attack"
        case "delayed":
            return f" on {by}'s cue"
    return f" seizing an opening ({words(trigger.kind)} by {by})"
