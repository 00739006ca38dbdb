"""Words for the table: actions, conditions, checks and reasons as a person at the table says
them ("Acolyte 2 takes cover", "is in cover until the start of their next turn"), never the
rules' own names (``thriller.TakeCover``, ``in_cover``).

An action is told in the words of its unit (:class:`~initiative.engine.ActionUnit`), found
through the registry of the ruleset the log names, so an installed ruleset's actions read as
well as the bundled ones; an action of no unit is told from its name (``BlindOpponent`` ->
"blind opponent") and its target.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from initiative.engine import ActionUnit, Say
from initiative.engine.kit import (
    listed as listed,  # one definition each: the engine's
    words as words,
)
from initiative.events import Action, Trigger

Name = Callable[[str | None], str]
"""A combatant's display name by id (shown literally)."""


def _field(action: Action, name: str) -> str | None:
    value = getattr(action, name, None)
    return value if isinstance(value, str) and value else None


def action_words(who: str, action: Action, say: Say, unit: ActionUnit[Any] | None) -> str:
    """The head of an action's sentence: ``Acolyte 2 attacks Detective Marlowe with the
    sickle``, in the words of the action's unit (``unit``, from its ruleset); an action of no
    unit is told from its name and its target (``Bruno: shove Kasia``)."""
    a = say.name(who)
    if unit is not None and type(unit).told is not ActionUnit.told:
        return f"{a} {unit.told(action, say)}".rstrip()
    target = _field(action, "target") or _field(action, "ally")
    return f"{a}: {words(type(action).__name__)}" + (f" {say.name(target)}" if target else "")


#: A condition in words: (given, taken away).
_CONDITIONS = {
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


def condition_words(condition: str, *, added: bool = True) -> str:
    """``in_cover`` -> ``is in cover`` (or ``leaves cover``)."""
    given, taken = _CONDITIONS.get(condition, (None, None))
    if given is None or taken is None:
        return f"is {words(condition)}" if added else f"is no longer {words(condition)}"
    return given if added else taken


def until_words(until: str) -> str:
    """``end of round 1`` -> `` until the end of round 1``; ``start of its next turn`` ->
    `` until the start of their next turn``; a condition that ends with the deed, nothing."""
    if not until or until == "the attack resolves":
        return ""
    text = until.replace(" its ", " their ")
    return f" until the {text}" if text.startswith(("end ", "start ")) else f" until {text}"


def check_words(who: str, check: str, ok: bool, roll: int, against: int, name: Name) -> str:
    """A check that is no part of an action (surprise, sanity, sneaking before the combat)."""
    n = name(who)
    surprise = re.fullmatch(r"surprise: (\w+) vs (\w+)", check)
    if surprise:
        own, other = surprise.groups()
        verdict = "spots the ambush" if ok else "is caught unawares"
        return f"{n} {verdict}: {own} {roll} against {other} {against}"
    sanity = re.fullmatch(r"sanity \((\w+)\)", check)
    if sanity:
        verdict = "keeps their nerve" if ok else "loses their nerve"
        return f"{n} {verdict}: {sanity.group(1)} {roll} against {against}"
    verdict = "passes" if ok else "fails"
    return f"{n} {verdict} a {check} test: {roll} against {against}"


#: Why a turn ended, when it is worth saying (``None``: nothing to say).
_TURN_ENDS = {
    "ended": None,
    "defeated": None,
    "encounter decided": None,
    "full-round action": None,
    "surprised": "is surprised and loses the turn",
    "shaken": "is shaken and loses the turn",
}


def turn_end_words(reason: str) -> str | None:
    if reason in _TURN_ENDS:
        return _TURN_ENDS[reason]
    return f"loses the rest of the turn ({reason})"


#: Why a decision was not made, in words.
_FAILURES = {
    "timeout": "takes too long to decide, and the moment passes",
    "error": "hesitates: the policy deciding for them failed",
    "crashed": "hesitates: the policy deciding for them crashed",
    "invalid": "hesitates: the policy gave no action that can be taken",
    "busy": "hesitates: the policy was still busy",
}


def failure_words(kind: str) -> str:
    return _FAILURES.get(kind, f"hesitates ({words(kind)})")


def opening_words(trigger: Trigger, name: Name) -> str:
    """What an attack in an opening answers: `` as Ilse ends her turn``."""
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
