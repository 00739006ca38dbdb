"""The vocabulary of narration: each event's words, defined once, with names.

Two surfaces tell a log. ``replay`` prints a terse line per event with its numbers
(:class:`~initiative.replays.Narrator`, Rich markup, names in bold); the table tells sentences
(:class:`~initiative.replays.TableNarrator`: seats, the GM's page, the terminal). Each event type
has one entry in :data:`SAID` holding both forms side by side (``log`` and ``table``; one form
when the two say the same), each given the narrator as a :class:`Speaker` that names the
combatants as its surface shows them; so a change of wording is made in one place, and an event
that neither tells is listed in :data:`SILENT`. The table still gathers a deed's consequences
into one sentence (:mod:`._table_talk`); the pieces it gathers are worded here too.

Words for the table are those a person at the table says ("Acolyte 2 takes cover", "is in cover
until the start of their next turn"), never the rules' own names (``thriller.TakeCover``,
``in_cover``). An action is told in the words of its unit (:class:`~initiative.engine.ActionUnit`),
found through the registry of the ruleset the log names, so an installed ruleset's actions read
as well as the bundled ones; an action of no unit is told from its name (``BlindOpponent`` ->
"blind opponent") and its target. Text from the log is shown literally.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from initiative.actors import condition_words as said_condition
from initiative.engine import ActionUnit, Say
from initiative.engine.kit import (
    listed as listed,  # one definition each: the engine's
    words as words,
)
from initiative.events import (
    Action,
    ActionDeclared,
    ActionRejected,
    AnyEvent,
    APChanged,
    AttackResolved,
    CheckResolved,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    DamageDealt,
    DecisionFailed,
    DiceGiven,
    DiceRolled,
    EncounterEnded,
    EncounterStarted,
    EndTurn,
    Event,
    GmOverride,
    GmRolled,
    Healed,
    InitiativeOrdered,
    InitiativeRolled,
    InsertedTurnEnded,
    MarkerAdded,
    MarkerRemoved,
    Moved,
    OpeningClosed,
    OpeningOpened,
    PriorityGranted,
    PriorityPassed,
    RoundEnded,
    RoundStarted,
    SeedChanged,
    StateDigested,
    TurnEnded,
    TurnInserted,
    TurnStarted,
)

from ._gm_words import Speaker, gm_line, rolled_words
from ._literal import literal

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


def condition_words(condition: str, speaker: Speaker, *, added: bool = True) -> str:
    """``in_cover`` -> ``is in cover`` (or ``leaves cover``); ``disarmed:axe`` -> ``is disarmed
    (axe)``: the words a screen lists the condition in (``initiative.actors``), given or taken."""

    def named(text: str) -> str:
        return speaker.name(text) if text in speaker.names else literal(text)

    return said_condition(condition, named, form="given" if added else "taken", shown=literal)


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


# --- each event's words ---------------------------------------------------------------------


class TableSpeaker(Speaker, Protocol):
    """What the table's narrator lends its words besides names."""

    acted: bool
    """Whether the combatant whose turn it is did anything in it."""

    def named(self, text: str) -> str:
        """Free text from the log (a tie's note) with names for the ids in it."""
        ...

    def deed(self, who: str, action: Action) -> str:
        """The head of an action's sentence, in its unit's words (:func:`action_words`)."""
        ...


E = TypeVar("E", bound=Event)
Told = str | None
"""A line of narration (Rich markup), or ``None``: nothing to say."""


@dataclass(frozen=True, slots=True)
class Words(Generic[E]):
    """The words of one event type: ``replay``'s line and the table's sentence."""

    log: Callable[[E, Speaker], Told]
    table: Callable[[E, TableSpeaker], Told]


SAID: dict[type[Event], Words[Any]] = {}
"""Each told event type's words, by its exact type."""


def _say(
    cls: type[E],
    log: Callable[[E, Speaker], Told],
    table: Callable[[E, TableSpeaker], Told] | None = None,
) -> None:
    """Word ``cls``: ``log`` for ``replay``, ``table`` at the table (``None``: as ``log``)."""
    SAID[cls] = Words(log, log if table is None else table)


def _unsaid(event: Event, speaker: Speaker) -> Told:
    """Nothing to say on this surface."""
    return None


def header_names(started: EncounterStarted) -> dict[str, str]:
    """Each combatant's name by id, as the header gives them: where both narrators start (a
    newcomer's name is added as the GM brings it in, see ``_gm_words``)."""
    return {c.id: c.display for c in started.encounter.combatants}


def told(event: Event, speaker: Speaker) -> Told:
    """``replay``'s line for ``event`` (``None``: nothing to say)."""
    said = SAID.get(type(event))
    return said.log(event, speaker) if said is not None else None


def told_at_table(event: Event, speaker: TableSpeaker) -> Told:
    """The table's sentence for ``event`` on its own (``None``: nothing to say)."""
    said = SAID.get(type(event))
    return said.table(event, speaker) if said is not None else None


#: Events neither surface tells: bookkeeping, or told with what they decided (dice).
SILENT: frozenset[type[Event]] = frozenset(
    {
        PriorityGranted,
        DiceRolled,
        DiceGiven,
        APChanged,
        CounterChanged,
        RoundEnded,
        StateDigested,
        SeedChanged,
        InsertedTurnEnded,
        OpeningClosed,
    }
)

#: Every event type a log can hold.
EVENTS: tuple[type[Event], ...] = typing.get_args(AnyEvent)


# The fight begins: who is in it, initiative and its order.


def _title(e: EncounterStarted, s: Speaker) -> Told:
    title = literal(e.encounter.name or "Encounter")
    return f"[bold magenta]{title}[/bold magenta] ({literal(e.ruleset)} rules, seed {e.seed})"


_say(
    EncounterStarted,
    _title,
    lambda e, s: f"[bold]{literal(e.encounter.name or 'The fight')}[/bold]",
)


def _joined(e: CombatantJoined, s: Speaker) -> Told:
    verb = f"arrives in round {e.round}" if e.round else "joins"
    return f"{s.name(e.who)} {verb} for {literal(e.side)} ({e.hp} hp, {e.ap} AP)"


_say(
    CombatantJoined,
    _joined,
    lambda e, s: f"{s.name(e.who)} arrives for {literal(e.side)}" if e.round else None,
)


def _rolled(e: InitiativeRolled, s: Speaker) -> Told:
    whom = ", ".join(s.name(w) for w in e.who)
    how = "rolled at the table" if e.given else "rolls"
    return f"initiative: {whom} {how} {e.die} {e.modifier:+d} = [bold]{e.total}[/bold]"


def _rolled_at_table(e: InitiativeRolled, s: TableSpeaker) -> Told:
    verb = "rolls" if len(e.who) == 1 else "roll"
    rolled = f"{e.die} (at the table)" if e.given else f"{e.die}"
    mod = e.modifier
    sum_ = f" {'+' if mod >= 0 else '-'} {abs(mod)} = {e.total}" if mod else ""
    return f"{listed([s.name(w) for w in e.who])} {verb} {rolled}{sum_} for initiative"


_say(InitiativeRolled, _rolled, _rolled_at_table)


def _ordered(e: InitiativeOrdered, s: Speaker) -> Told:
    extra = f" ({literal('; '.join(e.ties))})" if e.ties else ""
    return "order: " + ", ".join(s.name(c) for c in e.order) + extra


def _ordered_at_table(e: InitiativeOrdered, s: TableSpeaker) -> Told:
    ties = " (" + "; ".join(s.named(t) for t in e.ties) + ")" if e.ties else ""
    return "Order: " + ", ".join(s.name(c) for c in e.order) + ties


_say(InitiativeOrdered, _ordered, _ordered_at_table)


# Rounds and turns.

_say(
    RoundStarted,
    lambda e, s: f"[bold cyan]-- Round {e.round} --[/bold cyan]",
    lambda e, s: f"[bold]Round {e.round}[/bold]",
)
_say(
    TurnStarted,
    lambda e, s: f"[cyan]{s.name(e.who)}'s turn[/cyan]",
    lambda e, s: f"{s.name(e.who)}'s turn",
)
_say(TurnInserted, _unsaid, lambda e, s: f"{s.name(e.who)} takes their delayed turn")


def _turn_ended_at_table(e: TurnEnded, s: TableSpeaker) -> Told:
    said = turn_end_words(e.reason)
    if said is None and e.reason == "ended" and not s.acted:
        said = "ends the turn without acting"
    return f"{s.name(e.who)} {said}" if said else None


_say(
    TurnEnded,
    lambda e, s: (
        f"{s.name(e.who)}'s turn ends ({literal(e.reason)})" if e.reason != "ended" else None
    ),
    _turn_ended_at_table,
)


# Decisions: deeds, refusals, failures.


def _declared(e: ActionDeclared, s: Speaker) -> Told:
    if isinstance(e.action, EndTurn):
        return None
    paid = f" [dim]({e.cost} AP)[/dim]" if e.cost else ""
    return f"{s.name(e.who)}: {literal(e.action.describe())}{paid}"


_say(
    ActionDeclared,
    _declared,
    lambda e, s: None if isinstance(e.action, EndTurn) else s.deed(e.who, e.action),
)


def _rejected(e: ActionRejected, s: Speaker) -> Told:
    tried = literal(e.action.describe())
    return f"[yellow]{s.name(e.who)} tried {tried}: rejected, {literal(e.reason)}[/yellow]"


_say(
    ActionRejected,
    _rejected,
    lambda e, s: f"{s.deed(e.who, e.action)}: not allowed ({literal(e.reason)})",
)


def _failed(e: DecisionFailed, s: Speaker) -> Told:
    return f"[red]{s.name(e.who)}'s policy failed ({literal(e.kind)}): {literal(e.detail)}[/red]"


_say(DecisionFailed, _failed, lambda e, s: f"{s.name(e.who)} {failure_words(e.kind)}")

#: Why a combatant gave up its priority, when the table says so.
GAVE_UP = "too many illegal actions"

_say(
    PriorityPassed,
    lambda e, s: f"{s.name(e.who)} passes ({literal(e.reason)})" if e.reason != "pass" else None,
    lambda e, s: (
        f"{s.name(e.who)} gives up after too many actions that were not allowed"
        if e.reason == GAVE_UP
        else None
    ),
)


# What came of a deed: the pieces the table gathers into the deed's sentence, and each
# event's own line.


def hit_words(hit: bool) -> str:
    return "hits" if hit else "misses"


def damage_words(amount: int, location: str | None) -> str:
    """``4 damage to the head``."""
    return f"{amount} damage" + (f" to the {literal(location)}" if location else "")


def healed_words(who: str, amount: int, name: Name) -> str:
    return f"{name(who)} recovers {amount} hp"


def moved_words(distance: float) -> str:
    return f"{distance:g} m"


#: A fall, at the table.
FALLS = "falls"


def left_words(reason: str, *, why: bool = True) -> str:
    """``escapes`` for a flight, else ``leaves the fight`` (with its reason, ``why``)."""
    if reason == "fled":
        return "escapes"
    return f"leaves the fight ({literal(words(reason))})" if why else "leaves the fight"


def _attack(e: AttackResolved, s: Speaker) -> Told:
    verdict = "[green]hits[/green]" if e.hit else "misses"
    return f"{s.name(e.who)} {verdict} {s.name(e.target)} ({e.roll} against {e.against})"


_say(
    AttackResolved,
    _attack,
    lambda e, s: (
        f"{s.name(e.who)} {hit_words(e.hit)} {s.name(e.target)}: {e.roll} against {e.against}"
    ),
)


def _check(e: CheckResolved, s: Speaker) -> Told:
    verdict = "succeeds" if e.success else "fails"
    return f"{s.name(e.who)} {verdict} at {literal(e.check)} ({e.roll} against {e.against})"


_say(
    CheckResolved,
    _check,
    lambda e, s: check_words(e.who, literal(e.check), e.success, e.roll, e.against, s.name),
)


def _damage(e: DamageDealt, s: Speaker) -> Told:
    where = f" to the {literal(e.location)}" if e.location else ""
    return f"{s.name(e.who)} takes [red]{e.amount}[/red] damage{where} ({e.hp} hp left)"


_say(
    DamageDealt, _damage, lambda e, s: f"{s.name(e.who)} takes {damage_words(e.amount, e.location)}"
)
_say(
    Healed,
    lambda e, s: f"{s.name(e.who)} recovers {e.amount} hp ({e.hp} hp)",
    lambda e, s: healed_words(e.who, e.amount, s.name),
)
_say(
    Moved,
    lambda e, s: f"{s.name(e.who)} moves {e.distance:g} m to {literal(e.to)}",
    lambda e, s: f"{s.name(e.who)} moves {moved_words(e.distance)}",
)


def _condition(e: ConditionAdded, s: Speaker) -> Told:
    until = f" until {literal(e.until)}" if e.until else ""
    return f"{s.name(e.who)} is now {literal(e.condition)}{until}"


_say(
    ConditionAdded,
    _condition,
    lambda e, s: f"{s.name(e.who)} {condition_words(e.condition, s)}{until_words(e.until)}",
)
_say(
    ConditionRemoved,
    lambda e, s: f"{s.name(e.who)} is no longer {literal(e.condition)}",
    lambda e, s: f"{s.name(e.who)} {condition_words(e.condition, s, added=False)}",
)


def _opening(e: OpeningOpened, s: Speaker) -> Told:
    t = e.trigger
    by = f" by {s.name(t.by)}" if t.by else ""
    offered = ", ".join(s.name(c) for c in e.offered)
    return f"[magenta]opening ({literal(t.kind)}{by}) for {offered}[/magenta]"


_say(OpeningOpened, _opening, _unsaid)


# Who is in the fight: falls, departures, returns.

_say(
    CombatantDefeated,
    lambda e, s: f"[bold red]{s.name(e.who)} is defeated[/bold red] ({literal(e.reason)})",
    lambda e, s: f"{s.name(e.who)} {FALLS}",
)
_say(
    CombatantLeft,
    lambda e, s: f"{s.name(e.who)} leaves the fight ({literal(e.reason)})",
    lambda e, s: f"{s.name(e.who)} {left_words(e.reason)}",
)
_say(CombatantReturned, lambda e, s: f"{s.name(e.who)} is back in the fight")
_say(CombatantRevived, lambda e, s: f"{s.name(e.who)} stands again")


# The game master: overrides (:mod:`._gm_words`), rolls and markers.

_say(GmOverride, lambda e, s: gm_line(s, e))
_say(GmRolled, lambda e, s: rolled_words(e))
_say(MarkerAdded, lambda e, s: f"{s.name(e.who)} is marked {literal(e.text)}")
_say(MarkerRemoved, lambda e, s: f"{s.name(e.who)} is no longer marked {literal(e.text)}")


# The end.


def _ended(e: EncounterEnded, s: Speaker) -> Told:
    head = f"{literal(e.winner)} win" if e.winner else "No winner"
    return f"[bold green]{head}[/bold green] after {e.rounds} round(s): {literal(e.reason)}"


def _ended_at_table(e: EncounterEnded, s: TableSpeaker) -> Told:
    rounds = f"{e.rounds} round{'s' if e.rounds != 1 else ''}"
    if e.winner:
        return f"[bold]Victory for {literal(e.winner)}[/bold] after {rounds}"
    return f"[bold]No one wins[/bold] after {rounds}: {literal(e.reason)}"


_say(EncounterEnded, _ended, _ended_at_table)
