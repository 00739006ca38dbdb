"""The ``gm`` command typed at a prompt: the game master steps in without a browser.

``gm hp Grukk 7``, ``gm add-condition bo prone 2``, ``gm end-condition bo prone``,
``gm join goblin7 like goblin-5 as "Goblin 7"``, ``gm remove bo fled``, ``gm move bo 3,1.5``,
``gm order bo before ana`` (or ``last``), ``gm mark bo blessed``, ``gm unmark bo blessed``,
``gm undo``, ``gm roll 2d6+1`` (``gm roll secret 1d20``) and ``gm note ...`` make the same
override objects the ``gm`` frame carries (``events._overrides``); the fight applies them through
the same path. A combatant is named by its name or its id, in any case (a name of several
words in quotes); the engine finds it (``engine._gm.find_combatant``) and refuses a name that
matches none ("did you mean") or several (naming them). :func:`parse_gm` turns the typed words
into an override, or says what is wrong with them; ``gm who`` and ``gm help`` are answered at
the prompt (:func:`roster_text`, :data:`GM_HELP`).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from initiative.events import (
    AddCombatant,
    AddCondition,
    AddMarker,
    EndCondition,
    GmNote,
    GmRoll,
    MoveToken,
    Override,
    Position,
    RemoveCombatant,
    RemoveMarker,
    Reorder,
    SetHp,
    Undo,
    visible,
)

GM_HELP = """\
The GM steps in (applied at once, recorded in the log; then the same one is asked again).
WHO is a name or an id, in any case ("Goblin 7" in quotes for a name of several words):
  gm who                            every combatant's name and id
  gm hp WHO HP                      set hit points (0 or below: down)
  gm add-condition WHO CONDITION [ROUNDS]
                                    a condition the ruleset knows, for ROUNDS rounds or until ended
  gm end-condition WHO CONDITION    end a condition
  gm mark WHO TEXT                  a marker of the GM's (free text, no rule effect)
  gm unmark WHO TEXT                take a marker off
  gm join NEW like WHO [at X,Y] [as NAME]
                                    a late arrival, a copy of WHO (next to it unless at X,Y)
  gm remove WHO [REASON]            take a combatant out of the fight (fled, ...)
  gm move WHO X,Y                   put a token at X,Y (metres)
  gm order WHO before OTHER | last  move a combatant in the initiative order
  gm undo                           undo the GM's last override (not yet undone)
  gm roll [secret] DICE             roll dice (2d6+1), for everyone or for the GM only
  gm note TEXT                      a private note in the log (GM only)
  gm help                           this list"""

USAGE = {
    "hp": "gm hp WHO HP",
    "add-condition": "gm add-condition WHO CONDITION [ROUNDS]",
    "end-condition": "gm end-condition WHO CONDITION",
    "mark": "gm mark WHO TEXT",
    "unmark": "gm unmark WHO TEXT",
    "join": "gm join NEW like WHO [at X,Y] [as NAME]",
    "remove": "gm remove WHO [REASON]",
    "move": "gm move WHO X,Y",
    "order": "gm order WHO before OTHER | last",
    "undo": "gm undo",
    "roll": "gm roll [secret] DICE",
    "note": "gm note TEXT",
    "who": "gm who",
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


def _join(new: str, like: str, rest: list[str]) -> Override | None:
    """``gm join NEW like WHO`` with ``at X,Y`` and ``as NAME`` in either order."""
    at: Position | None = None
    name: str | None = None
    while rest:
        match rest:
            case ["at", where, *rest] if at is None and _point(where) is not None:
                at = _point(where)
            case ["as", *words] if name is None and words:
                stop = words.index("at") if "at" in words and at is None else len(words)
                name, rest = " ".join(words[:stop]), words[stop:]
            case _:
                return None
    return AddCombatant(id=new, like=like, at=at, name=name)


def parse_gm(text: str) -> Override | str:
    """The override ``text`` (``gm ...``) asks for, or a line saying what is wrong (``help``
    for the list, ``who`` for the roster)."""
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split, lexer.quotes, lexer.escape = True, '"', ""  # (Bo's: no quote)
    try:
        words = list(lexer)[1:]
    except ValueError:
        return 'a quote is not closed (a name of several words goes in "quotes")'
    if not words or words[0].lower() in ("help", "?"):
        return "help"
    verb, args = words[0].lower(), words[1:]
    usage = USAGE.get(verb)
    if usage is None:
        return f"no gm command {visible(verb)!r}; gm help lists them"
    wrong = f"usage: {usage}"
    match verb, args:
        case "who", []:
            return "who"
        case "hp", [who, hp] if _int(hp) is not None:
            return SetHp(who=who, hp=int(hp))
        case "add-condition", [who, condition]:
            return AddCondition(who=who, condition=condition)
        case "add-condition", [who, condition, rounds] if _int(rounds) is not None:
            return AddCondition(who=who, condition=condition, rounds=int(rounds))
        case "end-condition", [who, condition]:
            return EndCondition(who=who, condition=condition)
        case "mark", [who, *marker] if marker:
            return AddMarker(who=who, text=" ".join(marker))
        case "unmark", [who, *marker] if marker:
            return RemoveMarker(who=who, text=" ".join(marker))
        case "join", [new, "like", like, *rest]:
            return _join(new, like, rest) or wrong
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
        case "undo", []:
            return Undo()
        case "roll", ["secret", expr]:
            return GmRoll(expr=expr, secret=True)
        case "roll", [expr]:
            return GmRoll(expr=expr)
        case "note", [_, *_]:
            return GmNote(text=text.split(None, 2)[2].strip())  # as typed
    return wrong


def roster_text(rows: Iterable[tuple[str, str, str]]) -> str:
    """``gm who``: each combatant's name, id and side, one a line (``rows``: id, name, side)."""
    rows = [(visible(cid), visible(name), visible(side)) for cid, name, side in rows]
    wide = max((len(name) for _, name, _ in rows), default=4)
    wide_id = max((len(cid) for cid, _, _ in rows), default=2)
    lines = [f"  {name:<{wide}}  {cid:<{wide_id}}  ({side})" for cid, name, side in rows]
    return "Combatants (name, id, side):\n" + "\n".join(lines)
