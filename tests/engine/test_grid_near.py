"""The position grid's ``near`` lists everyone its callers may take: whoever stands in the square
of the radius and a centimetre around the point (the square they test first), however the
point and the square's edges fall on the grid's cells."""

from __future__ import annotations

import random

from initiative.engine import LiveState
from initiative.engine._live import CELL
from initiative.events import CombatantJoined, InitiativeOrdered, Moved, Position


def _crowd(count: int, seed: int) -> LiveState:
    """``count`` combatants on centimetre points of a 24 m square, half of them moved once."""
    rng = random.Random(seed)
    state = LiveState()
    seq = 0

    def point() -> Position:
        return Position(rng.randint(-1200, 1200) / 100, rng.randint(-1200, 1200) / 100)

    for i in range(count):
        state.apply(
            CombatantJoined(seq=seq, who=f"c{i}", side="ab"[i % 2], hp=5, ap=2, position=point())
        )
        seq += 1
    for i in range(0, count, 2):
        start = state.combatants[f"c{i}"].position
        state.apply(Moved(seq=seq, who=f"c{i}", start=start, to=point(), distance=0.0))
        seq += 1
    return state


def test_near_lists_everyone_in_the_square_of_the_radius_and_a_centimetre() -> None:
    state = _crowd(400, seed=5)
    rng = random.Random(6)
    # Radii at, just under and just over the cells' edges, and the kit's usual ones.
    radii = [0.5, 1.5, 1.99, 2.0, 2.01, CELL - 0.01, CELL, CELL + 0.01, 7.5, 2 * CELL]
    centres = [c.position for c in list(state.combatants.values())[:60]]
    # Points on and a centimetre either side of the cells' edges.
    edges = [k * CELL + d for k in range(-3, 4) for d in (-0.01, 0.0, 0.01)]
    centres += [Position(rng.choice(edges), rng.choice(edges)) for _ in range(60)]
    looked = 0
    for here in centres:
        for radius in radii:
            lim = radius + 0.01
            square = {
                c.id
                for c in state.combatants.values()
                if abs(c.position.x - here.x) <= lim and abs(c.position.y - here.y) <= lim
            }
            found = state.near(here, radius)
            assert len(found) == len(set(found))
            assert square <= set(found), (here, radius)
            looked += len(found) < len(state.combatants)  # the grid answered, not everyone
    assert looked > len(centres) * 5


def test_near_looks_at_the_cells_the_square_touches_only() -> None:
    """Two lines of fighters 1 m apart along the x axis: a question within a sword's reach
    lists the cells its square touches, not a ring of cells around the point's own."""
    state = LiveState()
    for i in range(200):
        where = Position(float(i // 2), float(i % 2))
        joined = CombatantJoined(seq=i, who=f"c{i}", side="ab"[i % 2], hp=5, ap=2, position=where)
        state.apply(joined)
    # At x = 50.0 the square of 1.5 m spans 48.49 to 51.51: the cells of x 48 to 51 (one
    # cell of 4 m), both lines: 8 fighters, where the ring of cells around it held 24.
    found = state.near(Position(50.0, 0.0), 1.5)
    assert sorted(found, key=lambda k: int(k[1:])) == [f"c{i}" for i in range(96, 104)]


def test_ids_sort_in_initiative_order_then_join_order() -> None:
    """``sort_ids`` (how ``near``'s callers order what they find): those in the initiative
    order by their place in it, then those not yet in it by when they joined."""
    state = _crowd(12, seed=7)
    order = tuple(f"c{i}" for i in (9, 2, 11, 0, 5, 7))
    ids = [f"c{i}" for i in (0, 1, 2, 5, 6, 9, 10, 11)]
    assert state.sort_ids(ids) == ids  # nobody ordered yet: join order
    state.apply(InitiativeOrdered(seq=100, order=order, ties=()))
    assert state.sort_ids(ids) == ["c9", "c2", "c11", "c0", "c5", "c1", "c6", "c10"]
    assert state.sort_ids(["c5", "c9", "c0"]) == ["c9", "c0", "c5"]
