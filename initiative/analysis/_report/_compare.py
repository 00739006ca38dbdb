"""The page of ``compare``: the variants side by side (each side's win rate in each variant,
hit points by round), then for each pair of variants what changed, with its interval and the
paired test, per side and per combatant. Every figure is read from the command's ``--json``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._batch import side_colours
from ._draw import (
    Bar,
    esc,
    interval_chart,
    legend,
    mean_text,
    number,
)
from ._figures import round_chart, share_bar, share_chart, shown_rounds
from ._page import page, section, swatch, table

if TYPE_CHECKING:
    from initiative.batch import Summary

    from .._compare import Variant

#: A colour per variant (``A``, ``B``, ...), apart from the sides' colours.
VARIANT_COLOURS = ("#4d4d4d", "#e69f00", "#56b4e9", "#cc79a7", "#009e73", "#d55e00")
INK = "#222"


def _pts_axis(v: float) -> str:
    return f"{100 * v:+.0f}" if v else "0"


def _variant_colour(i: int) -> str:
    return VARIANT_COLOURS[i % len(VARIANT_COLOURS)]


def _wins_section(data: dict[str, Any], colours: dict[str, str]) -> str:
    variants = data["variants"]
    runs = data["runs"]
    sides = [s["side"] for s in variants[0]["sides"]]
    rows = []
    for k, side in enumerate(sides):
        for i, v in enumerate(variants):
            j = next(n for n, s in enumerate(v["sides"]) if s["side"] == side)
            entry = v["sides"][j]
            key = f"variants.{i}.sides.{j}"
            won = f"{number(f'{key}.wins', entry['wins'], tag='tspan')}/{runs}"
            colour, style = colours.get(side, "#777"), "bar" if i == 0 else "light"
            rows.append(
                share_bar(
                    f"{side} in {v['label']}",
                    key,
                    entry,
                    won,
                    colour=colour,
                    gap=k > 0 and i == 0,
                    style=style,
                )
            )
    chart = share_chart(
        rows,
        "share of the fights won (95% Wilson interval)",
        "each side's win rate in each variant",
    )
    headings = ["variant", "encounter"]
    for side in sides:
        headings += [f"{side} wins", "95% CI"]
    headings += ["no winner", "rounds"]
    body = []
    for i, v in enumerate(variants):
        cells = [
            swatch(_variant_colour(i)) + esc(v["label"]),
            f'<span title="{esc(v["encounter"])}">{esc(Path(v["encounter"]).name)}</span>',
        ]
        for j, s in enumerate(v["sides"]):
            cells += [
                number(f"variants.{i}.sides.{j}.rate", s["rate"], "pct"),
                f'<span class="ci">{number(f"variants.{i}.sides.{j}.ci95", s["ci95"], "pct-range")}</span>',
            ]
        cells += [
            number(f"variants.{i}.no_winner", v["no_winner"]),
            mean_text(f"variants.{i}.rounds", v["rounds"]),
        ]
        body.append(cells)
    return section(
        "Who wins in each variant",
        f"The share of the {runs} fights each side won in each variant, fought on the same"
        " seeds with the same policies (the first variant's bars solid, the others' pale).",
        chart,
        table(headings, body, right_from=2, ident="variant-table"),
        ident="wins",
    )


def _rate_row(label: str, key: str, rate: dict[str, Any], colour: str, gap: bool) -> Bar:
    return Bar(
        label=label,
        value=rate["difference"],
        low=rate["ci95"][0],
        high=rate["ci95"][1],
        colour=colour,
        style="dot",
        gap_before=gap,
        key=f"{key}.difference",
        figures=(
            f"{number(f'{key}.difference', rate['difference'], 'pts', tag='tspan')}"
            f' <tspan class="ci">({number(f"{key}.ci95", rate["ci95"], "pts-range", tag="tspan")})</tspan>'
            f" · p {number(f'{key}.p', rate['p'], 'p', tag='tspan')}"
        ),
    )


def _pair_section(
    data: dict[str, Any], n: int, colours: dict[str, str], names: dict[str, str]
) -> str:
    """The ``n``-th pair of variants: its differences charted, then by side and by combatant."""
    pair = data["pairs"][n]
    first, second = pair["first"], pair["second"]
    files = {v["label"]: v["encounter"] for v in data["variants"]}
    lede = (
        f"What changes from {esc(first)} ({esc(files[first])}) to {esc(second)}"
        f" ({esc(files[second])}) on the same {number(f'pairs.{n}.seeds', pair['seeds'])} seeds:"
        f" {esc(second)}'s figure less {esc(first)}'s. p: exact McNemar test over the seeds where"
        " the outcome happened in one variant only (the test decides; the interval, Newcombe's"
        " for paired rates, says how large). Damage and hit points: the mean of the per-seed"
        " differences with its 95% t interval. Rounds: "
        f"{_signed_mean(f'pairs.{n}.rounds', pair['rounds'])}."
    )
    return section(
        f"{second} against {first}",
        lede,
        _pair_chart(pair, n, colours, names),
        _pair_sides_table(pair, n, colours),
        _pair_combatants_table(pair, n, colours, names),
        ident=f"pair-{n}",
    )


def _pair_chart(
    pair: dict[str, Any], n: int, colours: dict[str, str], names: dict[str, str]
) -> str:
    """The differences of a pair with their intervals: each side's wins and any fallen, each
    combatant's survival."""
    first, second = pair["first"], pair["second"]
    rows = []
    for k, s in enumerate(pair["sides"]):
        colour = colours.get(s["side"], "#777")
        key = f"pairs.{n}.sides.{k}"
        rows.append(_rate_row(f"{s['side']} wins", f"{key}.wins", s["wins"], colour, k > 0))
        rows.append(
            _rate_row(f"{s['side']}: any fell", f"{key}.any_fell", s["any_fell"], colour, False)
        )
    for k, c in enumerate(pair["combatants"]):
        if c["survived"] is None:
            continue
        rows.append(
            _rate_row(
                f"{names.get(c['id'], c['id'])} survived",
                f"pairs.{n}.combatants.{k}.survived",
                c["survived"],
                colours.get(c["side"], "#777"),
                k == 0,
            )
        )
    return interval_chart(
        rows,
        low=-1,
        high=1,
        axis=[-1, -0.5, 0, 0.5, 1],
        zero=0,
        title=f"{second} less {first}, in percentage points (95% interval)",
        label=f"differences from {first} to {second}",
        shown=_pts_axis,
        figures_width=300,
    )


def _pair_sides_table(pair: dict[str, Any], n: int, colours: dict[str, str]) -> str:
    """A pair's figures by side: wins in each variant, the seeds won in one only, p, damage
    dealt and hit points left."""
    first, second = pair["first"], pair["second"]
    rows = [
        [
            swatch(colours.get(s["side"], "#777")) + esc(s["side"]),
            f"{number(f'pairs.{n}.sides.{k}.wins.first', s['wins']['first'])} →"
            f" {number(f'pairs.{n}.sides.{k}.wins.second', s['wins']['second'])}",
            f"{number(f'pairs.{n}.sides.{k}.wins.first_only', s['wins']['first_only'])}/"
            f"{number(f'pairs.{n}.sides.{k}.wins.second_only', s['wins']['second_only'])}",
            number(f"pairs.{n}.sides.{k}.wins.p", s["wins"]["p"], "p"),
            _signed_mean(f"pairs.{n}.sides.{k}.damage", s["damage"]),
            _signed_mean(f"pairs.{n}.sides.{k}.hp_left", s["hp_left"]),
        ]
        for k, s in enumerate(pair["sides"])
    ]
    return table(
        (
            "side",
            f"wins {first} → {second}",
            f"won only in {first}/{second}",
            "p",
            "damage dealt",
            "hit points left",
        ),
        rows,
        right_from=1,
        ident=f"pair-{n}-sides",
    )


def _pair_combatants_table(
    pair: dict[str, Any], n: int, colours: dict[str, str], names: dict[str, str]
) -> str:
    """A pair's figures by combatant (one in a single variant is said to be so)."""
    rows = []
    for k, c in enumerate(pair["combatants"]):
        key = f"pairs.{n}.combatants.{k}"
        name = swatch(colours.get(c["side"], "#777")) + esc(names.get(c["id"], c["id"]))
        if c["survived"] is None:
            only = f'<span class="quiet">only in {esc(c["in"])}</span>'
            rows.append([name, esc(c["side"]), only, "", "", ""])
            continue
        rows.append(
            [
                name,
                esc(c["side"]),
                f"{number(f'{key}.survived.difference', c['survived']['difference'], 'pts')}"
                f' <span class="ci">({number(f"{key}.survived.ci95", c["survived"]["ci95"], "pts-range")})</span>',
                number(f"{key}.survived.p", c["survived"]["p"], "p"),
                _signed_mean(f"{key}.damage_dealt", c["damage_dealt"]),
                _signed_mean(f"{key}.damage_taken", c["damage_taken"]),
            ]
        )
    return table(
        ("combatant", "side", "survived", "p", "damage dealt", "damage taken"),
        rows,
        right_from=2,
        ident=f"pair-{n}-combatants",
    )


def _signed_mean(key: str, mean: dict[str, Any]) -> str:
    if mean["n"] == 0:
        return '<span class="quiet">-</span>'
    text = number(f"{key}.mean", mean["mean"], "signed")
    if mean["ci95"] is not None:
        text += f' <span class="ci">({number(f"{key}.ci95", mean["ci95"], "signed-range")})</span>'
    return text


def _curves_section(data: dict[str, Any], colours: dict[str, str]) -> str:
    variants = data["variants"]
    last = max(shown_rounds(v["curves"]) for v in variants)
    if last == 0:
        return ""
    charts = []
    for side in (c["side"] for c in variants[0]["curves"]):
        lines = []
        for i, v in enumerate(variants):
            j = next(n for n, c in enumerate(v["curves"]) if c["side"] == side)
            lines.append(
                (
                    v["curves"][j],
                    _variant_colour(i),
                    f"{side} in {v['label']}",
                    f"variants.{i}.curves.{j}",
                )
            )
        charts.append(round_chart(lines, "hp", f"{side}: hit points at the round's end", last))
    items = [(_variant_colour(i), "line", v["label"]) for i, v in enumerate(variants)]
    return section(
        "Hit points by round",
        "Each side's hit points at the end of each round in each variant (mean over the fights,"
        " 95% t interval cut to what hit points can be; a fight that is over counts with its"
        " end).",
        *charts,
        legend(items),
        ident="by-round",
    )


def compare_page(
    data: dict[str, Any], variants: Sequence[Variant], results: Sequence[Sequence[Summary]]
) -> str:
    """The report of ``initiative compare``: ``data`` is what its ``--json`` prints."""
    spec = variants[0].spec
    colours = side_colours(spec)
    names = {c.id: c.display for v in variants for c in v.spec.combatants}
    runs = data["runs"]
    first = data["seed_start"]
    seeds = f"{first}" if runs == 1 else f"{first}-{first + runs - 1}"
    overrides = ", ".join(f"{k}={v}" for k, v in data["policies"].items()) or "the files' own"
    files = " · ".join(
        f"{swatch(_variant_colour(i))}{esc(v['label'])} {esc(Path(v['encounter']).name)}"
        for i, v in enumerate(data["variants"])
    )
    facts = [
        ("variants", str(len(data["variants"]))),
        ("seeds, the same in each", number("runs", runs)),
        ("fights", number("fought", data["fought"])),
    ]
    if data["pairs"]:
        pair = data["pairs"][0]
        side = pair["sides"][0]
        facts.append(
            (
                f"{side['side']}'s wins, {pair['second']} less {pair['first']}",
                number("pairs.0.sides.0.wins.difference", side["wins"]["difference"], "pts"),
            )
        )
    meta = f"{files} · seeds {seeds} · policies: {esc(overrides)}"
    footer = (
        f"Made by <code>initiative compare</code>: {data['fought']} fights in"
        f" {data['seconds']:.2f} s with {data['jobs']} job(s). Every figure on this page is the"
        " one its <code>--json</code> gives."
    )
    del results
    return page(
        command="compare",
        title=f"{spec.name or data['variants'][0]['encounter']}: {len(variants)} variants",
        meta=meta,
        facts=facts,
        sections=[
            _wins_section(data, colours),
            *(_pair_section(data, n, colours, names) for n in range(len(data["pairs"]))),
            _curves_section(data, colours),
        ],
        footer=footer,
    )
