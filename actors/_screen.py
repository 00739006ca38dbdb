"""What a person deciding for a combatant reads: one presentation of the decision, in words.

:func:`present` turns a :class:`~engine.View` (and the encounter, for names and weapons) into a
:class:`Presentation`: plain data with no terminal in it, which every front end draws, so the
``human`` policy on this terminal, ``join`` across the network and the browser seat show the
same decision in the same words. Names, never ids; each offer in words with its AP cost; moves
with their distance and direction; an opening with what it reacts to; one's own state and what
one sees of the others. :func:`render` draws it as text; :func:`table_of` is the same state
table between decisions, from the fold of the log. Text from the encounter file is shown
literally, control characters made visible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import msgspec
from initiative.engine import (
    ActionUnit,
    CombatantState,
    EncounterState,
    View,
    distance,
    find_ruleset,
)
from initiative.events import (
    Action,
    AddCombatant,
    CombatantSpec,
    EncounterSpec,
    EndTurn,
    Event,
    GmOverride,
    InitiativeError,
    Offer,
    Pass,
    Position,
    Trigger,
    visible,
)

from ._typed import MoveOffer, move_offer
from ._words import condition_words as said_condition, trigger_words

HELP = """\
Type the number of an offer and press Enter.
  ?   this help        s   the situation again
An attack names its target and weapon; a move says how far it goes and toward or away from whom.
In your turn the last offer ends it; in an opening (a chance to react to what someone just
did) the last offer lets it pass. Ctrl-C stops the fight: `initiative resume LOG` goes on
later, and nothing already decided is asked again."""


#: How a combatant stands to the one deciding: itself, on its side, against it, or ``""``
#: for a spectator (who sees everyone alike).
Role = Literal["you", "ally", "enemy", ""]


class Seen(msgspec.Struct, frozen=True, kw_only=True):
    """One combatant as the seat sees it."""

    id: str
    """Its id: for a front end's keys, never shown."""
    name: str
    """Its display name, control characters made visible."""
    side: str
    role: Role
    health: str
    """Hit points in words: ``unhurt``, ``hurt`` (below its most), ``bloodied``
    (at or below half), ``down``, ``gone``."""
    hp: int | None = None
    """Hit points, when the seat may see them (its own and its allies'; everyone's for a
    spectator); ``None`` otherwise."""
    max_hp: int | None = None
    ap: int | None = None
    """Action points, when the seat may see them (as ``hp``)."""
    conditions: tuple[str, ...] = ()
    """Conditions in words (``in cover``, ``disarmed (axe)``)."""
    distance: float | None = None
    """Metres from the one deciding (``None`` for itself and for a spectator)."""
    standing: bool = True
    acting: bool = False
    """It holds the turn."""

    def status(self) -> str:
        """``14 of 14 hp`` for a number the seat sees, else the health in words."""
        if self.hp is not None and self.max_hp is not None and self.standing:
            return f"{self.hp} of {self.max_hp} hp"
        return self.health


class Choice(msgspec.Struct, frozen=True, kw_only=True):
    """One offer in words."""

    number: int
    """What to type (1-based); the offer's index is ``number - 1``."""
    text: str
    """The action in words: ``Move 3.2 m toward Goblin 2``."""
    cost: int
    """AP it spends."""
    kind: Literal["attack", "defence", "move", "end", "other"] = "other"
    """A hint for styling."""

    def line(self) -> str:
        """``2. Attack Bo with the sword, 2 AP``."""
        return f"{self.number}. {self.text}" + (f", {self.cost} AP" if self.cost else "")


class Presentation(msgspec.Struct, frozen=True, kw_only=True):
    """One decision as every screen shows it."""

    who: str
    """The id of the combatant deciding."""
    name: str
    round: int
    window: Literal["turn", "opening"]
    heading: str
    """``Round 2: Ana, your turn.`` or ``Round 2: Ana, a chance to react: Bo attacks you.``"""
    reacting_to: str | None = None
    """In an opening, what it reacts to (``Bo attacks you with the axe``)."""
    notes: tuple[str, ...] = ()
    """The situation, a sentence each: own state, who is in reach, who threatens whom, allies."""
    offers: tuple[Choice, ...] = ()
    combatants: tuple[Seen, ...] = ()
    """Itself first, then its allies, then the enemies it sees, nearest first."""
    move: MoveOffer | None = None
    """The move to a point of one's choosing (``None``: no move is offered)."""


class StateTable(msgspec.Struct, frozen=True, kw_only=True):
    """The state of the fight as a seat sees it between decisions."""

    seq: int
    """The last event folded in."""
    round: int
    turn: str | None = None
    """The name of whoever holds the turn."""
    combatants: tuple[Seen, ...] = ()
    """In initiative order; the fallen stay, marked ``down``."""
    winner: str | None = None
    ended: bool = False


class Names:
    """Display names and static descriptions by combatant id."""

    def __init__(self, encounter: EncounterSpec) -> None:
        self.specs: Mapping[str, CombatantSpec] = {c.id: c for c in encounter.combatants}

    def __call__(self, who: str | None) -> str:
        if who is None:
            return "someone"
        spec = self.specs.get(who)
        return visible(spec.display if spec is not None else who)

    def learn(self, event: Event) -> None:
        """Learn the name of a combatant the GM brings in (the header does not know it), so
        screens and the table's state say "Goblin 3", not "goblin3"; named as the engine names
        the joiner (``engine/_gm.py``)."""
        if isinstance(event, GmOverride) and isinstance(event.override, AddCombatant):
            o = event.override
            base = o.combatant or self.specs.get(o.like or "")
            if base is not None:
                name = o.name if o.name is not None else (o.id if o.like is not None else base.name)
                self.specs = {**self.specs, o.id: msgspec.structs.replace(base, id=o.id, name=name)}

    def reach(self, who: str) -> float:
        """The longest melee reach of ``who``'s weapons (1.5 m unarmed)."""
        spec = self.specs.get(who)
        reaches = [w.reach for w in (spec.weapons if spec else ()) if w.range is None]
        return max(reaches, default=1.5)


def _weapon(spec: CombatantSpec, name: str | None) -> str:
    if name is not None:
        return visible(name)
    return visible(spec.weapons[0].name) if spec.weapons else "bare hands"


def health(c: CombatantState) -> str:
    """Hit points in words, as an enemy sees them."""
    if c.left:
        return "gone"
    if c.defeated or c.hp <= 0:
        return "down"
    if c.hp >= c.max_hp:
        return "unhurt"
    return "hurt" if c.hp * 2 > c.max_hp else "bloodied"


def condition_words(condition: str, names: Names) -> str:
    """``in_cover`` -> ``in cover``; ``blinded_by:gob`` -> ``blinded by Goblin``;
    ``disarmed:axe`` -> ``disarmed (axe)`` (the words every narration says it in)."""
    return said_condition(condition, names)


def seen(
    c: CombatantState,
    names: Names,
    role: Role,
    *,
    at: Position | None = None,
    acting: str | None = None,
) -> Seen:
    """``c`` as seen by a combatant at ``at`` (``None``: by a spectator); enemies' hit points
    and AP are shown in words only."""
    numbers = role != "enemy"
    return Seen(
        id=c.id,
        name=names(c.id),
        side=visible(c.side),
        role=role,
        health=health(c),
        hp=c.hp if numbers else None,
        max_hp=c.max_hp if numbers else None,
        ap=c.ap if numbers else None,
        conditions=tuple(condition_words(x, names) for x in c.conditions),
        distance=None if at is None or role == "you" else round(distance(at, c.position), 1),
        standing=c.standing,
        acting=c.id == acting,
    )


# -- offers in words ---------------------------------------------------------------------


def _toward(view: View, names: Names, to: Position) -> str:
    """``3.2 m toward Bo (then 1.3 m from them)``, relative to the nearest enemy."""
    gap = distance(view.me.position, to)
    nearest = view.nearest_enemy()
    if nearest is None:
        return f"{gap:.1f} m"
    before, after = view.distance_to(nearest), distance(to, nearest.position)
    word = "toward" if after < before else "away from"
    return f"{gap:.1f} m {word} {names(nearest.id)} (then {after:.1f} m from them)"


class _Say:
    """What an action's unit words an offer with, on this seat's screen."""

    def __init__(self, view: View, names: Names) -> None:
        self._view = view
        self._names = names
        self.actor: str | None = view.me.id
        self.trigger: Trigger | None = view.window.trigger

    def name(self, who: str | None) -> str:
        return self._names(who)

    def known(self, text: str) -> bool:
        return text in self._names.specs

    def weapon(self, name: str | None) -> str:
        return _weapon(self._view.spec, name)

    def point(self, to: Position) -> str:
        return _toward(self._view, self._names, to)


#: The words of an action no unit of the fight's ruleset owns (one a script sent, say).
_PLAIN: ActionUnit[Action] = ActionUnit()


def unit_for(ruleset: str, action: Action) -> ActionUnit[Any]:
    """The unit that words ``action`` in a fight of ``ruleset``: found through the ruleset's
    registry, so an installed ruleset's actions read as well as the bundled ones."""
    try:
        unit = find_ruleset(ruleset).unit_of(type(action))
    except InitiativeError:
        unit = None
    return unit if unit is not None else _PLAIN


def describe_action(action: Action, view: View, names: Names) -> str:
    """One offer's action in plain words (its unit's)."""
    if isinstance(action, EndTurn):
        return "End your turn"
    if isinstance(action, Pass):
        return "Let it pass"
    return unit_for(view.ruleset, action).offered(action, _Say(view, names))


def _kind(action: Action) -> Literal["attack", "defence", "move", "end", "other"]:
    if isinstance(action, (EndTurn, Pass)):
        return "end"
    if action.is_attack:
        return "attack"
    if action.is_defence or action.is_guard:
        return "defence"
    if "to" in action.__struct_fields__:
        return "move"
    return "other"


def choice(number: int, offer: Offer, view: View, names: Names) -> Choice:
    return Choice(
        number=number,
        text=describe_action(offer.action, view, names),
        cost=offer.cost,
        kind=_kind(offer.action),
    )


def describe_offer(number: int, offer: Offer, view: View, names: Names) -> str:
    return choice(number, offer, view, names).line()


# -- the situation -----------------------------------------------------------------------


def _threats(view: View, names: Names) -> list[str]:
    """Who can strike whom right now (everyone within an enemy's melee reach)."""
    me = view.me
    friends: list[CombatantState] = [me, *view.allies]
    lines = []
    for enemy in view.enemies:
        reach = names.reach(enemy.id)
        near = [f for f in friends if distance(enemy.position, f.position) <= reach + 0.01]
        if near:
            who = ", ".join("you" if f.id == me.id else names(f.id) for f in near)
            lines.append(f"{names(enemy.id)} threatens {who}")
    return lines


def _status(c: Seen) -> str:
    return f"{c.name} ({c.status()}, {c.distance:.1f} m)"


def present(view: View, names: Names) -> Presentation:
    """The decision ``view`` asks for, in words."""
    me = view.me
    at = me.position
    mine = seen(me, names, "you", at=at, acting=view.active)
    allies = [seen(a, names, "ally", at=at, acting=view.active) for a in view.allies]
    enemies = sorted(
        (seen(e, names, "enemy", at=at, acting=view.active) for e in view.enemies),
        key=lambda s: (s.distance or 0.0, s.id),
    )
    trigger = view.window.trigger
    reacting = trigger_words(trigger, names, me.id) if trigger is not None else None
    if view.window.is_turn or reacting is None:
        heading = f"Round {view.round}: {mine.name}, your turn."
    else:
        heading = f"Round {view.round}: {mine.name}, a chance to react: {reacting}."
    conditions = f"; {', '.join(mine.conditions)}" if mine.conditions else ""
    notes = [f"You have {me.hp} of {me.max_hp} hp and {me.ap} AP{conditions}."]
    reach = names.reach(me.id)
    in_reach = [e for e in enemies if (e.distance or 0.0) <= reach + 0.01]
    if in_reach:
        notes.append("In your reach: " + ", ".join(_status(e) for e in in_reach) + ".")
    elif enemies:
        notes.append(f"No enemy in your reach; nearest: {_status(enemies[0])}.")
    notes.extend(f"{line}." for line in _threats(view, names))
    if allies:
        notes.append("Allies: " + ", ".join(_status(a) for a in allies) + ".")
    return Presentation(
        who=me.id,
        name=mine.name,
        round=view.round,
        window=view.window.kind,
        heading=heading,
        reacting_to=reacting,
        notes=tuple(notes),
        offers=tuple(choice(i, o, view, names) for i, o in enumerate(view.legal, 1)),
        combatants=(mine, *allies, *enemies),
        move=move_offer(view),
    )


def render(presentation: Presentation) -> str:
    """The presentation as text: the heading, the situation, then the numbered offers."""
    lines = [presentation.heading, *presentation.notes, ""]
    lines.extend(c.line() for c in presentation.offers)
    return "\n".join(lines)


def situation(view: View, names: Names) -> list[str]:
    """What matters for the choice: the heading and the situation's sentences."""
    shown = present(view, names)
    return [shown.heading, *shown.notes]


def screen(view: View, names: Names) -> str:
    """The whole screen for one decision: the situation, then the numbered offers."""
    return render(present(view, names))


def table_of(state: EncounterState, names: Names, seat: Iterable[str] = ()) -> StateTable:
    """The fight as the combatants of ``seat`` see it (everyone alike with no seat), from the
    folded state: in initiative order, the fallen marked, enemies' hit points in words."""
    mine = [c for c in seat if c in state.combatants]
    sides = {state.combatants[c].side for c in mine}
    here = next((state.combatants[c] for c in mine if state.combatants[c].standing), None)
    if here is None and mine:
        here = state.combatants[mine[0]]
    ordered = [c for c in state.order if c in state.combatants]
    ordered += [c for c in state.combatants if c not in state.order]
    rows = []
    for cid in ordered:
        c = state.combatants[cid]
        role: Role = (
            "" if not mine else "you" if cid in mine else "ally" if c.side in sides else "enemy"
        )
        at = here.position if here is not None else None
        rows.append(seen(c, names, role, at=at, acting=state.active))
    return StateTable(
        seq=state.seq,
        round=state.round,
        turn=names(state.active) if state.active else None,
        combatants=tuple(rows),
        winner=visible(state.winner) if state.winner else None,
        ended=state.ended,
    )


def parse_choice(text: str, count: int) -> int | None:
    """The 0-based index of the offer typed, or ``None`` when it is no offer's number."""
    text = text.strip().rstrip(".")
    if not text.isdigit():
        return None
    number = int(text)
    return number - 1 if 1 <= number <= count else None
