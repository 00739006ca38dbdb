"""A PettingZoo AEC environment of an encounter, and a Gymnasium wrapper for one learner.

Needs the ``env`` extra (``pip install 'initiative[env]'``)::

    from initiative.env import env
    e = env("examples/openings-duel.toml", log_dir="logs")
    e.reset(seed=3)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)

**Agents** are the encounter's combatants (their ids), all present from ``reset``. The agent
selected is the one holding priority. A defeated combatant stays among the agents and is never
selected again, so at the end it gets its side's reward with the rest; every agent is
terminated when the encounter ends (truncated instead when it ended at the round limit).

**Actions** are ``Discrete(max_offers)``: action ``k`` is the ``k``-th legal offer of the
current priority token (``info["view"].legal[k]``, the engine's own order; the closing
``EndTurn``/``Pass`` is always the last valid one). ``observation["action_mask"]`` has a 1 for
each valid index. When a token has more offers than ``max_offers``, the first
``max_offers - 1`` and the closing one are kept. An index outside the mask is recorded in the
log as an invalid decision (``DecisionFailed``), as for any policy, and the combatant passes.

**Observations** are ``{"observation": float32 vector, "action_mask": int8 vector}``. The
vector has the same length for every encounter of a ruleset (given ``max_combatants``, default
12 or the encounter's number of combatants if larger, and ``max_offers``), so one network reads
a duel and a skirmish. It is three blocks (:meth:`Encoder.split` cuts them apart):

- the global features (the round, turn or opening, the opening's trigger kind);
- one row per combatant, ``max_combatants`` rows: the observer's own first, then its allies,
  then its enemies, each in the encounter's order; a row is all 0 (``present`` 0) for a
  combatant the observer does not see standing. A row holds hit points, AP, the position
  relative to the observer, its weapons' reach, range and damage, its stats, one column per
  condition and counter type the ruleset declares, and whether it made or is the target of
  the opening's trigger;
- one row per offer slot, ``max_offers`` rows: its kind (one column per action kind of the
  ruleset, :func:`action_kinds`: the shared tags and the ruleset's declared actions, sorted by
  tag), the action's markers, its cost, the combatant row it names, its weapon, and a
  destination relative to the actor.

Every feature lies in a documented range, which the ``Box``'s bounds state feature by feature;
:func:`feature_table` lists them (docs/env.md shows that table).

``info["view"]`` is the typed :class:`engine.View` as data (``View.plain()``: without ``fork``)
for the agent selected.
:class:`Encoder` gives the same observation and mask from any view (``encoder(view)``), and
:func:`model_policy` makes a policy of a model trained on them (``model(observation, mask) ->
index``), for ``initiative.run``, ``batch``, ``duel`` and ``--policy ID=file.py:NAME``.

**Rewards**: ``reward="win"`` (default) gives +1 to each combatant of the winning side and -1
to the others when the encounter ends (0 to all for no winner); ``reward="damage"`` gives each
combatant the damage it deals, as it deals it; ``"win+damage"`` both. A function
``reward(event, agent) -> float`` is called for every new event and agent.

**Seeds**: ``reset(seed=s)`` fights the encounter with seed ``s``, so the same seed and actions
give the same fight and the same log bytes; ``reset()`` without a seed takes the next seed
after the last (the encounter file's seed the first time).

**Rendering**: with ``render_mode="ansi"``, ``render()`` returns the events since the last
render as text; ``step()`` prints nothing. ``step()`` after the end raises
:class:`EpisodeEndedError` (PettingZoo's order-enforcing wrapper of :func:`env` warns first).

**Logs**: with ``log_dir``, every episode writes ``NAME.seedS.epN.jsonl`` there; a log is a
normal log that ``initiative verify`` accepts once its episode ended. Without it, the lines are
kept in memory (``env.unwrapped.stepper.lines``).
"""

from __future__ import annotations

import functools
import math
import os
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"initiative.env needs the 'env' extra ({missing.name} is missing):"
        " pip install 'initiative[env]'"
    ) from None


from initiative import engine
from initiative.actors import PolicyChoice, PolicyContext, check_names, load_policy
from initiative.engine import Decision, View, policy_rng
from initiative.events import (
    Action,
    AnyAction,
    DamageDealt,
    EncounterEnded,
    EncounterSpec,
    Event,
    InitiativeError,
    Offer,
    Position,
    did_you_mean,
)

from ._logging import ensure_configured
from ._stepping import SteppedFight

__all__ = [
    "ACTION_FLAGS",
    "ACTION_KINDS",
    "DEFAULT_MAX_COMBATANTS",
    "TRIGGER_KINDS",
    "Encoder",
    "EpisodeEndedError",
    "Feature",
    "Model",
    "SingleAgentEnv",
    "action_kinds",
    "env",
    "feature_docs",
    "feature_table",
    "mark_names",
    "model_policy",
    "raw_env",
    "single_agent",
]

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

Reward = Callable[[Event, str], float]

Model = Callable[[np.ndarray, np.ndarray], Any]
"""A trained model as a policy sees it: ``model(observation, action_mask) -> action index``
(anything ``int()`` takes: a Python or numpy integer, a 0-d array)."""


class EpisodeEndedError(InitiativeError, gymnasium.error.ResetNeeded):
    """``step()`` on an environment whose episode has ended (or never started): call
    ``reset()`` first. Both one of initiative's errors and Gymnasium's ``ResetNeeded``."""


def _spec(encounter: str | os.PathLike[str] | EncounterSpec) -> EncounterSpec:
    return encounter if isinstance(encounter, EncounterSpec) else engine.load_encounter(encounter)


def _reward_fn(reward: str | Reward, spec: EncounterSpec) -> Reward:
    if callable(reward):
        return reward
    side = {c.id: c.side for c in spec.combatants}
    parts = reward.split("+")
    if not parts or any(p not in ("win", "damage") for p in parts):
        raise ValueError(f"reward={reward!r}: use 'win', 'damage', 'win+damage' or a function")

    def score(event: Event, agent: str) -> float:
        total = 0.0
        if "win" in parts and isinstance(event, EncounterEnded) and event.winner is not None:
            total += 1.0 if side[agent] == event.winner else -1.0
        if "damage" in parts and isinstance(event, DamageDealt) and event.source == agent:
            total += float(event.amount)
        return total

    # The only events it scores: the environment skips the rest (most of them) unasked.
    score.reads = frozenset(  # type: ignore[attr-defined]
        ({EncounterEnded} if "win" in parts else set())
        | ({DamageDealt} if "damage" in parts else set())
    )
    return score


def kept_offers(offers: tuple[Offer, ...], size: int) -> tuple[Offer, ...]:
    """The offers the action indices stand for: all, or the first ``size - 1`` and the last."""
    if len(offers) <= size:
        return offers
    return (*offers[: size - 1], offers[-1])


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


def feature_table() -> typing.Iterator[tuple[str, str, str, str]]:
    """The observation's features, documented row by row: ``(group, name, range, meaning)``,
    where a name in brackets stands for one column per member of the ruleset's vocabulary
    (docs/env.md shows this table, and a test holds them equal)."""
    for group, build in (
        ("global", _global_features),
        ("combatant row", _combatant_features),
        ("offer row", _offer_features),
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
        "| ruleset | action kinds | conditions | counters | stats | size (12 rows, 32 offers) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in engine.ruleset_names():
        cls = engine.find_ruleset(name)
        if cls.__module__.split(".")[0] not in ("engine", "initiative"):
            continue  # an installed ruleset: not part of this documentation
        v = _vocabulary(cls, DEFAULT_MAX_COMBATANTS)
        size = _Layout(v, 32).size

        def listed(names: tuple[str, ...]) -> str:
            return ", ".join(f"`{n}`" for n in names) or "none"

        own = tuple(k for k in v.kinds if k not in ACTION_KINDS)
        lines.append(
            f"| {name} | {len(v.kinds)}: the {len(ACTION_KINDS)} shared ones and {listed(own)} |"
            f" {listed(v.conditions)} | {listed(v.counters)} | {listed(v.stats)} | {size} |"
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
        # Encoder.encode writes these leading columns by position.
        assert tuple(f.name for f in self.globals[: len(_GLOBAL_HEAD)]) == _GLOBAL_HEAD
        assert tuple(f.name for f in self.combatant[: len(_COMBATANT_HEAD)]) == _COMBATANT_HEAD
        g, c, f = len(self.globals), len(self.combatant), len(self.offer)
        self.size = g + v.max_combatants * c + max_offers * f
        low = [x.low for x in self.globals]
        high = [x.high for x in self.globals]
        low += [x.low for x in self.combatant] * v.max_combatants
        high += [x.high for x in self.combatant] * v.max_combatants
        low += [x.low for x in self.offer] * max_offers
        high += [x.high for x in self.offer] * max_offers
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


class _ActionShape(typing.NamedTuple):
    """What the encoder reads from an action class, found once per class."""

    kind: int  # column of its kind
    flags: tuple[int, ...]  # columns of its markers
    target: tuple[str, ...]  # fields that may name a combatant, in field order
    weapon: bool  # has a ``weapon`` field
    point: tuple[str, ...]  # fields that may hold a Position
    is_attack: bool


class Encoder:
    """Observations and action masks for one encounter: what the environments give a learner,
    from any :class:`engine.View`.

    The observation is one float32 vector, the same length for every encounter of a ruleset
    (with the same ``max_combatants`` and ``max_offers``): the global features, then
    ``max_combatants`` combatant rows (the observer's first, then its allies, then its enemies,
    each in the encounter's order; a row of a combatant the observer does not see standing is
    all 0, ``present`` 0), then ``max_offers`` offer rows (a slot without an offer is all 0).
    :meth:`split` cuts it into those three blocks; :attr:`global_features`,
    :attr:`combatant_features` and :attr:`offer_features` name their columns (see
    docs/env.md for every feature's range and meaning, and ``observation_space()`` for the bounds).

    A trained model comes back as a policy through it (or :func:`model_policy`)::

        encoder = Encoder("examples/openings-duel.toml")
        observation, mask = encoder(view)          # view.me's, as the environments encode it
        action = encoder.action(view, int(model(observation, mask)))
    """

    def __init__(
        self,
        encounter: str | os.PathLike[str] | EncounterSpec,
        max_offers: int = 32,
        *,
        max_combatants: int | None = None,
    ) -> None:
        spec = _spec(encounter)
        if max_offers < 2:
            raise ValueError(f"max_offers={max_offers}: must be at least 2")
        count = len(spec.combatants)
        rows = max(DEFAULT_MAX_COMBATANTS, count) if max_combatants is None else max_combatants
        if rows < count:
            raise ValueError(
                f"max_combatants={rows}: the encounter has {count} combatants, one row each"
            )
        cls = engine.find_ruleset(spec.ruleset)
        rules = cls(spec)
        self.ruleset = spec.ruleset
        self.ids = [c.id for c in spec.combatants]
        self.index = {cid: i for i, cid in enumerate(self.ids)}
        self.side = {c.id: c.side for c in spec.combatants}
        self.max_offers = max_offers
        self.max_combatants = rows
        layout = _layout(spec.ruleset, rows, max_offers)
        self.vocabulary = v = layout.vocabulary
        self.global_features = tuple(f.name for f in layout.globals)
        self.combatant_features = tuple(f.name for f in layout.combatant)
        self.offer_features = tuple(f.name for f in layout.offer)
        self.size = layout.size
        self.low, self.high = layout.low, layout.high
        self._g, self._c, self._f = len(layout.globals), len(layout.combatant), len(layout.offer)
        self._max_rounds = max(1, spec.max_rounds)
        self._trigger = {k: layout.global_at[f"trigger[{k}]"] for k in TRIGGER_KINDS}
        self._trigger_other = layout.global_at["trigger[other]"]
        # Static facts per combatant: its row with the columns that never change filled in.
        self._c_at = layout.combatant_at
        self._o_at = layout.offer_at
        self._static: dict[str, np.ndarray] = {}
        self._max_ap: dict[str, int] = {}
        self._reach: dict[str, float] = {}
        self._weapons: dict[str, dict[str, list[float]]] = {}
        self._first_weapon: dict[str, list[float] | None] = {}
        for c in spec.combatants:
            row = [0.0] * self._c
            max_ap = rules.max_ap(c)
            self._max_ap[c.id] = max_ap
            means = [engine.parse_dice(w.damage).mean for w in c.weapons]
            reaches = [0.0 if w.ranged else float(w.reach) for w in c.weapons]
            ranges = [float(w.range or 0.0) for w in c.weapons]
            # An offer's weapon columns: (1 + index) / 4, damage, reach and range, scaled.
            weapons = {
                w.name: [
                    _clip((i + 1) / _WEAPONS),
                    _clip(means[i] / _DAMAGE),
                    _clip(reaches[i] / _REACH),
                    _clip(ranges[i] / _RANGE),
                ]
                for i, w in reversed(list(enumerate(c.weapons)))  # the first of a name wins
            }
            self._weapons[c.id] = weapons
            self._first_weapon[c.id] = weapons[c.weapons[0].name] if c.weapons else None
            reach = max(reaches, default=0.0)
            self._reach[c.id] = reach
            row[self._c_at["max_hp"]] = _clip(c.hp / _HP)
            row[self._c_at["max_ap"]] = _clip(max_ap / _AP)
            row[self._c_at["reach"]] = _clip(reach / _REACH)
            row[self._c_at["range"]] = _clip(max(ranges, default=0.0) / _RANGE)
            row[self._c_at["damage"]] = _clip(max(means, default=0.0) / _DAMAGE)
            for stat in v.stats:
                value = c.stats.get(stat, 0)
                bounds = v.stat_ranges.get(stat)
                if bounds is not None and bounds[1] > bounds[0]:
                    scaled = (value - bounds[0]) / (bounds[1] - bounds[0])
                else:
                    scaled = value / _STAT
                row[self._c_at[f"stat[{stat}]"]] = _clip(scaled, -1.0, 1.0)
            self._static[c.id] = np.array(row, np.float32)
        self._condition_types = [(m, _mark_name(m)) for m in cls.conditions]
        self._counter_types = [(m, _mark_name(m)) for m in cls.counters]
        self._marks: dict[tuple[bool, str], int | None] = {}
        self._orders: dict[str, tuple[dict[str, int], tuple[str, ...]]] = {}
        self._kinds = {tag: layout.offer_at[f"kind[{tag}]"] for tag in v.kinds}
        self._kind_other = layout.offer_at["kind[other]"]
        weapon = self.offer_features.index("weapon")
        assert self.offer_features[weapon : weapon + 4] == _WEAPON_COLUMNS  # written as a slice
        self._shapes: dict[type[Any], _ActionShape] = {}

    # --- the public face --------------------------------------------------------------------

    def __call__(self, view: View) -> tuple[np.ndarray, np.ndarray]:
        """``(observation, action_mask)`` of ``view.me``: the vector and the mask the
        environments give that combatant (the mask is all 0 for a view without offers)."""
        encoded = self.encode(view.me.id, view, bool(view.legal))
        return encoded["observation"], encoded["action_mask"]

    def action(self, view: View, index: int) -> Action | Decision:
        """The action that index ``index`` stands for in ``view`` (the ``index``-th kept
        offer), or, outside the mask, a recorded invalid decision, as the environments make."""
        offers = kept_offers(view.legal, self.max_offers)
        if 0 <= index < len(offers):
            return offers[index].action
        return Decision(
            failure="invalid", detail=f"action {index} is not among the {len(offers)} offers"
        )

    def observation_space(self) -> spaces.Dict:
        """The environments' observation space: the vector's ``Box`` with each feature's
        bounds, and the action mask's."""
        return spaces.Dict(
            {
                "observation": spaces.Box(self.low, self.high, (self.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.max_offers,), np.int8),
            }
        )

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The vector cut into its blocks (views, not copies): ``globals`` ``(G,)``,
        ``combatants`` ``(max_combatants, C)`` and ``offers`` ``(max_offers, F)``; works on a
        batch too (leading axes kept)."""
        lead = observation.shape[:-1]
        g, c = self._g, self._g + self.max_combatants * self._c
        return {
            "globals": observation[..., :g],
            "combatants": observation[..., g:c].reshape(*lead, self.max_combatants, self._c),
            "offers": observation[..., c:].reshape(*lead, self.max_offers, self._f),
        }

    def rows(self, who: str) -> tuple[str, ...]:
        """The combatant ids in row order for observer ``who``: itself, its allies, its
        enemies, each in the encounter's order."""
        return self._order(who)[1]

    # --- encoding ---------------------------------------------------------------------------

    def _order(self, who: str) -> tuple[dict[str, int], tuple[str, ...]]:
        found = self._orders.get(who)
        if found is None:
            side = self.side[who]
            ids = (
                who,
                *(c for c in self.ids if c != who and self.side[c] == side),
                *(c for c in self.ids if self.side[c] != side),
            )
            found = self._orders[who] = ({cid: r for r, cid in enumerate(ids)}, ids)
        return found

    def _mark(self, counter: bool, text: str) -> int | None:
        """The column of a condition's or counter's wire form (``None``: an undeclared one)."""
        key = (counter, text)
        if key not in self._marks:
            column = None
            for mark, name in self._counter_types if counter else self._condition_types:
                if mark.parse(text) is not None:
                    column = self._c_at[f"{'counter' if counter else 'condition'}[{name}]"]
                    break
            self._marks[key] = column
        return self._marks[key]

    def _shape(self, cls: type[Any]) -> _ActionShape:
        shape = self._shapes.get(cls)
        if shape is None:
            tag = str(cls.__struct_config__.tag)
            hints = typing.get_type_hints(cls)
            fields = cls.__struct_fields__
            shape = self._shapes[cls] = _ActionShape(
                kind=self._kinds.get(tag, self._kind_other),
                flags=tuple(self._o_at[f] for f in ACTION_FLAGS if getattr(cls, f, False)),
                target=tuple(f for f in fields if f != "weapon" and str in _types(hints[f])),
                weapon="weapon" in fields,
                point=tuple(f for f in fields if Position in _types(hints[f])),
                is_attack=bool(getattr(cls, "is_attack", False)),
            )
        return shape

    def encode(self, who: str, view: View, holds: bool) -> dict[str, np.ndarray]:
        """The observation and mask of ``who`` from ``view`` (``who``'s view), with offers when
        it ``holds`` priority."""
        vec = np.zeros(self.size, np.float32)
        mask = np.zeros(self.max_offers, np.int8)
        me = view.me
        window = view.window
        trigger = window.trigger
        kept = kept_offers(view.legal, self.max_offers) if holds else ()
        head = [0.0] * self._g
        head[0] = _clip(view.round / self._max_rounds)
        head[1] = 1.0 if window.kind == "turn" else 0.0
        head[2] = _clip(window.depth / _DEPTH)
        head[3] = 1.0 if holds else 0.0
        head[4] = 1.0 if view.active == who else 0.0
        head[5] = len(kept) / self.max_offers
        if trigger is not None:
            head[self._trigger.get(trigger.kind, self._trigger_other)] = 1.0
        vec[: self._g] = head
        rows, _ = self._order(who)
        mx, my = me.position.x, me.position.y
        my_reach = self._reach[who]
        by = trigger.by if trigger is not None else None
        aimed = trigger.target if trigger is not None else None
        side = self.side[who]
        seen = (me, *view.allies, *view.enemies)
        enemies: list[tuple[float, float]] = []
        where: dict[str, tuple[float, float]] = {}
        head_size = len(_COMBATANT_HEAD)
        for c in seen:
            cid = c.id
            r = rows.get(cid)
            if r is None:
                continue
            start = self._g + self._c * r
            static = self._static[cid]
            vec[start : start + self._c] = static  # max hp and AP, weapons, stats
            ally = self.side[cid] == side
            max_ap = self._max_ap[cid]
            hp = c.hp / c.max_hp if c.max_hp > 0 else 0.0
            points = c.hp / _HP
            ap = c.ap / max_ap if max_ap > 0 else 0.0
            dx, dy = (c.position.x - mx) / _METRES, (c.position.y - my) / _METRES
            far = math.hypot(dx, dy)
            vec[start : start + head_size] = (
                1.0,
                1.0 if cid == who else 0.0,
                1.0 if ally and cid != who else 0.0,
                0.0 if ally else 1.0,
                1.0 if view.active == cid else 0.0,
                1.0 if by == cid else 0.0,
                1.0 if aimed == cid else 0.0,
                0.0 if hp < 0.0 else 1.0 if hp > 1.0 else hp,
                0.0 if points < 0.0 else 1.0 if points > 1.0 else points,
                static[9],
                0.0 if ap < 0.0 else 1.0 if ap > 1.0 else ap,
                static[11],
                -1.0 if dx < -1.0 else 1.0 if dx > 1.0 else dx,
                -1.0 if dy < -1.0 else 1.0 if dy > 1.0 else dy,
                1.0 if far > 1.0 else far,
                static[15],
                static[16],
                static[17],
                1.0 if cid != who and far * _METRES <= self._reach[cid] + 1e-9 else 0.0,
                1.0 if cid != who and far * _METRES <= my_reach + 1e-9 else 0.0,
            )
            for text in c.conditions:
                column = self._mark(False, text)
                if column is not None:
                    vec[start + column] = 1.0
            if c.counters:
                sums: dict[int, float] = {}
                for text, value in c.counters:
                    column = self._mark(True, text)
                    if column is not None:
                        sums[column] = sums.get(column, 0.0) + value
                for column, total in sums.items():
                    vec[start + column] = _squash(total)
            where[cid] = (c.position.x, c.position.y)
            if not ally:
                enemies.append(where[cid])
        if kept:
            base = self._g + self._c * self.max_combatants
            my_ap = self._max_ap[who]
            weapons = self._weapons[who]
            o = self._o_at
            target0 = o["target[0]"]
            weapon0 = o["weapon"]
            for k, offer in enumerate(kept):
                mask[k] = 1
                action = offer.action
                shape = self._shape(type(action))
                row = [0.0] * self._f
                row[0] = 1.0
                row[shape.kind] = 1.0
                for column in shape.flags:
                    row[column] = 1.0
                row[o["cost"]] = _clip(offer.cost / my_ap) if my_ap > 0 else 1.0
                for name in shape.target:
                    value = getattr(action, name)
                    r = rows.get(value) if isinstance(value, str) else None
                    if r is not None:
                        row[target0 + r] = 1.0
                        row[o["has_target"]] = 1.0
                        them = where.get(value)
                        if them is not None:
                            gap = math.hypot(them[0] - mx, them[1] - my)
                            row[o["target_distance"]] = _clip(gap / _METRES)
                        break
                if shape.weapon or shape.is_attack:
                    named: str | None = getattr(action, "weapon", None)
                    weapon = weapons.get(named) if named is not None else None
                    if weapon is None and named is None and shape.is_attack:
                        weapon = self._first_weapon[who]
                    if weapon is not None:
                        row[weapon0 : weapon0 + 4] = weapon
                for name in shape.point:
                    to = getattr(action, name)
                    if isinstance(to, Position):
                        row[o["has_destination"]] = 1.0
                        row[o["to_dx"]] = _clip((to.x - mx) / _METRES, -1.0, 1.0)
                        row[o["to_dy"]] = _clip((to.y - my) / _METRES, -1.0, 1.0)
                        near = min(
                            (math.hypot(ex - to.x, ey - to.y) for ex, ey in enemies),
                            default=_METRES,
                        )
                        row[o["to_nearest_enemy"]] = _clip(near / _METRES)
                        break
                start = base + self._f * k
                vec[start : start + self._f] = row
        return {"observation": vec, "action_mask": mask}


def _types(hint: Any) -> tuple[Any, ...]:
    """The types a field's annotation admits (``str | None`` admits ``str`` and ``None``)."""
    args = typing.get_args(hint)
    return args if args else (hint,)


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """The AEC environment of one encounter; see the module's docstring for the encoding."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "initiative_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        encounter: str | os.PathLike[str] | EncounterSpec,
        *,
        max_offers: int = 32,
        max_combatants: int | None = None,
        reward: str | Reward = "win",
        log_dir: str | os.PathLike[str] | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        ensure_configured()
        if max_offers < 2:
            raise ValueError(f"max_offers={max_offers}: must be at least 2")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: use None or 'ansi'")
        self.spec = _spec(encounter)
        self.name = (
            Path(str(encounter)).stem
            if not isinstance(encounter, EncounterSpec)
            else (self.spec.name or self.spec.ruleset)
        )
        self.encoder = Encoder(self.spec, max_offers, max_combatants=max_combatants)
        self.reward_of = _reward_fn(reward, self.spec)
        self._reads: frozenset[type] | None = (
            getattr(self.reward_of, "reads", None) if isinstance(reward, str) else None
        )
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.render_mode = render_mode
        self.possible_agents = list(self.encoder.ids)
        self._obs_space = self.encoder.observation_space()
        self._act_space = spaces.Discrete(max_offers)
        self.episode = 0
        self.seed: int | None = None
        self.stepper: SteppedFight | None = None
        self.log_path: Path | None = None

    @functools.cache  # noqa: B019 - one space object per agent, as PettingZoo expects
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # --- the episode ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        if self.stepper is not None:
            self.stepper.close()
        if seed is not None:
            self.seed = int(seed)
        else:
            self.seed = self.spec.seed if self.seed is None else self.seed + 1
        self.episode += 1
        self.log_path = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            self.log_path = self.log_dir / f"{self.name}.seed{self.seed}.ep{self.episode}.jsonl"
        self.stepper = SteppedFight(self.spec, self.seed, out=self.log_path, quiet=True)
        self._seen = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._rendered = 0
        self._settle()

    def _settle(self) -> None:
        """Rewards for the events since the last step; whose turn; the end."""
        stepper = self.stepper
        assert stepper is not None
        fresh = stepper.events[self._seen :]
        self._seen = len(stepper.events)
        reads = self._reads
        if reads is not None:  # a built-in reward: only the events it scores
            fresh = [e for e in fresh if type(e) in reads]
        score, rewards = self.reward_of, self.rewards
        for agent in self.agents:
            rewards[agent] = float(sum(score(e, agent) for e in fresh)) if fresh else 0.0
        for agent in self.agents:
            self.infos[agent] = {}
        if stepper.over:
            end = stepper.events[-1]
            cut = isinstance(end, EncounterEnded) and end.winner is None and "limit" in end.reason
            for agent in self.agents:
                self.terminations[agent] = not cut
                self.truncations[agent] = cut
            self.agent_selection = self.agents[0]
            self.infos[self.agent_selection] = {"log": self.log_path, "winner": stepper.winner}
        else:
            who = stepper.who
            assert who is not None and stepper.view is not None
            self.agent_selection = who
            self.infos[who] = {
                "view": stepper.view.plain(),
                "action_mask": self._mask(who),
            }

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.encoder.max_offers, np.int8)
        if self.stepper is not None and self.stepper.who == agent:
            mask[: len(kept_offers(self.stepper.offers, self.encoder.max_offers))] = 1
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        stepper = self.stepper
        assert stepper is not None
        holds = stepper.who == agent
        if agent not in stepper.state.combatants:  # not joined yet
            return {
                "observation": np.zeros(self.encoder.size, np.float32),
                "action_mask": np.zeros(self.encoder.max_offers, np.int8),
            }
        return self.encoder.encode(agent, stepper.view_of(agent), holds)

    def step(self, action: Any) -> None:
        stepper = self.stepper
        if stepper is None:
            raise EpisodeEndedError("step() before reset(): call reset() first")
        if not self.agents:
            raise EpisodeEndedError("step() after the episode ended: call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        assert stepper.view is not None
        stepper.send(self.encoder.action(stepper.view, int(action)))
        self._settle()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the events since the last render, one line each (the
        text is returned, never printed); ``None`` without a render mode."""
        if self.render_mode is None or self.stepper is None:
            return None
        from initiative.replays import summary

        lines = [
            f"{e.seq:>5} {type(e).__name__} {summary(e)}\n"
            for e in self.stepper.events[self._rendered :]
        ]
        self._rendered = len(self.stepper.events)
        return "".join(lines)

    def close(self) -> None:
        if self.stepper is not None:
            self.stepper.close()


def env(encounter: str | os.PathLike[str] | EncounterSpec, **options: Any) -> raw_env:
    """The AEC environment of ``encounter`` (options: ``max_offers``, ``max_combatants``,
    ``reward``, ``log_dir``, ``render_mode``), wrapped in PettingZoo's order-enforcing checks."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(encounter, **options))  # type: ignore[no-any-return]


SELF = "self"
"""The opponent policy that is the learner's own current policy (see :class:`SingleAgentEnv`)."""


class SingleAgentEnv(gymnasium.Env):
    """One combatant learns; every other combatant plays a policy.

    Observations are the AEC environment's vector (``Box``); the action mask is
    :meth:`action_masks` (what sb3-contrib's ``MaskablePPO`` asks for) and
    ``info["action_mask"]``; ``info["view"]`` is the typed view; the reward is the learner's.

    ``policies`` maps combatant ids or sides (the encounter file's policy otherwise) to:

    - any policy choice :func:`initiative.run` takes (a name, a function, an object, a class,
      a :func:`model_policy`);
    - ``"self"``: the learner's own current policy, ``self_play(observation, mask) -> index``
      (an argument, or the attribute of that name, which a training loop updates as it learns:
      ``envs.set_attr("self_play", fn)`` on a vector environment). The opponent sees its own
      observation and mask, encoded as the learner's are;
    - a list or tuple of those: a pool (of snapshots, say), one drawn per episode and key from
      a generator seeded by the episode's seed, so ``reset(seed=s)`` always meets the same
      opponents. ``info["opponents"]`` after ``reset`` names each opponent's policy.
    """

    # A frame rate for Gymnasium's checks (what its text environments declare); the text is
    # returned by render(), never shown at any rate.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}  # type: ignore[misc]

    def __init__(
        self,
        encounter: str | os.PathLike[str] | EncounterSpec,
        learner: str,
        *,
        policies: Mapping[str, PolicyChoice] | None = None,
        self_play: Model | None = None,
        **options: Any,
    ) -> None:
        self.aec = raw_env(encounter, **options)
        if learner not in self.aec.possible_agents:
            raise InitiativeError(
                f"learner={learner!r}: no such combatant in {self.aec.name}"
                + did_you_mean(learner, self.aec.possible_agents)
            )
        self.learner = learner
        self.policies = dict(policies or {})
        check_names(self.aec.spec, self.policies, where=repr(self.aec.name))
        for key, choice in self.policies.items():
            if isinstance(choice, (list, tuple)) and not choice:
                raise InitiativeError(f"policies[{key!r}]: an empty pool of policies")
        self.self_play = self_play
        """The learner's current policy, ``(observation, mask) -> index``, for ``"self"``."""
        self.render_mode = self.aec.render_mode
        self.observation_space = self.aec.observation_space(learner)["observation"]  # type: ignore[index]
        self.action_space = self.aec.action_space(learner)
        self._over = True

    def _others(self, seed: int) -> tuple[dict[str, Any], dict[str, str]]:
        """Each opponent's decider for the episode of ``seed``, and its policy's label."""
        draw = np.random.default_rng([seed, 0x5E1F])
        picked: dict[str, PolicyChoice] = {}
        for key in sorted(self.policies):  # a pool is drawn once per key, in a fixed order
            choice = self.policies[key]
            if isinstance(choice, (list, tuple)):
                choice = choice[int(draw.integers(len(choice)))]
            picked[key] = choice
        deciders, labels = {}, {}
        for c in self.aec.spec.combatants:
            if c.id == self.learner:
                continue
            choice = picked.get(c.id, picked.get(c.side, c.policy))
            if isinstance(choice, str) and choice == SELF:
                deciders[c.id], labels[c.id] = self._self_decider(), SELF
                continue
            ctx = PolicyContext(combatant=c, encounter=self.aec.spec, rng=policy_rng(seed, c.id))
            loaded = load_policy(choice, ctx)
            deciders[c.id] = getattr(loaded.policy, "decide", loaded.policy)
            labels[c.id] = loaded.name
        return deciders, labels

    def _self_decider(self) -> Callable[[View], Action | Decision]:
        if self.self_play is None:
            raise InitiativeError(
                'an opponent plays "self", but no self_play(observation, mask) -> index was'
                " given: single_agent(..., self_play=fn) or env.unwrapped.self_play = fn"
            )
        encoder = self.aec.encoder

        def decide(view: View) -> Action | Decision:
            assert self.self_play is not None
            observation, mask = encoder(view)
            return encoder.action(view, int(self.self_play(observation, mask)))

        return decide

    def _advance(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Let the others play until the learner holds priority or the fight ends."""
        aec = self.aec
        reward = 0.0
        while True:
            reward += aec.rewards.get(self.learner, 0.0)
            stepper = aec.stepper
            assert stepper is not None
            if stepper.over:
                self._over = True
                obs = aec.observe(self.learner)["observation"]
                return (
                    obs,
                    reward,
                    aec.terminations[self.learner],
                    aec.truncations[self.learner],
                    {
                        "action_mask": np.zeros(aec.encoder.max_offers, np.int8),
                        "winner": stepper.winner,
                        "log": aec.log_path,
                    },
                )
            who = aec.agent_selection
            if who == self.learner:
                info = dict(aec.infos[who])
                return aec.observe(who)["observation"], reward, False, False, info
            assert stepper.view is not None
            stepper.send(self._deciders[who](stepper.view))
            aec._settle()

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        assert self.aec.seed is not None
        self._deciders, opponents = self._others(self.aec.seed)
        self._over = False
        obs, _, _, _, info = self._advance()
        info["opponents"] = opponents
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise EpisodeEndedError(
                "step() after the episode ended: call reset() first"
                if self.aec.stepper is not None
                else "step() before reset(): call reset() first"
            )
        self.aec.step(action)
        return self._advance()

    def action_masks(self) -> np.ndarray:
        """The learner's valid action indices now, as booleans (all ``False`` once the episode
        has ended): what sb3-contrib's ``MaskablePPO`` calls ``action_masks()`` for."""
        stepper = self.aec.stepper
        if self._over or stepper is None or stepper.who != self.learner:
            return np.zeros(self.aec.encoder.max_offers, bool)
        return self.aec._mask(self.learner).astype(bool)

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the events since the last render, one line each."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def single_agent(
    encounter: str | os.PathLike[str] | EncounterSpec,
    learner: str,
    *,
    policies: Mapping[str, PolicyChoice] | None = None,
    self_play: Model | None = None,
    **options: Any,
) -> SingleAgentEnv:
    """A Gymnasium environment where ``learner`` (a combatant id) learns and the others play
    ``policies`` (by combatant id or side; the encounter file's otherwise; ``"self"`` for
    ``self_play``, a list for a pool drawn per episode: see :class:`SingleAgentEnv`)."""
    return SingleAgentEnv(encounter, learner, policies=policies, self_play=self_play, **options)


def model_policy(model: Model, *, max_offers: int = 32, max_combatants: int | None = None) -> type:
    """A policy class from a trained model, ``model(observation, action_mask) -> index``.

    The class is what :func:`initiative.run`, :func:`initiative.step`'s callers, ``batch``,
    ``duel`` and ``--policy ID=file.py:NAME`` take: each combatant gets an instance that encodes
    its view as the environments do (with the same ``max_offers`` and ``max_combatants``) and
    sends the offer the index stands for; an index outside the mask is a recorded invalid decision.
    """
    name = str(getattr(model, "__name__", None) or type(model).__name__)

    class ModelPolicy:
        def __init__(self, ctx: PolicyContext) -> None:
            self.encoder = Encoder(ctx.encounter, max_offers, max_combatants=max_combatants)

        def decide(self, view: View) -> Action | Decision:
            observation, mask = self.encoder(view)
            return self.encoder.action(view, int(model(observation, mask)))

    ModelPolicy.__name__ = ModelPolicy.__qualname__ = name
    ModelPolicy.__doc__ = f"The policy of model {name!r} (see initiative.env.model_policy)."
    return ModelPolicy
