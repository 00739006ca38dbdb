"""The report of ``initiative review --report``: the win-chance curve of a fight with its graded
decisions marked, the turning points of luck, every decision, and the accuracy of each
combatant and policy. Drawn from the dictionary ``review --json`` prints; a mark on the curve
links to its decision's row (no script: the page is as self-contained as the batch reports)."""

from __future__ import annotations

from typing import Any

from ._draw import SIDE_PALETTE, Scale, W, esc, legend, number, svg, x_axis, y_axis
from ._page import page, section, swatch, table

GRADE_COLOURS = {
    "best": "#2e7d32",
    "good": "#7cb342",
    "inaccuracy": "#f2a900",
    "mistake": "#e8590c",
    "blunder": "#c62828",
}
"""Each grade's colour (the worse, the redder)."""

_MARKED = ("inaccuracy", "mistake", "blunder")
"""The grades marked on the curve (the others would cover it)."""


def _colours(sides: list[str]) -> dict[str, str]:
    return {s: SIDE_PALETTE[i % len(SIDE_PALETTE)] for i, s in enumerate(sides)}


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


def curve(data: dict[str, Any]) -> str:
    """Each side's chance to win before each decision (x: the decisions in order, rounds ruled),
    its 95% band, and a mark on the decider's line at every inaccuracy, mistake and blunder."""
    rows = data["decisions"]
    sides = data["sides"]
    colours = _colours(sides)
    left, right, top, bottom = 80, W - 24, 30, 300
    n = len(rows)
    end = n if data["complete"] else max(n - 1, 1)
    scale_x = Scale(0, max(end, 1), left + 10, right - 10)
    scale_y = Scale(0, 1, bottom, top)
    parts = [
        y_axis(scale_y, left, "chance to win", [0, 0.25, 0.5, 0.75, 1], _pct_tick, right),
    ]
    parts.append(x_axis(scale_x, bottom, "decisions, in order (rounds ruled)", []))
    last_round = None
    for i, d in enumerate(rows):
        if d["round"] != last_round:
            x = scale_x(i)
            parts.append(
                f'<line class="rule" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}"/>'
                f'<text class="mark" x="{x + 3:.1f}" y="{top - 8}">round {d["round"]}</text>'
            )
            last_round = d["round"]
    for side in sides:
        colour = colours[side]
        band = [(scale_x(i), scale_y(d["interval"][side][1])) for i, d in enumerate(rows)]
        band += [
            (scale_x(i), scale_y(d["interval"][side][0]))
            for i, d in reversed(list(enumerate(rows)))
        ]
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in band)
        parts.append(f'<polygon class="ci-band" points="{points}" fill="{colour}"/>')
        line = [(scale_x(i), scale_y(d["win"][side])) for i, d in enumerate(rows)]
        if data["complete"] and rows:
            final = 1.0 if data["winner"] == side else 0.0
            line.append((scale_x(n), scale_y(final)))
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in line)
        parts.append(
            f'<polyline class="curve" data-side="{esc(side)}" points="{path}" stroke="{colour}"/>'
        )
    for i, d in enumerate(rows):
        if d["grade"] not in _MARKED:
            continue
        x, y = scale_x(i), scale_y(d["win"][d["side"]])
        colour = GRADE_COLOURS[d["grade"]]
        radius = {"inaccuracy": 5, "mistake": 6, "blunder": 7.5}[d["grade"]]
        parts.append(
            f'<a href="#d-{d["seq"]}" class="graded" data-seq="{d["seq"]}"'
            f' data-grade="{d["grade"]}"><circle class="point" cx="{x:.1f}" cy="{y:.1f}"'
            f' r="{radius}" fill="{colour}"><title>{esc(d["text"])}</title></circle></a>'
        )
    label = "each side's chance to win before each decision"
    return svg(bottom + 46, "".join(parts), label)


def _unnamed(action: str, name: str) -> str:
    """``Osric attacks the boss`` -> ``attacks the boss`` (the row names who)."""
    return (
        action[len(name) :].lstrip(": ")
        if action.startswith(name + " ") or action.startswith(name + ":")
        else action
    )


def _pct_tick(v: float) -> str:
    return f"{100 * v:.0f}%"


def review_page(data: dict[str, Any]) -> str:
    """The whole page of one review (``data`` is what ``review --json`` prints)."""
    sides = data["sides"]
    colours = _colours(sides)
    budget = data["budget"]
    meta = (
        f"{esc(data['log'])} · {esc(data['ruleset'])} rules · seed {data['seed']} · "
        + " · ".join(f"{swatch(colours[s])}{esc(s)}" for s in sides)
    )
    footer = (
        f"Made by <code>initiative review</code>: {budget['rollouts']} rollouts of up to"
        f" {budget['width']} candidates at each decision, played to the end by"
        f" <code>{esc(budget['model'])}</code>, dice seed {budget['seed']}. Grades: good under"
        " 5 points of win chance given up, inaccuracy under 10, mistake under 20, blunder 20 or"
        " more. Every figure on this page is the one its <code>--json</code> gives."
    )
    html = page(
        command="review",
        title=data.get("encounter") or data["log"],
        meta=meta,
        facts=_facts(data),
        sections=[
            _curve_section(data, colours),
            _turning_section(data, colours),
            _decisions_section(data, colours),
            _accuracy_section(data, colours),
        ],
        footer=footer,
    )
    return html.replace("</style>", "  .nowrap { white-space: nowrap; }\n</style>", 1)


def _facts(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The figures at the top: how the fight ended, its decisions, and the worst of them."""
    rows = data["decisions"]
    counts = {g: sum(1 for d in rows if d["grade"] == g) for g in GRADE_COLOURS}
    if data["winner"]:
        verdict = f"{data['winner']} won"
    elif data["complete"]:
        verdict = "no winner"
    else:
        verdict = "unfinished"
    outcome = "outcome" if data["complete"] else "the log stops before the end: reviewed to there"
    return [
        (outcome, esc(verdict)),
        ("decisions with a choice", str(len(rows))),
        ("inaccuracies", str(counts["inaccuracy"])),
        ("mistakes", str(counts["mistake"])),
        ("blunders", str(counts["blunder"])),
    ]


def _curve_section(data: dict[str, Any], colours: dict[str, str]) -> str:
    """The win-chance curve with its legend."""
    items = [(colours[s], "line", f"{s}: chance to win, 95% band") for s in data["sides"]]
    items += [(GRADE_COLOURS[g], "dot", g) for g in _MARKED]
    return section(
        "The fight's course",
        "Each side's chance to win before each decision, from rollouts played to the end on"
        " forks of the fight (a band: its 95% interval). A dot marks a decision that gave up 5"
        " points or more on the decider's line; hover it for what happened, click it for its"
        " row below.",
        curve(data),
        legend(items),
        ident="curve",
    )


def _turning_section(data: dict[str, Any], colours: dict[str, str]) -> str:
    """The turning points of luck and the GM's overrides, with the swing each brought."""
    turning = [
        [
            f'<a href="#d-{t["seq"]}">{t["seq"]}</a>' if t["kind"] != "override" else str(t["seq"]),
            "GM override" if t["kind"] == "override" else "luck",
            esc(t["text"] or "-"),
            " ".join(
                f"{swatch(colours[s])}{number(f'turning_points.{i}.swing.{s}', t['swing'][s], 'signed-pts')}"
                for s in data["sides"]
                if s in t["swing"]
            ),
        ]
        for i, t in enumerate(data["turning_points"])
    ]
    return section(
        "Turning points",
        "The dice and events between two decisions that moved the chance most (luck, apart"
        " from the choices), and every GM override with the swing it brought.",
        table(("seq", "kind", "what happened", "swing"), turning, right_from=3, ident="turning")
        if turning
        else '<p class="lede">None: no swing of 5 points or more beyond the noise of the rollouts'
        " (more rollouts narrow it).</p>",
        ident="turning-points",
    )


def _decisions_section(data: dict[str, Any], colours: dict[str, str]) -> str:
    """Every decision's row: the chance before it and with the choice, the best alternative
    found, the loss and the grade (a mark on the curve links here)."""
    rows = []
    for i, d in enumerate(data["decisions"]):
        colour = GRADE_COLOURS[d["grade"]]
        best = (
            f"{esc(_unnamed(d['best']['action'], d['name']))}"
            f" ({number(f'decisions.{i}.best.win', d['best']['win'], 'pct')})"
            if d["best"]
            else '<span class="quiet">-</span>'
        )
        rows.append(
            [
                f'<span id="d-{d["seq"]}">{d["seq"]}</span>',
                str(d["round"]),
                swatch(colours.get(d["side"], "#777")) + esc(d["name"]),
                esc(d["chosen"]["action"]),
                '<span class="nowrap">'
                + number(f"decisions.{i}.win.{d['side']}", d["win"][d["side"]], "pct")
                + " → "
                + number(f"decisions.{i}.chosen.win", d["chosen"]["win"], "pct")
                + "</span>",
                best,
                number(f"decisions.{i}.loss", d["loss"], "loss-pts"),
                f'<span class="verdict" style="color:{colour}">{esc(d["grade"])}</span>',
            ]
        )
    return section(
        "Every decision",
        "The decider's chance before the decision and with the choice made, the best"
        " alternative found (when better) and the points of win chance given up.",
        table(
            ("seq", "round", "who", "chosen", "chance", "best found", "loss (pts)", "grade"),
            rows,
            right_from=6,
            ident="decisions",
        ),
        ident="every-decision",
    )


def _accuracy_section(data: dict[str, Any], colours: dict[str, str]) -> str:
    """The accuracy of each combatant and of each policy."""
    accuracy_rows = [
        [
            swatch(colours.get(c["side"], "#777")) + esc(c["name"]),
            esc(c["policy"]),
            number(f"combatants.{i}.decisions", c["decisions"]),
            number(f"combatants.{i}.mean_loss", c["mean_loss"], "loss-pts"),
            *(number(f"combatants.{i}.grades.{g}", c["grades"][g]) for g in GRADE_COLOURS),
            number(f"combatants.{i}.accuracy", c["accuracy"], "f1"),
        ]
        for i, c in enumerate(data["combatants"])
    ]
    policy_rows = [
        [
            esc(p["policy"]),
            number(f"policies.{i}.decisions", p["decisions"]),
            number(f"policies.{i}.mean_loss", p["mean_loss"], "loss-pts"),
            *(number(f"policies.{i}.grades.{g}", p["grades"][g]) for g in GRADE_COLOURS),
            number(f"policies.{i}.accuracy", p["accuracy"], "f1"),
        ]
        for i, p in enumerate(data["policies"])
    ]
    return section(
        "Accuracy",
        "Per combatant and per policy: the mean points given up a decision, the decisions of"
        " each grade, and an accuracy (100 for no loss, about 65 for 10 points).",
        table(
            ("combatant", "policy", "decisions", "mean loss", *GRADE_COLOURS, "accuracy"),
            accuracy_rows,
            right_from=2,
            ident="combatants",
        ),
        table(
            ("policy", "decisions", "mean loss", *GRADE_COLOURS, "accuracy"),
            policy_rows,
            right_from=1,
            ident="policies",
        ),
        ident="accuracy",
    )
