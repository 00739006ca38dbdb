"""Geometry on the battle plane: metres, rounded to centimetres so logs stay exact."""

from __future__ import annotations

import math

from initiative.events import POSITION_DECIMALS, Position

_hypot = math.hypot
_floor = math.floor
_SCALE = 10.0**POSITION_DECIMALS


def rounded(value: float) -> float:
    """``value`` rounded to the log's precision (centimetres), with ``-0.0`` made ``0.0``.

    Exactly ``round(value, POSITION_DECIMALS) + 0.0``, without its decimal conversion when
    ``value`` is not within a hair of a half-centimetre: then the nearest whole number of
    centimetres is plain to see, and dividing it by 100 gives the same float ``round`` does
    (both are the float nearest to that many hundredths)."""
    scaled = value * _SCALE
    if -1e9 < scaled < 1e9:  # (so not inf or nan)
        whole = _floor(scaled)
        part = scaled - whole
        if not 0.4999 < part < 0.5001:
            return (whole + (part > 0.5)) / _SCALE + 0.0
    return round(value, POSITION_DECIMALS) + 0.0


def at(x: float, y: float) -> Position:
    return Position(rounded(x), rounded(y))


def distance(a: Position, b: Position) -> float:
    """Straight-line distance in metres, rounded to centimetres."""
    gap = _hypot(a.x - b.x, a.y - b.y)
    scaled = gap * _SCALE  # rounded(), in line: this is asked a lot
    if scaled < 1e9:  # (so not inf or nan; never negative)
        whole = int(scaled)
        part = scaled - whole
        if not 0.4999 < part < 0.5001:
            return (whole + (part > 0.5)) / _SCALE
    return round(gap, POSITION_DECIMALS) + 0.0


def toward(start: Position, goal: Position, length: float) -> Position:
    """The point ``length`` metres from ``start`` toward ``goal`` (``goal`` if it is closer)."""
    gap = math.hypot(goal.x - start.x, goal.y - start.y)
    if gap <= length or gap == 0:
        return at(goal.x, goal.y)
    end, shorter = start, length
    while shorter > 0:
        # Round inward: the rounded end point must never be farther than ``length``.
        f = shorter / gap
        end = at(start.x + (goal.x - start.x) * f, start.y + (goal.y - start.y) * f)
        if distance(start, end) <= length:
            break
        shorter -= 0.01
    return end


def away(start: Position, threat: Position, length: float) -> Position:
    """The point ``length`` metres from ``start`` directly away from ``threat``."""
    dx, dy = start.x - threat.x, start.y - threat.y
    gap = math.hypot(dx, dy)
    if gap == 0:
        dx, dy, gap = 1.0, 0.0, 1.0
    end = at(start.x + dx / gap * length, start.y + dy / gap * length)
    # Round inward: the rounded end point must never be farther than ``length``.
    shorter = length
    while distance(start, end) > length and shorter > 0:
        shorter -= 0.01
        end = at(start.x + dx / gap * shorter, start.y + dy / gap * shorter)
    return end


def approach(start: Position, goal: Position, speed: float, stop_at: float) -> Position:
    """Move toward ``goal`` by at most ``speed``, stopping ``stop_at`` metres short of it."""
    gap = math.hypot(goal.x - start.x, goal.y - start.y)
    wanted = max(0.0, gap - stop_at)
    # Round inward so the rounded end point is never farther than ``stop_at``.
    end = toward(start, goal, min(speed, wanted))
    if distance(end, goal) > stop_at and wanted <= speed:
        end = toward(start, goal, min(speed, wanted + 0.01))
    return end
