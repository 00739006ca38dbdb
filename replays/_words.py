"""Words for the table: actions, conditions, checks and reasons as a person at the table says
them ("Acolyte 2 takes cover", "is in cover until the start of their next turn"), never the
rules' own names (``thriller.TakeCover``, ``in_cover``).

Actions are told by their type's name and their fields (``target``, ``weapon``, ``item``...),
read from the event alone, so an installed ruleset's actions read well too: an action not
listed here is told from its name (``BlindOpponent`` -> "blind opponent") and its target.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from initiative.events import Action, Trigger

Name = Callable[[str | None], str]
"""A combatant's display name by id (shown literally)."""


def words(name: str) -> str:
    """``OpportunityAttack`` -> ``opportunity attack``; ``in_cover`` -> ``in cover``."""
    spaced = "".join(f" {c}" if c.isupper() and i else c for i, c in enumerate(name))
    return " ".join(spaced.replace("_", " ").replace("-", " ").lower().split())


def listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def third_person(verb_phrase: str) -> str:
    """``shout`` -> ``shouts``, ``catch breath`` -> ``catches breath``, ``cry`` -> ``cries``."""
    first, _, rest = verb_phrase.strip().partition(" ")
    if first.endswith(("s", "sh", "ch", "x", "z", "o")):
        first += "es"
    elif first.endswith("y") and first[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        first = first[:-1] + "ies"
    else:
        first += "s"
    return f"{first} {rest}".strip()


def _field(action: Action, name: str) -> str | None:
    value = getattr(action, name, None)
    return value if isinstance(value, str) and value else None


def action_words(who: str, action: Action, name: Name, weapon: str) -> str:
    """The head of an action's sentence: ``Acolyte 2 attacks Detective Marlowe with the
    sickle``. ``weapon`` is the one used when the action names none."""
    a = name(who)
    target = _field(action, "target") or _field(action, "ally")
    t = name(target) if target else ""
    kind = type(action).__name__
    match kind:
        case "Attack" | "OpportunityAttack":
            w = _field(action, "weapon") or weapon
            text = f"{a} attacks {t} with the {w}"
            if kind == "OpportunityAttack":
                text += " as they move away"
            variant, aimed = _field(action, "variant"), _field(action, "location")
            if variant:
                text += f" ({words(variant)})"
            if aimed:
                text += f", aiming at the {aimed}"
            return text
        case "Move":
            return f"{a} moves"
        case "ReadyWeapon":
            mode = _field(action, "mode") or "reload"
            verb = {"draw": "draws", "sheathe": "sheathes", "withdraw": "withdraws"}
            return f"{a} {verb.get(mode, third_person(words(mode)))} the {_field(action, 'weapon')}"
        case "FreeAction":
            return f"{a} {third_person(words(_field(action, 'name') or 'act'))}"
        case "UseItem":
            on = f" on {t}" if target and target != who else ""
            return f"{a} uses the {_field(action, 'item')}{on}"
        case "DrinkPotion":
            return f"{a} drinks the {_field(action, 'potion')}"
        case "CastMagic":
            return f"{a} casts {_field(action, 'spell')}" + (f" at {t}" if t else "")
        case "Special":
            return f"{a} attempts {_field(action, 'name')}" + (f" on {t}" if t else "")
        case "Interact":
            return f"{a} interacts with {_field(action, 'what')}"
        case "Disarm":
            held = _field(action, "weapon")
            return f"{a} tries to disarm {t}" + (f" of the {held}" if held else "")
        case "BlindOpponent":
            method = _field(action, "method")
            return f"{a} tries to blind {t}" + (f" ({method})" if method else "")
        case "DelayTurn":
            until = getattr(action, "triggers", ())
            return f"{a} delays their turn" + (
                f" until {listed([words(str(x)) for x in until])}" if until else ""
            )
    phrase = _ACTIONS.get(kind)
    if phrase is not None:
        return f"{a} {phrase.format(t=t)}".rstrip()
    return f"{a}: {words(kind)}" + (f" {t}" if t else "")


#: Actions told by a phrase (``{t}``: the target's name).
_ACTIONS = {
    "Dodge": "dodges",
    "Parry": "parries",
    "Block": "blocks with the shield",
    "Evade": "tries to evade",
    "Intercept": "steps in to take the blow",
    "Retaliate": "strikes back at {t}",
    "CounterAttack": "counter-attacks",
    "Assist": "helps {t}",
    "TakeCover": "takes cover",
    "FullDefense": "goes on full defence",
    "Flee": "flees",
    "Aim": "takes aim at {t}",
    "DefensiveStance": "takes a defensive stance",
    "Disengage": "disengages",
    "TakeDelayedTurn": "takes their delayed turn",
    "Dash": "dashes",
    "Hide": "hides",
    "Arise": "gets up",
    "Bash": "bashes {t}",
    "Feint": "feints at {t}",
    "ForceMovement": "tries to force {t} back",
    "Resist": "resists",
    "Trip": "tries to trip {t}",
}

#: The condition an action gives its actor, which its own words already say.
IMPLIED = {
    "TakeCover": "in_cover",
    "FullDefense": "full_defense",
    "DefensiveStance": "defensive_stance",
    "Disengage": "disengaged",
    "DelayTurn": "delaying",
    "Hide": "hidden",
}

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
