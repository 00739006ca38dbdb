"""Upcasting: a log written in an older format, read as the current one.

A log's lines are never rewritten on disk. Reading an older log decodes each line to plain data,
turns it into the next format step by step (``STEPS[n]`` turns a format-``n`` line into a
format-``n + 1`` line, knowing the ruleset the header names), and decodes the result. What the
reader hands on (events, and lines re-encoded from them) is the current form, so ``verify``,
``replay``, ``fork`` and ``diff`` compare like with like; the tamper-evidence chain is checked over
the original bytes (see :func:`rechain`).

Format 1 to 2: the closed vocabulary of format 1 became a core one plus each ruleset's own
actions, tagged ``"<ruleset>.<Name>"``, and the combatant keys only one ruleset read moved into
the combatant's ``options`` (:func:`lift_combatant`). An action tag that names one of the header's ruleset's
actions by its bare name gets the namespace; the other format-1 tags a single ruleset owned
(:data:`V1_OWNERS`) get their owner's, so that one of another ruleset is refused with a clear
message rather than as an unknown tag.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

import msgspec

from ._events import EncounterEnded, Event
from ._vocabulary import (
    as_declared,
    canonical_options,
    combatant_options_type,
    event_type,
    load_ruleset_actions,
    qualify,
)

#: Format 1's actions that only one bundled ruleset used, by tag: the ruleset that owns them now.
V1_OWNERS: dict[str, str] = {
    **dict.fromkeys(
        (
            "Aim",
            "Arise",
            "Bash",
            "BlindOpponent",
            "Block",
            "CastMagic",
            "CounterAttack",
            "Dash",
            "DefensiveStance",
            "DelayTurn",
            "Disarm",
            "Disengage",
            "DrinkPotion",
            "Evade",
            "Feint",
            "ForceMovement",
            "Hide",
            "OpportunityAttack",
            "Resist",
            "TakeDelayedTurn",
            "Trip",
        ),
        "tactical",
    ),
    **dict.fromkeys(
        (
            "Assist",
            "Flee",
            "FreeAction",
            "FullDefense",
            "Interact",
            "Intercept",
            "Retaliate",
            "Special",
            "TakeCover",
            "UseItem",
        ),
        "thriller",
    ),
}

_dict_decoder = msgspec.json.Decoder(dict[str, Any])
_encoder = msgspec.json.Encoder()


def _v1_tag(tag: object, ruleset: str) -> object:
    found = qualify(tag, ruleset)
    if found is tag and isinstance(tag, str) and tag in V1_OWNERS:
        return f"{V1_OWNERS[tag]}.{tag}"
    return found


def _v1_action(action: object, ruleset: str) -> object:
    if isinstance(action, dict) and "type" in action:
        return {**action, "type": _v1_tag(action["type"], ruleset)}
    return action


#: Format 1's combatant keys that only one ruleset read: now keys of the combatant's ``options``
#: (its ruleset's ``CombatantOptions``), in this order.
LIFTED = ("shield", "spells", "specials", "perks")
#: Format 1's per-weapon and per-item flags, and the option listing the names of those that
#: had them.
FLAGS = (("weapons", "natural", "natural_weapons"), ("weapons", "magic", "magic_weapons"))
ITEM_FLAGS = (("items", "potion", "potions"),)


def lift_combatant(
    c: dict[str, Any], accepts: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """A combatant in the format-1 form (``shield``, ``spells``, ``specials``, ``perks`` at its
    top level; ``natural``/``magic`` on a weapon, ``potion`` on an item) in the current one,
    those moved into its ``options`` (``natural_weapons``, ``magic_weapons``, ``potions`` list
    names). A key left at its default (``null``, ``[]``, ``false``) is dropped, and so is one
    ``accepts`` refuses (a key the ruleset's options do not have: it never had an effect in that
    ruleset). Raises
    ``ValueError`` naming the key when it is given in both places; data of the wrong shape is
    left where it is, for the decoder to report."""
    options = c.get("options", {})
    if not isinstance(options, dict):
        return c
    out = dict(c)
    lifted = dict(options)
    for key in LIFTED:
        if key not in out:
            continue
        value = out.pop(key)
        if value is None or value == [] or (accepts is not None and not accepts(key)):
            continue
        if key in lifted:
            raise ValueError(f"{key}: given both at the top and in options; keep options.{key}")
        lifted[key] = value
    for group, flag, key in (*FLAGS, *ITEM_FLAGS):
        things = out.get(group)
        if not isinstance(things, list):
            continue
        names = []
        kept = []
        for thing in things:
            if isinstance(thing, dict) and isinstance(thing.get(flag), bool):
                thing = dict(thing)
                if thing.pop(flag):
                    names.append(thing.get("name"))
            kept.append(thing)
        out[group] = kept
        if names and (accepts is None or accepts(key)):
            if key in lifted:
                raise ValueError(
                    f"{group}: {flag} = true given beside options.{key}; list the names in"
                    f" options.{key} only"
                )
            lifted[key] = names
    if lifted != options or "options" in c:
        out["options"] = lifted
    return out


def v1_to_v2(line: dict[str, Any], ruleset: str) -> dict[str, Any]:
    """A format-1 line as format 2: action tags namespaced (in decisions, and in the scripts of
    the header's encounter), and the ruleset-only combatant keys moved into ``options``."""
    kind = line.get("type")
    if kind in ("ActionDeclared", "ActionRejected"):
        return {**line, "action": _v1_action(line.get("action"), ruleset)}
    if kind == "EncounterStarted":
        line = {**line, "format": 2}
        kind = combatant_options_type(ruleset)
        accepts = None if kind is None else set(kind.__struct_fields__).__contains__
        encounter = line.get("encounter")
        if isinstance(encounter, dict) and isinstance(encounter.get("combatants"), list):
            combatants = []
            for c in encounter["combatants"]:
                if isinstance(c, dict):
                    c = lift_combatant(c, accepts)
                    if kind is not None and isinstance(c.get("options"), dict):
                        c["options"] = canonical_options(c["options"], kind)
                    for key in ("script", "reactions"):
                        if isinstance(c.get(key), list):
                            c[key] = [_v1_action(a, ruleset) for a in c[key]]
                combatants.append(c)
            line["encounter"] = {**encounter, "combatants": combatants}
    return line


#: ``STEPS[n]`` turns a format-``n`` line (plain data) into a format-``n + 1`` one.
STEPS: dict[int, Callable[[dict[str, Any], str], dict[str, Any]]] = {1: v1_to_v2}


@dataclass(frozen=True)
class Upcaster:
    """Reads the lines of one log written in format ``source`` as format ``target``."""

    source: int
    target: int
    ruleset: str

    def __call__(self, line: dict[str, Any]) -> dict[str, Any]:
        for version in range(self.source, self.target):
            line = STEPS[version](line, self.ruleset)
        return line

    def decode(self, line: bytes) -> Event:
        """One line of the log, upcast and decoded (raises msgspec's errors as the codec does)."""
        try:
            data = self(_dict_decoder.decode(line))
        except ValueError as err:  # a key given twice (lift_combatant)
            raise msgspec.ValidationError(str(err)) from None
        event: Event = as_declared(msgspec.convert(data, event_type()))
        return event


def upcaster_for(first_line: bytes, target: int) -> Upcaster | None:
    """The upcaster for a log whose header is ``first_line``, when it is an older format that
    :data:`STEPS` bring to ``target``; ``None`` for a current log, and for a header too broken to
    say (the reader reports what is wrong with it)."""
    try:
        head = _dict_decoder.decode(first_line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    source = head.get("format")
    ruleset = head.get("ruleset")
    if head.get("type") != "EncounterStarted" or not isinstance(ruleset, str):
        return None
    if not isinstance(source, int) or isinstance(source, bool) or not 1 <= source < target:
        return None
    if any(v not in STEPS for v in range(source, target)):
        return None
    load_ruleset_actions(ruleset)
    return Upcaster(source=source, target=target, ruleset=ruleset)


def _chain(lines: list[bytes], ended: EncounterEnded) -> str:
    """``EncounterEnded.chain`` over ``lines`` (the last being ``ended``'s own)."""
    h = b""
    for line in lines[:-1]:
        h = blake2b(h + line, digest_size=32).digest()
    last = _encoder.encode(msgspec.structs.replace(ended, chain="")) + b"\n"
    return blake2b(h + last, digest_size=32).hexdigest()


def rechain(original: list[bytes], events: list[Event], lines: list[bytes]) -> None:
    """Give the upcast form of a finished log a chain over its own lines (in place), when the
    chain recorded over the ``original`` lines holds; a broken chain is left as recorded, so
    verifying the upcast form fails where the original would."""
    ended = events[-1] if events else None
    if not isinstance(ended, EncounterEnded) or not ended.chain:
        return
    if _chain(original, ended) != ended.chain:
        return
    events[-1] = msgspec.structs.replace(ended, chain=_chain(lines, ended))
    lines[-1] = _encoder.encode(events[-1]) + b"\n"
