"""Distances and positions are rounded to centimetres exactly as ``round(x, 2)`` rounds them
(the geometry takes a shortcut around ``round`` away from half-centimetres)."""

from __future__ import annotations

import math

from hypothesis import example, given, settings, strategies as st
from initiative.engine._geometry import distance, rounded
from initiative.events import Position

coordinates = st.one_of(
    st.floats(min_value=-1e7, max_value=1e7, allow_nan=False),
    st.integers(min_value=-(10**6), max_value=10**6).map(lambda n: n / 200),  # half-centimetres
    st.integers(min_value=-(10**6), max_value=10**6).map(lambda n: n / 1000),
)


def _same(a: float, b: float) -> bool:
    return (a == b and math.copysign(1, a) == math.copysign(1, b)) or (a != a and b != b)


@settings(max_examples=500, deadline=None)
@given(coordinates)
@example(1.005)
@example(2.675)
@example(-0.001)
@example(-0.0)
@example(1e13)
@example(float("inf"))
@example(float("nan"))
def test_rounded_is_round_to_centimetres(value):
    assert _same(rounded(value), round(value, 2) + 0.0)


@settings(max_examples=500, deadline=None)
@given(coordinates, coordinates, coordinates, coordinates)
@example(0.0, 0.0, 0.0, 1.005)
@example(0.0, 0.0, 3e8, 4e8)
def test_distance_is_the_rounded_hypotenuse(x1, y1, x2, y2):
    exact = round(math.hypot(x1 - x2, y1 - y2), 2) + 0.0
    assert _same(distance(Position(x1, y1), Position(x2, y2)), exact)
