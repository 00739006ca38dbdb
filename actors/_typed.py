"""Moves to a chosen point, typed: ``x,y``, ``toward NAME 3 m``, ``away from NAME 2 m``.

A person may move anywhere the rules allow, not only to the two points the offers name (toward
the nearest enemy, away from it). :func:`move_offer` finds the ruleset's move action among the
offers (the first action offered whose unit moves one to a chosen point: a ``Move``, or tactical's
``Dash`` when the base movement is spent) and says how far it reaches; it is the ``move`` of the presentation, so ``join`` and the browser can build the
action for a typed or clicked point without knowing rulesets. :func:`typed_point` turns what was
typed into the point. The point is sent as that action with its ``to`` replaced, and the
ruleset's own check decides: a refusal is the rules' reason, recorded as ``ActionRejected``.
The offers stay what every policy sees.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from initiative.engine import (
    ActionUnit,
    View,
    away,
    distance,
    find_ruleset,
    toward,
)
from initiative.events import Action, CombatantSpec, InitiativeError, Position, visible

if TYPE_CHECKING:
    from ._screen import Names


def moves_of(ruleset: str) -> tuple[ActionUnit[Any], ...]:
    """The units of the actions that move oneself to a point of one's choosing
    (``ActionUnit.to_point``), in the order the ruleset lists them: the plain move, then (in
    tactical) a Dash, offered when the base movement is spent. thriller's ``Flee`` (a
    full-round flight) and reactions that step aside are offers only."""
    try:
        units = find_ruleset(ruleset).units
    except InitiativeError:
        return ()
    return tuple(u for u in units if u.to_point)


class Placed(Protocol):
    """Anyone on the map: a combatant's state, or a :class:`Spot`."""

    @property
    def id(self) -> str: ...

    @property
    def position(self) -> Position: ...


class Naming(Protocol):
    """Display names by id, and one's melee reach (:class:`~actors.Names` is one)."""

    def __call__(self, who: str | None) -> str: ...

    def reach(self, who: str) -> float: ...


class Known:
    """:class:`Naming` for a seat that has no encounter (a served seat hears no raw news): the
    names its screen shows, and the reach of its own weapons."""

    def __init__(self, names: Mapping[str, str], me: CombatantSpec) -> None:
        self.names = dict(names)
        self.me = me

    def __call__(self, who: str | None) -> str:
        return "someone" if who is None else self.names.get(who, visible(who))

    def reach(self, who: str) -> float:
        reaches = [w.reach for w in self.me.weapons if w.range is None]
        return max(reaches, default=1.5)


class Spot(msgspec.Struct, frozen=True):
    """Who stands where, and nothing else: what a client reads from a priority frame's view
    (whose hidden numbers are ``null``) to aim a typed move."""

    id: str
    position: Position


class MoveOffer(msgspec.Struct, frozen=True, kw_only=True):
    """The move a person may aim at a point of their choosing (the presentation's ``move``)."""

    type: str
    """The action's type in the log's encoding (``Move``, ``tactical.Dash``)."""
    max: float
    """Metres reachable now: as far as the offers of that action go (they go as far as the
    rules allow, away from the nearest enemy), rounded down to centimetres."""
    action: dict[str, Any]
    """An example action object in the log's encoding: the farthest offered; replace its
    ``to`` (``[x, y]``, metres) with the point chosen."""


def move_offer(view: View) -> MoveOffer | None:
    """The move to a point ``view`` allows, or ``None`` when no move is offered."""
    here = view.me.position
    for unit in moves_of(view.ruleset):
        offered = [o.action for o in view.legal if type(o.action) is unit.action]
        if not offered:
            continue
        farthest = max(offered, key=lambda a: distance(here, _to(a)))
        reach = unit.aimed_reach(distance(here, _to(farthest)), view.spec.speed)
        return MoveOffer(
            type=_tag(farthest),
            max=math.floor(reach * 100 + 1e-6) / 100,
            action=msgspec.to_builtins(farthest),
        )
    return None


def _to(action: Action) -> Position:
    to = getattr(action, "to", None)
    assert isinstance(to, Position)
    return to


def _tag(action: Action) -> str:
    return str(msgspec.to_builtins(action)["type"])


def typed_move(text: str, view: View, names: Names, move: MoveOffer) -> Action:
    """The ruleset's move action (``move``'s) to the point ``text`` names (see
    :func:`typed_point`; raises :class:`NotAMove` as it does)."""
    to = typed_point(text, view.me, (*view.enemies, *view.allies), names, move)
    example = next(
        o.action
        for o in view.legal
        if "to" in o.action.__struct_fields__ and _tag(o.action) == move.type
    )
    return msgspec.structs.replace(example, to=to)


def move_frame(move: MoveOffer, to: Position) -> dict[str, Any]:
    """The action object (log encoding) for a move to ``to``, as a decision frame carries it."""
    return {**move.action, "to": [to.x, to.y]}


def move_hint(move: MoveOffer) -> str:
    """One line saying what may be typed to move (shown under the offers)."""
    return (
        f'Or type a point to move to: "x,y" (metres), "toward NAME", "toward NAME 3 m" or'
        f' "away from NAME 2 m" (up to {move.max:g} m now).'
    )


MOVE_HELP = """\
To move to a point of your choosing, type it: "3,1.5" (x,y in metres), "toward Bo" (as far as
allowed, stopping within reach), "toward Bo 2 m", "away from Bo" (as far as allowed) or
"away from Bo 3 m". The rules check the move like any other; if they refuse it, you are told why
and asked again (three refusals in a row end the decision, as for any policy)."""


_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_POINT = re.compile(rf"^\(?\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*\)?$")
_WORDS = re.compile(r"^(toward|towards|away\s+from|away)\s+(.+)$", re.I)
_METRES = re.compile(rf"^(.*?)\s+({_NUMBER})\s*(?:m|metres?|meters?)?$", re.I)


class NotAMove(Exception):
    """Typed text that reads as a move but names no point (an unknown name, a bad distance):
    its message says what is wrong, in words."""


def looks_like_move(text: str) -> bool:
    """Whether ``text`` is meant as a move (a point, or ``toward``/``away``)."""
    text = text.strip()
    return bool(_POINT.match(text) or _WORDS.match(text))


def typed_point(
    text: str,
    me: Placed,
    others: Sequence[Placed],
    names: Naming,
    move: MoveOffer,
) -> Position:
    """The point ``text`` names, for ``me`` among the ``others`` it sees.

    ``x,y`` is that point; ``toward NAME`` goes as far as ``move`` reaches but stops within
    one's melee reach of NAME, ``away from NAME`` as far as it reaches; either with a distance
    (``3 m``, ``3``) goes that far. Raises :class:`NotAMove` with the reason (a misspelled
    name gets a suggestion); whether the rules allow the point is theirs to say."""
    text = text.strip()
    if point := _POINT.match(text):
        x, y = float(point.group(1)), float(point.group(2))
        if not (math.isfinite(x) and math.isfinite(y)):
            raise NotAMove(f"{text!r} is not a point on the map")
        return Position(x, y)
    words = _WORDS.match(text)
    if words is None:
        raise NotAMove(f"{text!r} is not a point: type x,y, toward NAME or away from NAME")
    verb = "toward" if words.group(1).lower().startswith("toward") else "away from"
    there, metres = _named(words.group(2), others, names)
    who = there.id
    here = me.position
    gap = distance(here, there.position)
    if metres is not None and not (math.isfinite(metres) and metres > 0):
        raise NotAMove(f"{metres:g} m is no distance to move")
    if verb == "away from":
        return away(here, there.position, move.max if metres is None else metres)
    if metres is None:
        stop = max(0.5, names.reach(me.id) - 0.25)
        metres = min(move.max, gap - stop)
        if metres <= 0:
            raise NotAMove(f"{names(who)} is already within your reach ({gap:.1f} m away)")
    elif metres > gap:
        raise NotAMove(f"{names(who)} is only {gap:.1f} m away: to go past them, type a point x,y")
    return toward(here, there.position, metres)


def _named(text: str, others: Sequence[Placed], names: Naming) -> tuple[Placed, float | None]:
    """The combatant ``text`` names (and the distance after the name, if any)."""
    known: dict[str, Placed] = {}
    for c in others:
        known[names(c.id).casefold()] = c
        known.setdefault(c.id.casefold(), c)
    found = known.get(text.strip().casefold())
    if found is not None:
        return found, None
    if (tail := _METRES.match(text)) and (found := known.get(tail.group(1).strip().casefold())):
        return found, float(tail.group(2))
    name = tail.group(1).strip() if tail else text.strip()
    close = difflib.get_close_matches(name.casefold(), list(known), n=1, cutoff=0.5)
    hint = f"; did you mean {names(known[close[0]].id)}?" if close else ""
    raise NotAMove(f"no one called {name!r} is in sight{hint}")
