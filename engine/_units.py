"""One action type's rules and words: :class:`ActionUnit`, and :class:`Say`, what words use.

A ruleset lists one unit per action type it knows (``Ruleset.units``); the unit holds everything
about that type: when it is offered and how (:meth:`~ActionUnit.offers`), why it is illegal
(:meth:`~ActionUnit.check`), what it costs (:meth:`~ActionUnit.cost`), what it does
(:meth:`~ActionUnit.perform`, or :meth:`~ActionUnit.resolve` when it opens no openings), and how
people read it: on a screen offering it (:meth:`~ActionUnit.offered`) and in the narration of
the deed done (:meth:`~ActionUnit.told`). The ruleset finds a unit by the action's type, one
dict look-up (:meth:`Ruleset.unit_of <engine.Ruleset.unit_of>`), so adding an action touches one
class and no ``match`` anywhere; screens and narration find the words the same way, so an
installed ruleset's actions read as well as the bundled ones.

Words are made with a :class:`Say`, which the screen and the narration each give: display
names for ids, the weapon an action means, a point in words, the opening being answered. A unit
never sees a terminal or a log.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from initiative.events import Action, AnyAction, Offer, Position, Trigger, Window, visible

if TYPE_CHECKING:
    from ._rules import Rules
    from ._ruleset import Hook

A = TypeVar("A", bound=Action)

#: The core actions (``events``): the shared vocabulary, never a ruleset's own.
CORE_ACTIONS: frozenset[type[Action]] = frozenset(typing.get_args(AnyAction))

#: The windows a unit makes offers in.
WindowKind = Literal["turn", "opening"]


class Say(Protocol):
    """What words are made with: given by the screen (second person, a decision's view) and by
    the narration (third person, from the log)."""

    @property
    def actor(self) -> str | None:
        """The id of the one acting (``None`` when unknown)."""
        ...

    @property
    def trigger(self) -> Trigger | None:
        """The opening the action answers, if any."""
        ...

    def name(self, who: str | None) -> str:
        """The display name of ``who`` (shown literally), ``someone`` for ``None``."""
        ...

    def known(self, text: str) -> bool:
        """Whether ``text`` is a combatant's id (so a field holding it is worded as a name)."""
        ...

    def weapon(self, name: str | None) -> str:
        """The weapon an action names, or the actor's first one when it names none."""
        ...

    def point(self, to: Position) -> str:
        """Where ``to`` is in words, from the actor (``3.2 m toward Bo``); may be empty."""
        ...


def words(name: str) -> str:
    """``OpportunityAttack`` -> ``opportunity attack``; ``in_cover`` -> ``in cover``."""
    spaced = "".join(f" {c}" if c.isupper() and i else c for i, c in enumerate(name))
    return " ".join(spaced.replace("_", " ").replace("-", " ").lower().split())


def third_person(verb_phrase: str) -> str:
    """``shout`` -> ``shouts``, ``catch breath`` -> ``catches breath``, ``cry`` -> ``cries``."""
    first, _, rest = verb_phrase.strip().partition(" ")
    if first.endswith(("s", "sh", "ch", "x", "z", "o")):
        first += "es"
    elif first.endswith("y") and first[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        first = first[:-1] + "ies"
    else:
        first += "s"
    return f"{first} {rest}".strip()


def listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def text(action: Action, field: str) -> str | None:
    """The action's text field ``field`` if it has one that is not empty, else ``None``."""
    value = getattr(action, field, None)
    return value if isinstance(value, str) and value else None


def plain_words(action: Action, say: Say) -> str:
    """Any action in words from its class name and fields, for a screen: a ``to`` is a point
    (distance and direction), a combatant's id a name, a ``name`` the action's own name
    (``Shout (free action)``), other text with control characters made visible."""
    kind = words(type(action).__name__)
    said = kind.capitalize()
    aimed: list[str] = []
    extra: list[str] = []
    to: Position | None = None
    for field in action.__struct_fields__:
        value = getattr(action, field)
        if value in (None, "", ()):
            continue
        if isinstance(value, Position):
            to = value
        elif isinstance(value, str) and say.known(value):
            aimed.append(say.name(value))
        elif field == "name" and isinstance(value, str):
            said = f"{visible(words(value)).capitalize()} ({kind})"
        elif isinstance(value, str):
            extra.append(visible(words(value)))
        elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            extra.append(", ".join(visible(words(v)) for v in value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            extra.append(f"{words(field)} {value:g}")
    if aimed:
        said += " " + " and ".join(aimed)
    if extra:
        said += ": " + "; ".join(extra)
    if to is not None and not aimed:
        said += " " + say.point(to)
    elif to is not None:
        said += f" to {to}"
    return said.rstrip()


def plain_told(action: Action, say: Say) -> str:
    """Any action as a deed, from its class name and its target: ``blind opponent Bo``."""
    target = text(action, "target")
    return words(type(action).__name__) + (f" {say.name(target)}" if target else "")


class ActionUnit(Generic[A]):
    """Everything about one action type: offers, check, cost, performance, words.

    Subclass it once per action type, set :attr:`action`, and override what the type needs;
    list an instance in the ruleset's ``units``. Every method receives the :class:`Rules` a
    hook receives (``fight``), the acting combatant's id and the window (its turn, or an
    opening with its trigger).
    """

    action: ClassVar[type[Action]] = Action
    """The action type this unit is about."""
    when: ClassVar[tuple[WindowKind, ...]] = ()
    """The windows :meth:`offers` is asked in (``"turn"``, ``"opening"``); a unit asked in
    none is never offered, though a policy may still send its action."""
    answers: ClassVar[tuple[str, ...] | None] = None
    """The kinds of trigger of the openings it is offered in (``None``: any): the ruleset asks
    only these units in an opening of another kind."""
    to_point: ClassVar[bool] = False
    """Its action moves the actor to the point in its ``to``, and any point its check allows
    may be sent, not only those offered: a person may aim it at a point of their choosing (a
    typed move). Of the units that do, a screen takes the first offered, in ``units`` order."""
    moving: ClassVar[bool] = False
    """Its deed moves the actor: the narration tells the distance ("Bo flees 12 m")."""
    implies: ClassVar[tuple[str, ...]] = ()
    """Conditions (wire names) its deed gives, which :meth:`told` already says ("takes cover"
    gives ``in_cover``): the narration does not say them again."""

    # --- rules --------------------------------------------------------------------------------

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        """The offers of this type for ``who`` now (each must pass :meth:`check` at its cost).

        Asked only in the windows :attr:`when` names, in the order of the ruleset's units."""
        return []

    def check(self, fight: Rules, who: str, action: A, window: Window) -> str | None:
        """Why ``action`` is illegal now, or ``None`` when it is legal."""
        return f"{type(action).__name__} cannot be taken here"

    def cost(self, fight: Rules, who: str, action: A, window: Window) -> int:
        """AP the action spends (asked only of a legal action)."""
        return 1

    def perform(self, fight: Rules, who: str, action: A, window: Window) -> Hook:
        """Resolve the declared, paid-for action; may open openings (``yield from
        fight.opening(...)``). Returns what the opening's maker sees of it (a Dodge's roll).
        By default, :meth:`resolve`."""
        return self.resolve(fight, who, action, window)
        yield  # pragma: no cover - makes this a generator

    def resolve(self, fight: Rules, who: str, action: A, window: Window) -> Any:
        """What the action does when it opens no openings (the default :meth:`perform`)."""
        return None

    def aimed_reach(self, offered: float, speed: float) -> float:
        """How far a point aimed at may be, when the farthest offer goes ``offered`` metres and
        the actor's speed is ``speed`` (for a :attr:`to_point` unit): by default, as far as the
        offers go (they go as far as the rules allow, away from the nearest enemy)."""
        return offered

    # --- words --------------------------------------------------------------------------------

    def offered(self, action: A, say: Say) -> str:
        """The action offered on a screen, imperative: ``Attack Bo with the sword``."""
        return plain_words(action, say)

    def told(self, action: A, say: Say) -> str:
        """The deed in the narration, after the actor's name: ``attacks Bo with the sword``."""
        return plain_told(action, say)

    def told_resolved(self, action: A, say: Say, *, hit: bool) -> str | None:
        """The deed once its attack roll is known, after the actor's name: ``hits Bo with the
        sword`` (an attack's unit words its outcome itself). ``None``, the default: the deed is
        told as declared, and the hit or the miss after it."""
        return None


#: The words of an action no unit of the ruleset owns (one sent by a script, say).
PLAIN: ActionUnit[Action] = ActionUnit()
