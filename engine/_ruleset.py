"""The ruleset interface: the hooks every ruleset overrides, and finding one by name.

A ruleset is a class with a name, a version and an ``Options`` Struct, found by name among the
modules of ``engine.rulesets`` (each module exposes ``RULESET``) and, beside them, among the
``initiative.rulesets`` entry points of installed packages (see docs/rulesets.md). The scheduler (:class:`Fight`)
owns the flow every seed shares: header, joins, rounds, turns, priority, openings, the end. A
ruleset fills in the rest through hooks. Hooks that can open an opening are generators, driven
with ``yield from`` so an opening can pause them while other combatants decide; they contain no
Trio. Hooks receive a :class:`~engine._rules.Rules` (named ``fight``), the table of what rules
may read and do; they change the state only through it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from initiative.events import (
    RULESET_GROUP,
    Action,
    CombatantSpec,
    EncounterFileError,
    EncounterSpec,
    EndTurn,
    Offer,
    Pass,
    UnknownRulesetError,
    Window,
    did_you_mean,
    register_actions,
)

from ._dice import parse_dice
from ._hooks import Hook, RulesetHooks, wrong_hook
from ._odds import Odds, Sighted
from ._profile import SearchProfile
from ._rules import HIDDEN, Condition, Counter, Rules
from ._units import CORE_ACTIONS, ActionUnit


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Options every ruleset has; a ruleset's own ``Options`` subclasses this."""

    max_rejections: int = 3
    """Illegal actions in a row before the combatant is made to pass."""
    max_decisions_per_turn: int = 100
    """Decisions in one turn before the turn is ended for the combatant."""
    max_opening_depth: int = 4
    """Openings nested deeper than this are not made."""
    idle_rounds: int = 3
    """Rounds in a row in which nobody takes any action (everyone ends its turn or passes at
    once, scripts have run out) after which nothing can change any more: the encounter ends
    undecided with that reason, instead of idling to ``max_rounds`` (0: never)."""
    withdraw_turns: int = 0
    """Own turns in a row after which a combatant that ended each farther from its nearest
    enemy than it began it, aiming no action at an enemy, has left the battle
    (``CombatantLeft``, reason ``withdrew``), so that running away cannot draw a fight out to
    ``max_rounds`` (0: never). An encounter file that leaves it out gets
    :data:`WITHDRAW_TURNS` when it is loaded, and the log's header records it; a header
    written before the rule lacks it, so its fight replays without the rule."""


WITHDRAW_TURNS = 3
"""``withdraw_turns`` of an encounter file that does not give it."""


class NoCombatantOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A ruleset that takes no per-combatant options: any key is an error, never ignored."""


class Ruleset:
    """Base of every ruleset. Subclasses override hooks; the defaults suit most seeds."""

    name: ClassVar[str] = ""
    version: ClassVar[int] = 1
    seed_file: ClassVar[str] = ""
    Options: ClassVar[type[Options]] = Options
    #: The Struct a combatant's own ``options`` table decodes into.
    CombatantOptions: ClassVar[type[msgspec.Struct]] = NoCombatantOptions
    #: Stat names an encounter may use.
    stats: ClassVar[frozenset[str]] = frozenset()
    #: Stats a combatant must have (the others default to 0).
    required_stats: ClassVar[frozenset[str]] = frozenset()
    #: The documented range of each stat's value (inclusive); a stat not named has none.
    stat_ranges: ClassVar[dict[str, tuple[int, int]]] = {}
    #: Skill names an encounter may use (``None``: the ruleset reads no skills at all).
    skills: ClassVar[frozenset[str] | None] = None
    #: The documented range of a skill's value (inclusive).
    skill_range: ClassVar[tuple[int, int]] = (0, 100)
    #: Perks the ruleset knows (compared loosely: case, ``-`` and ``_`` ignored).
    perks: ClassVar[frozenset[str]] = frozenset()
    #: Sides of the initiative die (``1d{initiative_die}`` plus the modifier).
    initiative_die: ClassVar[int] = 20
    #: The die a tie is rolled off with.
    roll_off_die: ClassVar[int] = 20
    #: Whether the seed lets one initiative roll serve a group of like combatants (``group``,
    #: and the copies of a ``count``). When false, every participant rolls its own.
    group_initiative: ClassVar[bool] = False
    #: One unit per action type the ruleset knows (:class:`~engine.ActionUnit`): its offers,
    #: check, cost, performance and words. Offers are asked of the units in this order.
    units: ClassVar[tuple[ActionUnit[Any], ...]] = ()
    #: Actions this ruleset adds to the core ones in ``events``, each tagged
    #: ``"<name>.<Action>"``; the log codec decodes them in this ruleset's logs and encounters
    #: (found through the ``initiative.rulesets`` entry point, for bundled rulesets too). By
    #: default, the types of :attr:`units` that are not core actions.
    actions: ClassVar[tuple[type[Action], ...]] = ()
    #: The condition types this ruleset's rules add and remove (see :mod:`engine._rules`);
    #: adding one of another type is an error.
    conditions: ClassVar[tuple[type[Condition], ...]] = ()
    #: The counter types this ruleset's rules keep.
    counters: ClassVar[tuple[type[Counter], ...]] = ()
    #: How the built-in ``search`` policy plays this ruleset (its budget, horizon and learned
    #: evaluation), and a game review's default rollouts: the generic settings by default.
    search_profile: ClassVar[SearchProfile] = SearchProfile()

    #: The registry: each unit by its action type (made from :attr:`units`).
    _units: ClassVar[Mapping[type[Action], ActionUnit[Any]]] = {}
    #: The bound ``offers`` of the units asked in a turn, in order.
    _in_turn: ClassVar[tuple[Any, ...]] = ()
    #: The same for an opening, by its trigger's kind (filled in as kinds are met).
    _answering: ClassVar[dict[str, tuple[Any, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "units" not in cls.__dict__:
            return
        found: dict[type[Action], ActionUnit[Any]] = {}
        for unit in cls.units:
            if unit.action in found:
                raise TypeError(f"{cls.__name__}.units has two units for {unit.action.__name__}")
            found[unit.action] = unit
        cls._units = found
        cls._in_turn = tuple(u.offers for u in cls.units if "turn" in u.when)
        cls._answering = {}
        if "actions" not in cls.__dict__:
            cls.actions = tuple(u.action for u in cls.units if u.action not in CORE_ACTIONS)

    @classmethod
    def unit_of(cls, kind: type[Action]) -> ActionUnit[Any] | None:
        """The unit of action type ``kind`` (``None`` when the ruleset has none): where a
        ruleset, a screen or the narration finds what to do with an action and how to say it."""
        return cls._units.get(kind)

    def __init__(self, encounter: EncounterSpec) -> None:
        self.encounter = encounter
        self.options: Any = self.decode_options(encounter.options, name="encounter")

    # --- setting up ---------------------------------------------------------------------------

    @classmethod
    def decode_options(cls, data: dict[str, Any], *, name: str) -> Any:
        """The encounter's ``[options]`` as :attr:`Options`; a bad value is an
        :class:`EncounterFileError` naming the file and the key."""
        try:
            return msgspec.convert(data, cls.Options)
        except msgspec.ValidationError as err:
            raise EncounterFileError(
                f"{name}: in [options] for ruleset {cls.name!r}: {_at_key(err, cls.Options)}"
            ) from None

    @classmethod
    def decode_combatant_options(cls, c: CombatantSpec, *, name: str) -> Any:
        """``c``'s own ``options`` as :attr:`CombatantOptions`: the one checked path every
        ruleset's per-combatant options go through when a file is loaded (a bad value is an
        :class:`EncounterFileError` naming the file, the combatant and the key, never msgspec's
        own error). Once loaded, a ruleset may convert them again unchecked."""
        try:
            return msgspec.convert(c.options, cls.CombatantOptions)
        except msgspec.ValidationError as err:
            raise EncounterFileError(
                f"{name}: combatant {c.id!r}: in options for ruleset {cls.name!r}:"
                f" {_at_key(err, cls.CombatantOptions)}"
            ) from None

    @classmethod
    def normalize(cls, spec: EncounterSpec, *, name: str) -> EncounterSpec:
        """Check stats and options, and fill in the options' defaults."""
        options = cls.decode_options(spec.options, name=name)
        if "withdraw_turns" not in spec.options:
            options = msgspec.structs.replace(options, withdraw_turns=WITHDRAW_TURNS)
        if options.withdraw_turns < 0:
            raise EncounterFileError(
                f"{name}: in [options] for ruleset {cls.name!r}: at key withdraw_turns: must be"
                f" at least 1 (or 0: never), got {options.withdraw_turns}"
            )
        for c in spec.combatants:
            cls.check_combatant(c, name=name)
        return msgspec.structs.replace(spec, options=msgspec.to_builtins(options))

    @classmethod
    def check_combatant(cls, c: CombatantSpec, *, name: str) -> None:
        """Raise :class:`EncounterFileError` for a stat the ruleset does not know, or options
        that do not decode (checked first: the other checks may read them)."""
        cls.decode_combatant_options(c, name=name)
        for stat in sorted(c.stats):
            if stat not in cls.stats:
                known = ", ".join(sorted(cls.stats))
                raise EncounterFileError(
                    f"{name}: combatant {c.id!r}: unknown stat {stat!r} for ruleset"
                    f" {cls.name!r} (known: {known}){did_you_mean(stat, cls.stats)}"
                )
            low, high = cls.stat_ranges.get(stat, (None, None))
            value = c.stats[stat]
            if low is not None and high is not None and not low <= value <= high:
                raise EncounterFileError(
                    f"{name}: combatant {c.id!r}: at key stats.{stat}: {value} is outside the"
                    f" {cls.name} range {low} to {high}"
                )
        cls.check_skills(c, cls.known_skills(c), name=name)
        if c.initiative_roll is not None and not 1 <= c.initiative_roll <= cls.initiative_die:
            # A die rolled at the table must be a face the ruleset's die can show.
            raise EncounterFileError(
                f"{name}: combatant {c.id!r}: initiative_roll is a d{cls.initiative_die} face"
                f" (1-{cls.initiative_die}), got {c.initiative_roll}"
            )
        for stat in sorted(cls.required_stats - set(c.stats)):
            raise EncounterFileError(
                f"{name}: combatant {c.id!r}: ruleset {cls.name!r} needs stat {stat!r}"
            )
        dice: list[tuple[str, str]] = [(f"weapon {w.name!r}", w.damage) for w in c.weapons]
        for thing in c.items:
            for field in ("damage", "heal"):
                rolled = getattr(thing, field, None)
                if isinstance(rolled, str):
                    dice.append((f"{thing.name!r} {field}", rolled))
        for what, expr in dice:
            try:
                parse_dice(expr)
            except EncounterFileError as err:
                raise EncounterFileError(f"{name}: combatant {c.id!r}: {what}: {err}") from None

    @classmethod
    def known_skills(cls, c: CombatantSpec) -> frozenset[str] | None:
        """The skill names ``c`` may have (a ruleset may add some per combatant)."""
        return cls.skills

    @classmethod
    def check_skills(cls, c: CombatantSpec, known: frozenset[str] | None, *, name: str) -> None:
        """Raise :class:`EncounterFileError` for an unknown skill or one out of range."""
        where = f"{name}: combatant {c.id!r}"
        for skill in sorted(c.skills):
            if known is None:
                raise EncounterFileError(
                    f"{where}: at key skills.{skill}: the {cls.name} ruleset reads no skills"
                )
            if skill not in known:
                raise EncounterFileError(
                    f"{where}: unknown skill {skill!r} for ruleset {cls.name!r}"
                    f" (known: {', '.join(sorted(known))}){did_you_mean(skill, known)}"
                )
            low, high = cls.skill_range
            if not low <= c.skills[skill] <= high:
                raise EncounterFileError(
                    f"{where}: at key skills.{skill}: {c.skills[skill]} is outside the"
                    f" {cls.name} range {low} to {high}"
                )

    @classmethod
    def check_perks(cls, c: CombatantSpec, perks: tuple[str, ...], *, name: str) -> None:
        """Raise :class:`EncounterFileError` for a perk the ruleset does not know (``perks``, as
        its ``CombatantOptions`` holds them): a typo would otherwise have no effect at all."""
        for index, perk in enumerate(perks):
            if _loose(perk) in {_loose(p) for p in cls.perks}:
                continue
            if not cls.perks:
                raise EncounterFileError(
                    f"{name}: combatant {c.id!r}: at key options.perks[{index}]: the {cls.name} ruleset"
                    f" has no perks (got {perk!r})"
                )
            raise EncounterFileError(
                f"{name}: combatant {c.id!r}: at key options.perks[{index}]: unknown perk {perk!r} for"
                f" ruleset {cls.name!r} (known: {', '.join(sorted(cls.perks))})"
                f"{did_you_mean(perk, cls.perks)}"
            )

    def max_ap(self, c: CombatantSpec) -> int:
        """AP a combatant has when full."""
        return c.ap if c.ap is not None else 1

    # --- what a policy may ask ----------------------------------------------------------------

    def reveal(self, c: CombatantSpec) -> Sighted:
        """What the table knows of ``c`` by looking at it (``View.known``): by default its
        weapons, armour, reach, range, speed and size as the encounter states them. A ruleset
        that hides some of it (a concealed weapon) or shows more says so here."""
        melee = [w.reach for w in c.weapons if w.range is None]
        ranged = [w.range for w in c.weapons if w.range is not None]
        return Sighted(
            id=c.id,
            name=c.name or c.id,
            side=c.side,
            weapons=c.weapons,
            armor=c.armor,
            reach=max(melee, default=1.5),
            range=max(ranged, default=None),
            speed=c.speed,
            size=c.size,
        )

    def odds(self, fight: Rules, who: str, action: Action) -> Odds | None:
        """``action``'s chance to hit and mean damage if ``who`` took it now
        (``View.odds``), as the ruleset's own resolution computes them from the dice,
        before any reaction; ``None`` for an action that is no attack, and by default (a
        ruleset that does not say)."""
        return None

    # --- initiative ---------------------------------------------------------------------------

    def initiative_dice(self, c: CombatantSpec) -> str:
        """The initiative dice for ``c`` (a perk may give advantage: ``2d20kh1``)."""
        return f"1d{self.initiative_die}"

    def initiative_modifier(self, c: CombatantSpec) -> int:
        return 0

    def tie_keys(self, fight: Rules, who: str) -> tuple[int, ...]:
        """Keys that break initiative ties before a roll-off, highest first."""
        return ()

    def start(self, fight: Rules) -> Hook:
        """Before round 1: roll initiative for everyone present (and surprise, if any)."""
        fight.roll_initiative(fight.present_ids())
        return
        yield  # pragma: no cover - makes this a generator

    def arrive(self, fight: Rules, arrivals: list[str]) -> Hook:
        """Combatants arriving this round have joined: place them in the order."""
        fight.roll_initiative(arrivals, insert=True)
        return
        yield  # pragma: no cover

    # --- rounds and turns ---------------------------------------------------------------------

    def round_started(self, fight: Rules) -> Hook:
        return
        yield  # pragma: no cover

    def round_ended(self, fight: Rules) -> Hook:
        return
        yield  # pragma: no cover

    def turn_started(self, fight: Rules, who: str) -> Hook:
        """At the start of ``who``'s turn. Return a reason to skip the turn, or ``None``."""
        fight.set_ap(who, self.max_ap(fight.spec(who)), "turn start")
        return None
        yield  # pragma: no cover

    def turn_ended(self, fight: Rules, who: str) -> Hook:
        """After ``TurnEnded``: openings that ending a turn makes, end-of-turn effects."""
        return
        yield  # pragma: no cover

    def turn_over(self, fight: Rules, who: str) -> str | None:
        """A reason the turn must end now although its taker did not end it, or ``None``."""
        return None

    # --- actions ------------------------------------------------------------------------------
    # By default each goes to the action's unit (see :attr:`units`); a ruleset overrides one
    # for a rule every action shares (the tactical seed's action classes, say), and hands the
    # rest to the unit. ``check``, ``cost`` and ``perform`` receive any :class:`events.Action`
    # a combatant sent.

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        """The legal actions, ready to send, with costs: the offers of the units asked in this
        window, in order. ``EndTurn`` or ``Pass`` is added by the scheduler; in an opening, an
        empty list means the creature is not offered it."""
        if window.kind == "turn":
            asked = self._in_turn
        else:
            kind = window.trigger.kind if window.trigger is not None else ""
            found = self._answering.get(kind)
            asked = found if found is not None else self._answerers(kind)
        offers: list[Offer] = []
        for unit_offers in asked:
            offers += unit_offers(fight, who, window)
        return offers

    @classmethod
    def _answerers(cls, kind: str) -> tuple[Any, ...]:
        """The bound ``offers`` of the units offered in an opening of trigger ``kind``."""
        found = tuple(
            u.offers
            for u in cls.units
            if "opening" in u.when and (u.answers is None or kind in u.answers)
        )
        cls._answering[kind] = found
        return found

    def check(self, fight: Rules, who: str, action: Any, window: Window) -> str | None:
        """Why ``action`` is illegal now, or ``None`` when it is legal (its unit's check)."""
        unit = self._units.get(type(action))
        if unit is None:
            return f"{type(action).__name__} is not an action of the {self.name} ruleset"
        return unit.check(fight, who, action, window)

    def cost(self, fight: Rules, who: str, action: Any, window: Window) -> int:
        """AP the action spends (called only for a legal action): its unit's cost (1 for an
        action of no unit, one a ruleset's own ``check`` allowed)."""
        unit = self._units.get(type(action))
        return 1 if unit is None else unit.cost(fight, who, action, window)

    def perform(self, fight: Rules, who: str, action: Any, window: Window) -> Hook:
        """Resolve a declared, paid-for action (its unit's performance). May open openings;
        returns a result that the opening's caller sees (a successful Dodge, say). An action
        of no unit does nothing."""
        unit = self._units.get(type(action))
        return _nothing() if unit is None else unit.perform(fight, who, action, window)

    def idle_end(self, fight: Rules, rounds: int) -> str:
        """The reason recorded when ``rounds`` idle rounds end the encounter."""
        return f"nothing has happened for {rounds} rounds: nobody acts any more"

    def standing(self, fight: Rules, who: str) -> bool:
        """Still fighting (neither defeated nor gone); rulesets may add conditions."""
        return fight.state.combatants[who].standing

    def can_see(self, fight: Rules, viewer: str, other: str) -> bool:
        """Whether ``viewer`` sees ``other`` (the Hidden condition hides one from enemies)."""
        c = fight.state.combatants[other]
        return not c.has(HIDDEN.name) or c.side == fight.state.combatants[viewer].side


if TYPE_CHECKING:
    _HOOKS_FIT: type[RulesetHooks] = Ruleset  # (mypy holds the base's hooks to the Protocol)


def _nothing() -> Hook:
    return None
    yield  # pragma: no cover - makes this a generator


def _loose(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


def _at_key(err: msgspec.ValidationError, struct: type[msgspec.Struct]) -> str:
    """msgspec's message with its path spelled as the file's key (``options.perks[0]``)."""
    text = str(err).replace("`$.", "`options.").replace("`$`", "`options`")
    return text + _suggest_field(err, struct)


def _suggest_field(err: msgspec.ValidationError, struct: type[msgspec.Struct]) -> str:
    """A "did you mean" for msgspec's "Object contains unknown field `X`" message."""
    text = str(err)
    marker = "unknown field `"
    if marker not in text:
        return ""
    field = text.split(marker, 1)[1].split("`", 1)[0]
    return did_you_mean(field, [f.encode_name for f in msgspec.structs.fields(struct)])


_REGISTRY: dict[str, type[Ruleset]] = {}
#: The names of the bundled rulesets (``_REGISTRY`` also holds installed ones once loaded).
_BUNDLED: set[str] = set()


def _discover() -> None:
    if _REGISTRY:
        return
    from . import rulesets

    for module in sorted(m.name for m in pkgutil.iter_modules(rulesets.__path__)):
        if module.startswith("_"):
            continue
        mod = importlib.import_module(f"{rulesets.__name__}.{module}")
        cls = getattr(mod, "RULESET", None)
        if cls is not None:
            register_actions(*cls.actions)
            _REGISTRY[cls.name] = cls
            _BUNDLED.add(cls.name)


def _installed() -> dict[str, Any]:
    """The ``initiative.rulesets`` entry points by name, bundled names left out."""
    _discover()
    found = {ep.name: ep for ep in entry_points(group=RULESET_GROUP)}
    return {name: ep for name, ep in sorted(found.items()) if name not in _REGISTRY}


def _load_installed(name: str, ep: Any, prefix: str) -> type[Ruleset]:
    cls = installed_class(name, ep, prefix)
    problem = unfit(cls)
    if problem is not None:
        raise UnknownRulesetError(f"{prefix}ruleset {name!r}: {problem}")
    return cls


def unfit(cls: type[Ruleset]) -> str | None:
    """Why no fight can be played with ruleset ``cls`` (an action whose tag is not namespaced,
    or is taken; a hook the engine cannot call), in one line; ``None`` when it can. Its actions
    are then known to the log codec."""
    for action in cls.actions:
        if not (isinstance(action, type) and issubclass(action, Action)):
            return f"{action!r} in {cls.__name__}.actions is not an Action class"
        tag = action.__struct_config__.tag
        if not (isinstance(tag, str) and "." in tag.strip(".")):
            return (
                f"action {action.__name__}: its tag {tag!r} is not namespaced by the ruleset:"
                f' declare it with tag="{cls.name}.{action.__name__}"'
            )
    try:
        register_actions(*cls.actions)
    except (TypeError, ValueError) as err:
        return str(err)
    return wrong_hook(cls)


def installed_class(name: str, ep: Any, prefix: str = "") -> type[Ruleset]:
    """The ruleset class entry point ``ep`` (of ruleset ``name``) loads, not yet checked."""
    try:
        loaded = ep.load()
    except Exception as err:
        raise UnknownRulesetError(
            f"{prefix}ruleset {name!r}: loading entry point {ep.value!r} failed:"
            f" {type(err).__name__}: {err}"
        ) from None
    cls = getattr(loaded, "RULESET", loaded)
    if not (isinstance(cls, type) and issubclass(cls, Ruleset)):
        raise UnknownRulesetError(
            f"{prefix}ruleset {name!r}: entry point {ep.value!r} is not a Ruleset subclass"
        )
    if cls.name != name:
        raise UnknownRulesetError(
            f"{prefix}ruleset {name!r}: entry point {ep.value!r} names itself {cls.name!r}"
        )
    return cls


def ruleset_names() -> list[str]:
    """Names of the bundled and installed rulesets, sorted."""
    _discover()
    return sorted({*_REGISTRY, *_installed()})


def find_ruleset(name: str, *, where: str = "") -> type[Ruleset]:
    """The ruleset class called ``name``; :class:`UnknownRulesetError` lists the known ones.

    Bundled rulesets come first; an installed package cannot replace one.
    """
    _discover()
    prefix = f"{where}: " if where else ""
    found = _REGISTRY.get(name)
    if found is not None:
        return found
    installed = _installed()
    if name in installed:
        cls = _load_installed(name, installed[name], prefix)
        _REGISTRY[name] = cls
        return cls
    raise UnknownRulesetError(
        f"{prefix}unknown ruleset {name!r} (known: {', '.join(ruleset_names())})"
    )


__all__ = ["EndTurn", "Pass", "Hook", "Options", "Ruleset", "find_ruleset", "ruleset_names"]
