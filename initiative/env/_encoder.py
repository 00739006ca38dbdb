"""The encoder: an observation and an action mask from any view, and an index back to an action."""

from __future__ import annotations

import math
import os
import typing
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from initiative import engine
from initiative.engine import Decision, View
from initiative.events import (
    Action,
    EncounterFileError,
    EncounterSpec,
    Move,
    Offer,
    Position,
    did_you_mean,
)

from .._examples import SUFFIX, examples
from ._features import (
    _AP,
    _COMBATANT_HEAD,
    _DAMAGE,
    _DEPTH,
    _HP,
    _METRES,
    _RANGE,
    _REACH,
    _STAT,
    _WEAPON_COLUMNS,
    _WEAPONS,
    ACTION_FLAGS,
    DEFAULT_MAX_COMBATANTS,
    MOVE_KINDS,
    TRIGGER_KINDS,
    _clip,
    _layout,
    _mark_name,
    _squash,
)

#: The prefix and version of the registered ids: ``initiative/openings-duel-v0``.
ID_PREFIX, ID_VERSION = "initiative/", "-v0"


def _bundled_name(encounter: str) -> str | None:
    """The bundled example's name that ``encounter`` stands for: its name (``openings-duel``),
    its file name (``openings-duel.toml``) or its registered id (``initiative/openings-duel-v0``)."""
    name = encounter
    if name.startswith(ID_PREFIX) and name.endswith(ID_VERSION):
        name = name[len(ID_PREFIX) : -len(ID_VERSION)]
    name = name.removesuffix(SUFFIX)
    return name if name in examples() else None


def find_encounter(encounter: str | os.PathLike[str] | EncounterSpec) -> EncounterSpec:
    """The encounter a path, a bundled example's name (``"openings-duel"``) or its registered
    id (``"initiative/openings-duel-v0"``) stands for, read and normalized (a file that exists
    wins over a bundled example of the same name; an encounter given is returned as it is).
    A name that is neither is an :class:`EncounterFileError` naming a near miss."""
    return _spec(encounter)


def _spec(encounter: str | os.PathLike[str] | EncounterSpec) -> EncounterSpec:
    if isinstance(encounter, EncounterSpec):
        return encounter
    if isinstance(encounter, str) and not Path(encounter).exists():
        name = _bundled_name(encounter)
        if name is not None:
            with resources.as_file(examples()[name]) as path:
                return engine.load_encounter(path)
        if "/" not in encounter and "\\" not in encounter and not encounter.endswith(SUFFIX):
            raise EncounterFileError(
                f"{encounter}: no such encounter file or bundled example"
                + did_you_mean(encounter, examples())
            )
    return engine.load_encounter(encounter)


def _name(encounter: str | os.PathLike[str] | EncounterSpec, spec: EncounterSpec) -> str:
    """The environment's name: the file's stem, the bundled example's name, or the spec's."""
    if isinstance(encounter, EncounterSpec):
        return spec.name or spec.ruleset
    if isinstance(encounter, str) and not Path(encounter).exists():
        name = _bundled_name(encounter)
        if name is not None:
            return name
    return Path(str(encounter)).stem


def kept_offers(offers: tuple[Offer, ...], size: int) -> tuple[Offer, ...]:
    """The offers the action indices stand for: all, or the first ``size - 1`` and the last."""
    if len(offers) <= size:
        return offers
    return (*offers[: size - 1], offers[-1])


class _ActionShape(typing.NamedTuple):
    """What the encoder reads from an action class, found once per class."""

    kind: int  # column of its kind
    flags: tuple[int, ...]  # columns of its markers
    target: tuple[str, ...]  # fields that may name a combatant, in field order
    weapon: bool  # has a ``weapon`` field
    point: tuple[str, ...]  # fields that may hold a Position
    is_attack: bool
    only_point: bool  # its one field is its point (a ``Move``): a row kept without it


class _OfferColumns(typing.NamedTuple):
    """Where an offer row's columns written by name are (``target``: ``target[0]``)."""

    cost: int
    target: int
    has_target: int
    target_distance: int
    weapon: int
    has_destination: int
    to_dx: int
    to_dy: int
    to_nearest_enemy: int


_OFFER_COLUMN = {"target": "target[0]"}

# Where the columns of a combatant row's head that ``Encoder._combatant_rows`` writes are,
# each found by its name.
_PRESENT = _COMBATANT_HEAD.index("present")
_ME = _COMBATANT_HEAD.index("me")
_ALLY = _COMBATANT_HEAD.index("ally")
_ENEMY = _COMBATANT_HEAD.index("enemy")
_ACTIVE = _COMBATANT_HEAD.index("active")
_TRIGGER_BY = _COMBATANT_HEAD.index("trigger_by")
_TRIGGER_TARGET = _COMBATANT_HEAD.index("trigger_target")
_HP_SHARE = _COMBATANT_HEAD.index("hp")
_HP_POINTS = _COMBATANT_HEAD.index("hp_points")
_AP_SHARE = _COMBATANT_HEAD.index("ap")
_DX = _COMBATANT_HEAD.index("dx")
_DY = _COMBATANT_HEAD.index("dy")
_DISTANCE = _COMBATANT_HEAD.index("distance")
_REACHES_ME = _COMBATANT_HEAD.index("reaches_me")
_IN_MY_REACH = _COMBATANT_HEAD.index("in_my_reach")


class _Scene(typing.NamedTuple):
    """The move slots of one scene (see :meth:`Encoder._scene`)."""

    moves: list[tuple[int, Position, float, float]]
    rows: memoryview[float]  # the vector's move block
    mask: memoryview[int]  # the mask's move entries


#: Offer rows kept for reuse, of each kind, before the encoder forgets them and starts again.
_KEPT = 4096
#: Scenes kept for reuse, the latest: a scene comes back, if at all, within a few decisions (a
#: reaction declined where the mover stood), and a long memory of them only burdens the
#: garbage collector (over fights of the duel and the bridge, 4% of the scenes came back, nearly
#: all within four).
_SCENES_KEPT = 8


class Encoder:
    """Observations and action masks for one encounter: what the environments give a learner,
    from any :class:`engine.View`.

    The observation is one float32 vector, the same length for every encounter of a ruleset
    (with the same ``max_combatants`` and ``max_offers``): the global features, then
    ``max_combatants`` combatant rows (the observer's first, then its allies, then its enemies,
    each in the encounter's order; a row of a combatant the observer does not see standing is
    all 0, ``present`` 0), then ``max_offers`` offer rows (a slot without an offer is all 0),
    then :attr:`move_slots` move rows. :meth:`split` cuts it into those four blocks;
    :attr:`global_features`, :attr:`combatant_features`, :attr:`offer_features` and
    :attr:`move_features` name their columns (see
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
        self.ruleset = spec.ruleset
        self.ids = [c.id for c in spec.combatants]
        self.index = {cid: i for i, cid in enumerate(self.ids)}
        self.side = {c.id: c.side for c in spec.combatants}
        self.max_offers = max_offers
        self.max_combatants = rows
        layout = _layout(spec.ruleset, rows, max_offers)
        self.vocabulary = layout.vocabulary
        self.global_features = tuple(f.name for f in layout.globals)
        self.combatant_features = tuple(f.name for f in layout.combatant)
        self.offer_features = tuple(f.name for f in layout.offer)
        self.move_features = tuple(f.name for f in layout.move)
        self.move_slots = layout.move_slots
        """Move slots: ``(max_combatants - 1) * len(MOVE_KINDS)``, after the offers."""
        self.actions = max_offers + self.move_slots
        """The size of the action space: ``max_offers`` offers, then the move slots."""
        self._m = len(layout.move)
        self.size = layout.size
        self.low, self.high = layout.low, layout.high
        self._g, self._c, self._f = len(layout.globals), len(layout.combatant), len(layout.offer)
        # Where each block starts in the vector.
        self._offers_at = self._g + self._c * rows
        self._moves_at = self._offers_at + self._f * max_offers
        self._max_rounds = max(1, spec.max_rounds)
        self._trigger = {k: layout.global_at[f"trigger[{k}]"] for k in TRIGGER_KINDS}
        self._trigger_other = layout.global_at["trigger[other]"]
        self._c_at = layout.combatant_at
        self._o_at = layout.offer_at
        self._columns = _OfferColumns(
            *(layout.offer_at[_OFFER_COLUMN.get(name, name)] for name in _OfferColumns._fields)
        )
        self._statics(spec, cls(spec), layout.vocabulary)
        self._condition_types = [(m, _mark_name(m)) for m in cls.conditions]
        self._counter_types = [(m, _mark_name(m)) for m in cls.counters]
        self._marks: dict[tuple[bool, str], int | None] = {}
        self._plans: dict[str, dict[str, tuple[int, memoryview[float], bool, float, int]]] = {}
        # A row's condition and counter columns, by the conditions and counters of a combatant.
        self._marked: dict[tuple[Any, Any], tuple[tuple[int, float], ...]] = {}
        self._orders: dict[str, tuple[dict[str, int], tuple[str, ...]]] = {}
        self._kinds = {tag: layout.offer_at[f"kind[{tag}]"] for tag in layout.vocabulary.kinds}
        self._kind_other = layout.offer_at["kind[other]"]
        weapon = self.offer_features.index("weapon")
        assert self.offer_features[weapon : weapon + 4] == _WEAPON_COLUMNS  # written in a row
        self._shapes: dict[type[Any], _ActionShape] = {}
        self._last_moves: tuple[View | None, list[tuple[int, Position, float, float]]] = (None, [])
        # Rows already encoded, by what they are made of (see encode): an offer's row but its
        # distances, by observer and offer; the row of an offer whose one field is its point
        # but its destination, by observer, action class and cost; the move slots of one scene.
        self._offer_rows: dict[tuple[str, Offer], tuple[memoryview[float], str | None]] = {}
        self._point_rows: dict[tuple[str, type[Any], int], memoryview[float]] = {}
        self._scenes: dict[tuple[Any, ...], _Scene] = {}

    def _statics(self, spec: EncounterSpec, rules: engine.Ruleset, v: Any) -> None:
        """Per combatant, what never changes: its row's static columns (max hp and AP, reach,
        range, damage, stats), its AP when full, reach, and its weapons' offer columns."""
        self._static_rows: dict[str, memoryview[float]] = {}
        self._max_ap: dict[str, int] = {}
        self._reach: dict[str, float] = {}
        self._weapons: dict[str, dict[str, list[float]]] = {}
        self._first_weapon: dict[str, list[float] | None] = {}
        at = self._c_at
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
            row[at["max_hp"]] = _clip(c.hp / _HP)
            row[at["max_ap"]] = _clip(max_ap / _AP)
            row[at["reach"]] = _clip(reach / _REACH)
            row[at["range"]] = _clip(max(ranges, default=0.0) / _RANGE)
            row[at["damage"]] = _clip(max(means, default=0.0) / _DAMAGE)
            for stat in v.stats:
                value = c.stats.get(stat, 0)
                bounds = v.stat_ranges.get(stat)
                if bounds is not None and bounds[1] > bounds[0]:
                    scaled = (value - bounds[0]) / (bounds[1] - bounds[0])
                else:
                    scaled = value / _STAT
                row[at[f"stat[{stat}]"]] = _clip(scaled, -1.0, 1.0)
            self._static_rows[c.id] = _floats(np.array(row, np.float32))

    # --- the public face --------------------------------------------------------------------

    def __call__(self, view: View) -> tuple[np.ndarray, np.ndarray]:
        """``(observation, action_mask)`` of ``view.me``: the vector and the mask the
        environments give that combatant (the mask is all 0 for a view without offers)."""
        encoded = self.encode(view.me.id, view, bool(view.legal))
        return encoded["observation"], encoded["action_mask"]

    def action(self, view: View, index: int) -> Action | Decision:
        """The action that index ``index`` stands for in ``view``: the ``index``-th kept
        offer, or (from ``max_offers`` on) the move of a move slot; outside the mask, a recorded
        invalid decision, as the environments make."""
        offers = kept_offers(view.legal, self.max_offers)
        if 0 <= index < len(offers):
            return offers[index].action
        if index >= self.max_offers:
            slot = index - self.max_offers
            last_view, moves = self._last_moves
            if last_view is not view:  # (the environments ask of the view they just encoded)
                moves = self._moves(view.me.id, view)
            for at_slot, to, _, _ in moves:
                if at_slot == slot:
                    return Move(to=to)
        return Decision(
            failure="invalid", detail=f"action {index} is not among the {len(offers)} offers"
        )

    def slot(self, index: int) -> tuple[int, str] | None:
        """The combatant row and move kind of action ``index`` if it is a move slot (see
        :data:`MOVE_KINDS`), else ``None``."""
        slot = index - self.max_offers
        if not 0 <= slot < self.move_slots:
            return None
        row, kind = divmod(slot, len(MOVE_KINDS))
        return row + 1, MOVE_KINDS[kind]

    def observation_space(self) -> spaces.Dict:
        """The environments' observation space: the vector's ``Box`` with each feature's
        bounds (under ``observation``, and under ``observations``, the key RLlib's action-masking
        models read), and the action mask's."""
        vector = spaces.Box(self.low, self.high, (self.size,), np.float32)
        return spaces.Dict(
            {
                "observation": vector,
                "observations": vector,  # the same array under the key RLlib's models read
                "action_mask": spaces.Box(0, 1, (self.actions,), np.int8),
            }
        )

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The vector cut into its blocks (views, not copies): ``globals`` ``(G,)``,
        ``combatants`` ``(max_combatants, C)``, ``offers`` ``(max_offers, F)`` and ``moves``
        ``(move_slots, M)``; works on a batch too (leading axes kept)."""
        lead = observation.shape[:-1]
        g, c = self._g, self._g + self.max_combatants * self._c
        o = c + self.max_offers * self._f
        return {
            "globals": observation[..., :g],
            "combatants": observation[..., g:c].reshape(*lead, self.max_combatants, self._c),
            "offers": observation[..., c:o].reshape(*lead, self.max_offers, self._f),
            "moves": observation[..., o:].reshape(*lead, self.move_slots, self._m),
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

    def _plan(self, who: str) -> dict[str, tuple[int, memoryview[float], bool, float, int]]:
        """For observer ``who``, each combatant's row as :meth:`_combatant_rows` writes it:
        where it starts, its static columns with its role's (``present``, and ``me``, ``ally``
        or ``enemy``) set, whether it is ``who``'s ally, its reach and its AP when full."""
        rows, _ = self._order(who)
        side, first, size = self.side[who], self._g, self._c
        plans = {}
        for cid, r in rows.items():
            row = np.array(self._static_rows[cid], np.float32)
            ally = self.side[cid] == side
            row[_PRESENT] = 1.0
            row[_ME if cid == who else _ALLY if ally else _ENEMY] = 1.0
            plan = (first + size * r, _floats(row), ally, self._reach[cid], self._max_ap[cid])
            plans[cid] = plan
        self._plans[who] = plans
        return plans

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
                only_point=len(fields) == 1
                and _types(hints[fields[0]]) == (Position,)
                and not getattr(cls, "is_attack", False),
            )
        return shape

    def encode(self, who: str, view: View, holds: bool) -> dict[str, np.ndarray]:
        """The observation and mask of ``who`` from ``view`` (``who``'s view), with offers when
        it ``holds`` priority.

        The vector starts as zeros and only the columns that are not 0 are written, one by one
        through a ``memoryview`` (a Python float into a float32 slot, as numpy's assignment
        rounds it), and whole rows where they are known: a combatant's static columns, an
        offer's row but its distances (as the same observer had it before), the move slots of
        the same scene."""
        vec = np.zeros(self.size, np.float32)
        mask = np.zeros(self.actions, np.int8)
        w = _floats(vec)
        kept = kept_offers(view.legal, self.max_offers) if holds else ()
        window = view.window
        trigger = window.trigger
        w[0] = _clip(view.round / self._max_rounds)
        if window.kind == "turn":
            w[1] = 1.0
        w[2] = _clip(window.depth / _DEPTH)
        if holds:
            w[3] = 1.0
        if view.active == who:
            w[4] = 1.0
        w[5] = len(kept) / self.max_offers
        if trigger is not None:
            w[self._trigger.get(trigger.kind, self._trigger_other)] = 1.0
        enemies, where = self._combatant_rows(w, who, view)
        if kept:
            me = view.me.position
            self._offer_rows_of(w, who, me.x, me.y, kept, enemies, where)
            mask[: len(kept)] = 1
            scene = self._scene(who, view)
            self._last_moves = (view, [] if scene is None else scene.moves)
            if scene is not None and scene.moves:
                w[self._moves_at :] = scene.rows
                mask.data[self.max_offers :] = scene.mask
        return {"observation": vec, "observations": vec, "action_mask": mask}

    def _combatant_rows(
        self, w: memoryview[float], who: str, view: View
    ) -> tuple[list[tuple[float, float]], dict[str, tuple[float, float]]]:
        """Write the rows of the combatants ``who`` sees; the enemies' places and everyone's."""
        me = view.me
        mx, my = me.position.x, me.position.y
        plans = self._plans.get(who) or self._plan(who)
        trigger = view.window.trigger
        by = trigger.by if trigger is not None else None
        aimed = trigger.target if trigger is not None else None
        active = view.active
        my_reach, size = self._reach[who], self._c
        hypot, marked = math.hypot, self._marked
        enemies: list[tuple[float, float]] = []
        where: dict[str, tuple[float, float]] = {}
        for c in (me, *view.allies, *view.enemies):
            cid = c.id
            plan = plans.get(cid)
            if plan is None:
                continue
            start, static, ally, its_reach, max_ap = plan
            w[start : start + size] = static  # present, me/ally/enemy, max hp and AP, stats ...
            if active == cid:
                w[start + _ACTIVE] = 1.0
            if by == cid:
                w[start + _TRIGGER_BY] = 1.0
            if aimed == cid:
                w[start + _TRIGGER_TARGET] = 1.0
            hp, max_hp = c.hp, c.max_hp
            share, points = hp / max_hp if max_hp > 0 else 0.0, hp / _HP  # (_clip, in line)
            w[start + _HP_SHARE] = 0.0 if share < 0.0 else 1.0 if share > 1.0 else share
            w[start + _HP_POINTS] = 0.0 if points < 0.0 else 1.0 if points > 1.0 else points
            share = c.ap / max_ap if max_ap > 0 else 0.0
            w[start + _AP_SHARE] = 0.0 if share < 0.0 else 1.0 if share > 1.0 else share
            x, y = c.position.x, c.position.y
            dx, dy = (x - mx) / _METRES, (y - my) / _METRES
            far = hypot(dx, dy)
            w[start + _DX] = -1.0 if dx < -1.0 else 1.0 if dx > 1.0 else dx
            w[start + _DY] = -1.0 if dy < -1.0 else 1.0 if dy > 1.0 else dy
            w[start + _DISTANCE] = 1.0 if far > 1.0 else far
            if cid != who:
                if far * _METRES <= its_reach + 1e-9:
                    w[start + _REACHES_ME] = 1.0
                if far * _METRES <= my_reach + 1e-9:
                    w[start + _IN_MY_REACH] = 1.0
            if c.conditions or c.counters:
                marks = marked.get((c.conditions, c.counters))
                if marks is None:
                    marks = self._marks_of(c.conditions, c.counters)
                for column, value in marks:
                    w[start + column] = value
            where[cid] = (x, y)
            if not ally:
                enemies.append((x, y))
        return enemies, where

    def _marks_of(
        self, conditions: tuple[str, ...], counters: tuple[tuple[str, int], ...]
    ) -> tuple[tuple[int, float], ...]:
        """A row's condition and counter columns, ``(column, value)`` in the order written
        (kept by the conditions and counters they are made of)."""
        writes = [
            (column, 1.0) for text in conditions if (column := self._mark(False, text)) is not None
        ]
        if counters:
            sums: dict[int, float] = {}
            for text, value in counters:
                column = self._mark(True, text)
                if column is not None:
                    sums[column] = sums.get(column, 0.0) + value
            writes += [(column, _squash(total)) for column, total in sums.items()]
        if len(self._marked) >= _KEPT:
            self._marked.clear()
        found = self._marked[conditions, counters] = tuple(writes)
        return found

    def _offer_rows_of(
        self,
        w: memoryview[float],
        who: str,
        mx: float,
        my: float,
        kept: tuple[Offer, ...],
        enemies: list[tuple[float, float]],
        where: dict[str, tuple[float, float]],
    ) -> None:
        """Write the offer rows: each offer's row as before (an offer naming a point written
        afresh), then its distances."""
        at = self._columns
        known, size, hypot = self._offer_rows, self._f, math.hypot
        shapes, point_rows = self._shapes, self._point_rows
        for k, offer in enumerate(kept):
            start = self._offers_at + size * k
            action = offer.action
            shape = shapes.get(type(action))
            if shape is not None and shape.only_point:  # (a Move: its row but where it goes)
                to = getattr(action, shape.point[0])
                if isinstance(to, Position):
                    row = point_rows.get((who, type(action), offer.cost))
                    if row is None:
                        row = self._keep_point_row(who, offer)
                    w[start : start + size] = row
                    self._destination(w, start, mx, my, to, enemies)
                    continue
            found = known.get((who, offer))
            if found is None:
                writes, named, to = self._offer_columns(who, offer)
                if to is None:
                    found = self._keep_offer(who, offer, writes, named)
                else:
                    for column, value in writes:
                        w[start + column] = value
            if found is not None:
                row, named = found
                w[start : start + size] = row
                to = None
            if named is not None:
                them = where.get(named)
                if them is not None:
                    gap = hypot(them[0] - mx, them[1] - my) / _METRES
                    w[start + at.target_distance] = _clip(gap)
            if to is not None:
                self._destination(w, start, mx, my, to, enemies)

    def _destination(
        self,
        w: memoryview[float],
        start: int,
        mx: float,
        my: float,
        to: Position,
        enemies: list[tuple[float, float]],
    ) -> None:
        """Write an offer row's destination columns: where ``to`` is and its nearest enemy."""
        at, hypot = self._columns, math.hypot
        near = _METRES
        for ex, ey in enemies:
            d = hypot(ex - to.x, ey - to.y)
            if d < near:
                near = d
        w[start + at.has_destination] = 1.0
        w[start + at.to_dx] = _clip((to.x - mx) / _METRES, -1.0, 1.0)
        w[start + at.to_dy] = _clip((to.y - my) / _METRES, -1.0, 1.0)
        w[start + at.to_nearest_enemy] = near / _METRES

    def _offer_columns(
        self, who: str, offer: Offer
    ) -> tuple[list[tuple[int, float]], str | None, Position | None]:
        """An offer row's columns that do not depend on where anyone stands, ``(column,
        value)``; the combatant it names (``None``: none) and the point it names."""
        action = offer.action
        shape = self._shapes.get(type(action)) or self._shape(type(action))
        at = self._columns
        my_ap = self._max_ap[who]
        writes = [(0, 1.0), (shape.kind, 1.0), *((column, 1.0) for column in shape.flags)]
        writes.append((at.cost, _clip(offer.cost / my_ap) if my_ap > 0 else 1.0))
        rows, _ = self._order(who)
        named = None
        for name in shape.target:
            named_id = getattr(action, name)
            r = rows.get(named_id) if isinstance(named_id, str) else None
            if r is not None:
                writes += [(at.target + r, 1.0), (at.has_target, 1.0)]
                named = named_id
                break
        if shape.weapon or shape.is_attack:
            weapon_name: str | None = getattr(action, "weapon", None)
            weapon = self._weapons[who].get(weapon_name) if weapon_name is not None else None
            if weapon is None and weapon_name is None and shape.is_attack:
                weapon = self._first_weapon[who]
            if weapon is not None:
                writes += [(at.weapon + i, value) for i, value in enumerate(weapon)]
        for name in shape.point:
            to = getattr(action, name)
            if isinstance(to, Position):
                return writes, named, to
        return writes, named, None

    def _keep_point_row(self, who: str, offer: Offer) -> memoryview[float]:
        """The row of an offer whose one field is its point, but its destination columns:
        the same for every point (kept by observer, action class and cost)."""
        writes, _, _ = self._offer_columns(who, offer)
        row = [0.0] * self._f
        for column, value in writes:
            row[column] = value
        kept = _floats(np.array(row, np.float32))
        if len(self._point_rows) >= _KEPT:
            self._point_rows.clear()
        self._point_rows[who, type(offer.action), offer.cost] = kept
        return kept

    def _keep_offer(
        self, who: str, offer: Offer, writes: list[tuple[int, float]], named: str | None
    ) -> tuple[memoryview[float], str | None]:
        row = [0.0] * self._f
        for column, value in writes:
            row[column] = value
        found = (_floats(np.array(row, np.float32)), named)
        if len(self._offer_rows) >= _KEPT:
            self._offer_rows.clear()
        self._offer_rows[who, offer] = found
        return found

    def _scene(self, who: str, view: View) -> _Scene | None:
        """The move slots open to ``who`` in ``view`` and their rows (``None``: the fight
        offers no move long enough), made once for each scene: ``who``'s place, its longest
        move and where everyone else it sees stands."""
        here = view.me.position
        hx, hy = here.x, here.y
        limit = 0.0
        for offer in view.legal:
            action = offer.action
            if type(action) is Move:
                gap = math.hypot(action.to.x - hx, action.to.y - hy)
                if gap > limit:
                    limit = gap
        # Short of the limit by more than the rounding to centimetres can add, so that the
        # fight, which measures the rounded point, finds it within the limit.
        limit -= _ROUNDING
        if limit <= _LEAST_MOVE:
            return None
        others = tuple(
            (c.id, c.position.x, c.position.y) for c in (*view.allies, *view.enemies) if c.id != who
        )
        key = (who, hx, hy, limit, others)
        scenes = self._scenes
        scene = scenes.get(key)
        if scene is None:
            scene = self._new_scene(who, hx, hy, limit, others)
            if len(scenes) >= _SCENES_KEPT:
                del scenes[next(iter(scenes))]  # the oldest
            scenes[key] = scene
        return scene

    def _moves(self, who: str, view: View) -> list[tuple[int, Position, float, float]]:
        """The move slots open to ``who`` in ``view``: ``(slot, point, metres moved, metres
        from the point to the slot's combatant)``. None unless the fight offers a ``Move``;
        a point lies within the longest offered move (the move's limit now), apart from where
        ``who`` stands, with nobody seen within :data:`SPACE` of it. (The list is shared with
        the next scene where the same combatants stand at the same places: read it only.)"""
        scene = self._scene(who, view)
        return [] if scene is None else scene.moves

    def _new_scene(
        self,
        who: str,
        hx: float,
        hy: float,
        limit: float,
        others: tuple[tuple[str, float, float], ...],
    ) -> _Scene:
        """The scene's move slots (see :meth:`_moves`), with their rows of the vector and
        their entries of the mask: for each combatant seen, the points of :data:`MOVE_KINDS`."""
        rows, _ = self._order(who)
        sides, reaches = self.side, self._reach
        side, size = sides[who], self._m
        # Where the others stand, and which of them are enemies (the nearest one is a column).
        placed = [(ox, oy, cid in rows and sides[cid] != side) for cid, ox, oy in others]
        block = np.zeros(self.move_slots * size, np.float32)
        mask = np.zeros(self.move_slots, np.int8)
        w, m = _floats(block), mask.data
        strike = max(0.5, (reaches[who] or _UNARMED_REACH) - 0.25)
        kinds = len(MOVE_KINDS)
        hypot, at, asin, cos, sin = math.hypot, engine.at, math.asin, math.cos, math.sin
        least, clear, metres = _LEAST_MOVE, _CLEAR, _METRES
        found: list[tuple[int, Position, float, float]] = []
        for cid, cx, cy in others:
            r = rows.get(cid)
            if not r:  # (unseen, or who itself)
                continue
            rx, ry = hx - cx, hy - cy
            gap = hypot(rx, ry)
            edge = (reaches[cid] or _UNARMED_REACH) + 0.25
            if gap:
                ux, uy = rx / gap, ry / gap
                turn = 2.0 * asin(min(1.0, limit / (2.0 * gap)))
                if turn > _QUARTER:
                    turn = _QUARTER
                c, s = cos(turn), sin(turn)
            else:
                ux, uy, c, s = 1.0, 0.0, 1.0, 0.0
            base = (r - 1) * kinds - 1
            for k, px, py in (
                (1, cx + ux * strike, cy + uy * strike),
                (2, cx + ux * edge, cy + uy * edge),
                (3, hx + ux * limit, hy + uy * limit),
                (4, cx + rx * c - ry * s, cy + rx * s + ry * c),
                (5, cx + rx * c + ry * s, cy - rx * s + ry * c),
            ):
                if k == 1 and gap <= strike:
                    continue
                dx, dy = px - hx, py - hy
                moved = hypot(dx, dy)
                if moved > limit:
                    dx, dy = dx * limit / moved, dy * limit / moved
                to = at(hx + dx, hy + dy)
                x, y = to.x, to.y
                dx, dy = x - hx, y - hy
                moved = hypot(dx, dy)
                if moved < least:
                    continue
                near = metres
                for ox, oy, foe in placed:
                    d = hypot(ox - x, oy - y)
                    if d < clear:
                        break
                    if foe and d < near:
                        near = d
                else:
                    slot, apart = base + k, hypot(x - cx, y - cy)
                    found.append((slot, to, moved, apart))
                    at_ = size * slot
                    dx, dy = dx / metres, dy / metres
                    moved, apart = moved / metres, apart / metres  # (never below 0)
                    w[at_] = 1.0
                    w[at_ + 1] = -1.0 if dx < -1.0 else 1.0 if dx > 1.0 else dx
                    w[at_ + 2] = -1.0 if dy < -1.0 else 1.0 if dy > 1.0 else dy
                    w[at_ + 3] = 1.0 if moved > 1.0 else moved
                    w[at_ + 4] = 1.0 if apart > 1.0 else apart
                    w[at_ + 5] = near / metres
                    m[slot] = 1
        return _Scene(found, w, m)


#: The reach of fists (the engine's ``UNARMED``): a combatant without a melee weapon's.
_UNARMED_REACH = 1.5
#: Nobody ends a move within this of another standing combatant (the engine's ``SPACE``).
_SPACE = 0.5
#: A move slot shorter than this is no move (it is not offered).
_LEAST_MOVE = 0.1
#: What rounding a point to centimetres can add to a distance (both coordinates by half a
#: centimetre, and the distance itself rounded), with room to spare.
_ROUNDING = 0.015
#: A point this near another combatant is not offered (the fight's SPACE, and the rounding).
_CLEAR = _SPACE + 0.006
_QUARTER = math.pi / 2


def _floats(array: np.ndarray) -> memoryview[float]:
    """A float32 array's memory, to write Python floats into item by item (each rounded to
    float32 as numpy's own assignment rounds it) or whole rows at once."""
    return typing.cast("memoryview[float]", array.data)


def _types(hint: Any) -> tuple[Any, ...]:
    """The types a field's annotation admits (``str | None`` admits ``str`` and ``None``)."""
    args = typing.get_args(hint)
    return args if args else (hint,)
