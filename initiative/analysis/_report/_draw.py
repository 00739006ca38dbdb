"""The drawing of a report: escaped text, numbers as the page shows them, nice ticks, and charts
as inline SVG (interval bars, a stacked histogram, a forest of intervals, curves with bands).

Every number a chart or table shows is written by :func:`number`: a ``<span>`` (or an SVG
``<tspan>``) whose text is the figure formatted for people and whose ``data-key`` and
``data-value`` say which ``--json`` field it is and that field's value, so that a test (or a
reader's script) can check the page against the command's JSON.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from initiative.events import visible

#: The side colours of ``initiative view`` (replays/view.html): a hue means a side on both pages.
SIDE_PALETTE = ("#0072b2", "#c0392b", "#009e73", "#8e44ad", "#5d8f00", "#c2388c")
#: Fights without a winner: a stalemate, and the other undecided ones.
STALEMATE = "#7a7a7a"
UNDECIDED = "#c4c4c4"
ACCENT = "#f2a900"
INK = "#222"

W = 900
"""The width of every chart, in CSS pixels (the page's column is as wide)."""


def esc(text: object) -> str:
    """User text for HTML: control characters spelled out (as the terminal shows them), then
    ``<``, ``>``, ``&`` and quotes escaped, so a name is shown as it is and never read as markup."""
    return html.escape(visible(text), quote=True)


# --- numbers ------------------------------------------------------------------------------------


def fmt(kind: str, value: Any) -> str:
    """A ``--json`` value as the page shows it (the tests format the JSON the same way)."""
    if value is None:
        return "-"
    match kind:
        case "pct":
            return f"{100 * value:.1f}%"
        case "pct-range":
            return f"{100 * value[0]:.1f}-{100 * value[1]:.1f}%"
        case "f1":
            return f"{value:.1f}"
        case "f2":
            return f"{value:.2f}"
        case "range":
            return f"{value[0]:.1f}-{value[1]:.1f}"
        case "values":
            return esc(f"{value[0]}-{value[1]}" if value[0] != value[1] else f"{value[0]}")
        case "signed":
            return f"{value:+.1f}"
        case "loss-pts":  # a share as points of percentage (a review's loss)
            return f"{100 * value:.1f}"
        case "signed-pts":
            return f"{100 * value:+.0f} pts"
        case "signed-range":
            return f"{value[0]:+.1f} to {value[1]:+.1f}"
        case "pts":
            return f"{100 * value:+.1f} pts"
        case "pts-range":
            return f"{100 * value[0]:+.1f} to {100 * value[1]:+.1f}"
        case "p":
            return f"{value:.3g}"
        case "list":
            return esc(", ".join(f"{v}" for v in value))
    return esc(value)  # "int", "text"


def number(key: str, value: object, kind: str = "int", *, tag: str = "span") -> str:
    """One figure of the page, tied to the ``--json`` field ``key`` (dotted: ``sides.0.rate``)."""
    data = esc(json.dumps(value))
    return (
        f'<{tag} class="num" data-key="{esc(key)}" data-kind="{kind}" data-value="{data}">'
        f"{fmt(kind, value)}</{tag}>"
    )


def mean_text(key: str, mean: dict[str, object], tag: str = "span") -> str:
    """A ``{n, mean, ci95}`` of the JSON as ``12.3 (10.1-14.5)``; ``-`` without values."""
    if mean["n"] == 0:
        return f'<{tag} class="quiet">-</{tag}>'
    text = number(f"{key}.mean", mean["mean"], "f1", tag=tag)
    if mean["ci95"] is not None:
        inner = number(f"{key}.ci95", mean["ci95"], "range", tag=tag)
        text += f' <{tag} class="ci">({inner})</{tag}>'
    elif mean["n"] == 1:
        text += f' <{tag} class="ci">(n=1)</{tag}>'
    return text


def ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values from ``low`` to ``high`` (1, 2 or 5 times a power of ten apart)."""
    span = max(high - low, 1e-9)
    raw = span / max(most - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if step < 1 and high - low >= 2:
        step = 1.0
    first = math.ceil(low / step - 1e-9) * step
    out = []
    value = first
    while value <= high + 1e-9:
        out.append(round(value, 10))
        value += step
    return out


def tick_text(value: float) -> str:
    return f"{value:g}"


def upper(high: float) -> float:
    """The end of an axis that holds ``high``: ``high`` rounded up to a multiple of its ticks'
    step."""
    if high <= 0:
        return 1.0
    found = ticks(0, high, 6)
    step = found[1] - found[0] if len(found) > 1 else high
    return math.ceil(high / step - 1e-9) * step


def spread(low: float, high: float) -> list[float]:
    """Ticks that hold ``low`` and ``high`` and begin and end the axis on a tick."""
    found = ticks(low, high, 6)
    step = found[1] - found[0] if len(found) > 1 else max(abs(high - low), 1.0)
    first = math.floor(low / step + 1e-9) * step
    last = math.ceil(high / step - 1e-9) * step
    count = round((last - first) / step)
    return [round(first + i * step, 10) for i in range(count + 1)]


# --- SVG ----------------------------------------------------------------------------------------


@dataclass
class Scale:
    """A linear map from values to pixels."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.high - self.low or 1.0
        return self.start + (value - self.low) / span * (self.end - self.start)


def svg(height: float, body: str, label: str) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {W} {height:.0f}" width="{W}" height="{height:.0f}"'
        f' role="img" aria-label="{esc(label)}">{body}</svg>'
    )


def _line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    return f'<line class="{cls}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>'


def _text(x: float, y: float, text: str, cls: str, anchor: str = "start") -> str:
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{text}</text>'


def x_axis(
    scale: Scale,
    y: float,
    title: str,
    values: Sequence[float],
    shown: Callable[[float], str] = tick_text,
    grid_top: float | None = None,
) -> str:
    """A horizontal axis at ``y``: its line, ticks with labels, grid lines up to ``grid_top``,
    and its title under the labels."""
    parts = [_line(scale.start, y, scale.end, y, "axis")]
    for v in values:
        x = scale(v)
        if grid_top is not None:
            parts.append(_line(x, grid_top, x, y, "grid"))
        parts.append(_line(x, y, x, y + 5, "axis"))
        parts.append(_text(x, y + 18, esc(shown(v)), "tick", "middle"))
    middle = (scale.start + scale.end) / 2
    parts.append(_text(middle, y + 38, esc(title), "axis-title", "middle"))
    return "".join(parts)


def y_axis(
    scale: Scale,
    x: float,
    title: str,
    values: Sequence[float],
    shown: Callable[[float], str] = tick_text,
    grid_right: float | None = None,
) -> str:
    """A vertical axis at ``x``, with ticks, grid lines to ``grid_right`` and a turned title."""
    parts = [_line(x, scale.start, x, scale.end, "axis")]
    for v in values:
        y = scale(v)
        if grid_right is not None:
            parts.append(_line(x, y, grid_right, y, "grid"))
        parts.append(_line(x - 5, y, x, y, "axis"))
        parts.append(_text(x - 8, y + 4, esc(shown(v)), "tick", "end"))
    middle = (scale.start + scale.end) / 2
    parts.append(
        f'<text class="axis-title" x="{x - 44:.1f}" y="{middle:.1f}" text-anchor="middle"'
        f' transform="rotate(-90 {x - 44:.1f} {middle:.1f})">{esc(title)}</text>'
    )
    return "".join(parts)


def clip(text: str, most: int) -> str:
    """``text`` cut to ``most`` characters with an ellipsis (the whole text is its tooltip)."""
    return text if len(text) <= most else text[: most - 1] + "…"


@dataclass
class Bar:
    """One row of an interval chart: a bar to ``value`` (or a dot), its 95% interval, and the
    figures shown at its right."""

    label: str
    value: float
    low: float | None
    high: float | None
    colour: str
    figures: str
    """HTML for the right-hand column (made with :func:`number`)."""
    style: str = "bar"
    """``bar``, ``light`` (a paler bar), ``hatched`` (no winner) or ``dot`` (a point estimate)."""
    gap_before: bool = False
    """A little space and a rule above this row (a group of its own)."""
    key: str = ""
    """The JSON field of ``value`` (on the drawn bar, as ``data-key``)."""
    extra: dict[str, str] = field(default_factory=dict)


LABEL_CHARS = 24
ROW = 26


def whisker(
    scale: Scale, middle: float, low: float, high: float, shown: Callable[[float], str]
) -> str:
    """A 95% interval's whisker, clipped to its axis: an end beyond the axis is drawn as an
    arrow at the axis's end instead of a cap; the whole interval is its tooltip."""
    first, last = sorted((scale.low, scale.high))
    a, b = scale(max(first, min(last, low))), scale(max(first, min(last, high)))
    ends = []
    for x, cut, towards in ((a, low < first, -1), (b, high > last, 1)):
        if cut:
            ends.append(
                f'<path class="whisker cut" d="M{x + 6 * towards:.1f},{middle:.1f}'
                f' l{-6 * towards},-4 v8 z"/>'
            )
        else:
            ends.append(_line(x, middle - 6, x, middle + 6, "whisker"))
    return (
        f'<g class="interval" data-low="{esc(json.dumps(low))}" data-high="{esc(json.dumps(high))}"'
        f' data-clipped="{str(low < first or high > last).lower()}">'
        f"<title>95% interval: {esc(shown(low))} to {esc(shown(high))}</title>"
        + _line(a, middle, b, middle, "whisker")
        + "".join(ends)
        + "</g>"
    )


def interval_chart(
    rows: Sequence[Bar],
    *,
    low: float,
    high: float,
    title: str,
    label: str,
    shown: Callable[[float], str] = tick_text,
    zero: float | None = None,
    figures_width: int = 260,
    axis: Sequence[float] | None = None,
) -> str:
    """Horizontal bars (or dots) with 95% interval whiskers, one row each, on a shared axis;
    the names on the left, the figures in a column on the right."""
    left, right = 190, W - figures_width
    scale = Scale(low, high, left, right - 12)
    gaps = sum(1 for r in rows if r.gap_before)
    height = 16 + ROW * len(rows) + 14 * gaps + 50
    axis_y = height - 50
    values = list(axis) if axis is not None else ticks(low, high)
    parts = [x_axis(scale, axis_y, title, values, shown, grid_top=8)]
    if zero is not None:
        parts.append(_line(scale(zero), 8, scale(zero), axis_y, "zero"))
    y = 16.0
    for r in rows:
        if r.gap_before:
            parts.append(_line(12, y + 2, W - 8, y + 2, "rule"))
            y += 14
        middle = y + ROW / 2
        name = clip(visible(r.label), LABEL_CHARS)
        parts.append(
            f'<text class="label" x="{left - 10}" y="{middle + 4:.1f}" text-anchor="end">'
            f"<title>{esc(r.label)}</title>{html.escape(name)}</text>"
        )
        extra = "".join(f' {k}="{esc(v)}"' for k, v in r.extra.items())
        key = f' data-key="{esc(r.key)}" data-value="{esc(json.dumps(r.value))}"' if r.key else ""
        if r.style == "dot":
            parts.append(
                f'<circle class="dot"{key}{extra} cx="{scale(r.value):.1f}" cy="{middle:.1f}"'
                f' r="5" fill="{r.colour}"/>'
            )
        else:
            base = scale(max(low, min(0.0, high)))
            x0, x1 = sorted((base, scale(r.value)))
            fill = "url(#hatch)" if r.style == "hatched" else r.colour
            opacity = ' fill-opacity="0.45"' if r.style == "light" else ""
            parts.append(
                f'<rect class="bar {r.style}"{key}{extra} x="{x0:.1f}" y="{middle - 8:.1f}"'
                f' width="{max(x1 - x0, 0.5):.1f}" height="16" fill="{fill}"{opacity}'
                f' stroke="{r.colour}"/>'
            )
        if r.low is not None and r.high is not None:
            parts.append(whisker(scale, middle, r.low, r.high, shown))
        parts.append(
            f'<text class="figures" x="{right + 10}" y="{middle + 4:.1f}">{r.figures}</text>'
        )
        y += ROW
    return svg(height, "".join(parts), label)


DEFS = (
    '<svg class="defs" width="0" height="0" aria-hidden="true"><defs>'
    '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse"'
    ' patternTransform="rotate(45)"><rect width="6" height="6" fill="#eee"/>'
    f'<line x1="0" y1="0" x2="0" y2="6" stroke="{STALEMATE}" stroke-width="2.5"/></pattern>'
    '<pattern id="hatch-legend" width="4" height="4" patternUnits="userSpaceOnUse"'
    ' patternTransform="rotate(45)"><rect width="4" height="4" fill="#eee"/>'
    f'<line x1="0" y1="0" x2="0" y2="4" stroke="{STALEMATE}" stroke-width="2"/></pattern>'
    "</defs></svg>"
)
"""The patterns every chart of a page shares (once per page, so their ids are unique)."""


@dataclass
class Stack:
    """One kind of fight in a stacked histogram: its name, colour and count per bin."""

    name: str
    colour: str
    counts: dict[int, int]
    hatched: bool = False


def histogram(
    stacks: Sequence[Stack],
    *,
    bins: Sequence[int],
    width: int,
    x_title: str,
    y_title: str,
    label: str,
    mean: tuple[float, float | None, float | None] | None,
) -> str:
    """Vertical bars, one per bin (``width`` values wide, starting at each of ``bins``), each
    stacked from ``stacks``; with ``mean``, its value and 95% interval marked above."""
    left, right, top, bottom = 80, W - 20, 34, 230
    end = bins[-1] + width
    scale_x = Scale(bins[0], end, left, right)
    tallest = max(sum(s.counts.get(b, 0) for s in stacks) for b in bins)
    y_ticks = spread(0, max(tallest, 2))
    top_value = y_ticks[-1]
    scale_y = Scale(0, top_value, bottom, top)
    parts = [y_axis(scale_y, left, y_title, y_ticks, grid_right=right)]
    step = max(1, math.ceil(len(bins) / 16))
    shown = [float(b) for b in bins[::step]]
    parts.append(_centred_axis(scale_x, bottom, x_title, shown, width))
    if mean is not None:
        m, low, high = mean
        x = scale_x(m + width / 2 if width == 1 else m)
        if low is not None and high is not None:
            a = max(left, scale_x(low + width / 2 if width == 1 else low))
            b = min(right, scale_x(high + width / 2 if width == 1 else high))
            parts.append(
                f'<rect class="band" x="{a:.1f}" y="{top - 14}" width="{b - a:.1f}"'
                f' height="{bottom - top + 14}"/>'
            )
    for b in bins:
        base = 0
        for s in stacks:
            n = s.counts.get(b, 0)
            if not n:
                continue
            x0, x1 = scale_x(b) + 1.5, scale_x(b + width) - 1.5
            y0, y1 = scale_y(base + n), scale_y(base)
            fill = "url(#hatch)" if s.hatched else s.colour
            where = f"{b}" if width == 1 else f"{b}-{b + width - 1}"
            parts.append(
                f'<rect class="hist" data-bin="{b}" data-width="{width}" data-kind="{esc(s.name)}"'
                f' data-count="{n}" x="{x0:.1f}" y="{y0:.1f}" width="{max(x1 - x0, 1):.1f}"'
                f' height="{y1 - y0:.1f}" fill="{fill}" stroke="{s.colour}" stroke-width="0.6">'
                f"<title>{esc(s.name)}: {n} fight(s) of {where} rounds</title></rect>"
            )
            base += n
    if mean is not None:
        parts.append(_line(x, top - 14, x, bottom, "mean"))
        parts.append(_text(x + 6, top - 4, f"mean {m:.1f}", "note"))
    return svg(bottom + 46, "".join(parts), label)


def _centred_axis(scale: Scale, y: float, title: str, values: Sequence[float], width: int) -> str:
    """An axis whose ticks label bins: each under the middle of its bin."""
    parts = [_line(scale.start, y, scale.end, y, "axis")]
    for v in values:
        x = scale(v + width / 2) if width == 1 else scale(v)
        parts.append(_line(x, y, x, y + 5, "axis"))
        parts.append(_text(x, y + 18, tick_text(v), "tick", "middle"))
    parts.append(_text((scale.start + scale.end) / 2, y + 38, esc(title), "axis-title", "middle"))
    return "".join(parts)


@dataclass
class Curve:
    """One side's win rate across a sweep: points ``(value, rate, low, high)``."""

    name: str
    colour: str
    points: list[tuple[float, float, float, float]]
    key: str
    """The JSON field of each point's rate, with ``{i}`` for the point's index."""
    index: list[int]
    """Each point's index in the JSON's ``points``."""


def curves(
    lines: Sequence[Curve],
    *,
    x_title: str,
    label: str,
    target: float | None,
    bracket: tuple[float, float] | None,
    marks: Sequence[tuple[float, str]] = (),
    fair: tuple[float, float] | None = None,
) -> str:
    """Win rate (0-100%) against a value: a line and a 95% band per side; the target as a
    dashed rule, the crossing's bracket shaded; ``marks`` label points (probe numbers)."""
    left, right, top, bottom = 80, W - 24, 24, 300
    xs = [p[0] for c in lines for p in c.points]
    low, high = min(xs), max(xs)
    if low == high:
        low, high = low - 1, high + 1
    scale_x = Scale(low, high, left + 10, right - 10)
    scale_y = Scale(0, 1, bottom, top)
    percent = [0, 0.25, 0.5, 0.75, 1]
    parts = [y_axis(scale_y, left, "win rate", percent, lambda v: f"{100 * v:.0f}%", right)]
    x_values = [v for v in ticks(low, high, 8) if v >= low - 1e-9]
    parts.append(x_axis(scale_x, bottom, x_title, x_values, grid_top=top))
    if fair is not None:  # half a step beyond each end: the values' own columns
        step = (scale_x(high) - scale_x(low)) / max(high - low, 1) / 2
        a, b = sorted(scale_x(v) for v in fair)
        a, b = max(left + 10, a - step), min(right - 10, b + step)
        parts.append(
            f'<rect class="fair" x="{a:.1f}" y="{top}" width="{b - a:.1f}"'
            f' height="{bottom - top}"/>'
        )
    if bracket is not None:
        a, b = sorted(scale_x(v) for v in bracket)
        parts.append(
            f'<rect class="bracket" x="{a:.1f}" y="{top}" width="{max(b - a, 3):.1f}"'
            f' height="{bottom - top}"/>'
        )
    if target is not None:
        y = scale_y(target)
        parts.append(_line(left, y, right, y, "target"))
        parts.append(_text(right - 4, y - 6, f"target {100 * target:.1f}%", "note", "end"))
    for c in lines:
        ordered = sorted(zip(c.points, c.index, strict=True))
        band = [(scale_x(v), scale_y(h)) for (v, _, _, h), _ in ordered]
        band += [(scale_x(v), scale_y(lo)) for (v, _, lo, _), _ in reversed(ordered)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in band)
        parts.append(f'<polygon class="ci-band" points="{path}" fill="{c.colour}"/>')
        line = " ".join(f"{scale_x(v):.1f},{scale_y(r):.1f}" for (v, r, _, _), _ in ordered)
        parts.append(f'<polyline class="curve" points="{line}" stroke="{c.colour}"/>')
        for (v, r, _, _), i in ordered:
            key = c.key.format(i=i)
            parts.append(
                f'<circle class="point" data-key="{esc(key)}" data-value="{json.dumps(r)}"'
                f' cx="{scale_x(v):.1f}" cy="{scale_y(r):.1f}" r="4" fill="{c.colour}">'
                f"<title>{esc(c.name)} at {v:g}: {100 * r:.1f}%</title></circle>"
            )
    for value, text in marks:
        half = 3.3 * len(text)  # about half the label's width at 11 px
        x = min(max(scale_x(value), left + half), right - half)
        parts.append(_text(x, top - 8, esc(text), "mark", "middle"))
    return svg(bottom + 46, "".join(parts), label)


def legend(items: Sequence[tuple[str, str, str]]) -> str:
    """A legend: ``(colour, style, name)`` with style ``box``, ``light``, ``hatched``, ``dot``,
    ``line`` or ``whisker``."""
    out = []
    for colour, style, name in items:
        if style == "whisker":
            mark = (
                '<svg width="22" height="12"><line x1="2" y1="6" x2="20" y2="6" stroke="#222"/>'
                '<line x1="2" y1="1" x2="2" y2="11" stroke="#222"/>'
                '<line x1="20" y1="1" x2="20" y2="11" stroke="#222"/></svg>'
            )
        elif style == "line":
            mark = (
                f'<svg width="22" height="12"><rect x="0" y="1" width="22" height="10"'
                f' fill="{colour}" fill-opacity="0.18"/><line x1="0" y1="6" x2="22" y2="6"'
                f' stroke="{colour}" stroke-width="2.5"/></svg>'
            )
        elif style == "dot":
            mark = (
                f'<svg width="12" height="12"><circle cx="6" cy="6" r="5" fill="{colour}"/></svg>'
            )
        else:
            fill = "url(#hatch-legend)" if style == "hatched" else colour
            opacity = ' fill-opacity="0.45"' if style == "light" else ""
            mark = (
                f'<svg width="14" height="12"><rect x="0.5" y="0.5" width="13" height="11" fill="{fill}"{opacity}'
                f' stroke="{colour}"/></svg>'
            )
        out.append(f"<span>{mark}{esc(name)}</span>")
    return f'<div class="legend">{"".join(out)}</div>'
