"""The designer's figures of a ``batch`` (or a ``compare`` variant) report: each side's hit
points and damage by round (a line per side with its 95% band), group outcomes (any or all of a
side fell, hit points left) and the hit rate of each combatant's attacks by kind. Drawn from the
``curves``, ``groups`` and ``attacks`` of the command's ``--json``."""

from __future__ import annotations

import json
from typing import Any

from ._draw import (
    Bar,
    Scale,
    W,
    esc,
    interval_chart,
    legend,
    mean_text,
    number,
    spread,
    svg,
    tick_text,
    ticks,
    upper,
    x_axis,
    y_axis,
)
from ._page import section, swatch, table

INK = "#222"


def shown_rounds(curves: list[dict[str, Any]]) -> int:
    """The rounds a chart shows: up to the last in which at least one fight in twenty (and at
    least two fights, or every fight of a smaller batch) was still going, so that one long
    stalemate does not flatten every other fight's curve."""
    if not curves or not curves[0]["rounds"]:
        return 0
    fights = curves[0]["fights"]
    floor = min(fights, max(2, -(-fights // 20)))
    last = 1
    for r in curves[0]["rounds"]:
        if r["running"] >= floor:
            last = r["round"]
    return last


def round_chart(
    lines: list[tuple[dict[str, Any], str, str, str]],
    what: str,
    y_title: str,
    last: int,
) -> str:
    """A line of ``what`` (``hp`` or ``damage``) by round with its 95% band for each of
    ``lines``: ``(curve, colour, name, JSON key of the curve)``; each point tied to its field."""
    left, right, top, bottom = 80, W - 24, 20, 250
    top_value = 1.0
    for c, _, _, _ in lines:
        for r in c["rounds"][:last]:
            m = r[what]
            top_value = max(top_value, m["mean"], (m["ci95"] or [0, 0])[1])
    y_values = spread(0, upper(top_value))
    scale_y = Scale(0, y_values[-1], bottom, top)
    scale_x = Scale(1, max(last, 2), left + 12, right - 12)
    parts = [y_axis(scale_y, left, y_title, y_values, grid_right=right)]
    x_values = [v for v in ticks(1, max(last, 2), 10) if v == int(v)]
    parts.append(x_axis(scale_x, bottom, "round", x_values, tick_text, grid_top=top))
    for c, colour, name, base in lines:
        rows = c["rounds"][:last]

        def band(r: dict[str, Any], end: int) -> float:
            m = r[what]
            return float(scale_y(m["ci95"][end] if m["ci95"] else m["mean"]))

        edge = [(scale_x(r["round"]), band(r, 1)) for r in rows]
        edge += [(scale_x(r["round"]), band(r, 0)) for r in reversed(rows)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in edge)
        parts.append(f'<polygon class="ci-band" points="{path}" fill="{colour}"/>')
        line = " ".join(f"{scale_x(r['round']):.1f},{scale_y(r[what]['mean']):.1f}" for r in rows)
        parts.append(f'<polyline class="curve" points="{line}" stroke="{colour}"/>')
        for i, r in enumerate(rows):
            value = r[what]["mean"]
            parts.append(
                f'<circle class="point round-point" data-key="{esc(f"{base}.rounds.{i}.{what}.mean")}"'
                f' data-value="{esc(json.dumps(value))}" cx="{scale_x(r["round"]):.1f}"'
                f' cy="{scale_y(value):.1f}" r="3" fill="{colour}">'
                f"<title>{esc(name)}, round {r['round']}: {value:.1f}</title></circle>"
            )
    return svg(bottom + 46, "".join(parts), f"{y_title} by round")


def figure_sections(
    data: dict[str, Any], names: dict[str, str], colours: dict[str, str], prefix: str = ""
) -> str:
    """The three sections (by round, group outcomes, hit rates); ``prefix`` is the JSON path
    of ``data`` in the whole (``variants.1.`` in a comparison)."""
    return (
        _curves_section(data, colours, prefix)
        + _groups_section(data, colours, prefix)
        + _attacks_section(data, names, colours, prefix)
    )


def _curves_section(data: dict[str, Any], colours: dict[str, str], prefix: str) -> str:
    curves = data["curves"]
    last = shown_rounds(curves)
    if last == 0:
        return ""
    lines = [
        (c, colours.get(c["side"], "#777"), c["side"], f"{prefix}curves.{k}")
        for k, c in enumerate(curves)
    ]
    hp = round_chart(lines, "hp", "hit points at the round's end", last)
    damage = round_chart(lines, "damage", "damage dealt in the round", last)
    items = [(colours.get(c["side"], "#777"), "line", c["side"]) for c in curves]
    longest = len(curves[0]["rounds"])
    cut = (
        f" Shown up to round {last}, the last in which at least one fight in twenty was still"
        f" going (the longest lasted {longest}; <code>--json</code> has every round)."
        if last < longest
        else ""
    )
    starts = "; ".join(
        f"{esc(c['side'])} {number(f'{prefix}curves.{k}.start_hp', c['start_hp'])}"
        for k, c in enumerate(curves)
    )
    lede = (
        "Each side's hit points at the end of each round (of its combatants not defeated) and"
        " the damage it dealt in the round: the mean over the fights with its 95% t interval,"
        " cut to what the quantity can be (no fewer than none, no more than the side had). A"
        f" fight that is over counts with its end. Hit points at the start: {starts}.{cut}"
    )
    return section(
        "Hit points and damage by round",
        lede,
        hp,
        damage,
        legend(items),
        ident="by-round",
    )


def share_bar(
    label: str,
    key: str,
    rate: dict[str, Any],
    counted: str,
    *,
    colour: str,
    gap: bool,
    style: str = "bar",
) -> Bar:
    """A share from 0 to 1 (``rate``'s ``rate``) with its 95% interval (``ci95``, none when the
    share is of nothing): ``counted`` (how many of how many), the share and the interval."""
    ci = rate["ci95"]
    return Bar(
        label=label,
        value=rate["rate"] or 0.0,
        low=ci[0] if ci else None,
        high=ci[1] if ci else None,
        colour=colour,
        style=style,
        gap_before=gap,
        key=f"{key}.rate",
        figures=(
            f"{counted} · {number(f'{key}.rate', rate['rate'], 'pct', tag='tspan')}"
            f' <tspan class="ci">({number(f"{key}.ci95", ci, "pct-range", tag="tspan")})</tspan>'
        ),
    )


def share_chart(rows: list[Bar], title: str, label: str) -> str:
    """An interval chart of shares from 0 to 1 (:func:`share_bar`), its axis in percent."""
    return interval_chart(
        rows, low=0, high=1, title=title, label=label, shown=lambda v: f"{100 * v:.0f}%"
    )


def _groups_section(data: dict[str, Any], colours: dict[str, str], prefix: str) -> str:
    groups = data["groups"]
    rows = []
    for k, g in enumerate(groups):
        colour = colours.get(g["side"], "#777")
        key = f"{prefix}groups.{k}"
        total = number(f"{key}.fights", g["fights"], tag="tspan")
        for what, gap in (("any_fell", k > 0), ("all_fell", False)):
            label = f"{g['side']}: {what.replace('_', ' ')}"
            at = f"{key}.{what}"
            fights = f"{number(f'{at}.fights', g[what]['fights'], tag='tspan')}/{total} fights"
            rows.append(share_bar(label, at, g[what], fights, colour=colour, gap=gap))
    chart = share_chart(
        rows,
        "share of the fights (Wilson's 95% interval)",
        "how often any or all of a side fell",
    )
    table_rows = [
        [
            swatch(colours.get(g["side"], "#777")) + esc(g["side"]),
            number(f"{prefix}groups.{k}.any_fell.rate", g["any_fell"]["rate"], "pct"),
            number(f"{prefix}groups.{k}.all_fell.rate", g["all_fell"]["rate"], "pct"),
            mean_text(f"{prefix}groups.{k}.hp_left", g["hp_left"]),
            number(f"{prefix}groups.{k}.start_hp", g["start_hp"]),
        ]
        for k, g in enumerate(groups)
    ]
    hp_table = table(
        ("side", "any fell", "all fell", "hit points left (95% CI)", "at the start"),
        table_rows,
        right_from=1,
        ident=f"{prefix.replace('.', '-')}group-table",
    )
    return section(
        "Group outcomes",
        "How often at least one of a side was defeated (\u201cany hero falls\u201d) and how often"
        " all of it, with Wilson's 95% interval; and the hit points the side had left at the"
        " end (the defeated count none, one who fled keeps his), mean and 95% t interval.",
        chart,
        hp_table,
        ident=f"{prefix.replace('.', '-')}groups",
    )


def _attacks_section(
    data: dict[str, Any], names: dict[str, str], colours: dict[str, str], prefix: str
) -> str:
    attacks = data["attacks"]
    if not attacks:
        return ""
    rows = []
    for k, a in enumerate(attacks):
        key = f"{prefix}attacks.{k}"
        hits = (
            f"{number(f'{key}.hits', a['hits'], tag='tspan')}/"
            f"{number(f'{key}.attacks', a['attacks'], tag='tspan')}"
        )
        label = f"{names.get(a['combatant'], a['combatant'])} · {a['kind']}"
        gap = k > 0 and attacks[k - 1]["side"] != a["side"]
        rows.append(share_bar(label, key, a, hits, colour=colours.get(a["side"], "#777"), gap=gap))
    chart = share_chart(
        rows,
        "attack tests that hit (Wilson's 95% interval)",
        "hit rate per combatant and attack kind",
    )
    return section(
        "Hit rate per attack",
        "Each combatant's attack tests by kind (the weapon the log names), over every fight: the"
        " share that hit, with Wilson's 95% interval.",
        chart,
        ident=f"{prefix.replace('.', '-')}attacks",
    )
