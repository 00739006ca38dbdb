"""Reading encounter files: TOML decoded into msgspec Structs, every error naming file and key."""

from __future__ import annotations

import contextlib
import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from initiative.events import (
    MAX_COMBATANTS,
    CombatantSpec,
    EncounterFileError,
    EncounterSpec,
    Position,
    UnknownRulesetError,
    action_types,
    as_declared,
    canonical_options,
    check_encounter_data,
    encounter_type,
    lift_combatant,
    qualify_encounter,
    ruleset_of,
)
from msgspec.structs import replace

from ._ruleset import find_ruleset


def _where(err: msgspec.ValidationError) -> tuple[str, str]:
    """Split msgspec's message into (what is wrong, the key path)."""
    text = str(err)
    what, sep, path = text.rpartition(" - at `")
    if not sep:
        return text, ""
    if what.startswith("Expected `str` matching regex"):
        what = "must not be blank"
    return what, path.rstrip("`").removeprefix("$").removeprefix(".")


def _describe_key(data: dict[str, Any], path: str) -> str:
    """``combatants[2].hp`` becomes ``combatants[2].hp (combatant 'orc')`` when it can."""
    m = re.match(r"combatants\[(\d+)\]", path)
    if m:
        items = data.get("combatants")
        index = int(m.group(1))
        if isinstance(items, list) and index < len(items) and isinstance(items[index], dict):
            cid = items[index].get("id")
            if isinstance(cid, str):
                return f"{path} (combatant {cid!r})"
    return path


def decode_encounter(data: dict[str, Any], *, name: str = "<encounter>") -> EncounterSpec:
    """Decode a parsed encounter mapping, then normalize it (see :func:`normalize`)."""
    check_encounter_data(data, name=name)
    known: Callable[[str], bool] | None = None
    ruleset = data.get("ruleset")
    if isinstance(ruleset, str):
        # Registers the ruleset's own actions, so that its scripts decode; an unknown ruleset
        # is reported by normalize, after the other keys are checked.
        with contextlib.suppress(UnknownRulesetError):
            fields = find_ruleset(ruleset, where=name).CombatantOptions.__struct_fields__
            # Perks still go where the ruleset refuses them; the other old keys were read by one
            # ruleset only, and had no effect in the others.
            known = {*fields, "perks"}.__contains__
    data = _lift(data, name, known)
    try:
        spec = as_declared(msgspec.convert(qualify_encounter(data), encounter_type()))
    except msgspec.ValidationError as err:
        what, path = _where(err)
        key = _describe_key(data, path) if path else "the top level"
        raise EncounterFileError(
            f"{name}: at key {key}: {what}{_not_an_action(path, data)}"
        ) from None
    return normalize(spec, name=name)


def _lift(data: dict[str, Any], name: str, known: Callable[[str], bool] | None) -> dict[str, Any]:
    """Keys only one ruleset reads, given the old way at a combatant's top level (``shield``,
    ``spells``, ``specials``, ``perks``; ``natural``/``magic`` on a weapon, ``potion`` on an item),
    moved into its ``options``, where they live now: older encounter files load as they did."""
    combatants = data.get("combatants")
    if not isinstance(combatants, list):
        return data
    out = []
    for index, c in enumerate(combatants):
        if isinstance(c, dict):
            try:
                c = lift_combatant(c, known)
            except ValueError as err:
                key = _describe_key(data, f"combatants[{index}]")
                raise EncounterFileError(f"{name}: at key {key}: {err}") from None
        out.append(c)
    return {**data, "combatants": out}


def _not_an_action(path: str, data: dict[str, Any]) -> str:
    """For a script's action of an unknown type: the actions the encounter's ruleset knows."""
    if not re.fullmatch(r"combatants\[\d+\]\.(script|reactions)\[\d+\]\.type", path):
        return ""
    ruleset = data.get("ruleset")
    tags = [t for cls in action_types() if isinstance(t := cls.__struct_config__.tag, str)]
    mine = sorted(t for t in tags if "." not in t or t.startswith(f"{ruleset}."))
    return f" (the {ruleset} ruleset's actions: {', '.join(mine)})"


def load_encounter(path: str | os.PathLike[str]) -> EncounterSpec:
    """Read and normalize an encounter file (TOML)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EncounterFileError(f"{p}: no such encounter file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise EncounterFileError(f"{p}: cannot read: {err}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise EncounterFileError(f"{p}: not valid TOML: {err}") from None
    return decode_encounter(data, name=str(p))


def _expand(c: CombatantSpec, *, grouped: bool) -> list[CombatantSpec]:
    """``count`` copies; they share an initiative group only when the ruleset rolls for groups."""
    if c.count == 1:
        return [c]
    base = c.name or c.id
    return [
        replace(
            c,
            id=f"{c.id}-{i}",
            name=f"{base} {i}",
            count=1,
            group=(c.group or c.id) if grouped else None,
            # Copies stand 1 m apart along y so they do not share a point.
            position=Position(c.position.x, round(c.position.y + (i - 1), 2)),
        )
        for i in range(1, c.count + 1)
    ]


def normalize(spec: EncounterSpec, *, name: str = "<encounter>") -> EncounterSpec:
    """Expand ``count``, check ids and sides, and let the ruleset check stats and options.

    The result is what a log's header records: re-normalizing it changes nothing.
    """
    total = sum(max(c.count, 1) for c in spec.combatants)
    if total > MAX_COMBATANTS:
        raise EncounterFileError(
            f"{name}: at key combatants: {total} combatants (counting copies), more than the"
            f" {MAX_COMBATANTS} an encounter may hold"
        )
    ruleset_cls = find_ruleset(spec.ruleset, where=name)
    combatants: list[CombatantSpec] = []
    for index, c in enumerate(spec.combatants):
        where = f"{name}: at key combatants[{index}] (combatant {c.id!r})"
        if not c.id or not re.fullmatch(r"[A-Za-z0-9_.-]+", c.id):
            raise EncounterFileError(f"{where}.id: ids use letters, digits, '_', '.' and '-'")
        if c.count < 1:
            raise EncounterFileError(f"{where}.count: must be at least 1, got {c.count}")
        if c.hp < 1:
            raise EncounterFileError(f"{where}.hp: must be at least 1, got {c.hp}")
        if c.arrives < 1:
            raise EncounterFileError(f"{where}.arrives: rounds start at 1, got {c.arrives}")
        if c.speed < 0:
            raise EncounterFileError(f"{where}.speed: must not be negative, got {c.speed}")
        for key in ("script", "reactions"):
            for number, action in enumerate(getattr(c, key)):
                owner = ruleset_of(action)
                if owner is not None and owner != spec.ruleset:
                    tag = type(action).__struct_config__.tag
                    raise EncounterFileError(
                        f"{where}.{key}[{number}]: action {tag!r} belongs to the {owner}"
                        f" ruleset, not to {spec.ruleset}"
                    )
        if c.group is not None and not ruleset_cls.group_initiative:
            raise EncounterFileError(
                f"{where}.group: the {spec.ruleset} ruleset rolls initiative for each participant;"
                " group rolls belong to rulesets whose seed allows them (percentile)"
            )
        combatants.extend(_expand(c, grouped=ruleset_cls.group_initiative))
    seen: set[str] = set()
    for c in combatants:
        if c.id in seen:
            raise EncounterFileError(f"{name}: combatant id {c.id!r} is used twice")
        seen.add(c.id)
    if not combatants:
        raise EncounterFileError(f"{name}: at key combatants: the encounter has no combatants")
    sides = list(spec.sides)
    for c in combatants:
        if c.side not in sides:
            if spec.sides:
                raise EncounterFileError(
                    f"{name}: combatant {c.id!r} is on side {c.side!r}, which is not in"
                    f" sides = {list(spec.sides)}"
                )
            sides.append(c.side)
    if len(sides) < 2:
        raise EncounterFileError(f"{name}: an encounter needs at least two sides, got {sides}")
    if spec.decision_timeout <= 0:
        raise EncounterFileError(f"{name}: at key decision_timeout: must be positive")
    if spec.max_rounds < 1:
        raise EncounterFileError(f"{name}: at key max_rounds: must be at least 1")
    stalemate = spec.stalemate_window
    if stalemate < 0:
        raise EncounterFileError(
            f"{name}: at key stalemate_rounds: must be at least 1 (or 0: off), got {stalemate}"
        )
    spec = replace(
        spec,
        combatants=tuple(combatants),
        sides=tuple(sides),
        # Off is recorded as absent, so a header without the option stays as it was.
        stalemate_rounds=stalemate or msgspec.UNSET,
    )
    spec = ruleset_cls.normalize(spec, name=name)
    # Each combatant's options as the header records them: checked by the ruleset above, the
    # keys that differ from their defaults in the ruleset's field order.
    kind = ruleset_cls.CombatantOptions
    return replace(
        spec,
        combatants=tuple(
            replace(c, options=canonical_options(c.options, kind)) for c in spec.combatants
        ),
    )
