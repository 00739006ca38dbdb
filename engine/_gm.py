"""The game master's overrides: checked against the rules and the state, then applied.

An override (``events._overrides``) reaches a fight at a decision point, in place of the
decision it waits for (``Decision(override=...)``). :func:`check` says in words why it cannot
be done, or ``None``; :func:`perform` records it as ``GmOverride`` and the events it makes, each
caused by it, through the fight's own changes (``damage``, ``add_condition``, ``move`` ...), so
the live state and the fold follow through the one state transition (``_live.py``). Where the
seeds are silent the choices are plain and documented here and in ``docs/table.md``:

- ``SetHp``: below the current hit points is damage from the GM (``DamageDealt``, source
  ``gm``), above is healing (``Healed``), at most the combatant's starting hit points; 0 or
  below defeats it as any damage does (``CombatantDefeated``), and the fight may end there. One
  who is down or gone is not brought back (only an ``Undo`` does that).
- ``AddCondition``: only a condition the ruleset declares; with ``rounds`` it ends at the end
  of the round ``rounds - 1`` after the current one (a ``ConditionRemoved`` caused by that
  ``RoundEnded``).
- ``AddCombatant``: a new id, a side of the encounter, a point on the map that is free; it joins
  (``CombatantJoined``) and the ruleset's own hook for late arrivals places it in the initiative
  (every bundled ruleset rolls its initiative and slots it into the order as it stands, the
  GM's reorders kept: see :func:`engine._initiative.roll_initiative`), so it acts from the
  next round on.
- ``RemoveCombatant``: ``CombatantLeft`` with the reason; it no longer counts for any side.
- ``MoveToken``: a point on the map that nobody else standing occupies (closer than
  :data:`CLEARANCE`); no openings and no AP: the GM moves the token, not the combatant.
- ``Reorder``: ``InitiativeOrdered`` with the new order; in the round under way those still to
  act follow it (the turn under way and those done stay as they were), and it holds from the
  next round on.
- ``AddMarker`` / ``RemoveMarker``: free text on a combatant (``MarkerAdded``/``MarkerRemoved``)
  at most ``MARKER_LIMIT`` characters; no rule reads it.
- ``Undo``: the last override not yet undone (the stack is the live state's ``undo``, which
  forks copy), reverted by compensating events caused by it (:func:`_undo`); what happened since
  is kept. Dice and notes are not on the stack.
- ``GmRoll``: ``GmRolled`` with every die, from the stream ``gm/<seq>`` of the log's generator
  (the fight's own dice are not shifted); ``GmNote``: nothing but its ``GmOverride``. A secret
  roll and a note are GM only (``events.gm_only``).

Combatants are named by id or by name, in any case (:func:`resolve`, :func:`find_combatant`):
the recorded override holds the ids, and refusals say the names.

The map is the box around every starting position, :data:`MARGIN` metres wider on each side.
"""

from __future__ import annotations

import difflib
import math
from typing import TYPE_CHECKING

import msgspec
from initiative.events import (
    MARKER_LIMIT,
    NOTE_LIMIT,
    AddCombatant,
    AddCondition,
    AddMarker,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    CombatantSpec,
    EndCondition,
    GmNote,
    GmOverride,
    GmRoll,
    GmRolled,
    Healed,
    IllegalOverrideError,
    InitiativeError,
    InitiativeOrdered,
    MarkerAdded,
    MarkerRemoved,
    MoveToken,
    Override,
    Position,
    RemoveCombatant,
    RemoveMarker,
    Reorder,
    SetHp,
    Undo,
    convert_override,
)

from ._dice import Dice, parse_dice
from ._geometry import distance
from ._live import Undoable
from ._rng import Rng
from ._rules import Mark

if TYPE_CHECKING:
    from ._fight import Fight
    from ._protocol import Drive
    from ._ruleset import Ruleset

MARGIN = 30.0
"""How far beyond the starting positions the map reaches, in metres."""

CLEARANCE = 0.5
"""A point closer than this to someone else standing is occupied, in metres."""

NAME_LIMIT = 40
"""The longest id or name the GM may give a newcomer, in characters."""


def map_box(fight: Fight) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)``: the battle map, around every starting position."""
    xs = [c.position.x for c in fight.encounter.combatants]
    ys = [c.position.y for c in fight.encounter.combatants]
    return (min(xs) - MARGIN, min(ys) - MARGIN, max(xs) + MARGIN, max(ys) + MARGIN)


def _point_problem(fight: Fight, where: Position, who: str | None) -> str | None:
    if not (math.isfinite(where.x) and math.isfinite(where.y)):
        return "a point needs two finite numbers"
    x0, y0, x1, y1 = map_box(fight)
    if not (x0 <= where.x <= x1 and y0 <= where.y <= y1):
        return f"{where} is off the map ({x0:g}..{x1:g} by {y0:g}..{y1:g} m)"
    return _occupied(fight, where, who)


def _occupied(
    fight: Fight, where: Position, who: str | None, clearance: float = CLEARANCE
) -> str | None:
    """Why ``who`` cannot stand at ``where`` for someone else standing nearer than
    ``clearance``, or ``None``."""
    for c in fight.state.combatants.values():
        if c.id != who and c.standing and distance(c.position, where) < clearance:
            return f"{where} is occupied by {name_of(fight, c.id)}"
    return None


def short(text: str, most: int = 60) -> str:
    """``text`` cut after ``most`` characters (a name or a marker of 10,000 characters is
    still refused in one short line)."""
    return text if len(text) <= most else text[:most] + "…"


def quoted(text: str, most: int = 60) -> str:
    """``text`` as a refusal quotes it: in quotes, cut after ``most`` characters."""
    return repr(short(text, most))


def name_of(fight: Fight, who: str) -> str:
    """``who``'s display name (its id when it has none), as refusals and the table say it."""
    spec = fight.queries.specs_by_id.get(who)
    return spec.display if spec is not None else who


def find_combatant(fight: Fight, text: str) -> str:
    """The id of the combatant ``text`` names: its id, or (case-insensitive) its id or its
    name. Raises :class:`IllegalOverrideError` in one line: none matches (with "did you mean"),
    or the name is two combatants' (naming both)."""
    ids = list(fight.state.combatants)
    if text in fight.state.combatants:
        return text
    folded = text.strip().casefold()
    found = [k for k in ids if folded in (k.casefold(), name_of(fight, k).casefold())]
    if len(found) == 1:
        return found[0]
    if found:
        both = ", ".join(f"{name_of(fight, k)} ({k})" for k in found)
        raise IllegalOverrideError(f"{quoted(text)} is {len(found)} combatants: {both}; use an id")
    words = {k.casefold(): k for k in ids}
    words.update({name_of(fight, k).casefold(): k for k in ids})
    close = difflib.get_close_matches(folded, list(words), n=3, cutoff=0.75)
    hint = dict.fromkeys(words[w] for w in close)
    guess = " or ".join(f"{name_of(fight, k)} ({k})" for k in hint)
    raise IllegalOverrideError(
        f"no combatant {quoted(text)}"
        + (f"; did you mean {guess}?" if guess else "; gm who lists them")
    )


def declared_conditions(ruleset: Ruleset | type[Ruleset]) -> tuple[str, ...]:
    """The conditions ``ruleset`` declares that the GM can name in an ``AddCondition``, in
    the ruleset's order (``()`` for one that declares none, as openings). One that names
    something reads ``disarmed:WEAPON``: the GM puts the thing after the colon. Left out: a
    condition whose wire form is free text (thriller's special conditions) and one whose wire
    form is its own (tactical's ``dropped:WEAPON@X,Y``, where a flung weapon lies)."""
    names = []
    for kind in ruleset.conditions:
        fields = msgspec.structs.fields(kind)
        if not kind.name:
            continue
        if not fields:
            names.append(kind.name)
        elif len(fields) == 1 and fields[0].type is str and kind.wire is Mark.wire:
            names.append(kind.name + kind.sep + fields[0].name.upper())
    return tuple(names)


def condition_names(fight: Fight) -> list[str]:
    """The conditions the fight's ruleset declares, as the GM types them."""
    return list(declared_conditions(fight.ruleset))


def _present(fight: Fight, who: str) -> str | None:
    """Why ``who`` cannot be the subject of an override, or ``None``."""
    c = fight.state.combatants.get(who)
    if c is None:
        return f"no combatant {who!r} in the fight"
    if c.left:
        return f"{name_of(fight, who)} has left the fight"
    return None


def _standing(fight: Fight, who: str) -> str | None:
    problem = _present(fight, who)
    if problem is None and fight.state.combatants[who].defeated:
        return f"{name_of(fight, who)} is down"
    return problem


def _new_spec(fight: Fight, o: AddCombatant) -> CombatantSpec | str:
    """The joiner's spec, or why there is none."""
    if not o.id or not o.id.strip() or not o.id.isprintable():
        return "a new combatant needs an id"
    if o.id in fight.state.combatants or any(c.id == o.id for c in fight.encounter.combatants):
        return f"there is already a combatant {o.id!r}"
    if (o.like is None) == (o.combatant is None):
        return "a new combatant needs either like (an id) or a combatant table, not both"
    if o.like is not None:
        if o.like not in fight.state.combatants:
            return f"no combatant {o.like!r} to copy"  # (resolved by then: not reached)
        base = fight.queries.specs_by_id[o.like]
        here = fight.state.combatants[o.like].position
    else:
        assert o.combatant is not None
        base = o.combatant
        here = base.position
    side = o.side if o.side is not None else base.side
    if side not in fight.encounter.sides:
        sides = ", ".join(fight.encounter.sides)
        return f"no side {quoted(side)} in the encounter (sides: {sides})"
    if o.at is not None:
        where = Position(round(o.at.x, 2), round(o.at.y, 2))
    elif o.like is not None:
        where = _beside(fight, here)
    else:
        where = here  # the table's own position
    spec = msgspec.structs.replace(
        base,
        id=o.id,
        name=o.name if o.name is not None else (o.id if o.like is not None else base.name),
        side=side,
        position=where,
        arrives=1,
        count=1,
        group=None,
        initiative_roll=None,
        surprised=False,
    )
    for label in dict.fromkeys((spec.id, spec.display)):
        if not label.strip() or not label.isprintable():
            return "a new combatant's name needs printable text"
        if len(label) > NAME_LIMIT:
            return f"a new combatant's id or name has at most {NAME_LIMIT} characters"
        clash = [
            k
            for k in fight.state.combatants
            if label.casefold() in (k.casefold(), name_of(fight, k).casefold())
        ]
        if clash:
            k = clash[0]
            return f"{quoted(label)} is already {name_of(fight, k)} ({k}): choose another name"
    try:
        fight.ruleset.check_combatant(spec, name="the new combatant")
    except Exception as err:  # the ruleset's own words on what is wrong with the table
        return str(err)
    return spec


def _beside(fight: Fight, here: Position) -> Position:
    """The first free point next to ``here``: a metre east, west, north, south, then further."""
    for step in range(1, 20):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)):
            p = Position(round(here.x + dx * step, 2), round(here.y + dy * step, 2))
            if _point_problem(fight, p, None) is None:
                return p
    return here


def as_override(fight: Fight, obj: object) -> Override:
    """The override ``obj`` stands for (an :class:`Override`, or its JSON object as a dict).

    An ``AddCombatant``'s ``combatant`` table is read as the encounter file's (the ruleset's
    own keys lifted into its options, as ``load_encounter`` does) and recorded normalized.
    Raises :class:`IllegalOverrideError` naming what is wrong."""
    if isinstance(obj, dict) and obj.get("type") == "AddCombatant":
        table = obj.get("combatant")
        if isinstance(table, dict):
            from ._encounter import decode_encounter

            table = {**table, "id": obj.get("id", table.get("id"))}
            # Read with the encounter (normalized already: reading it again changes nothing),
            # so the checks that need the whole of it (sides, ids) are made too.
            data = msgspec.to_builtins(fight.encounter)
            data["combatants"] = [*data["combatants"], table]
            try:
                spec = decode_encounter(data, name="the new combatant").combatants[-1]
            except InitiativeError as err:
                raise IllegalOverrideError(str(err)) from None
            obj = {**obj, "combatant": msgspec.to_builtins(spec)}
    try:
        return convert_override(obj)
    except (TypeError, ValueError) as err:  # msgspec.ValidationError is a ValueError
        raise IllegalOverrideError(f"not an override: {err}") from None


def resolve(fight: Fight, o: Override) -> Override:
    """``o`` as it is recorded: combatants named by their ids (a name or an id in any case is
    accepted), a marker removed as it was put on, an ``Undo`` naming the override it undoes.
    Raises :class:`IllegalOverrideError` in one line when a name matches none or several."""
    changes: dict[str, object] = {}
    for field in ("who", "before", "like"):
        text = getattr(o, field, None)
        if isinstance(text, str):
            found = find_combatant(fight, text)
            if found != text:
                changes[field] = found
    if changes:
        o = msgspec.structs.replace(o, **changes)
    if isinstance(o, RemoveMarker):
        held = fight.state.combatants[o.who].markers
        same = [m for m in held if m.casefold() == o.text.strip().casefold()]
        if same and same[0] != o.text:
            o = msgspec.structs.replace(o, text=same[0])
    if isinstance(o, AddMarker) and o.text != o.text.strip():
        o = msgspec.structs.replace(o, text=o.text.strip())
    if isinstance(o, Undo) and o.seq is None and fight.state.undo:
        o = Undo(seq=fight.state.undo[-1].seq)
    return o


def check(fight: Fight, o: Override) -> str | None:
    """Why the GM cannot do ``o`` now (in words), or ``None`` when it can be done."""
    if fight.state.ended:
        return "the fight is over"
    try:
        o = resolve(fight, o)
    except IllegalOverrideError as err:
        return str(err)
    match o:
        case AddMarker(who=who, text=text):
            problem = _present(fight, who)
            if problem is not None:
                return problem
            if not text or not text.isprintable():
                return "a marker is a word or a short phrase of printable text"
            if len(text) > MARKER_LIMIT:
                return f"a marker has at most {MARKER_LIMIT} characters (this one has {len(text)})"
            if any(m.casefold() == text.casefold() for m in fight.state.combatants[who].markers):
                return f"{name_of(fight, who)} is marked {text!r} already"
            return None
        case RemoveMarker(who=who, text=text):
            problem = _present(fight, who)
            held = fight.state.combatants[who].markers if problem is None else ()
            if problem is None and text not in held:
                marks = ", ".join(repr(m) for m in held) or "none"
                return f"{name_of(fight, who)} has no marker {quoted(text)} (markers: {marks})"
            return problem
        case Undo(seq=seq):
            stack = fight.state.undo
            if not stack:
                return "nothing to undo"
            if seq != stack[-1].seq:
                return f"only the last override not yet undone (#{stack[-1].seq}) can be undone"
            return None
        case GmRoll(expr=expr):
            dice = gm_dice(expr)
            return dice if isinstance(dice, str) else None
        case GmNote(text=text):
            if not text.strip() or not text.isprintable():
                return "a note is a line of printable text"
            if len(text) > NOTE_LIMIT:
                return f"a note has at most {NOTE_LIMIT} characters (this one has {len(text)})"
            return None
        case SetHp(who=who, hp=hp):
            problem = _standing(fight, who)
            if problem is None and hp > fight.state.combatants[who].max_hp:
                most = fight.state.combatants[who].max_hp
                return f"{name_of(fight, who)} has at most {most} hit points"
            return problem
        case AddCondition(who=who, condition=condition, rounds=rounds):
            problem = _standing(fight, who)
            if problem is not None:
                return problem
            if fight.rules.parse_condition(condition) is None:
                known = condition_names(fight)
                if not known:
                    return (
                        f"the {fight.ruleset.name} ruleset declares no conditions;"
                        f" a GM marker (gm mark) says {quoted(condition)} instead"
                    )
                return (
                    f"the {fight.ruleset.name} ruleset has no condition {quoted(condition)}"
                    f" (conditions: {', '.join(known)})"
                )
            if condition in fight.state.combatants[who].conditions:
                return f"{name_of(fight, who)} is {condition} already"
            if rounds is not None and rounds < 1:
                return "rounds must be 1 or more (or null: until it is ended)"
            return None
        case EndCondition(who=who, condition=condition):
            problem = _present(fight, who)
            if problem is None and condition not in fight.state.combatants[who].conditions:
                has = ", ".join(fight.state.combatants[who].conditions) or "none"
                return f"{name_of(fight, who)} is not {short(condition)} (conditions: {has})"
            return problem
        case AddCombatant():
            spec = _new_spec(fight, o)
            if isinstance(spec, str):
                return spec
            return _point_problem(fight, spec.position, None)
        case RemoveCombatant(who=who, reason=reason):
            if not reason.strip() or not reason.isprintable():
                return "a reason in a word or two"
            return _present(fight, who)
        case MoveToken(who=who, to=to):
            return _standing(fight, who) or _point_problem(fight, to, who)
        case Reorder(who=who, before=before):
            if who not in fight.state.order:
                return f"{name_of(fight, who)} is not in the initiative order"
            if before is not None and before not in fight.state.order:
                return f"{name_of(fight, before)} is not in the initiative order"
            if before == who:
                return "a combatant cannot go before itself"
            return None
    return f"unknown override {type(o).__name__}"  # pragma: no cover - the union is closed


def perform(fight: Fight, o: Override, granted: int | None) -> Drive:
    """Record ``o`` (checked) and what it does, caused by it; its ``GmOverride`` seq."""
    o = resolve(fight, o)
    undone = fight.state.undo[-1] if isinstance(o, Undo) else None
    seq = fight.emit(GmOverride(override=o), cause=granted)  # type: ignore[arg-type]
    with fight.caused_by(seq):
        match o:
            case Undo():
                assert undone is not None
                _undo(fight, undone)
            case AddMarker(who=who, text=text):
                fight.emit(MarkerAdded(who=who, text=text))
            case RemoveMarker(who=who, text=text):
                fight.emit(MarkerRemoved(who=who, text=text))
            case GmRoll(expr=expr, secret=secret):
                dice = gm_dice(expr)
                assert isinstance(dice, Dice)
                faces, total = dice.roll(Rng(fight.seed, f"gm/{seq}"))
                fight.emit(
                    GmRolled(
                        expr=str(dice),
                        dice=faces,
                        modifier=dice.modifier,
                        total=total,
                        gm_only=secret,
                    )
                )
            case GmNote():
                pass  # the note is the GmOverride's own
            case SetHp(who=who, hp=hp):
                now = fight.state.combatants[who].hp
                if hp < now:
                    fight.recorder.damage(who, now - hp, source="gm")
                elif hp > now:
                    fight.emit(Healed(who=who, amount=hp - now, hp=hp))
            case AddCondition(who=who, condition=condition, rounds=rounds):
                until = "" if rounds is None else f"end of round {until_round(fight, rounds)}"
                fight.recorder.add_condition(who, condition, until)
            case EndCondition(who=who, condition=condition):
                fight.recorder.remove_condition(who, condition)
            case AddCombatant():
                spec = _new_spec(fight, o)
                assert not isinstance(spec, str)
                q = fight.queries
                q.specs_by_id = {**q.specs_by_id, spec.id: spec}  # (shared: never changed)
                fight.join(spec, fight.state.round)
                yield from fight.ruleset.arrive(fight.rules, [spec.id])
            case RemoveCombatant(who=who, reason=reason):
                fight.emit(CombatantLeft(who=who, reason=reason))
            case MoveToken(who=who, to=to):
                fight.recorder.move(who, Position(round(to.x, 2), round(to.y, 2)))
            case Reorder(who=who, before=before):
                _reorder(fight, who, before)
    return seq


def _reorder(fight: Fight, who: str, before: str | None) -> None:
    order = [k for k in fight.state.order if k != who]
    at = order.index(before) if before in order else len(order)
    order.insert(at, who)
    fight.emit(InitiativeOrdered(order=tuple(order)))
    _reorder_rest_of_round(fight, order)


DICE_LIMIT = 40
"""The longest dice expression the GM may roll, in characters."""


def gm_dice(expr: str) -> Dice | str:
    """The dice the GM asked for, or why they cannot be rolled (in one line)."""
    if len(expr) > DICE_LIMIT or not expr.isprintable():
        return f"not a dice expression: {expr[:DICE_LIMIT]!r}... (e.g. 2d6+1)"
    try:
        dice = parse_dice(expr)
    except InitiativeError as err:
        return str(err)
    if dice.sides == 0:
        return f"no dice in {expr!r} (e.g. 2d6+1)"
    if abs(dice.modifier) > 1000:
        return f"a modifier of at most 1000 (not {dice.modifier}) in {expr!r}"
    return dice


def _back_in_order(fight: Fight, who: str) -> None:
    """One brought back whom a ruleset dropped from the order meanwhile (percentile drops
    those down when someone arrives) rolls again and is slotted in, as a late arrival is."""
    if who not in fight.state.order and fight.state.combatants[who].standing:
        fight.rules.roll_initiative([who], insert=True)
        _reorder_rest_of_round(fight, list(fight.state.order))


def _undo(fight: Fight, undone: Undoable) -> None:
    """The compensating events for ``undone``: what it changed, changed back as far as it
    still stands (what happened since is kept)."""
    o, before = undone.override, undone.before
    state = fight.state
    match o:
        case SetHp(who=who, hp=hp) if isinstance(before, int):
            c = state.combatants[who]
            if c.left or (c.defeated and hp > 0):
                return  # gone, or downed since by the fight: the GM's change no longer counts
            new = min(c.max_hp, c.hp + before - hp)
            if new > c.hp:
                fight.emit(Healed(who=who, amount=new - c.hp, hp=new))
                if c.defeated and new > 0:
                    fight.emit(CombatantRevived(who=who))
                    _back_in_order(fight, who)
            elif new < c.hp:
                fight.recorder.damage(who, c.hp - new, source="gm")
        case AddCondition(who=who, condition=condition):
            fight.recorder.remove_condition(who, condition)
        case EndCondition(who=who, condition=condition):
            if condition not in state.combatants[who].conditions:
                until = "" if not isinstance(before, int) else f"end of round {before}"
                fight.recorder.add_condition(who, condition, until)
        case AddCombatant(id=new):
            if not state.combatants[new].left:
                fight.emit(CombatantLeft(who=new, reason="undone"))
        case RemoveCombatant(who=who):
            if state.combatants[who].left:
                fight.emit(CombatantReturned(who=who))
                _back_in_order(fight, who)
        case MoveToken(who=who) if isinstance(before, Position):
            if state.combatants[who].standing:
                # Back where it stood, unless someone stands there now who did not then (the
                # rules may have let a neighbour stand nearer than the clearance); a token the
                # fight had taken past the map's edge (drawn around the starting positions)
                # goes back there too.
                clear = min(CLEARANCE, undone.gap - 0.01)
                back = before if _occupied(fight, before, who, clear) is None else None
                fight.recorder.move(who, back or _beside(fight, before))
        case Reorder(who=who):
            if who in state.order:
                _reorder(fight, who, before if isinstance(before, str) else None)
        case AddMarker(who=who, text=text):
            if text in state.combatants[who].markers:
                fight.emit(MarkerRemoved(who=who, text=text))
        case RemoveMarker(who=who, text=text):
            if text not in state.combatants[who].markers:
                after = before if isinstance(before, str) else None
                fight.emit(MarkerAdded(who=who, text=text, before=after))


def _reorder_rest_of_round(fight: Fight, order: list[str]) -> None:
    """Those still to act in the round under way follow the new order, in the places they
    held (the turn under way, those done, and any the order dropped, a ruleset's fallen, stay
    where they were)."""
    _, current, index = fight._place
    rest = current[index + 1 :]
    placed = set(order)
    moved = iter([k for k in order if k in rest])
    current[index + 1 :] = [next(moved) if k in placed else k for k in rest]


def until_round(fight: Fight, rounds: int) -> int:
    """The round at whose end a condition lasting ``rounds`` rounds from now ends."""
    return max(fight.state.round, 1) + rounds - 1
