"""The ``gm`` command typed at a prompt: the game master steps in without a browser.

``gm hp bo 7``, ``gm add-condition bo prone 2``, ``gm end-condition bo prone``,
``gm join goblin3 like goblin1``, ``gm remove bo fled``, ``gm move bo 3,1.5``,
``gm order bo before ana`` (or ``last``) make the same override objects the ``gm`` frame carries
(``events._overrides``); the fight applies them through the same path. :func:`parse_gm` turns
the typed words into one, or says what is wrong with them.
"""

from __future__ import annotations

from initiative.events import (
    AddCombatant,
    AddCondition,
    EndCondition,
    MoveToken,
    Override,
    Position,
    RemoveCombatant,
    Reorder,
    SetHp,
)

GM_HELP = """\
The GM steps in (applied at once, recorded in the log; then the same one is asked again):
  gm hp ID HP                       set hit points (0 or below: down)
  gm add-condition ID CONDITION [ROUNDS]
                                    a condition the ruleset knows, for ROUNDS rounds or until ended
  gm end-condition ID CONDITION     end a condition
  gm join NEW like ID [at X,Y]      a late arrival, a copy of ID (next to it unless at X,Y)
  gm remove ID [REASON]             take a combatant out of the fight (fled, ...)
  gm move ID X,Y                    put a token at X,Y (metres)
  gm order ID before OTHER | last   move a combatant in the initiative order
  gm help                           this list"""

USAGE = {
    "hp": "gm hp ID HP",
    "add-condition": "gm add-condition ID CONDITION [ROUNDS]",
    "end-condition": "gm end-condition ID CONDITION",
    "join": "gm join NEW like ID [at X,Y]",
    "remove": "gm remove ID [REASON]",
    "move": "gm move ID X,Y",
    "order": "gm order ID before OTHER | last",
}


def is_gm(text: str) -> bool:
    """Whether ``text`` is a ``gm`` command."""
    words = text.split()
    return bool(words) and words[0].lower() == "gm"


def _point(text: str) -> Position | None:
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2:
        return None
    try:
        return Position(float(parts[0]), float(parts[1]))
    except ValueError:
        return None


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def parse_gm(text: str) -> Override | str:
    """The override ``text`` (``gm ...``) asks for, or a line saying what is wrong (``help``
    for the list)."""
    words = text.split()[1:]
    if not words or words[0].lower() in ("help", "?"):
        return "help"
    verb, args = words[0].lower(), words[1:]
    usage = USAGE.get(verb)
    if usage is None:
        return f"no gm command {verb!r}; gm help lists them"
    wrong = f"usage: {usage}"
    match verb, args:
        case "hp", [who, hp] if _int(hp) is not None:
            return SetHp(who=who, hp=int(hp))
        case "add-condition", [who, condition]:
            return AddCondition(who=who, condition=condition)
        case "add-condition", [who, condition, rounds] if _int(rounds) is not None:
            return AddCondition(who=who, condition=condition, rounds=int(rounds))
        case "end-condition", [who, condition]:
            return EndCondition(who=who, condition=condition)
        case "join", [new, "like", like]:
            return AddCombatant(id=new, like=like)
        case "join", [new, "like", like, "at", where] if _point(where) is not None:
            return AddCombatant(id=new, like=like, at=_point(where))
        case "remove", [who]:
            return RemoveCombatant(who=who)
        case "remove", [who, *reason]:
            return RemoveCombatant(who=who, reason=" ".join(reason))
        case "move", [who, *where] if _point(" ".join(where)) is not None:
            return MoveToken(who=who, to=_point(" ".join(where)))  # type: ignore[arg-type]
        case "order", [who, "before", other]:
            return Reorder(who=who, before=other)
        case "order", [who, "last"]:
            return Reorder(who=who)
    return wrong
