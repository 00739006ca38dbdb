"""The open part of the vocabulary: actions a ruleset adds, and the decoders that know them.

The actions in :data:`AnyAction` are shared by the bundled rulesets. A ruleset installed as a
package declares its own actions (``Ruleset.actions``), each tagged ``"<ruleset>.<Name>"`` so that
no two rulesets can claim one tag. Once registered, the log codec decodes them wherever an action
appears in an event. Reading a log registers the actions of the ruleset its header names, found
through the ``initiative.rulesets`` entry-point group, so a log of an installed ruleset reads
without importing anything by hand.
"""

from __future__ import annotations

import typing
from importlib.metadata import entry_points
from typing import Any, Union

import msgspec

from ._actions import Action, AnyAction
from ._errors import LogFormatError
from ._events import ActionDeclared, ActionRejected, AnyEvent

#: The entry-point group installed rulesets are found in.
RULESET_GROUP = "initiative.rulesets"

_CORE_ACTIONS: tuple[type[Action], ...] = typing.get_args(AnyAction)
_CORE_TAGS = {cls.__struct_config__.tag for cls in _CORE_ACTIONS}
_extra: dict[str, type[Action]] = {}
_loaded: set[str] = set()
_built: dict[str, Any] = {}
#: The decoding stand-ins (wider ``action`` field) and the event classes they stand for.
_bases: dict[type[Any], type[Any]] = {}


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


def action_types() -> tuple[type[Action], ...]:
    """Every action class the codec decodes: the shared ones, then those registered."""
    return (*_CORE_ACTIONS, *_extra.values())


def _with_action(base: type[Any], union: Any) -> type[Any]:
    """A subclass of ``base`` (same name, same tag) whose ``action`` field is ``union``."""
    return msgspec.defstruct(
        base.__name__,
        [("action", union)],
        bases=(base,),
        tag=base.__struct_config__.tag,
        frozen=True,
        kw_only=True,
        module=base.__module__,
    )


def event_type() -> Any:
    """The union of every event type, decoding the registered actions too."""
    if _built.get("count") != len(_extra):
        if _extra:
            union = Union[action_types()]  # type: ignore[valid-type]  # noqa: UP007
            swap = {
                ActionDeclared: _with_action(ActionDeclared, union),
                ActionRejected: _with_action(ActionRejected, union),
            }
            _bases.clear()
            _bases.update({wide: base for base, wide in swap.items()})
            events = tuple(swap.get(t, t) for t in typing.get_args(AnyEvent))
            found: Any = Union[events]  # noqa: UP007
        else:
            found = AnyEvent
        _built.update(count=len(_extra), type=found, decoder=msgspec.json.Decoder(found))
    return _built["type"]


def as_declared(event: Any) -> Any:
    """A decoded event as its declared class (a stand-in that decoded a registered action is
    turned back into ``ActionDeclared`` or ``ActionRejected``, so decoded events compare equal
    to built ones)."""
    base = _bases.get(type(event))
    if base is None:
        return event
    return base(**{name: getattr(event, name) for name in base.__struct_fields__})


def event_decoder() -> msgspec.json.Decoder[Any]:
    """A JSON decoder for one log line, knowing every registered action."""
    event_type()
    decoder: msgspec.json.Decoder[Any] = _built["decoder"]
    return decoder


def load_ruleset_actions(name: str) -> None:
    """Register the actions of the installed ruleset ``name`` (an ``initiative.rulesets`` entry
    point); a bundled ruleset, or one not installed, adds nothing."""
    if name in _loaded:
        return
    _loaded.add(name)
    for ep in entry_points(group=RULESET_GROUP, name=name):
        try:
            found = ep.load()
        except Exception as err:
            raise LogFormatError(
                f"ruleset {name!r}: loading entry point {ep.value!r} failed: {err}"
            ) from None
        found = getattr(found, "RULESET", found)
        register_actions(*getattr(found, "actions", ()))
