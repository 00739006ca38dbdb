"""The pages of ``league`` (ratings drawn as intervals, the grid of pairs) and ``sweep`` (the
win-rate curve with its bands, and the crossing of ``--target``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._draw import SIDE_PALETTE, Bar, Curve, curves, esc, interval_chart, legend, number, spread
from ._page import page, section, swatch, table

INK = "#222"


def _signed(v: float) -> str:
    return f"{v:+g}" if v else "0"


def league_page(data: dict[str, Any]) -> str:
    """The report of ``initiative league``: ``data`` is what its ``--json`` prints."""
    grids = [_grid(data, None)]
    if len(data["encounters"]) > 1:
        grids += [_grid(data, name) for name in data["encounters"]]
    facts = [
        ("policies", str(len(data["policies"]))),
        ("encounters", str(len(data["encounters"]))),
        ("seeds, each fought both ways", number("seeds", data["seeds"])),
        ("games", number("games", data["games"])),
    ]
    meta = (
        f"{esc(', '.join(data['encounters']))} · seeds {data['seed_start']}-"
        f"{data['seed_start'] + data['seeds'] - 1} · {esc(', '.join(data['policies']))}"
    )
    title = "League: " + ", ".join(data["policies"])
    return page(
        command="league",
        title=title,
        meta=meta,
        facts=facts,
        sections=[_ratings_section(data), *grids],
        footer=(
            f"Made by <code>initiative league</code>: {data['games']} games in"
            f" {data['seconds']:.2f} s with {data['jobs']} job(s). Every figure on this page is"
            " the one its <code>--json</code> gives."
        ),
    )


def _ratings_section(data: dict[str, Any]) -> str:
    """The ratings drawn as dots with their intervals, and their table; what the league does
    not know yet, said plainly."""
    ratings = data["ratings"]
    low = min([r["ci95"][0] for r in ratings] + [-10.0])
    high = max([r["ci95"][1] for r in ratings] + [10.0])
    values = spread(low, high)
    rows = [
        Bar(
            label=r["policy"],
            value=r["rating"],
            low=r["ci95"][0],
            high=r["ci95"][1],
            colour=INK,
            style="dot",
            key=f"ratings.{i}.rating",
            figures=(
                f"{number(f'ratings.{i}.rating', r['rating'], 'signed', tag='tspan')}"
                f' <tspan class="ci">({number(f"ratings.{i}.ci95", r["ci95"], "signed-range", tag="tspan")})</tspan>'
                f" · {number(f'ratings.{i}.score', r['score'], 'pct', tag='tspan')}"
            ),
        )
        for i, r in enumerate(ratings)
    ]
    chart = interval_chart(
        rows,
        low=values[0],
        high=values[-1],
        axis=values,
        zero=0,
        title="rating (Elo scale, mean 0; 95% interval)",
        label="ratings with 95% intervals",
        shown=_signed,
        figures_width=300,
    )
    table_rows = [
        [
            str(i + 1),
            esc(r["policy"]),
            number(f"ratings.{i}.rating", r["rating"], "signed"),
            f'<span class="ci">{number(f"ratings.{i}.ci95", r["ci95"], "signed-range")}</span>',
            number(f"ratings.{i}.score", r["score"], "pct"),
            number(f"ratings.{i}.games", r["games"]),
        ]
        for i, r in enumerate(ratings)
    ]
    rating_table = table(
        ("#", "policy", "rating", "95% CI", "score", "games"),
        table_rows,
        right_from=2,
        ident="rating-table",
    )
    unknown = (
        f' <strong class="unknown" id="unknown">{esc(data["unknown"].capitalize())}.</strong>'
        if data.get("unknown")
        else ""
    )
    return section(
        "Ratings",
        f"{esc(data['rating_scale'])}. A dot is a policy's rating, its"
        " whiskers the 95% interval; the dashed line is the mean." + unknown,
        chart,
        legend([(INK, "dot", "rating"), (INK, "whisker", "95% interval")]),
        rating_table,
        ident="ratings",
    )


def _tint(share: float) -> str:
    """A cell's background: blue where the row's policy did better, red where worse."""
    good, bad = (0, 114, 178), (192, 57, 43)
    colour = good if share >= 0.5 else bad
    strength = min(abs(share - 0.5) * 2, 1.0) * 0.55
    r, g, b = (round(255 + (c - 255) * strength) for c in colour)
    return f"#{r:02x}{g:02x}{b:02x}"


def _grid(data: dict[str, Any], encounter: str | None) -> str:
    """The pairs as a grid: the cell of row X and column Y holds X's wins, losses and undecided
    games against Y, and the sign test's p; tinted by X's share of points."""
    policies = data["policies"]
    cells: dict[tuple[str, str], str] = {}
    for j, p in enumerate(data["pairings"]):
        if p["encounter"] != encounter:
            continue
        games = p["wins"] + p["losses"] + p["undecided"]
        for me, them, mine, theirs in (
            (p["a"], p["b"], "wins", "losses"),
            (p["b"], p["a"], "losses", "wins"),
        ):
            share = (p[mine] + p["undecided"] / 2) / games if games else 0.5
            k = f"pairings.{j}"
            cells[(me, them)] = (
                f'<td class="pair" data-row="{esc(me)}" data-column="{esc(them)}"'
                f' style="background:{_tint(share)}">'
                f"{number(f'{k}.{mine}', p[mine])}-{number(f'{k}.{theirs}', p[theirs])}-"
                f"{number(f'{k}.undecided', p['undecided'])}"
                + (
                    f'<span class="p">p {number(f"{k}.p", p["p"], "p")}</span></td>'
                    if p["wins"] + p["losses"]
                    else '<span class="p unknown">no decisive game yet</span></td>'
                )
            )
    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in policies)
    body = "".join(
        f'<tr><th scope="row">{esc(row)}</th>'
        + "".join(cells.get((row, col), '<td class="self">·</td>') for col in policies)
        + "</tr>"
        for row in policies
    )
    where = "over every encounter" if encounter is None else f"on {esc(encounter)}"
    return section(
        "Pairs " + ("over every encounter" if encounter is None else f"on {encounter}"),
        f"Wins-losses-undecided of the row's policy against the column's, {where}, and the"
        " paired sign test's p. Blue: the row did better; red: worse.",
        f'<div class="table-box"><table class="grid"><thead><tr><th></th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>",
        ident="pairs" if encounter is None else "",
    )


def sweep_page(data: dict[str, Any]) -> str:
    """The report of ``initiative sweep``: ``data`` is what its ``--json`` prints."""
    if data.get("grid") is not None:
        return grid_page(data)
    sides = data["sides"]
    key = data["key"]
    colours = {s: SIDE_PALETTE[i % len(SIDE_PALETTE)] for i, s in enumerate(sides)}
    name = Path(data["encounter"]).name
    meta = (
        f"{esc(data['encounter'])} · {esc(key)} from {esc(data['low'])} to {esc(data['high'])}"
        f" · seeds {data['seed_start']}-{data['seed_start'] + data['runs'] - 1} for every value · "
        + "; ".join(f"{swatch(colours[s])}{esc(s)}" for s in sides)
    )
    return page(
        command="sweep",
        title=f"{name}: {key}",
        meta=meta,
        facts=_sweep_facts(data),
        sections=[_curve_section(data, colours), _values_section(data)],
        footer=_sweep_footer(data),
    )


def _sweep_facts(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The figures at the top of a sweep's page: the seeds, and the values fought, or what the
    search of ``--target`` took and found."""
    target = data["target"]
    facts = [("seeds a value", number("runs", data["runs"]))]
    if target is None:
        facts += [
            ("values fought", str(len(data["points"]))),
            ("fights", number("fought", data["fought"])),
        ]
    else:
        facts += [
            ("probes (bisection, then fair range)", str(len(target["probes"]))),
            ("fights the search needed", number("target.fights", target["fights"])),
        ]
        if target["below"] is not None and target["above"] is not None:
            between = f"{number('target.below', target['below'])}-{number('target.above', target['above'])}"
            facts.append((f"where {target['side']} crosses {100 * target['rate']:.1f}%", between))
    return facts


def _sweep_footer(data: dict[str, Any]) -> str:
    return (
        f"Made by <code>initiative sweep</code>: {data['fought']} fights in"
        f" {data['seconds']:.2f} s with {data['jobs']} job(s). Every figure on this page is"
        " the one its <code>--json</code> gives."
    )


def _curve_section(data: dict[str, Any], colours: dict[str, str]) -> str:
    """Each side's win rate across the range with its band; with ``--target``, the crossing's
    bracket and the fair range, and the sentence that says them."""
    sides, points, key = data["sides"], data["points"], data["key"]
    lines = [
        Curve(
            name=s,
            colour=colours[s],
            points=[(p["value"], p["sides"][k]["rate"], *p["sides"][k]["ci95"]) for p in points],
            key=f"points.{{i}}.sides.{k}.rate",
            index=list(range(len(points))),
        )
        for k, s in enumerate(sides)
    ]
    target = data["target"]
    bracket = None
    marks: list[tuple[float, str]] = []
    crossing = ""
    if target is not None:
        if target["below"] is not None and target["above"] is not None:
            bracket = (target["below"], target["above"])
            middle = (target["below"] + target["above"]) / 2
            took = f"{len(target['probes'])} probes, {target['fights']} fights"
            marks = [(middle, f"crossing: {target['below']}-{target['above']} ({took})")]
        crossing = _crossing(data)
    fair = None if target is None or target.get("fair") is None else tuple(target["fair"])
    chart = curves(
        lines,
        x_title=key,
        label=f"win rate across {key}",
        target=None if target is None else target["rate"],
        bracket=bracket,
        marks=marks,
        fair=fair,
    )
    items = [(colours[s], "line", f"{s} (95% band)") for s in sides]
    if target is not None:
        items.append(("#f2a900", "box", "the crossing's bracket"))
    if fair is not None:
        items.append(("#009e73", "light", "the fair range"))
    lede = (
        "Each side's win rate at each value fought, on the same seeds; the band is Wilson's 95%"
        " interval."
    )
    return section(
        "Win rate across the range", lede + crossing, chart, legend(items), ident="curve"
    )


def _values_section(data: dict[str, Any]) -> str:
    """Every value's figures in a table, in the order of the values (with ``--target``, each
    numbered as the search probed it)."""
    sides, points, target = data["sides"], data["points"], data["target"]
    rows = []
    order = sorted(range(len(points)), key=lambda i: points[i]["value"])
    for i in order:
        p = points[i]
        cells = [str(i + 1)] if target is not None else []
        cells.append(number(f"points.{i}.value", p["value"], "text"))
        cells += _point_cells(p, i, sides)
        rows.append(cells)
    headings = (["probe"] if target is not None else []) + [data["key"]]
    for s in sides:
        headings += [f"{s} wins", "95% CI"]
    headings += ["no winner", "stalemates"]
    return section(
        "Every value",
        "The figures of the chart.",
        table(headings, rows, right_from=0, ident="point-table"),
        ident="values",
    )


def _point_cells(p: dict[str, Any], i: int, sides: list[str]) -> list[str]:
    """The ``i``-th point's cells after its value: each side's rate and interval, the fights
    without a winner and the stalemates."""
    cells = []
    for k, _ in enumerate(sides):
        cells += [
            number(f"points.{i}.sides.{k}.rate", p["sides"][k]["rate"], "pct"),
            f'<span class="ci">{number(f"points.{i}.sides.{k}.ci95", p["sides"][k]["ci95"], "pct-range")}</span>',
        ]
    return [
        *cells,
        number(f"points.{i}.no_winner", p["no_winner"]),
        number(f"points.{i}.stalemates", p["stalemates"]),
    ]


def _crossing(data: dict[str, Any]) -> str:
    """The sentence on ``--target``: where the side's rate crosses it, and what that took."""
    t = data["target"]
    side, key = esc(t["side"]), esc(data["key"])
    goal = number("target.rate", t["rate"], "pct")
    took = (
        f" The search took {len(t['probes'])} probes"
        + (
            f", {t['walked']} of them after the bisection to find the fair range's ends"
            if t.get("walked")
            else ""
        )
        + f" ({key} = {number('target.probes', t['probes'], 'list')} in the order made: the"
        f" table's probe column) and {number('target.fights', t['fights'])} fights; it assumes"
        " the rate is monotone in the value."
    )
    if t["found"] == "crossed":
        text = (
            f' <span class="verdict" id="crossing">{side}\'s win rate crosses {goal} between'
            f" {key} = {number('target.below', t['below'])} and"
            f" {number('target.above', t['above'])}; {number('target.closer', t['closer'])} is"
            " closer.</span>"
        )
        if t["unsure"]:
            text += " An interval there holds the target: more --runs make the bracket surer."
    elif t["found"] == "at-low":
        text = f' <span class="verdict" id="crossing">{side} already reaches {goal} at the low end.</span>'
    else:
        text = (
            f' <span class="verdict" id="crossing">{side} never reaches {goal} in the range.</span>'
        )
    if t.get("fair") is not None:
        cut = " (the range ends there: values beyond may be fair too)" if any(t["fair_cut"]) else ""
        text += (
            f' <span class="verdict" id="fair">Fair range: {key} ='
            f" {number('target.fair', t['fair'], 'values')}, every value whose 95% interval"
            f" holds the target{cut}.</span>"
        )
    elif t["found"] == "crossed":
        text += (
            ' <span class="verdict" id="fair">Fair range: none; no value next to the crossing'
            " has an interval that holds the target.</span>"
        )
    return text + took


def _heat(rate: float, colour: str) -> str:
    """A cell's background: white at 0%, the side's colour at 100%."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    strength = 0.08 + 0.62 * rate
    mixed = (round(255 + (c - 255) * strength) for c in (r, g, b))
    return "#" + "".join(f"{c:02x}" for c in mixed)


def grid_page(data: dict[str, Any]) -> str:
    """The report of ``initiative sweep`` with two ``--vary``: a heat map of the side's win
    rate over every pair of values, with its intervals, and every pair's figures."""
    sides, points = data["sides"], data["points"]
    rows_key, columns_key = data["keys"]
    table_rows = [
        [number(f"points.{n}.value", list(p["value"]), "list"), *_point_cells(p, n, sides)]
        for n, p in enumerate(points)
    ]
    headings = [f"{rows_key}, {columns_key}"]
    for s in sides:
        headings += [f"{s} wins", "95% CI"]
    headings += ["no winner", "stalemates"]
    name = Path(data["encounter"]).name
    meta = (
        f"{esc(data['encounter'])} · {esc(rows_key)} from {esc(data['low'][0])} to"
        f" {esc(data['high'][0])} by {esc(columns_key)} from {esc(data['low'][1])} to"
        f" {esc(data['high'][1])} · seeds {data['seed_start']}-"
        f"{data['seed_start'] + data['runs'] - 1} for every pair"
    )
    facts = [
        ("seeds a pair", number("runs", data["runs"])),
        ("pairs of values", str(len(points))),
        ("fights", number("fought", data["fought"])),
    ]
    return page(
        command="sweep",
        title=f"{name}: {rows_key} by {columns_key}",
        meta=meta,
        facts=facts,
        sections=[
            _heatmap_section(data),
            section(
                "Every pair",
                "The figures of the grid, for every side.",
                table(headings, table_rows, right_from=0, ident="point-table"),
                ident="values",
            ),
        ],
        footer=_sweep_footer(data),
    )


def _heatmap_section(data: dict[str, Any]) -> str:
    """The grid's side's win rate in every cell, with its interval, tinted by the rate."""
    sides, points = data["sides"], data["points"]
    rows_key, columns_key = data["keys"]
    rows, columns, side = data["grid"]["rows"], data["grid"]["columns"], data["grid"]["side"]
    k = sides.index(side)
    colour = SIDE_PALETTE[k % len(SIDE_PALETTE)]
    head = "".join(
        f'<th scope="col">{number(f"grid.columns.{j}", c, "text")}</th>'
        for j, c in enumerate(columns)
    )
    body = []
    for i, r in enumerate(rows):
        cells = []
        for j, _ in enumerate(columns):
            n = i * len(columns) + j
            s = points[n]["sides"][k]
            cells.append(
                f'<td class="pair heat" data-row="{esc(r)}" data-column="{esc(columns[j])}"'
                f' style="background:{_heat(s["rate"], colour)}">'
                f"{number(f'points.{n}.sides.{k}.rate', s['rate'], 'pct')}"
                f'<span class="ci">{number(f"points.{n}.sides.{k}.ci95", s["ci95"], "pct-range")}</span></td>'
            )
        body.append(
            f'<tr><th scope="row">{number(f"grid.rows.{i}", r, "text")}</th>{"".join(cells)}</tr>'
        )
    heat = (
        f'<div class="table-box"><table class="grid heatmap"><caption>{esc(rows_key)} down,'
        f" {esc(columns_key)} across</caption><thead><tr><th>{esc(rows_key)} \\"
        f" {esc(columns_key)}</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )
    scale = (
        f'<p class="legend"><span>{esc(side)} wins: 0% <span class="scale" style="background:'
        f' linear-gradient(to right, {_heat(0, colour)}, {_heat(1, colour)})"></span> 100%'
        "</span></p>"
    )
    return section(
        f"{side}'s win rate over the grid",
        f"Each cell is {esc(side)}'s win rate with the row's {esc(rows_key)} and the"
        f" column's {esc(columns_key)}, over the same seeds, with Wilson's 95% interval"
        " under it; the deeper the colour, the more it wins.",
        heat,
        scale,
        ident="heatmap",
    )
