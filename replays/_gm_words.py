"""The game master's overrides in words, for every narration (``replay``, the table, ``join``).

One function, :func:`gm_line`, called by the narrators with a one-line hook: it also teaches the
narrator the name of a combatant the GM brings in (the header does not know it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from initiative.events import (
    AddCombatant,
    AddCondition,
    AddMarker,
    EndCondition,
    GmNote,
    GmOverride,
    GmRoll,
    GmRolled,
    MoveToken,
    Override,
    RemoveCombatant,
    RemoveMarker,
    Reorder,
    SetHp,
    Undo,
)

from ._literal import literal


class Speaker(Protocol):
    """What a narrator lends the words it tells: its names, and how it shows one."""

    names: dict[str, str]
    gm_done: dict[int, Override]
    """The GM's overrides so far, by the seq of their ``GmOverride`` (what an undo undoes)."""

    def name(self, who: str | None) -> str:
        """A combatant's name as this narrator shows it (bold in ``replay``, plain at the
        table)."""
        ...


def gm_line(narrator: Speaker, event: GmOverride) -> str:
    """``The GM sets Bo's hit points to 7.``: the override in words (Rich markup, the names as
    the narrator writes them)."""
    o = event.override
    if isinstance(o, AddCombatant):
        narrator.names[o.id] = o.name or (o.combatant.display if o.combatant else o.id)
    return told(event, narrator.gm_done, narrator.name)


def told(event: GmOverride, done: dict[int, Override], n: Callable[[str | None], str]) -> str:
    """The override of ``event`` in words, an undo saying which override it undid (``done``:
    the overrides so far by seq, which this keeps up)."""
    o = event.override
    done[event.seq] = o
    if isinstance(o, Undo) and o.seq is not None and o.seq in done:
        undone = gm_words(done[o.seq], n).removeprefix("The GM ")
        return f"The GM undoes #{o.seq}: {undone.rstrip('.')}."
    return gm_words(o, n)


def rolled_words(event: GmRolled) -> str:
    """``2d6+1 comes up 2 + 6 + 1 = 9 (secret).``: the dice of the GM's roll."""
    faces = " + ".join(str(d) for d in event.dice)
    if event.modifier:
        faces += f" {'+' if event.modifier > 0 else '-'} {abs(event.modifier)}"
    secret = " (secret)" if event.gm_only else ""
    return f"{literal(event.expr)} comes up {faces} = {event.total}{secret}."


def gm_words(o: object, n: Callable[[str | None], str], *, wounds: str | None = None) -> str:
    """An override in words, with ``n`` naming combatants. With ``wounds`` (the hit points
    in words, as a seat sees an enemy's: ``bloodied``), a hit-point override is told without
    its number, for whoever may not see it: ``The GM changes Tomas's wounds: bloodied.``"""
    match o:
        case AddMarker(who=who, text=text):
            return f"The GM marks {n(who)}: {literal(text)}."
        case RemoveMarker(who=who, text=text):
            return f"The GM takes the marker {literal(text)} off {n(who)}."
        case Undo(seq=seq):
            which = f" (#{seq})" if seq is not None else ""
            return f"The GM undoes their last override{which}."
        case GmRoll(expr=expr, secret=secret):
            return f"The GM rolls {literal(expr)}{' in secret' if secret else ''}."
        case GmNote(text=text):
            return f"The GM notes: {literal(text)}"
        case SetHp(who=who) if wounds is not None:
            return f"The GM changes {n(who)}'s wounds: {wounds}."
        case SetHp(who=who, hp=hp, quiet=quiet):
            return f"The GM {'quietly ' if quiet else ''}sets {n(who)}'s hit points to {hp}."
        case AddCondition(who=who, condition=c, rounds=rounds):
            lasting = "" if rounds is None else f" for {rounds} round{'s' if rounds != 1 else ''}"
            return f"The GM makes {n(who)} {literal(c)}{lasting}."
        case EndCondition(who=who, condition=c):
            return f"The GM ends {n(who)}'s {literal(c)}."
        case AddCombatant(id=new, like=like, side=side):
            copied = f", like {n(like)}" if like else ""
            joined = f" for {literal(side)}" if side else ""
            return f"The GM brings in {n(new)}{joined}{copied}."
        case RemoveCombatant(who=who, reason=reason):
            return f"The GM takes {n(who)} out of the fight ({literal(reason)})."
        case MoveToken(who=who, to=to):
            return f"The GM moves {n(who)} to ({to.x:g}, {to.y:g})."
        case Reorder(who=who, before=before):
            if before is None:
                return f"The GM moves {n(who)} to the end of the order."
            return f"The GM moves {n(who)} before {n(before)} in the order."
    return f"The GM steps in ({literal(type(o).__name__)})."
