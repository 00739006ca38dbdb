"""Narration for people at the table: one sentence per deed, with its result.

"Acolyte 3 hits Detective Marlowe with the sickle: 15 against 11, 4 damage (1d6 rolled 4),
Detective Marlowe falls." An action's consequences (its roll, the hit or miss, the damage and
its dice, a fall, a move, a condition) are gathered into its sentence, told once it is complete.
A reaction in an opening is told in its place: the deed it answers is told after it when nothing
of that deed had happened yet ("Acolyte 3 dodges", then "Detective Marlowe misses Acolyte 3 with
the revolver: 9 against 14"), and goes on in a sentence of its own otherwise.

It tells what ``replay`` tells, in words: initiative with its die and modifier and the order it
gives, surprise and sanity, why a turn is lost, who arrives, leaves or hesitates. The
bookkeeping (priority, AP, openings nobody took) is not told, and groups get the grammar of
groups. Names are shown literally, control characters made visible. Reads events only. Every
event's words, and the pieces a sentence is made of, are the vocabulary's
(:mod:`._vocabulary`); this gathers them into sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from initiative.actors import answer_words
from initiative.engine import ActionUnit, Ruleset, find_ruleset
from initiative.events import (
    Action,
    ActionDeclared,
    Attack,
    AttackResolved,
    CheckResolved,
    CombatantDefeated,
    CombatantLeft,
    ConditionAdded,
    ConditionRemoved,
    DamageDealt,
    DiceRolled,
    EncounterEnded,
    EncounterStarted,
    EndTurn,
    Event,
    Healed,
    InitiativeError,
    Moved,
    OpeningClosed,
    OpeningOpened,
    Override,
    Position,
    PriorityGranted,
    RoundEnded,
    RoundStarted,
    Trigger,
    TurnEnded,
    TurnInserted,
    TurnStarted,
    gm_only,
)

from ._literal import literal
from ._vocabulary import (
    FALLS,
    SAID,
    action_words,
    condition_words,
    damage_words,
    header_names,
    healed_words,
    hit_words,
    left_words,
    moved_words,
    told_at_table,
    until_words,
)

#: Events that close every sentence still open (the turn or the round is over).
_STRUCTURE = (TurnStarted, TurnEnded, TurnInserted, RoundStarted, RoundEnded, EncounterEnded)

#: Consequences that add nothing to a sentence (dice are told with what they decided).
_QUIET = ("APChanged", "CounterChanged", "PriorityPassed", "StateDigested")


@dataclass
class _Sentence:
    """A deed being told: its head, what followed from it, and the events that belong to it."""

    who: str
    kind: str
    head: str | None
    unit: ActionUnit[Any] | None = None
    """The unit of the deed's action (its words, what it moves and implies)."""
    """``None`` once told: what follows starts a sentence of its own."""
    parts: list[str] = field(default_factory=list)
    seqs: set[int] = field(default_factory=set)
    openings: int = 0
    """Openings it opened that are not closed yet (reactions are told inside them)."""
    dice: str = ""
    """The damage or healing dice rolled last, told with the amount they gave."""
    checked: tuple[int, int] | None = None
    """The last check's roll and target (an attack resolved on it says no more)."""
    joined: str = ": "
    """Between the head and what followed (``, `` when the head already says an outcome)."""
    moved: bool = False
    action: Action | None = None
    """The deed's action, worded again by its unit once its attack is resolved."""
    deed: str = ""
    """The deed's own words (its head as first told)."""
    say: _Say | None = None
    """The words the deed was told in (names, weapons, the opening it answers)."""
    after: str = ""
    """What the head says after the deed (the opening it answers)."""
    resolved: bool = False

    @property
    def moving(self) -> bool:
        """Its sentence takes the distance moved ("Acolyte 1 flees 12 m")."""
        return self.unit is not None and self.unit.moving

    def text(self) -> str:
        assert self.head is not None
        if not self.parts:
            return self.head
        return self.head + self.joined + ", ".join(self.parts)


def _stem(text: str) -> str:
    """Words with their endings off, to see that a check repeats its deed's verb
    (``parries`` and ``Parry``, ``casts spirit bolt`` and ``cast spirit bolt``)."""
    return " ".join(
        w.rstrip("s").rstrip("e").rstrip("i").rstrip("y") for w in re.split(r"[\s-]+", text.lower())
    )


class _Say:
    """What an action's unit words a deed with, at the table: names shown literally."""

    def __init__(self, narrator: TableNarrator, who: str) -> None:
        self._narrator = narrator
        self.actor: str | None = who
        self.trigger: Trigger | None = narrator.triggers[-1] if narrator.triggers else None

    def name(self, who: str | None) -> str:
        return self._narrator.name(who)

    def known(self, text: str) -> bool:
        return text in self._narrator.names

    def weapon(self, name: str | None) -> str:
        return literal(name) if name else self._narrator._weapon(self.actor or "")

    def point(self, to: Position) -> str:
        return ""


class TableNarrator:
    """Call with each event in order; returns the lines to show now (possibly none)."""

    def __init__(self, *, gm: bool = False) -> None:
        self.gm = gm
        """Whether the GM hears this narration: only then does it tell the GM's notes and secret
        rolls (``events.gm_only``); anyone else's says nothing of them."""
        self.ruleset: type[Ruleset] | None = None
        """The ruleset the log names, whose units word its actions (``None``: not installed)."""
        self.names: dict[str, str] = {}
        self.gm_done: dict[int, Override] = {}
        self.weapon: dict[str, str] = {}
        self.open: list[_Sentence] = []
        self.acted = False
        """Whether the combatant whose turn it is did anything in it."""
        self._ids: re.Pattern[str] | None = None
        self.down: set[str] = set()
        """Who has fallen."""
        self.triggers: list[Trigger] = []
        """The openings open now, innermost last (what a reaction answers)."""

    def name(self, who: str | None) -> str:
        return literal(self.names.get(who, who) if who else "someone")

    def __call__(self, event: Event) -> str | None:
        if not self.gm and gm_only(event):
            return None  # a GM note or a secret roll: for the GM's ears only
        lines: list[str] = []
        if isinstance(event, OpeningOpened):
            self.triggers.append(event.trigger)
        elif isinstance(event, OpeningClosed) and self.triggers:
            self.triggers.pop()
        if isinstance(event, PriorityGranted):
            # Someone is asked: what is complete is told before the question.
            self._finish(lines, keep_open=True)
            return "\n".join(lines) if lines else None
        owner = self._owner(event)
        if owner is not None and self._absorb(owner, event, lines):
            owner.seqs.add(event.seq)
            while self.open[-1] is not owner:  # reactions inside it, all told by now
                done = self.open.pop()
                if done.head is not None:
                    lines.insert(0, done.text())
        elif isinstance(event, ActionDeclared) and not isinstance(event.action, EndTurn):
            self._declared(event, lines)
        else:
            line = self._tell(event)
            if isinstance(event, _STRUCTURE):
                self._finish(lines)
            elif line is not None or isinstance(event, CheckResolved):
                self._finish(lines, keep_open=True)
            if isinstance(event, CheckResolved):
                self.open.append(self._check(event))
            if line is not None:
                lines.append(line)
        return "\n".join(lines) if lines else None

    # --- sentences ------------------------------------------------------------------------------

    def _owner(self, event: Event) -> _Sentence | None:
        """The open sentence ``event`` follows from (by its cause; a condition just after a
        check is that check's)."""
        for sentence in reversed(self.open):
            if event.cause is not None and event.cause in sentence.seqs:
                return sentence
            if (
                sentence.kind == "check"
                and isinstance(event, ConditionAdded)
                and event.who == sentence.who
                and event.seq - 1 in sentence.seqs
            ):
                return sentence
        return None

    def _declared(self, event: ActionDeclared, lines: list[str]) -> None:
        """A new deed: earlier ones that are complete are told; one it interrupts (in an
        opening) is told now if something of it already happened, else after it."""
        self._finish(lines, keep_open=True)
        for sentence in self.open:
            if sentence.head is not None and sentence.parts:
                lines.append(sentence.text())
                sentence.head, sentence.parts = None, []
        action = event.action
        unit = self._unit(action)
        say = _Say(self, event.who)
        head = told_at_table(event, self) or ""  # (self.deed: the vocabulary's words)
        after = ""
        if self.triggers and isinstance(action, Attack):
            after = answer_words(self.triggers[-1], self.name)
        kind = type(action).__name__
        self.open.append(
            _Sentence(
                event.who,
                kind,
                head + after,
                unit=unit,
                seqs={event.seq},
                action=action,
                deed=head,
                say=say,
                after=after,
            )
        )
        self.acted = True

    def _finish(self, lines: list[str], *, keep_open: bool = False) -> None:
        """Tell the sentences that are complete (all of them, unless ``keep_open``: those
        still inside an opening stay)."""
        while self.open and (not keep_open or self.open[-1].openings <= 0):
            sentence = self.open.pop()
            if sentence.moving and not sentence.moved and not sentence.parts:
                if sentence.who in self.down or sentence.head is None:
                    continue  # (felled as they went: the fall is told)
                sentence.head += ", but goes nowhere"
            if sentence.head is not None:
                lines.append(sentence.text())
        if not keep_open:
            self.open.clear()

    def _unit(self, action: Action) -> ActionUnit[Any] | None:
        return self.ruleset.unit_of(type(action)) if self.ruleset is not None else None

    def _resolved(self, s: _Sentence, hit: bool) -> str | None:
        """The deed of ``s`` worded with its outcome by its unit (once: a second attack in
        the same deed is told after it)."""
        if s.resolved or s.unit is None or s.action is None or s.say is None:
            return None
        if s.head != s.deed + s.after:
            return None  # (the head now tells something else: a check, a later part)
        return s.unit.told_resolved(s.action, s.say, hit=hit)

    def _weapon(self, who: str) -> str:
        return literal(self.weapon.get(who, "bare hands"))

    def _absorb(self, s: _Sentence, event: Event, lines: list[str]) -> bool:
        """Add ``event`` to the sentence it follows from; ``False`` if it is told apart."""
        n = self.name
        part: str | None = None
        match event:
            case OpeningOpened():
                s.openings += 1
            case OpeningClosed():
                s.openings -= 1
            case DiceRolled(purpose=purpose, expr=expr, total=total):
                if purpose.startswith("damage") or " heals" in purpose:
                    s.dice = f" ({expr} rolled {total})"
            case _ if type(event).__name__ in _QUIET:
                pass
            case AttackResolved(who=who, target=target, hit=hit, roll=roll, against=against):
                verb = hit_words(hit)
                told = (roll, against) == s.checked
                deed = self._resolved(s, hit) if s.head is not None else None
                if deed is not None:
                    s.head, s.resolved = f"{n(s.who)} {deed}{s.after}", True
                    part = None if told else f"{roll} against {against}"
                elif s.head is None:
                    s.head = f"{n(who)} {verb} {n(target)}"
                    part = None if told else f"{roll} against {against}"
                else:
                    part = verb if told else f"{verb}, {roll} against {against}"
            case CheckResolved(who=who, check=check, success=ok, roll=roll, against=against):
                verdict = "success" if ok else "failure"
                s.checked = (roll, against)
                said = f"{roll} against {against}, {verdict}"
                if s.head is None:
                    s.head, s.joined = f"{n(who)}'s {literal(check)} check: {said}", ", "
                elif _stem(check) in _stem(s.head):  # "Gertrude parries: 23 against 38"
                    part = said
                else:
                    part = f"{literal(check)} {said}"
            case DamageDealt(who=who, amount=amount, location=location):
                damage = damage_words(amount, location)
                if s.head is None:
                    s.head, s.joined = f"{n(who)} takes {damage}{s.dice}", ", "
                elif f" {n(who)}" in f" {s.head}":
                    part = f"{damage}{s.dice}"
                else:
                    part = f"{damage} to {n(who)}{s.dice}"
                s.dice = ""
            case Healed(who=who, amount=amount):
                part = f"{healed_words(who, amount, n)}{s.dice}"
                s.dice = ""
            case CombatantDefeated(who=who):
                self.down.add(who)
                part = f"{n(who)} {FALLS}"
            case CombatantLeft(who=who, reason=reason):
                how = left_words(reason, why=False)
                if who == s.who and s.head is not None and not s.parts:
                    s.head += f" and {how}"
                else:
                    part = f"{n(who)} {how}"
            case Moved(who=who, distance=d):
                moved = moved_words(d)
                s.moved = s.moved or who == s.who
                if s.head is not None and s.moving and who == s.who and not s.parts:
                    s.head += f" {moved}"
                elif s.head is None:
                    s.head = f"{n(who)} moves {moved}"
                else:
                    part = f"moving {moved}" if who == s.who else f"{n(who)} moves {moved}"
            case ConditionAdded(who=who, condition=c, until=until):
                if s.unit is not None and c in s.unit.implies:
                    return True  # (what its words already say: "takes cover")
                own = "" if s.kind == "check" and who == s.who else f"{n(who)} "
                said = condition_words(c, self)
                said = said.removeprefix("is ") if not own else said
                part = f"{own}{said}{until_words(until)}"
            case ConditionRemoved():
                pass  # (what the deed did is told; a condition it ends goes without saying)
            case _:
                return False
        if part is not None:
            if s.head is None:  # (a deed that goes on after its opening)
                s.head, s.joined = part[0].upper() + part[1:], ", "
            else:
                s.parts.append(part)
        return True

    # --- lines of their own ---------------------------------------------------------------------

    def _tell(self, event: Event) -> str | None:
        """The line ``event`` is told in on its own (in the vocabulary's words), once what the
        narrator keeps is kept."""
        match event:
            case EncounterStarted(encounter=enc, ruleset=ruleset):
                self.ruleset = _ruleset_named(ruleset)
                self.names = header_names(event)
                self.weapon = {c.id: c.weapons[0].name for c in enc.combatants if c.weapons}
                ids = sorted(self.names, key=len, reverse=True)
                self._ids = re.compile(
                    r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])"
                )
            case CheckResolved():
                return None  # (a sentence of its own, that what follows joins: _check)
            case CombatantDefeated(who=who):
                self.down.add(who)
            case TurnStarted():
                self.acted = False
        return told_at_table(event, self)

    def _check(self, event: CheckResolved) -> _Sentence:
        """A check of its own (surprise, sanity): a sentence the condition it gives joins."""
        head = SAID[CheckResolved].table(event, self)
        return _Sentence(event.who, "check", head, seqs={event.seq}, joined=", ")

    def named(self, text: str) -> str:
        """``tie at 21 broken by roll-off: raider-1 4, shaman 4`` with names for the ids."""
        text = literal(text)
        if self._ids is None:
            return text
        return self._ids.sub(lambda m: self.name(m.group(1)), text)

    def deed(self, who: str, action: Action) -> str:
        return action_words(who, action, _Say(self, who), self._unit(action))


def _ruleset_named(name: str) -> type[Ruleset] | None:
    """The ruleset a log names, for its units' words (``None`` when it is not installed: its
    actions are then told from their names)."""
    try:
        return find_ruleset(name)
    except InitiativeError:
        return None
