"""Events: past-tense facts, the only content of a log.

Every event has ``seq`` (its place in the log, from 0 without gaps) and ``cause`` (the seq of
the event that made it happen, or ``None``). Tags are explicit strings. Schema rules: a new field
gets a default; a field never changes type; a changed meaning gets a new ``LOG_FORMAT`` and an
upcaster in ``_upcast.py`` (which the reader in ``_log.py`` applies).
"""

from __future__ import annotations

from typing import Union

import msgspec

from ._actions import AnyAction
from ._encounter import EncounterSpec
from ._overrides import AnyOverride
from ._values import Position, Trigger, Window


class Event(msgspec.Struct, frozen=True, gc=False, tag_field="type"):
    """Base of every event.

    Events are immutable values that never refer back to anything holding them, so they can
    never be part of a reference cycle: ``gc=False`` keeps the thousands a fight makes out of
    the garbage collector's passes (its subclasses inherit it)."""

    seq: int = -1
    """Place in the log, from 0 without gaps (set by the scheduler when it records the event)."""
    cause: int | None = None
    """Seq of the event that made this one happen, or ``None`` for a root."""


class EncounterStarted(Event, frozen=True, kw_only=True, tag="EncounterStarted"):
    """The header: everything needed to re-simulate the encounter."""

    format: int
    """Log format version."""
    engine: str
    """Version of the engine that wrote the log."""
    ruleset: str
    """Name of the ruleset."""
    ruleset_version: int
    """Version of the ruleset's rules; a log of another version is refused."""
    rng: str
    """Name of the random number algorithm."""
    seed: int
    """The seed every die derives from."""
    encounter: EncounterSpec
    """The normalized encounter (copies expanded, options filled in)."""
    parent: str | None = None
    """For a fork: a description of the parent log and fork point."""


class CombatantJoined(Event, frozen=True, kw_only=True, tag="CombatantJoined"):
    """A combatant enters the fight (at the start, or arriving in a later round)."""

    who: str
    side: str
    hp: int
    ap: int
    position: Position
    round: int = 0
    """The round it arrives in (0: before the first round)."""


class InitiativeRolled(Event, frozen=True, kw_only=True, tag="InitiativeRolled"):
    """An initiative result for one combatant or one group (a group shares one roll)."""

    who: tuple[str, ...]
    """The combatant, or every member of the group."""
    total: int
    """The initiative result."""
    die: int
    """The die result (rolled, or given by the encounter file)."""
    modifier: int
    """What was added to the die."""
    given: bool = False
    """The die was given by the encounter file (rolled at the table), not rolled here."""


class InitiativeOrdered(Event, frozen=True, kw_only=True, tag="InitiativeOrdered"):
    """The initiative order, highest first, ties already broken."""

    order: tuple[str, ...]
    """Combatant ids in the order they act."""
    ties: tuple[str, ...] = ()
    """How ties were broken, one phrase each."""


class RoundStarted(Event, frozen=True, kw_only=True, tag="RoundStarted"):
    round: int


class TurnStarted(Event, frozen=True, kw_only=True, tag="TurnStarted"):
    who: str
    round: int


class PriorityGranted(Event, frozen=True, kw_only=True, tag="PriorityGranted"):
    """``who`` may act now, in ``window``; the next decision event answers this one."""

    who: str
    window: Window
    ap: int
    """AP it holds."""
    offers: int = 0
    """How many legal actions it was offered."""


class ActionDeclared(Event, frozen=True, kw_only=True, tag="ActionDeclared"):
    """A legal action chosen by ``who``; its resolution events follow, caused by this one."""

    who: str
    action: AnyAction
    cost: int = 0


class ActionRejected(Event, frozen=True, kw_only=True, tag="ActionRejected"):
    """An illegal action; the combatant is asked again (a bounded number of times)."""

    who: str
    action: AnyAction
    reason: str


class PriorityPassed(Event, frozen=True, kw_only=True, tag="PriorityPassed"):
    """``who`` gives up priority in an opening (or is made to)."""

    who: str
    reason: str = "pass"


class DecisionFailed(Event, frozen=True, kw_only=True, tag="DecisionFailed"):
    """A policy raised, hung past its timeout, or returned something that is not an action."""

    who: str
    kind: str
    """``timeout``, ``error``, ``invalid``, ``busy`` (a threaded policy's call, abandoned at its
    deadline, still running) or ``crashed`` (a policy's child process died)."""
    detail: str = ""


class DiceRolled(Event, frozen=True, kw_only=True, tag="DiceRolled"):
    """Dice rolled for a purpose: every die is here, so history alone determines the state."""

    who: str | None
    purpose: str
    expr: str
    dice: tuple[int, ...]
    modifier: int
    total: int


class DiceGiven(DiceRolled, frozen=True, kw_only=True, tag="DiceGiven"):
    """Dice rolled at the table and entered by hand (``--dice ask`` or ``--dice FILE``), used as
    given: the same fields as ``DiceRolled``, which a replay takes from the log instead of the
    generator (as given initiative rolls are). The generator is not advanced for them."""


class APChanged(Event, frozen=True, kw_only=True, tag="APChanged"):
    who: str
    ap: int
    """AP after the change."""
    reason: str = ""


class Moved(Event, frozen=True, kw_only=True, tag="Moved"):
    who: str
    start: Position
    to: Position
    distance: float


class AttackResolved(Event, frozen=True, kw_only=True, tag="AttackResolved"):
    """The outcome of an attack test."""

    who: str
    target: str
    hit: bool
    roll: int
    """The attack result compared."""
    against: int
    """What it was compared with."""
    detail: str = ""


class CheckResolved(Event, frozen=True, kw_only=True, tag="CheckResolved"):
    """The outcome of a test or check (skill, opposed test, Sanity)."""

    who: str
    check: str
    success: bool
    roll: int
    against: int
    margin: int = 0
    """Degrees or points of success (negative on failure), as the ruleset counts them."""
    against_who: str | None = None


class DamageDealt(Event, frozen=True, kw_only=True, tag="DamageDealt"):
    who: str
    """The one who takes the damage."""
    amount: int
    hp: int
    """Hit points after the damage."""
    source: str | None = None
    location: str | None = None


class Healed(Event, frozen=True, kw_only=True, tag="Healed"):
    who: str
    amount: int
    hp: int


class ConditionAdded(Event, frozen=True, kw_only=True, tag="ConditionAdded"):
    who: str
    condition: str
    until: str = ""
    """When it ends, in words (``end of round 1``)."""


class ConditionRemoved(Event, frozen=True, kw_only=True, tag="ConditionRemoved"):
    who: str
    condition: str


class CounterChanged(Event, frozen=True, kw_only=True, tag="CounterChanged"):
    """A per-combatant tally the rules keep (attacks this round, aim bonus, free actions)."""

    who: str
    name: str
    value: int


class OpeningOpened(Event, frozen=True, kw_only=True, tag="OpeningOpened"):
    """An opening: the creatures offered priority, in the order they get it."""

    trigger: Trigger
    offered: tuple[str, ...]
    depth: int = 1


class OpeningClosed(Event, frozen=True, kw_only=True, tag="OpeningClosed"):
    """Everyone offered the opening has reacted or passed; priority returns."""

    returns_to: str | None
    reactions: int = 0


class TurnEnded(Event, frozen=True, kw_only=True, tag="TurnEnded"):
    who: str
    reason: str = "ended"


class RoundEnded(Event, frozen=True, kw_only=True, tag="RoundEnded"):
    round: int


class CombatantDefeated(Event, frozen=True, kw_only=True, tag="CombatantDefeated"):
    who: str
    reason: str = "hit points"


class CombatantLeft(Event, frozen=True, kw_only=True, tag="CombatantLeft"):
    """A combatant leaves the fight without being defeated (fled)."""

    who: str
    reason: str = "fled"


class EncounterEnded(Event, frozen=True, kw_only=True, tag="EncounterEnded"):
    winner: str | None
    """The side left standing, or ``None``."""
    reason: str
    rounds: int
    chain: str = ""
    """Tamper evidence: BLAKE2b chained over every line of the log (``h = H(h || line)``, from
    the header on), ending with this event's own line encoded with ``chain`` empty; hex."""


class StateDigested(Event, frozen=True, kw_only=True, tag="StateDigested"):
    """A digest of the whole folded state, recorded at each round's end and before the end.

    ``verify`` folds the log's own events and compares, so a fold that has drifted is caught
    even when the events look alike, and the first round whose state differs is named."""

    round: int
    digest: str
    """BLAKE2b (16 bytes, hex) of the canonical JSON of the state after the previous event."""


class SeedChanged(Event, frozen=True, kw_only=True, tag="SeedChanged"):
    """From here on the dice come from another seed (a fork that asked for other luck)."""

    seed: int
    stream: str = "dice"


class TurnInserted(Event, frozen=True, kw_only=True, tag="TurnInserted"):
    """A turn taken in the middle of someone else's (a delayed turn); ``who`` is active."""

    who: str
    round: int
    interrupts: str | None = None
    """Who held the turn when it was inserted (active again when it ends)."""
    reason: str = ""


class InsertedTurnEnded(Event, frozen=True, kw_only=True, tag="InsertedTurnEnded"):
    """An inserted turn is over; the turn it interrupted goes on."""

    who: str
    reason: str = "ended"
    returns_to: str | None = None
    """Who holds the turn again."""


class GmOverride(Event, frozen=True, kw_only=True, tag="GmOverride"):
    """The game master stepped in: ``override`` was checked by the rules and applied.

    Its ``cause`` is the ``PriorityGranted`` it interrupted; the events it makes (hit points,
    conditions, a joiner, a departure, a move, a new order) follow, each caused by it. Then
    priority is granted again, in the new state. A replay feeds the override back at the same
    grant, as it feeds a decision."""

    override: AnyOverride
    """What the GM did (see ``events._overrides``)."""
    by: str = "gm"
    """Who stepped in (the GM's role)."""


class MarkerAdded(Event, frozen=True, kw_only=True, omit_defaults=True, tag="MarkerAdded"):
    """A GM marker was put on a combatant (free text; no rule reads it)."""

    who: str
    text: str
    before: str | None = None
    """The marker it goes in front of: an undone removal puts a marker back where it was.
    ``None`` (and left out of the line): after the others."""


class MarkerRemoved(Event, frozen=True, kw_only=True, tag="MarkerRemoved"):
    """A GM marker was taken off a combatant."""

    who: str
    text: str


class CombatantReturned(Event, frozen=True, kw_only=True, tag="CombatantReturned"):
    """A combatant who left is back in the fight (the GM undid its removal)."""

    who: str
    reason: str = "undone"


class CombatantRevived(Event, frozen=True, kw_only=True, tag="CombatantRevived"):
    """A combatant who was downed stands again (the GM undid the hit points that downed it)."""

    who: str
    reason: str = "undone"


class GmRolled(Event, frozen=True, kw_only=True, tag="GmRolled"):
    """The GM's own dice (``GmRoll``): every die, from the log's generator, on a stream of
    their own (``gm/<seq of the GmOverride>``), so the fight's dice are not shifted by them."""

    expr: str
    dice: tuple[int, ...]
    modifier: int
    total: int
    gm_only: bool = False
    """A secret roll: only the GM's connections may receive it (:func:`gm_only`)."""


AnyEvent = Union[  # noqa: UP007 - msgspec needs a real Union object to build decoders
    EncounterStarted,
    CombatantJoined,
    InitiativeRolled,
    InitiativeOrdered,
    RoundStarted,
    TurnStarted,
    PriorityGranted,
    ActionDeclared,
    ActionRejected,
    PriorityPassed,
    DecisionFailed,
    DiceRolled,
    DiceGiven,
    APChanged,
    Moved,
    AttackResolved,
    CheckResolved,
    DamageDealt,
    Healed,
    ConditionAdded,
    ConditionRemoved,
    CounterChanged,
    OpeningOpened,
    OpeningClosed,
    TurnEnded,
    RoundEnded,
    CombatantDefeated,
    CombatantLeft,
    EncounterEnded,
    TurnInserted,
    InsertedTurnEnded,
    StateDigested,
    SeedChanged,
    GmOverride,
    MarkerAdded,
    MarkerRemoved,
    CombatantReturned,
    CombatantRevived,
    GmRolled,
]
"""Every event type; the decoder's target for log lines."""


def gm_only(event: Event) -> bool:
    """Whether ``event`` is for the GM's eyes only: a GM note or a secret GM roll (the
    ``GmOverride`` that records it, and the ``GmRolled`` with its dice). Everything a player's
    or a spectator's connection receives is filtered by this; the log keeps it all."""
    if isinstance(event, GmOverride):
        return event.override.gm_only
    return isinstance(event, GmRolled) and event.gm_only


#: Events that answer a ``PriorityGranted`` (the recorded decisions a replay feeds back).
DECISION_EVENTS = (ActionDeclared, ActionRejected, PriorityPassed, DecisionFailed)
