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
            str(rank),
            esc(r["policy"]),
            number(f"ratings.{i}.rating", r["rating"], "signed"),
            f'<span class="ci">{number(f"ratings.{i}.ci95", r["ci95"], "signed-range")}</span>',
            number(f"ratings.{i}.score", r["score"], "pct"),
            number(f"ratings.{i}.games", r["games"]),
        ]
        for i, r in enumerate(ratings)
        for rank in [i + 1]
    ]
    rating_table = table(
        ("#", "policy", "rating", "95% CI", "score", "games"),
        table_rows,
        right_from=2,
        ident="rating-table",
    )
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
        sections=[
            section(
                "Ratings",
                f"{esc(data['rating_scale'])}. A dot is a policy's rating, its"
                " whiskers the 95% interval; the dashed line is the mean."
                + (
                    f' <strong class="unknown" id="unknown">{esc(data["unknown"].capitalize())}.</strong>'
                    if data.get("unknown")
                    else ""
                ),
                chart,
                legend([(INK, "dot", "rating"), (INK, "whisker", "95% interval")]),
                rating_table,
                ident="ratings",
            ),
            *grids,
        ],
        footer=(
            f"Made by <code>initiative league</code>: {data['games']} games in"
            f" {data['seconds']:.2f} s with {data['jobs']} job(s). Every figure on this page is"
            " the one its <code>--json</code> gives."
        ),
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
    sides = data["sides"]
    points = data["points"]
    key = data["key"]
    colours = {s: SIDE_PALETTE[i % len(SIDE_PALETTE)] for i, s in enumerate(sides)}
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
    chart = curves(
        lines,
        x_title=key,
        label=f"win rate across {key}",
        target=None if target is None else target["rate"],
        bracket=bracket,
        marks=marks,
    )
    items = [(colours[s], "line", f"{s} (95% band)") for s in sides]
    if target is not None:
        items.append(("#f2a900", "box", "the crossing's bracket"))
    rows = []
    order = sorted(range(len(points)), key=lambda i: points[i]["value"])
    for i in order:
        p = points[i]
        cells = [str(i + 1)] if target is not None else []
        cells.append(number(f"points.{i}.value", p["value"], "text"))
        for k, _ in enumerate(sides):
            cells += [
                number(f"points.{i}.sides.{k}.rate", p["sides"][k]["rate"], "pct"),
                f'<span class="ci">{number(f"points.{i}.sides.{k}.ci95", p["sides"][k]["ci95"], "pct-range")}</span>',
            ]
        cells += [
            number(f"points.{i}.no_winner", p["no_winner"]),
            number(f"points.{i}.stalemates", p["stalemates"]),
        ]
        rows.append(cells)
    headings = (["probe"] if target is not None else []) + [key]
    for s in sides:
        headings += [f"{s} wins", "95% CI"]
    headings += ["no winner", "stalemates"]
    facts = [("seeds a value", number("runs", data["runs"]))]
    if target is None:
        facts += [("values fought", str(len(points))), ("fights", number("fought", data["fought"]))]
    else:
        facts += [
            ("probes of the bisection", str(len(target["probes"]))),
            ("fights the search needed", number("target.fights", target["fights"])),
        ]
        if target["below"] is not None and target["above"] is not None:
            between = f"{number('target.below', target['below'])}-{number('target.above', target['above'])}"
            facts.append((f"where {target['side']} crosses {100 * target['rate']:.1f}%", between))
    name = Path(data["encounter"]).name
    meta = (
        f"{esc(data['encounter'])} · {esc(key)} from {esc(data['low'])} to {esc(data['high'])}"
        f" · seeds {data['seed_start']}-{data['seed_start'] + data['runs'] - 1} for every value · "
        + "; ".join(f"{swatch(colours[s])}{esc(s)}" for s in sides)
    )
    lede = (
        "Each side's win rate at each value fought, on the same seeds; the band is Wilson's 95%"
        " interval."
    )
    return page(
        command="sweep",
        title=f"{name}: {key}",
        meta=meta,
        facts=facts,
        sections=[
            section(
                "Win rate across the range", lede + crossing, chart, legend(items), ident="curve"
            ),
            section(
                "Every value",
                "The figures of the chart.",
                table(headings, rows, right_from=0, ident="point-table"),
                ident="values",
            ),
        ],
        footer=(
            f"Made by <code>initiative sweep</code>: {data['fought']} fights in"
            f" {data['seconds']:.2f} s with {data['jobs']} job(s). Every figure on this page is"
            " the one its <code>--json</code> gives."
        ),
    )


def _crossing(data: dict[str, Any]) -> str:
    """The sentence on ``--target``: where the side's rate crosses it, and what that took."""
    t = data["target"]
    side, key = esc(t["side"]), esc(data["key"])
    goal = number("target.rate", t["rate"], "pct")
    took = (
        f" The bisection took {len(t['probes'])} probes"
        f" ({key} = {number('target.probes', t['probes'], 'list')} in the order made: the"
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
    return text + took
