"""Helpers several rulesets share: weapons in reach, offered moves, attack targets, a plain
attack's resolution, who a move makes an opening for, and the shared actions' words.

Every ruleset, the bundled ones included, imports them from :mod:`initiative.engine.kit`, their
public name (this module stays private so that the public surface is only what that module
re-exports).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from initiative.events import (
    Attack,
    AttackResolved,
    Dodge,
    Move,
    Offer,
    Parry,
    Position,
    ReadyWeapon,
    Weapon,
    visible,
)

from ._geometry import approach, away, distance
from ._units import ActionUnit, Say, third_person, words

if TYPE_CHECKING:
    from ._rules import Rules
    from ._state import CombatantState

#: The weapon of a combatant that carries none (fists): the seeds let anyone fight bare-handed,
#: so a sheet without weapons still gets attacks, with a plain default damage and reach.
UNARMED = Weapon(name="unarmed", damage="1d3", reach=1.5)


def weapons(fight: Rules, who: str) -> tuple[Weapon, ...]:
    """``who``'s weapons, or fists (:data:`UNARMED`) when it carries none: so that every
    combatant can fight, and no rule has to ask whether a weapon list is empty."""
    return fight.spec(who).weapons or (UNARMED,)


def weapon_named(fight: Rules, who: str, name: str | None) -> Weapon | None:
    """The weapon ``name`` (the first weapon when ``None``, as an ``Attack`` without a weapon
    means), or ``None`` if not carried: a check turns ``None`` into its reason."""
    carried = weapons(fight, who)
    if name is None:
        return carried[0]
    return next((w for w in carried if w.name == name), None)


def reaches(weapon: Weapon, gap: float) -> bool:
    """Whether ``weapon`` can hit something ``gap`` metres away: its range when ranged, else
    its reach, with a hair of tolerance so that a point offered at the edge stays in reach
    after positions are rounded."""
    limit = weapon.range if weapon.range is not None else weapon.reach
    return gap <= limit + 1e-9


def out_of_reach(fight: Rules, who: str, target: str, weapon: Weapon) -> str | None:
    """Why ``who``'s ``weapon`` cannot hit ``target`` from where they stand (``None``: it
    reaches), in the words every ruleset's check gives."""
    gap = fight.dist(who, target)
    if reaches(weapon, gap):
        return None
    return f"{target} is {gap:g} m away, out of the {weapon.name}'s reach"


def melee_reach(fight: Rules, who: str) -> float:
    """The longest melee reach among ``who``'s weapons: the space it threatens, which is what
    leaving someone's space (openings) and laying hands on someone (:func:`check_melee_target`)
    are measured by."""
    spec = fight.spec(who)
    kept = _REACHES.get(id(spec))
    if kept is not None and kept[0] is spec:  # (a spec is immutable: its reach too)
        return kept[1]
    reach = max((w.reach for w in weapons(fight, who) if not w.ranged), default=UNARMED.reach)
    if len(_REACHES) >= 4096:  # (the encounters of a long session: start afresh)
        _REACHES.clear()
    _REACHES[id(spec)] = (spec, reach)
    return reach


_REACHES: dict[int, tuple[object, float]] = {}
"""Each combatant spec's melee reach, asked several times a move; the entry holds the spec, so
its ``id`` is not reused while the entry stands."""


def _limit(weapon: Weapon) -> float:
    return weapon.range if weapon.range is not None else weapon.reach


def _enemies_within(fight: Rules, who: str, radius: float) -> list[CombatantState]:
    """Standing enemies of ``who`` within ``radius`` (a superset is fine), in the order of
    :meth:`Fight.enemies_of`: asked of the position grid, so it does not scan everyone."""
    if fight.state.covers(radius):  # few enough that every standing enemy is the superset
        return fight.enemies_of(who)
    c = fight.state.combatants
    side = c[who].side
    return [c[k] for k in fight.near(who, radius) if c[k].side != side and c[k].standing]


def attack_offers(
    fight: Rules,
    who: str,
    cost: int,
    *,
    melee_only: bool = False,
    usable: Callable[[Weapon], bool] | None = None,
) -> list[Offer]:
    """One Attack offer per visible enemy in reach, with the first weapon that reaches it
    (among the weapons ``usable`` accepts: a ruleset may leave out an unloaded gun).

    Without ``usable`` the answer depends only on where everyone stands and who stands: under
    plain standing and sight (:attr:`Rules.plain`) it is kept until the layout changes."""
    key = ("attack", who, cost, melee_only)
    keep = usable is None and fight.plain
    if keep and (hit := fight.kept.get(key)) is not None and hit[0] == fight.state.layout:
        return list(hit[1])
    offers = []
    me = fight.get(who)
    for enemy in _enemies_within(fight, who, max(_limit(w) for w in weapons(fight, who))):
        if not fight.ruleset.can_see(fight, who, enemy.id):
            continue
        gap = distance(me.position, enemy.position)
        for w in weapons(fight, who):
            if (melee_only and w.ranged) or (usable is not None and not usable(w)):
                continue
            if reaches(w, gap):
                offers.append(Offer(action=Attack(target=enemy.id, weapon=w.name), cost=cost))
                break
    if keep:
        fight.kept[key] = (fight.state.layout, tuple(offers))
    return offers


def move_offers(fight: Rules, who: str, cost: int, speed: float) -> list[Offer]:
    """Offered moves: up to the nearest visible enemy (stopping in reach), and away from it.

    The answer depends only on where everyone stands and who stands: under plain standing and
    sight (:attr:`Rules.plain`) it is kept until the layout changes."""
    if speed <= 0:
        return []
    key = ("move", who, cost, speed)
    if fight.plain and (hit := fight.kept.get(key)) is not None and hit[0] == fight.state.layout:
        return list(hit[1])
    offers = _move_offers(fight, who, cost, speed)
    if fight.plain:
        fight.kept[key] = (fight.state.layout, tuple(offers))
    return offers


def _move_offers(fight: Rules, who: str, cost: int, speed: float) -> list[Offer]:
    me = fight.get(who)
    nearest = fight.nearest_enemy(who)
    if nearest is None:
        return []
    reach = melee_reach(fight, who)
    offers = []
    gap = distance(me.position, nearest.position)
    if gap > reach:
        to = approach(me.position, nearest.position, speed, max(0.5, reach - 0.25))
        offers.append(Offer(action=Move(to=to), cost=cost))
    offers.append(Offer(action=Move(to=away(me.position, nearest.position, speed)), cost=cost))
    # An offer is always legal: a point someone stands on is not offered.
    return [o for o in offers if occupant(fight, who, o.action.to) is None]  # type: ignore[attr-defined]


def check_target(fight: Rules, who: str, target: str) -> str | None:
    """Why ``target`` cannot be attacked by ``who`` at all (not in the fight, oneself, already
    out, an ally, unseen), or ``None``: the reasons every targeted action shares, worded once
    so that every ruleset rejects alike."""
    if target not in fight.state.combatants:
        return f"no combatant {target!r} is in the fight"
    if target == who:
        return "cannot attack oneself"
    if not fight.standing(target):
        return f"{target} is already out of the fight"
    if fight.get(target).side == fight.get(who).side:
        return f"{target} is an ally"
    if not fight.ruleset.can_see(fight, who, target):
        return f"cannot see {target}"
    return None


def check_plain_attack(fight: Rules, who: str, action: Attack) -> str | None:
    """Why a plain attack (no variant, no hit location) is illegal: an unknown or unseen
    target, an ally, a weapon not carried, or a target out of the weapon's reach. It refuses
    nothing that :func:`attack_offers` offers, so an offered attack always passes it."""
    if action.variant or action.location:
        return f"the {fight.ruleset.name} ruleset has no attack variants or hit locations"
    if reason := check_target(fight, who, action.target):
        return reason
    weapon = weapon_named(fight, who, action.weapon)
    if weapon is None:
        return f"{who} carries no weapon named {action.weapon!r}"
    return out_of_reach(fight, who, action.target, weapon)


def check_melee_target(fight: Rules, who: str, target: str) -> str | None:
    """Why ``who`` cannot lay hands on ``target`` in melee: :func:`check_target`'s reasons, or
    ``target`` beyond ``who``'s longest melee reach (:func:`melee_reach`). For a ruleset's own
    actions on someone in reach (a shove, a grab): it accepts exactly the targets of
    ``attack_offers(fight, who, cost, melee_only=True)``, so offers built from those pass it."""
    if reason := check_target(fight, who, target):
        return reason
    gap, reach = fight.dist(who, target), melee_reach(fight, who)
    if gap > reach + 1e-9:
        return f"{target} is {gap:g} m away, beyond {who}'s melee reach of {reach:g} m"
    return None


def resolve_attack(
    fight: Rules,
    who: str,
    target: str,
    weapon: Weapon,
    *,
    bonus: int,
    against: int,
    die: str = "1d20",
    min_damage: int = 0,
) -> bool:
    """The plain attack every seed leaves to a default: ``die + bonus`` against ``against``;
    on a hit the weapon's damage dice less the target's ``armor`` (at least ``min_damage``).
    Whether it hit.

    It records what a replay, ``why`` and the narration read (the roll, an ``AttackResolved``
    naming the weapon, the damage roll, the damage), in that order, so two rulesets that
    resolve attacks alike also log them alike."""
    roll = fight.roll(who, f"attack on {target}", f"{die}{bonus:+d}")
    hit = roll.total >= against
    fight.emit(
        AttackResolved(
            who=who, target=target, hit=hit, roll=roll.total, against=against, detail=weapon.name
        )
    )
    if hit:
        dmg = fight.roll(who, f"damage to {target}", weapon.damage)
        fight.damage(target, max(min_damage, dmg.total - fight.spec(target).armor), source=who)
    return hit


def leaving_space(fight: Rules, who: str, to: Position) -> list[str]:
    """Who ``who`` leaves the space of by moving to ``to``: the standing combatants (enemies,
    then allies) whose melee reach it stands in now and would not at ``to``. Those are the
    creatures a ruleset gives an opening to before the move (the ``openings`` seed's "leaving
    a creature's space"; a retreat that provokes an attack of opportunity)."""
    start = fight.get(who).position
    widest = _widest_melee_reach(fight)
    if fight.state.covers(widest):  # few enough that everyone standing is the superset
        around = fight.enemies_of(who) + fight.allies_of(who)
    else:  # only those near enough to reach ``who`` (the grid, not a scan of everyone)
        c = fight.state.combatants
        side = c[who].side
        near = [c[k] for k in fight.near(who, widest) if c[k].standing]
        around = [x for x in near if x.side != side] + [x for x in near if x.side == side]
    left = []
    for x in around:
        reach = melee_reach(fight, x.id) + 1e-9
        if distance(x.position, start) <= reach and distance(x.position, to) > reach:
            left.append(x.id)
    return left


def _widest_melee_reach(fight: Rules) -> float:
    """The longest melee reach of anyone in the fight. Kept for the encounter's own combatants
    (whose specs every fork of the fight shares); worked out anew once the GM has brought
    someone in."""
    global _WIDEST
    combatants = fight._fight.encounter.combatants
    specs = fight._fight.queries.specs_by_id
    if len(specs) > len(combatants):  # the GM's joiners
        return max(melee_reach(fight, k) for k in specs)
    kept = _WIDEST
    if kept is not None and kept[0] is combatants:
        return kept[1]
    widest = max((melee_reach(fight, c.id) for c in combatants), default=UNARMED.reach)
    _WIDEST = (combatants, widest)
    return widest


_WIDEST: tuple[object, float] | None = None
"""The last encounter's combatants (held, so their identity is not reused) and their widest
melee reach."""


#: Metres within which a point is taken by a combatant standing there (the seeds are silent; a
#: plain default, so that no two combatants end a move on the same point).
SPACE = 0.5


def occupant(fight: Rules, who: str, to: Position) -> str | None:
    """Who, other than ``who``, stands within :data:`SPACE` of ``to``, if anyone (the first in
    standing order): asked of the position grid, so it does not scan everyone."""
    c = fight.state.combatants
    x, y = to.x, to.y
    found = [
        k
        for k in fight.state.near(to, SPACE)
        # (a square around the point first: most are far, and that costs no distance)
        if -SPACE < (p := c[k].position).x - x < SPACE
        and -SPACE < p.y - y < SPACE
        and k != who
        and c[k].standing
        and distance(p, to) < SPACE - 1e-9
    ]
    if not found:
        return None
    return found[0] if len(found) == 1 else fight.state.sort_ids(found)[0]


def check_move(fight: Rules, who: str, to: Position, limit: float) -> str | None:
    """Why a move to ``to`` is illegal (non-finite, farther than ``limit``, or onto a point
    another combatant stands on), or ``None``."""
    if not (abs(to.x) < 1e6 and abs(to.y) < 1e6):
        return f"destination {to} is off the battle plane"
    gap = distance(fight.get(who).position, to)
    if gap > limit + 1e-9:
        return f"destination is {gap:g} m away; can move at most {limit:g} m"
    if (there := occupant(fight, who, to)) is not None:
        return f"{there} stands within {SPACE:g} m of the destination; no two share a point"
    return None


# --- the shared actions' units: their words (a ruleset subclasses them for the rules) -----------


class AttackUnit(ActionUnit[Attack]):
    """The words of ``Attack``: a ruleset's attack unit subclasses this and adds the rules."""

    action = Attack

    def offered(self, action: Attack, say: Say) -> str:
        how = f" ({words(action.variant)})" if action.variant else ""
        where = f" at the {visible(words(action.location))}" if action.location else ""
        return f"Attack {say.name(action.target)}{where} with the {say.weapon(action.weapon)}{how}"

    def told(self, action: Attack, say: Say) -> str:
        return self._deed("attacks", action, say)

    def told_resolved(self, action: Attack, say: Say, *, hit: bool) -> str:
        return self._deed("hits" if hit else "misses", action, say)

    def _deed(self, verb: str, action: Attack, say: Say) -> str:
        said = f"{verb} {say.name(action.target)} with the {say.weapon(action.weapon)}"
        if action.variant:
            said += f" ({words(action.variant)})"
        if action.location:
            said += f", aiming at the {visible(action.location)}"
        return said


class MoveUnit(ActionUnit[Move]):
    """The words of ``Move`` (told with the distance moved)."""

    action = Move
    moving = True
    to_point = True

    def offered(self, action: Move, say: Say) -> str:
        return f"Move {say.point(action.to)}".rstrip()

    def told(self, action: Move, say: Say) -> str:
        return "moves"


class DodgeUnit(ActionUnit[Dodge]):
    """The words of ``Dodge``."""

    action = Dodge

    def told(self, action: Dodge, say: Say) -> str:
        return "dodges"


class ParryUnit(ActionUnit[Parry]):
    """The words of ``Parry``."""

    action = Parry

    def told(self, action: Parry, say: Say) -> str:
        return "parries"


class ReadyWeaponUnit(ActionUnit[ReadyWeapon]):
    """The words of ``ReadyWeapon``: draw, sheathe, withdraw or reload a weapon."""

    action = ReadyWeapon

    def offered(self, action: ReadyWeapon, say: Say) -> str:
        mode = action.mode
        verb = "Reload" if mode == "reload" else f"Ready ({visible(words(mode))})"
        return f"{verb} the {visible(action.weapon)}"

    def told(self, action: ReadyWeapon, say: Say) -> str:
        mode = action.mode or "reload"
        verb = {"draw": "draws", "sheathe": "sheathes", "withdraw": "withdraws"}
        return f"{verb.get(mode, third_person(words(mode)))} the {visible(action.weapon)}"
