"""What a person deciding for a combatant reads: plain text built from a :class:`~engine.View`.

Pure functions from a view (and the encounter, for names and weapons) to lines of text, with no
terminal in them, so that any front end (the ``human`` policy on this terminal, a client across
the network) shows the same screen. Names, never ids; offers numbered, in plain words, with
their AP cost. Text from the encounter file is shown literally, control characters made
visible.
"""

from __future__ import annotations

from collections.abc import Mapping

from initiative.engine import CombatantState, View, distance
from initiative.engine.rulesets.tactical import OpportunityAttack
from initiative.engine.rulesets.thriller import Intercept, Retaliate
from initiative.events import (
    Action,
    Attack,
    CombatantSpec,
    EncounterSpec,
    EndTurn,
    Move,
    Offer,
    Pass,
    Trigger,
    visible,
)

HELP = """\
Type the number of an offer and press Enter.
  ?   this help        s   the situation again
An attack names its target and weapon; a move says where it ends and how far it goes.
In your turn the last offer ends it; in an opening (a chance to react to what someone just
did) the last offer lets it pass. Ctrl-C stops the fight: `initiative resume LOG` goes on
later, and nothing already decided is asked again."""


#: ``text`` with control and invisible ordering characters made visible (``\\x1b`` stays four
#: characters): the one spelling every command uses.
literal = visible


class Names:
    """Display names and static descriptions by combatant id."""

    def __init__(self, encounter: EncounterSpec) -> None:
        self.specs: Mapping[str, CombatantSpec] = {c.id: c for c in encounter.combatants}

    def __call__(self, who: str | None) -> str:
        if who is None:
            return "someone"
        spec = self.specs.get(who)
        return literal(spec.display if spec is not None else who)

    def reach(self, who: str) -> float:
        """The longest melee reach of ``who``'s weapons (1.5 m unarmed)."""
        spec = self.specs.get(who)
        reaches = [w.reach for w in (spec.weapons if spec else ()) if w.range is None]
        return max(reaches, default=1.5)


def _weapon(spec: CombatantSpec, name: str | None) -> str:
    if name is not None:
        return literal(name)
    return literal(spec.weapons[0].name) if spec.weapons else "bare hands"


def _words(name: str) -> str:
    """``OpportunityAttack`` -> ``opportunity attack``."""
    out: list[str] = []
    for c in name:
        if c.isupper() and out:
            out.append(" ")
        out.append(c.lower())
    return "".join(out)


def describe_action(action: Action, view: View, names: Names) -> str:
    """One offer's action in plain words."""
    me = view.spec
    match action:
        case EndTurn():
            return "End your turn"
        case Pass():
            return "Let it pass"
        case Attack(target=target, weapon=weapon, variant=variant):
            how = f" ({_words(variant).replace('_', ' ')})" if variant else ""
            return f"Attack {names(target)} with the {_weapon(me, weapon)}{how}"
        case OpportunityAttack(target=target, weapon=weapon):
            return f"Strike {names(target)} as they leave, with the {_weapon(me, weapon)}"
        case Retaliate(target=target):
            return f"Strike back at {names(target)}"
        case Intercept():
            trigger = view.window.trigger
            meant = names(trigger.target) if trigger and trigger.target else "an ally"
            return f"Intercept: take the blow meant for {meant}"
        case Move(to=to):
            gap = distance(view.me.position, to)
            nearest = view.nearest_enemy()
            toward = ""
            if nearest is not None:
                before, after = view.distance_to(nearest), distance(to, nearest.position)
                word = "toward" if after < before else "away from"
                toward = f", {word} {names(nearest.id)} ({after:.1f} m from them)"
            return f"Move {gap:.1f} m to {to}{toward}"
    aimed = getattr(action, "target", None)
    text = _words(type(action).__name__).capitalize()
    if isinstance(aimed, str):
        text += f" {names(aimed)}"
    return text


def describe_offer(number: int, offer: Offer, view: View, names: Names) -> str:
    cost = f", {offer.cost} AP" if offer.cost else ""
    return f"{number}. {describe_action(offer.action, view, names)}{cost}"


def describe_trigger(trigger: Trigger, names: Names) -> str:
    """The opening being answered, in words."""
    by, target = names(trigger.by), names(trigger.target) if trigger.target else None
    kind = trigger.kind.replace("_", " ")
    match trigger.kind:
        case "attacked" | "attack":
            text = f"{by} attacks {target or 'someone'}"
        case "left_space" | "leaves_reach" | "left_reach":
            text = f"{by} is leaving {target + chr(39) + 's' if target else 'your'} reach"
        case "turn_ended":
            text = f"{by} ends their turn"
        case _:
            text = f"{by}: {kind}" + (f" ({target})" if target else "")
    if trigger.detail:
        text += f" [{literal(trigger.detail)}]"
    return text


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


def situation(view: View, names: Names) -> list[str]:
    """What matters for the choice: own state, the opening, reach and threats."""
    me = view.me
    lines = []
    if view.window.is_turn:
        lines.append(f"Round {view.round}: {names(me.id)}, your turn.")
    else:
        assert view.window.trigger is not None
        lines.append(
            f"Round {view.round}: {names(me.id)}, a chance to react: "
            f"{describe_trigger(view.window.trigger, names)}."
        )
    conditions = f"; {', '.join(literal(c) for c in me.conditions)}" if me.conditions else ""
    lines.append(f"You have {me.hp} of {me.max_hp} hp and {me.ap} AP{conditions}.")
    reach = names.reach(me.id)
    in_reach = [e for e in view.enemies if view.distance_to(e) <= reach + 0.01]
    if in_reach:
        lines.append("In your reach: " + ", ".join(_status(e, view, names) for e in in_reach) + ".")
    else:
        nearest = view.nearest_enemy()
        if nearest is not None:
            lines.append(f"No enemy in your reach; nearest: {_status(nearest, view, names)}.")
    lines.extend(f"{line}." for line in _threats(view, names))
    if view.allies:
        lines.append("Allies: " + ", ".join(_status(a, view, names) for a in view.allies) + ".")
    return lines


def _status(c: CombatantState, view: View, names: Names) -> str:
    return f"{names(c.id)} ({c.hp} hp, {view.distance_to(c):.1f} m)"


def screen(view: View, names: Names) -> str:
    """The whole screen for one decision: the situation, then the numbered offers."""
    lines = situation(view, names)
    lines.append("")
    lines.extend(describe_offer(i, o, view, names) for i, o in enumerate(view.legal, 1))
    return "\n".join(lines)


def parse_choice(text: str, count: int) -> int | None:
    """The 0-based index of the offer typed, or ``None`` when it is no offer's number."""
    text = text.strip().rstrip(".")
    if not text.isdigit():
        return None
    number = int(text)
    return number - 1 if 1 <= number <= count else None
