"""Narration for people at the table: one sentence per action, with its result.

"Acolyte 3 hits Detective Marlowe with the sickle: 15 against 11, 4 damage, Detective Marlowe
falls." An action's consequences (its roll, the hit or miss, damage, a fall, a move, a
condition) are gathered into its sentence, told once the next thing happens; the bookkeeping
(priority, AP, openings nobody took) is not told at all, and groups get the grammar of
groups. Names are shown literally, control characters made visible. Reads events only.
"""

from __future__ import annotations

from initiative.actors import literal
from initiative.engine.rulesets.tactical import OpportunityAttack
from initiative.events import (
    ActionDeclared,
    Attack,
    AttackResolved,
    CheckResolved,
    CombatantDefeated,
    CombatantJoined,
    ConditionAdded,
    DamageDealt,
    DecisionFailed,
    EncounterEnded,
    EncounterStarted,
    EndTurn,
    Event,
    Healed,
    InitiativeRolled,
    Move,
    Moved,
    RoundStarted,
    TurnStarted,
)
from rich.markup import escape

#: Consequences gathered into the sentence of the action that caused them.
_QUIET = ("DiceRolled", "DiceGiven", "APChanged", "CounterChanged", "ConditionRemoved")


def words(name: str) -> str:
    """``OpportunityAttack`` -> ``opportunity attack``."""
    return "".join(f" {c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


def listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class TableNarrator:
    """Call with each event in order; returns the lines to show now (possibly none)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.sentence: list[str] = []
        self.group: set[int] = set()
        self.actor = ""
        self.weapon: dict[str, str] = {}

    def name(self, who: str | None) -> str:
        return escape(literal(self.names.get(who, who) if who else "someone"))

    def __call__(self, event: Event) -> str | None:
        lines: list[str] = []
        if event.cause is not None and event.cause in self.group and self._absorb(event):
            self.group.add(event.seq)
            return None
        lines += self._flush()
        line = self._tell(event)
        if line is not None:
            lines.append(line)
        return "\n".join(lines) if lines else None

    def _flush(self) -> list[str]:
        if not self.sentence:
            return []
        text = self.sentence[0] + (
            ": " + ", ".join(self.sentence[1:]) if len(self.sentence) > 1 else ""
        )
        self.sentence, self.group = [], set()
        return [text]

    def _absorb(self, event: Event) -> bool:
        n = self.name
        match event:
            case _ if type(event).__name__ in _QUIET:
                return True
            case AttackResolved(hit=hit, roll=roll, against=against):
                verb = "hits" if hit else "misses"
                self.sentence[0] = self.sentence[0].replace(" attacks ", f" {verb} ", 1)
                self.sentence.append(f"{roll} against {against}")
            case CheckResolved(check=check, success=ok, roll=roll, against=against):
                verdict = "success" if ok else "failure"
                self.sentence.append(
                    f"{escape(literal(check))} {roll} against {against}, {verdict}"
                )
            case DamageDealt(who=who, amount=amount):
                target = "" if f" {n(who)} " in f"{self.sentence[0]} " else f" to {n(who)}"
                self.sentence.append(f"{amount} damage{target}")
            case CombatantDefeated(who=who):
                self.sentence.append(f"{n(who)} falls")
            case Moved(who=who, distance=d) if who == self.actor:
                if self.sentence[0].endswith(" moves"):
                    self.sentence[0] += f" {d:g} m"
                else:
                    self.sentence.append(f"moving {d:g} m")
            case Healed(who=who, amount=amount):
                self.sentence.append(f"{n(who)} recovers {amount} hp")
            case ConditionAdded(who=who, condition=c):
                self.sentence.append(f"{n(who)} is {escape(literal(c))}")
            case _:
                return False
        return True

    def _tell(self, event: Event) -> str | None:
        n = self.name
        match event:
            case EncounterStarted(encounter=enc):
                self.names = {c.id: c.display for c in enc.combatants}
                self.weapon = {c.id: c.weapons[0].name for c in enc.combatants if c.weapons}
                return f"[bold]{escape(literal(enc.name or 'The fight'))}[/bold]"
            case CombatantJoined(who=who, side=side, round=r) if r:
                return f"{n(who)} arrives for {escape(literal(side))}"
            case InitiativeRolled(who=who, total=total):
                verb = "rolls" if len(who) == 1 else "roll"
                return f"{listed([n(w) for w in who])} {verb} {total} for initiative"
            case RoundStarted(round=r):
                return f"[bold]Round {r}[/bold]"
            case TurnStarted(who=who):
                return f"{n(who)}'s turn"
            case ActionDeclared(action=EndTurn()):
                return None
            case ActionDeclared(who=who, action=action):
                self.actor, self.group = who, {event.seq}
                self.sentence = [self._action(who, action)]
                return None
            case DecisionFailed(who=who, kind=kind):
                return f"{n(who)} hesitates ({escape(kind)})"
            case AttackResolved(who=who, target=target, hit=hit, roll=roll, against=against):
                verb = "hits" if hit else "misses"
                return f"{n(who)} {verb} {n(target)}: {roll} against {against}"
            case DamageDealt(who=who, amount=amount):
                return f"{n(who)} takes {amount} damage"
            case CombatantDefeated(who=who):
                return f"{n(who)} falls"
            case EncounterEnded(winner=winner, reason=reason, rounds=rounds):
                rounds_text = f"{rounds} round{'s' if rounds != 1 else ''}"
                if winner:
                    return f"[bold]Victory for {escape(literal(winner))}[/bold] after {rounds_text}"
                return f"[bold]No one wins[/bold] after {rounds_text}: {escape(reason)}"
        return None

    def _action(self, who: str, action: object) -> str:
        n = self.name
        match action:
            case (
                Attack(target=target, weapon=weapon)
                | OpportunityAttack(target=target, weapon=weapon)
            ):
                with_ = escape(literal(weapon or self.weapon.get(who, "bare hands")))
                how = " as they leave" if isinstance(action, OpportunityAttack) else ""
                return f"{n(who)} attacks {n(target)}{how} with the {with_}"
            case Move():
                return f"{n(who)} moves"
        aimed = getattr(action, "target", None)
        text = f"{n(who)}: {words(type(action).__name__)}"
        return text + (f" {n(aimed)}" if isinstance(aimed, str) else "")
