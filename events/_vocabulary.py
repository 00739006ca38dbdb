"""The open part of the vocabulary: actions a ruleset adds, and the decoders that know them.

The actions in :data:`AnyAction` are the core vocabulary every game shares. A ruleset declares
its own actions (``Ruleset.actions``), each tagged ``"<ruleset>.<Name>"`` so that no two rulesets
can claim one tag. Once registered, the log codec decodes them wherever an action appears: in a
decision event, and in the scripts of the header's encounter. Reading a log registers the actions
of the ruleset its header names, found through the ``initiative.rulesets`` entry-point group;
the bundled rulesets are entry points of this package like any installed one, so a log reads
without importing anything by hand, and ``events`` never imports ``engine``. A log that holds an
action of another ruleset than its header's is refused (:func:`foreign_action`).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Union

import msgspec

from ._actions import Action, AnyAction
from ._encounter import EncounterSpec
from ._errors import LogFormatError
from ._events import ActionDeclared, ActionRejected, AnyEvent, EncounterStarted

#: The entry-point group installed rulesets are found in.
RULESET_GROUP = "initiative.rulesets"

_CORE_ACTIONS: tuple[type[Action], ...] = typing.get_args(AnyAction)
_CORE_TAGS = {cls.__struct_config__.tag for cls in _CORE_ACTIONS}
_CORE_SET = frozenset(_CORE_ACTIONS)
_extra: dict[str, type[Action]] = {}
_loaded: set[str] = set()
_option_types: dict[str, type[msgspec.Struct]] = {}
_built: dict[str, Any] = {}
_own: dict[str, bool] = {}
""":func:`has_own_actions` by ruleset, until another action is registered."""
#: The decoding stand-ins (wider action fields): the class each stands for, and its fields that
#: were widened.
_bases: dict[type[Any], tuple[type[Any], tuple[str, ...]]] = {}


def register_actions(*classes: type[Action]) -> None:
    """Let the log codec decode ``classes``: actions whose tag is ``"<ruleset>.<Name>"``.

    Registering a class twice is harmless; a second class with a tag already taken is an error.
    """
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, Action)):
            raise TypeError(f"{cls!r} is not an Action class")
        tag = cls.__struct_config__.tag
        if not isinstance(tag, str) or "." not in tag.strip(".") or tag in _CORE_TAGS:
            raise ValueError(
                f"action {cls.__name__}: its tag {tag!r} must be namespaced by its ruleset,"
                f' as in tag="myruleset.{cls.__name__}"'
            )
        known = _extra.get(tag)
        if known is not None and known is not cls:
            raise ValueError(f"action tag {tag!r} is registered twice ({known!r} and {cls!r})")
        _extra[tag] = cls
        _own.clear()


def action_types() -> tuple[type[Action], ...]:
    """Every action class the codec decodes: the shared ones, then those registered."""
    return (*_CORE_ACTIONS, *_extra.values())


def widened(tp: Any) -> Any:
    """``tp`` with every action field made to decode the registered actions too.

    A Struct that holds an action, directly or deeper (an ``ActionDeclared``, a header through
    its encounter's scripts, a policy's view through its offers), is stood in for by a subclass
    of the same name, tag and configuration whose fields are widened; :func:`as_declared` turns
    a decoded stand-in back into the class it stands for. Types without an action field are
    returned as they are; a field typed ``Action`` (the base class, as an offer's is) decodes
    the core actions even when no ruleset registered any.
    """
    _build()
    cache: dict[Any, Any] = _built["widened"]
    if tp not in cache:
        cache[tp] = _widen(tp, cache)
    return cache[tp]


def _widen(tp: Any, cache: dict[Any, Any]) -> Any:
    if tp in cache:
        return cache[tp]
    if tp is Action:  # an action field typed by the base class (an offer's)
        return _built["action"]
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if (origin is Union or origin is types.UnionType) and set(args) >= _CORE_SET:
        if not _extra:
            return tp
        others = tuple(a for a in args if a not in _CORE_SET)
        return Union[(*action_types(), *others)]
    if origin is Annotated:
        inner = _widen(args[0], cache)
        return tp if inner is args[0] else Annotated[(inner, *tp.__metadata__)]
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        cache[tp] = tp  # a type that refers to itself stays as it is
        hints = typing.get_type_hints(tp, include_extras=True)
        changed = []
        for f in msgspec.structs.fields(tp):
            wide = _widen(hints[f.name], cache)
            if wide is not hints[f.name]:
                default = (
                    msgspec.field(default_factory=f.default_factory)
                    if f.default_factory is not msgspec.NODEFAULT
                    else msgspec.field(default=f.default)
                )
                changed.append((f.name, wide, default))
        if not changed:
            return tp
        config = tp.__struct_config__
        stand_in = msgspec.defstruct(
            tp.__name__,
            changed,
            bases=(tp,),
            tag=config.tag,
            tag_field=config.tag_field,
            frozen=config.frozen,
            kw_only=True,
            forbid_unknown_fields=config.forbid_unknown_fields,
            omit_defaults=config.omit_defaults,
            module=tp.__module__,
        )
        _bases[stand_in] = (tp, tuple(name for name, _, _ in changed))
        cache[tp] = stand_in
        return stand_in
    if origin is None or not args:
        return tp
    wide_args = tuple(a if a is Ellipsis else _widen(a, cache) for a in args)
    if all(w is a for w, a in zip(wide_args, args, strict=True)):
        return tp
    if origin is Union or origin is types.UnionType:
        return Union[wide_args]  # noqa: UP007
    return origin[wide_args]


def _build() -> None:
    if _built.get("count") == len(_extra):
        return
    _bases.clear()
    _built.clear()
    _built.update(
        count=len(_extra),
        widened={},
        action=Union[action_types()] if _extra else AnyAction,  # noqa: UP007
    )
    found = widened(AnyEvent)
    _built.update(
        type=found,
        decoder=msgspec.json.Decoder(found),
        encounter=widened(EncounterSpec),
    )


def event_type() -> Any:
    """The union of every event type, decoding the registered actions too."""
    _build()
    return _built["type"]


def encounter_type() -> Any:
    """The type an encounter description decodes into, scripts knowing the registered actions
    (turn the result into an :class:`EncounterSpec` with :func:`as_declared`)."""
    _build()
    return _built["encounter"]


def decode_action(data: Any) -> Action:
    """An action from already parsed data (a client's decision), any registered action too."""
    _build()
    action: Action = msgspec.convert(data, _built["action"])
    return action


def as_declared(value: Any) -> Any:
    """A decoded value as its declared class: a stand-in (see :func:`widened`) that decoded a
    registered action is turned back into the class it stands for, deeper values too, so that
    decoded values compare equal to built ones."""
    found = _bases.get(type(value))
    if found is None:
        return value
    base, changed = found
    fields = msgspec.structs.asdict(value)
    for name in changed:
        fields[name] = _narrow(fields[name])
    return base(**fields)


def has_own_actions(ruleset: str) -> bool:
    """Whether ``ruleset`` registered actions of its own (tagged ``"<ruleset>.<Name>"``)."""
    own = _own.get(ruleset)
    if own is None:
        prefix = f"{ruleset}."
        own = _own[ruleset] = any(tag.startswith(prefix) for tag in _extra)
    return own


def stand_in_types() -> Mapping[type[Any], object]:
    """The decoding stand-ins (see :func:`widened`) by type: a decoded value whose type is not
    among them is already its declared class."""
    return _bases


def _narrow(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_narrow(v) for v in value)
    if isinstance(value, list):
        return [_narrow(v) for v in value]
    if isinstance(value, dict):
        return {k: _narrow(v) for k, v in value.items()}
    return as_declared(value)


def qualify(tag: object, ruleset: str) -> object:
    """``tag`` with its ruleset's namespace when it is the bare name of one of ``ruleset``'s
    registered actions (``"Block"`` in a tactical encounter is ``"tactical.Block"``); anything
    else unchanged."""
    if isinstance(tag, str) and "." not in tag and tag not in _CORE_TAGS:
        full = f"{ruleset}.{tag}"
        if full in _extra:
            return full
    return tag


def qualify_encounter(data: Any) -> Any:
    """A parsed encounter mapping whose script and reaction actions name their type by the bare
    name of one of the encounter's ruleset's actions, with the namespace added (a copy; data
    that is not such a mapping is returned as it is, for the decoder to report)."""
    if not isinstance(data, dict) or not isinstance(data.get("ruleset"), str):
        return data
    ruleset = data["ruleset"]
    combatants = data.get("combatants")
    if not isinstance(combatants, list):
        return data
    out = []
    for c in combatants:
        if isinstance(c, dict):
            c = dict(c)
            for key in ("script", "reactions"):
                if isinstance(c.get(key), list):
                    c[key] = [
                        {**a, "type": qualify(a.get("type"), ruleset)} if isinstance(a, dict) else a
                        for a in c[key]
                    ]
        out.append(c)
    return {**data, "combatants": out}


def ruleset_of(action: Action) -> str | None:
    """The ruleset whose own action ``action`` is (the namespace of its tag), or ``None`` for a
    core action."""
    tag = type(action).__struct_config__.tag
    if not isinstance(tag, str) or tag in _CORE_TAGS:
        return None
    return tag.partition(".")[0]


def foreign_action(event: Any, ruleset: str) -> str | None:
    """Why ``event`` does not belong in a log of ``ruleset``: it holds an action of another
    ruleset (in a decision, or in a script of the header's encounter); ``None`` when it is fine."""
    found: list[Any] = []
    if isinstance(event, ActionDeclared | ActionRejected):
        found.append(event.action)
    elif isinstance(event, EncounterStarted):
        for c in event.encounter.combatants:
            found += [*c.script, *c.reactions]
    for action in found:
        owner = ruleset_of(action)
        if owner is not None and owner != ruleset:
            tag = type(action).__struct_config__.tag
            return f"action {tag!r} belongs to the {owner} ruleset; a {ruleset} log cannot hold it"
    return None


def event_decoder() -> msgspec.json.Decoder[Any]:
    """A JSON decoder for one log line, knowing every registered action."""
    _build()
    decoder: msgspec.json.Decoder[Any] = _built["decoder"]
    return decoder


def load_ruleset_actions(name: str) -> None:
    """Register the actions of the ruleset ``name``, bundled or installed, found as an
    ``initiative.rulesets`` entry point; a ruleset not found adds nothing (the log's header is
    then refused where it is checked)."""
    if name in _loaded:
        return
    _loaded.add(name)
    from importlib.metadata import entry_points  # here: 25 ms that `--help` need not pay

    for ep in entry_points(group=RULESET_GROUP, name=name):
        try:
            found = ep.load()
        except Exception as err:
            raise LogFormatError(
                f"ruleset {name!r}: loading entry point {ep.value!r} failed: {err}"
            ) from None
        found = getattr(found, "RULESET", found)
        register_actions(*getattr(found, "actions", ()))
        options = getattr(found, "CombatantOptions", None)
        if isinstance(options, type) and issubclass(options, msgspec.Struct):
            _option_types[name] = options


def _json(value: Any) -> Any:
    """``value`` as JSON reads back (lists, not tuples), so built and decoded specs compare
    equal."""
    return msgspec.json.decode(msgspec.json.encode(value))


def combatant_options_type(name: str) -> type[msgspec.Struct] | None:
    """The ``CombatantOptions`` of the ruleset ``name``, found through its entry point (see
    :func:`load_ruleset_actions`); ``None`` when it is not found."""
    load_ruleset_actions(name)
    return _option_types.get(name)


def canonical_options(options: dict[str, Any], kind: type[msgspec.Struct]) -> dict[str, Any]:
    """A combatant's ``options`` as its header records them: decoded as ``kind`` (raising
    ``msgspec.ValidationError``), the keys that differ from their defaults, in field order,
    each in full (a shield with every field)."""
    found = _json(msgspec.convert(options, kind))
    out = {}
    for f in msgspec.structs.fields(kind):
        if f.default is not msgspec.NODEFAULT:
            default = f.default
        elif f.default_factory is not msgspec.NODEFAULT:
            default = f.default_factory()
        else:
            default = msgspec.NODEFAULT
        value = found[f.encode_name]
        if default is msgspec.NODEFAULT or value != _json(default):
            out[f.encode_name] = value
    return out
