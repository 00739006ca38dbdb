"""The observation's vocabulary: every feature's name, range and meaning, and where it sits."""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping

import numpy as np

from initiative import engine
from initiative.events import AnyAction

#: The shared action tags (the core vocabulary every ruleset offers from), in declared order.
ACTION_KINDS: tuple[str, ...] = tuple(
    str(cls.__struct_config__.tag) for cls in typing.get_args(AnyAction)
)
#: The opening triggers the bundled rulesets make (``Trigger.kind``), sorted; the observation has
#: one column for each and one more, ``other``, for any other kind (an installed ruleset's own).
TRIGGER_KINDS: tuple[str, ...] = (
    "approach",
    "attacked",
    "delayed",
    "left_space",
    "melee_attacked",
    "ranged_attack",
    "ready",
    "retreat",
    "spellcast",
    "standing_up",
    "turn_ended",
)
#: The markers every action class carries (see ``events.Action``): one column each per offer.
ACTION_FLAGS: tuple[str, ...] = (
    "is_attack",
    "is_reaction",
    "is_defence",
    "is_hold",
    "is_aim",
    "is_guard",
)
#: The move slots offered for each combatant row but the observer's own: where a move ends,
#: relative to that combatant (see :func:`move_kinds_doc`). The action space holds
#: ``max_offers`` engine offers, then ``(max_combatants - 1) * len(MOVE_KINDS)`` move slots.
MOVE_KINDS: tuple[str, ...] = ("strike", "edge", "away", "left", "right")
MOVE_MEANINGS: dict[str, str] = {
    "strike": "toward it, stopping within one's own melee reach of it (reach - 0.25 m, at"
    " least 0.5 m): where one's blow lands",
    "edge": "toward or away from it, stopping just outside its melee reach (its reach + 0.25 m):"
    " where its blows do not land, and leaving its space makes no opening",
    "away": "straight away from it, as far as the move allows",
    "left": "around it, counterclockwise, keeping the distance (an arc of at most 90 degrees)",
    "right": "around it, clockwise, keeping the distance (an arc of at most 90 degrees)",
}
#: Combatant rows when neither ``max_combatants`` nor a larger encounter says otherwise.
DEFAULT_MAX_COMBATANTS = 12

# The scales the observation divides by (each feature's meaning names the one it uses).
_METRES = 20.0  # positions and distances
_RANGE = 50.0  # a ranged weapon's range
_REACH = 5.0  # a melee weapon's reach
_DAMAGE = 20.0  # mean damage of a weapon's dice
_HP = 50.0  # hit points
_AP = 10.0  # action points when full
_DEPTH = 4.0  # nesting of openings
_WEAPONS = 4.0  # weapon slots
_STAT = 100.0  # a stat without a documented range


# --- the feature vocabulary -------------------------------------------------------------------


class Feature(typing.NamedTuple):
    """One column of the observation: its name, its range (inclusive) and what it means."""

    name: str
    low: float
    high: float
    meaning: str


def _ruleset_class(ruleset: str | type[engine.Ruleset]) -> type[engine.Ruleset]:
    return ruleset if isinstance(ruleset, type) else engine.find_ruleset(ruleset)


def action_kinds(ruleset: str | type[engine.Ruleset]) -> tuple[str, ...]:
    """The action kinds of ``ruleset`` (a name, bundled or installed, or a Ruleset class): the
    shared tags and the ruleset's declared actions (``Ruleset.actions``), sorted by tag. Each
    has its own column in an offer's row, so the vocabulary is the same for every encounter of
    the ruleset."""
    cls = _ruleset_class(ruleset)
    own = {str(a.__struct_config__.tag) for a in cls.actions}
    return tuple(sorted({*ACTION_KINDS, *own}))


def _mark_name(mark: type[engine.Mark]) -> str:
    if mark.name:
        return mark.name
    return "".join(f"_{ch.lower()}" if ch.isupper() else ch for ch in mark.__name__).lstrip("_")


def mark_names(marks: typing.Iterable[type[engine.Mark]]) -> tuple[str, ...]:
    """The names of declared condition or counter types, sorted: the observation's columns."""
    return tuple(sorted({_mark_name(m) for m in marks}))


class _Vocabulary(typing.NamedTuple):
    kinds: tuple[str, ...]
    conditions: tuple[str, ...]
    counters: tuple[str, ...]
    stats: tuple[str, ...]
    stat_ranges: Mapping[str, tuple[int, int]]
    max_combatants: int


def _vocabulary(cls: type[engine.Ruleset], max_combatants: int) -> _Vocabulary:
    return _Vocabulary(
        action_kinds(cls),
        mark_names(cls.conditions),
        mark_names(cls.counters),
        tuple(sorted(cls.stats)),
        dict(cls.stat_ranges),
        max_combatants,
    )


# What the documentation shows for a vocabulary that depends on the ruleset.
_SYMBOLIC = _Vocabulary(("TAG",), ("NAME",), ("NAME",), ("STAT",), {}, 0)


def _global_features(v: _Vocabulary) -> list[Feature]:
    rows = [
        Feature("round", 0, 1, "the round / the encounter's max_rounds"),
        Feature("in_turn", 0, 1, "1 in a turn, 0 in an opening"),
        Feature("depth", 0, 1, f"how deeply the opening is nested / {_DEPTH:g}, clipped"),
        Feature("holds", 0, 1, "1 if the observer holds priority (its offers follow)"),
        Feature("my_turn", 0, 1, "1 if it is the observer's own turn (it is the active one)"),
        Feature("offers", 0, 1, "the number of offers kept / max_offers"),
    ]
    for kind in (*TRIGGER_KINDS, "other"):
        rows.append(
            Feature(
                f"trigger[{kind}]",
                0,
                1,
                f"1 in an opening whose trigger kind is {kind}"
                if kind != "other"
                else "1 in an opening whose trigger kind is none of the above",
            )
        )
    return rows


def _combatant_features(v: _Vocabulary) -> list[Feature]:
    rows = [
        Feature(
            "present", 0, 1, "1 for the observer's own row and each combatant it sees standing"
        ),
        Feature("me", 0, 1, "1 for the observer's own row (always the first)"),
        Feature("ally", 0, 1, "1 for an ally (the observer's side)"),
        Feature("enemy", 0, 1, "1 for an enemy"),
        Feature("active", 0, 1, "1 for the combatant whose turn it is"),
        Feature("trigger_by", 0, 1, "1 for the combatant whose deed made the opening"),
        Feature("trigger_target", 0, 1, "1 for the combatant the deed was aimed at"),
        Feature("hp", 0, 1, "hit points / max hit points, clipped"),
        Feature("hp_points", 0, 1, f"hit points / {_HP:g}, clipped"),
        Feature("max_hp", 0, 1, f"max hit points / {_HP:g}, clipped"),
        Feature("ap", 0, 1, "action points / its action points when full, clipped"),
        Feature("max_ap", 0, 1, f"action points when full / {_AP:g}, clipped"),
        Feature("dx", -1, 1, f"x relative to the observer, metres / {_METRES:g}, clipped"),
        Feature("dy", -1, 1, f"y relative to the observer, metres / {_METRES:g}, clipped"),
        Feature("distance", 0, 1, f"distance to the observer, metres / {_METRES:g}, clipped"),
        Feature("reach", 0, 1, f"its longest melee reach, metres / {_REACH:g}, clipped"),
        Feature("range", 0, 1, f"its longest ranged weapon's range / {_RANGE:g}, clipped"),
        Feature("damage", 0, 1, f"its best weapon's mean damage / {_DAMAGE:g}, clipped"),
        Feature("reaches_me", 0, 1, "1 if the observer is within its melee reach"),
        Feature("in_my_reach", 0, 1, "1 if it is within the observer's melee reach"),
    ]
    for stat in v.stats:
        rows.append(
            Feature(
                f"stat[{stat}]",
                -1,
                1,
                "the stat over its documented range, (value - low) / (high - low) (the ruleset's"
                " stat_ranges), else value / 100, clipped; one column per stat the ruleset knows",
            )
        )
    for name in v.conditions:
        rows.append(
            Feature(
                f"condition[{name}]",
                0,
                1,
                "1 if it has a condition of this type; one column per condition type the ruleset"
                " declares (Ruleset.conditions)",
            )
        )
    for name in v.counters:
        rows.append(
            Feature(
                f"counter[{name}]",
                -1,
                1,
                "the counter v (summed over its keys, as unloaded.WEAPON) as v / (1 + |v|); one"
                " column per counter type the ruleset declares (Ruleset.counters)",
            )
        )
    return rows


def _offer_features(v: _Vocabulary) -> list[Feature]:
    rows = [Feature("valid", 0, 1, "1 for an offer (the action mask's entry)")]
    for tag in v.kinds:
        rows.append(
            Feature(
                f"kind[{tag}]",
                0,
                1,
                "1 if the offer is an action of this tag; one column per kind of the ruleset"
                " (action_kinds: the shared tags and its declared actions, sorted by tag)",
            )
        )
    rows.append(Feature("kind[other]", 0, 1, "1 for an action of any other tag"))
    for flag in ACTION_FLAGS:
        rows.append(Feature(flag, 0, 1, f"the action class's marker {flag}"))
    rows.append(Feature("cost", 0, 1, "AP it costs / the actor's AP when full, clipped"))
    for row in range(v.max_combatants) if v.max_combatants else ("R",):
        rows.append(
            Feature(
                f"target[{row}]",
                0,
                1,
                "1 for the combatant row the action names (target, ally: its first field that"
                " is a combatant's id); one column per combatant row",
            )
        )
    rows += [
        Feature("has_target", 0, 1, "1 if the action names a combatant"),
        Feature("target_distance", 0, 1, f"metres from the actor to it / {_METRES:g}, clipped"),
        Feature(
            "weapon",
            0,
            1,
            f"(1 + the weapon's index in the actor's weapons) / {_WEAPONS:g}, clipped (an"
            " attack naming none uses the first); 0 without a weapon",
        ),
        Feature("weapon_damage", 0, 1, f"the weapon's mean damage / {_DAMAGE:g}, clipped"),
        Feature("weapon_reach", 0, 1, f"the weapon's melee reach / {_REACH:g}, clipped"),
        Feature("weapon_range", 0, 1, f"the weapon's range / {_RANGE:g}, clipped (0: melee)"),
        Feature("has_destination", 0, 1, "1 if the action names a point (a move's destination)"),
        Feature("to_dx", -1, 1, f"the point's x relative to the actor / {_METRES:g}, clipped"),
        Feature("to_dy", -1, 1, f"the point's y relative to the actor / {_METRES:g}, clipped"),
        Feature(
            "to_nearest_enemy",
            0,
            1,
            f"metres from the point to the nearest enemy seen / {_METRES:g}, clipped (1: none)",
        ),
    ]
    return rows


def _move_features(v: _Vocabulary) -> list[Feature]:
    return [
        Feature(
            "valid",
            0,
            1,
            "1 for a move the fight allows now (the action mask's entry): a Move is offered, the"
            " combatant is seen standing, the point is within the longest offered move, apart"
            " from where one stands, and nobody stands within 0.5 m of it",
        ),
        Feature("to_dx", -1, 1, f"the point's x relative to the actor / {_METRES:g}, clipped"),
        Feature("to_dy", -1, 1, f"the point's y relative to the actor / {_METRES:g}, clipped"),
        Feature("moved", 0, 1, f"metres moved / {_METRES:g}, clipped"),
        Feature(
            "to_target",
            0,
            1,
            f"metres from the point to the slot's combatant / {_METRES:g}, clipped",
        ),
        Feature(
            "to_nearest_enemy",
            0,
            1,
            f"metres from the point to the nearest enemy seen / {_METRES:g}, clipped (1: none)",
        ),
    ]


def feature_table() -> typing.Iterator[tuple[str, str, str, str]]:
    """The observation's features, documented row by row: ``(group, name, range, meaning)``,
    where a name in brackets stands for one column per member of the ruleset's vocabulary
    (docs/env.md shows this table, and a test holds them equal)."""
    for group, build in (
        ("global", _global_features),
        ("combatant row", _combatant_features),
        ("offer row", _offer_features),
        ("move slot", _move_features),
    ):
        for f in build(_SYMBOLIC):
            yield group, f.name, f"[{f.low:g}, {f.high:g}]", f.meaning


def feature_docs() -> str:
    """The Markdown tables docs/env.md carries: every feature, then each bundled ruleset's
    vocabulary and its observation's size."""
    lines = ["| group | feature | range | meaning |", "| --- | --- | --- | --- |"]
    lines += [
        f"| {g} | `{n}` | {r} | {m.replace('|', chr(92) + '|')} |" for g, n, r, m in feature_table()
    ]
    lines += [
        "",
        "| ruleset | action kinds | conditions | counters | stats | size (12 rows, 32 offers)"
        " | actions (32 offers + move slots) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in engine.ruleset_names():
        cls = engine.find_ruleset(name)
        if cls.__module__.split(".")[0] not in ("engine", "initiative"):
            continue  # an installed ruleset: not part of this documentation
        v = _vocabulary(cls, DEFAULT_MAX_COMBATANTS)
        layout = _Layout(v, 32)
        size, actions = layout.size, 32 + layout.move_slots

        def listed(names: tuple[str, ...]) -> str:
            return ", ".join(f"`{n}`" for n in names) or "none"

        own = tuple(k for k in v.kinds if k not in ACTION_KINDS)
        lines.append(
            f"| {name} | {len(v.kinds)}: the {len(ACTION_KINDS)} shared ones and {listed(own)} |"
            f" {listed(v.conditions)} | {listed(v.counters)} | {listed(v.stats)} | {size} |"
            f" {actions} |"
        )
    return "\n".join(lines) + "\n"


_WEAPON_COLUMNS = ("weapon", "weapon_damage", "weapon_reach", "weapon_range")
_GLOBAL_HEAD = ("round", "in_turn", "depth", "holds", "my_turn", "offers")
_COMBATANT_HEAD = (
    "present",
    "me",
    "ally",
    "enemy",
    "active",
    "trigger_by",
    "trigger_target",
    "hp",
    "hp_points",
    "max_hp",
    "ap",
    "max_ap",
    "dx",
    "dy",
    "distance",
    "reach",
    "range",
    "damage",
    "reaches_me",
    "in_my_reach",
)


class _Layout:
    """Where each feature sits in the flat vector, and its bounds."""

    def __init__(self, v: _Vocabulary, max_offers: int) -> None:
        self.vocabulary = v
        self.globals = _global_features(v)
        self.combatant = _combatant_features(v)
        self.offer = _offer_features(v)
        self.move = _move_features(v)
        self.move_slots = max(0, v.max_combatants - 1) * len(MOVE_KINDS)
        # Encoder.encode writes these leading columns by position.
        assert tuple(f.name for f in self.globals[: len(_GLOBAL_HEAD)]) == _GLOBAL_HEAD
        assert tuple(f.name for f in self.combatant[: len(_COMBATANT_HEAD)]) == _COMBATANT_HEAD
        g, c, f = len(self.globals), len(self.combatant), len(self.offer)
        self.size = g + v.max_combatants * c + max_offers * f + self.move_slots * len(self.move)
        low = [x.low for x in self.globals]
        high = [x.high for x in self.globals]
        low += [x.low for x in self.combatant] * v.max_combatants
        high += [x.high for x in self.combatant] * v.max_combatants
        low += [x.low for x in self.offer] * max_offers
        high += [x.high for x in self.offer] * max_offers
        low += [x.low for x in self.move] * self.move_slots
        high += [x.high for x in self.move] * self.move_slots
        self.low = np.array(low, np.float32)
        self.high = np.array(high, np.float32)
        self.low.flags.writeable = self.high.flags.writeable = False  # shared by the Encoders
        self.global_at = {f.name: i for i, f in enumerate(self.globals)}
        self.combatant_at = {f.name: i for i, f in enumerate(self.combatant)}
        self.offer_at = {f.name: i for i, f in enumerate(self.offer)}


@functools.lru_cache(maxsize=64)
def _layout(ruleset: str, rows: int, max_offers: int) -> _Layout:
    """The layout of a ruleset's observation, made once (every Encoder of it shares it)."""
    return _Layout(_vocabulary(engine.find_ruleset(ruleset), rows), max_offers)


def _clip(value: float, low: float = 0.0, high: float = 1.0) -> float:
    return low if value < low else high if value > high else value


def _squash(value: float) -> float:
    return value / (1.0 + abs(value))
