"""Narration: events told as sentences for people, from the log alone (no rules run)."""

from __future__ import annotations

from initiative.events import (
    ActionDeclared,
    ActionRejected,
    AddCombatant,
    AttackResolved,
    CheckResolved,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    CombatantReturned,
    CombatantRevived,
    ConditionAdded,
    ConditionRemoved,
    DamageDealt,
    DecisionFailed,
    EncounterEnded,
    EncounterStarted,
    EndTurn,
    Event,
    GmOverride,
    GmRolled,
    Healed,
    InitiativeOrdered,
    InitiativeRolled,
    MarkerAdded,
    MarkerRemoved,
    Moved,
    OpeningClosed,
    OpeningOpened,
    Override,
    Position,
    PriorityPassed,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)

from ._gm_words import gm_line, gm_words, rolled_words
from ._literal import literal


class Narrator:
    """Turns events into Rich-markup lines; keeps the names and the nesting of openings."""

    def __init__(self, *, verbose: bool = False) -> None:
        self.names: dict[str, str] = {}
        self.gm_done: dict[int, Override] = {}
        self.depth = 0
        self.verbose = verbose

    def name(self, who: str | None) -> str:
        if who is None:
            return "-"
        return f"[bold]{literal(self.names.get(who, who))}[/bold]"

    def __call__(self, event: Event) -> str | None:
        """One line of narration for ``event``, or ``None`` for bookkeeping events."""
        text = self._line(event)
        depth = self.depth
        if isinstance(event, OpeningOpened):
            self.depth += 1
        elif isinstance(event, OpeningClosed):
            self.depth = depth = max(0, self.depth - 1)
        if text is None:
            if not self.verbose:
                return None
            text = f"[dim]{literal(type(event).__name__)} {literal(summary(event))}[/dim]"
        top = isinstance(event, (RoundStarted, TurnStarted, EncounterEnded))
        indent = "  " * (depth + (0 if top else 1))
        return f"[dim]{event.seq:>5}[/dim] {indent}{text}"

    def _line(self, event: Event) -> str | None:
        n = self.name
        match event:
            case EncounterStarted(encounter=enc, ruleset=ruleset, seed=seed):
                self.names = {c.id: c.display for c in enc.combatants}
                title = literal(enc.name or "Encounter")
                return (
                    f"[bold magenta]{title}[/bold magenta] ({literal(ruleset)} rules, seed {seed})"
                )
            case CombatantJoined(who=who, side=side, hp=hp, ap=ap, round=r):
                verb = f"arrives in round {r}" if r else "joins"
                return f"{n(who)} {verb} for {literal(side)} ({hp} hp, {ap} AP)"
            case InitiativeRolled(who=who, total=total, die=die, modifier=mod, given=given):
                whom = ", ".join(n(w) for w in who)
                how = "rolled at the table" if given else "rolls"
                return f"initiative: {whom} {how} {die} {mod:+d} = [bold]{total}[/bold]"
            case InitiativeOrdered(order=order, ties=ties):
                extra = f" ({literal('; '.join(ties))})" if ties else ""
                return "order: " + ", ".join(n(c) for c in order) + extra
            case RoundStarted(round=r):
                return f"[bold cyan]-- Round {r} --[/bold cyan]"
            case TurnStarted(who=who):
                return f"[cyan]{n(who)}'s turn[/cyan]"
            case TurnEnded(who=who, reason=reason) if reason not in ("ended",):
                return f"{n(who)}'s turn ends ({literal(reason)})"
            case ActionDeclared(action=EndTurn()):
                return None
            case ActionDeclared(who=who, action=action, cost=cost):
                paid = f" [dim]({cost} AP)[/dim]" if cost else ""
                return f"{n(who)}: {literal(action.describe())}{paid}"
            case ActionRejected(who=who, action=action, reason=reason):
                return (
                    f"[yellow]{n(who)} tried {literal(action.describe())}: rejected,"
                    f" {literal(reason)}[/yellow]"
                )
            case DecisionFailed(who=who, kind=kind, detail=detail):
                return f"[red]{n(who)}'s policy failed ({literal(kind)}): {literal(detail)}[/red]"
            case PriorityPassed(who=who, reason=reason) if reason != "pass":
                return f"{n(who)} passes ({literal(reason)})"
            case AttackResolved(who=who, target=target, hit=hit, roll=roll, against=against):
                verdict = "[green]hits[/green]" if hit else "misses"
                return f"{n(who)} {verdict} {n(target)} ({roll} against {against})"
            case CheckResolved(who=who, check=check, success=ok, roll=roll, against=against):
                verdict = "succeeds" if ok else "fails"
                return f"{n(who)} {verdict} at {literal(check)} ({roll} against {against})"
            case DamageDealt(who=who, amount=amount, hp=hp, location=loc):
                where = f" to the {literal(loc)}" if loc else ""
                return f"{n(who)} takes [red]{amount}[/red] damage{where} ({hp} hp left)"
            case Healed(who=who, amount=amount, hp=hp):
                return f"{n(who)} recovers {amount} hp ({hp} hp)"
            case Moved(who=who, to=to, distance=d):
                return f"{n(who)} moves {d:g} m to {literal(to)}"
            case ConditionAdded(who=who, condition=c, until=until):
                return f"{n(who)} is now {literal(c)}" + (
                    f" until {literal(until)}" if until else ""
                )
            case ConditionRemoved(who=who, condition=c):
                return f"{n(who)} is no longer {literal(c)}"
            case OpeningOpened(trigger=t, offered=offered):
                by = f" by {n(t.by)}" if t.by else ""
                return (
                    f"[magenta]opening ({literal(t.kind)}{by}) for "
                    + ", ".join(n(c) for c in offered)
                    + "[/magenta]"
                )
            case CombatantDefeated(who=who, reason=reason):
                return f"[bold red]{n(who)} is defeated[/bold red] ({literal(reason)})"
            case CombatantLeft(who=who, reason=reason):
                return f"{n(who)} leaves the fight ({literal(reason)})"
            case GmOverride():
                return gm_line(self, event)
            case GmRolled():
                return rolled_words(event)
            case MarkerAdded(who=who, text=text):
                return f"{n(who)} is marked {literal(text)}"
            case MarkerRemoved(who=who, text=text):
                return f"{n(who)} is no longer marked {literal(text)}"
            case CombatantReturned(who=who):
                return f"{n(who)} is back in the fight"
            case CombatantRevived(who=who):
                return f"{n(who)} stands again"
            case EncounterEnded(winner=winner, reason=reason, rounds=rounds):
                head = f"{literal(winner)} win" if winner else "No winner"
                return f"[bold green]{head}[/bold green] after {rounds} round(s): {literal(reason)}"
        return None


def who_of(event: Event) -> str | None:
    """The combatant an event is about, if any."""
    who = getattr(event, "who", None)
    if isinstance(event, GmOverride):  # about the combatant the GM changed
        o = event.override
        who = o.id if isinstance(o, AddCombatant) else getattr(o, "who", None)
    if isinstance(who, tuple):
        return ",".join(who)
    return who if isinstance(who, str) else None


def summary(event: Event) -> str:
    """A one-line, plain-text summary of an event's own fields (for tables)."""
    if isinstance(event, GmOverride):
        return gm_words(event.override, str)
    skip = {"seq", "cause", "who", "encounter"}
    parts = []
    for name in event.__struct_fields__:
        if name in skip:
            continue
        value = getattr(event, name)
        if value is None or value == () or value == "":
            continue
        if isinstance(value, Position):
            value = str(value)
        elif hasattr(value, "describe"):
            value = value.describe()
        elif hasattr(value, "__struct_fields__"):
            value = " ".join(
                f"{k}={getattr(value, k)}"
                for k in value.__struct_fields__
                if getattr(value, k) not in (None, (), "")
            )
        elif isinstance(value, tuple):
            value = ",".join(str(v) for v in value)
        parts.append(f"{name}={value}")
    return " ".join(parts)
