"""The pages of ``batch`` and ``duel``: who wins (with intervals, fights without a winner
apart), how long fights last, and each combatant's damage, survival, kills and fall.

Every figure is read from the dictionary the command prints with ``--json``; only the rounds
histogram reads the fights themselves (their rounds and how each ended), which ``--json`` sums up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._draw import (
    SIDE_PALETTE,
    STALEMATE,
    UNDECIDED,
    Bar,
    Stack,
    esc,
    histogram,
    interval_chart,
    legend,
    mean_text,
    number,
    upper,
)
from ._figures import figure_sections, share_bar
from ._page import page, section, swatch, table

if TYPE_CHECKING:
    from initiative.batch import Summary
    from initiative.events import EncounterSpec

#: The colours of a duel's two policies (they change sides, so they are not side colours).
POLICY_COLOURS = ("#009e73", "#8e44ad")


def _pct_axis(v: float) -> str:
    return f"{100 * v:.0f}%"


def side_colours(spec: EncounterSpec) -> dict[str, str]:
    """Each side's colour, in the encounter's order of sides, as ``view`` colours them."""
    return {s: SIDE_PALETTE[i % len(SIDE_PALETTE)] for i, s in enumerate(spec.sides)}


def _seeds(data: dict[str, Any], count: int) -> str:
    first = data["seed_start"]
    return f"{first}" if count == 1 else f"{first}-{first + count - 1}"


def _no_winner_rows(data: dict[str, Any], total: int, first_gap: bool = True) -> list[Bar]:
    rows = []
    for i, (what, colour, style) in enumerate(
        (("stalemates", STALEMATE, "hatched"), ("undecided", UNDECIDED, "bar"))
    ):
        n = data[what]
        rows.append(
            Bar(
                label="stalemate" if what == "stalemates" else "undecided",
                value=n / total if total else 0.0,
                low=None,
                high=None,
                colour=colour,
                style=style,
                gap_before=first_gap and i == 0,
                figures=f"{number(what, n, tag='tspan')} of {total} fights",
            )
        )
    return rows


def _rounds_section(
    data: dict[str, Any],
    fights: Sequence[tuple[int, str | None, bool]],
    kinds: Sequence[tuple[str, str]],
) -> str:
    """The histogram of rounds, each bar stacked by how its fights ended: ``fights`` are
    ``(rounds, winner's kind or None, stalemate)``, ``kinds`` the winners' names and colours."""
    rounds = [r for r, _, _ in fights]
    low, high = min(rounds), max(rounds)
    if high - low < 7:  # a few bars at least, so that one bar is not the whole chart
        low = max(0, low - (7 - (high - low)) // 2)
        high = max(high, low + 7)
    width = next(w for w in (1, 2, 5, 10, 20, 50, 100, 10**9) if (high - low) // w < 40)
    first = low // width * width
    bins = list(range(first, high + 1, width))

    def counts(keep: Any) -> dict[int, int]:
        out: dict[int, int] = {}
        for r, winner, stalemate in fights:
            if keep(winner, stalemate):
                b = first + (r - first) // width * width
                out[b] = out.get(b, 0) + 1
        return out

    stacks = [
        Stack(f"{name} won", colour, counts(lambda w, s, n=name: w == n)) for name, colour in kinds
    ]
    stacks.append(Stack("stalemate", STALEMATE, counts(lambda w, s: w is None and s), True))
    stacks.append(Stack("undecided", UNDECIDED, counts(lambda w, s: w is None and not s)))
    r = data["rounds"]
    low_ci, high_ci = r["ci95"] if r["ci95"] is not None else (None, None)
    chart = histogram(
        stacks,
        bins=bins,
        width=width,
        x_title="rounds the fight lasted" + ("" if width == 1 else f" ({width} a bar)"),
        y_title="fights",
        label="histogram of the rounds each fight lasted",
        mean=(r["mean"], low_ci, high_ci),
    )
    items = [(c, "box", f"{n} won") for n, c in kinds]
    items += [(STALEMATE, "hatched", "stalemate"), (UNDECIDED, "box", "undecided")]
    items.append(("#f2a900", "line", "mean with its 95% interval"))
    lede = (
        f"Each bar counts the fights that lasted that many rounds, by how they ended. Mean"
        f" {mean_text('rounds', r)} rounds (95% interval); a stalemate reached the round"
        f" limit with no hit points changed in its last {number('stalemate_rounds', data['stalemate_rounds'])}"
        " rounds."
    )
    return section("How long the fights last", lede, chart, legend(items), ident="rounds")


def _combatant_sections(data: dict[str, Any], spec: EncounterSpec, colours: dict[str, str]) -> str:
    """Each combatant's damage, survival and kills, and the round it fell in: charts, then
    their figures in a table."""
    names = {c.id: c.display for c in spec.combatants}
    fighters = data["combatants"]
    # A combatant's name; in a duel (a row per policy it played) with that policy.
    duel = data["command"] == "duel"
    labels = [
        f"{names.get(f['id'], f['id'])} · {f['policies'][0]}"
        if duel
        else names.get(f["id"], f["id"])
        for f in fighters
    ]
    return (
        _damage_section(fighters, labels, colours)
        + _survival_section(fighters, labels, colours)
        + _falls_section(fighters, labels, colours)
        + section(
            "Every combatant",
            "The figures of the charts above.",
            _combatants_table(fighters, names, colours),
            ident="combatants",
        )
    )


def _damage_section(
    fighters: list[dict[str, Any]], labels: list[str], colours: dict[str, str]
) -> str:
    """What each combatant dealt and took in a fight, with intervals."""
    rows: list[Bar] = []
    top = 1.0
    for i, f in enumerate(fighters):
        colour = colours.get(f["side"], "#777")
        for what, verb, style in (
            ("damage_dealt", "dealt", "bar"),
            ("damage_taken", "taken", "light"),
        ):
            m = f[what]
            key = f"combatants.{i}.{what}"
            low, high = m["ci95"] if m["ci95"] is not None else (None, None)
            top = max(top, m["mean"], high or 0)
            rows.append(
                Bar(
                    label=labels[i] if verb == "dealt" else "",
                    value=m["mean"],
                    low=low,
                    high=high,
                    colour=colour,
                    style=style,
                    gap_before=verb == "dealt" and i > 0,
                    figures=f"{verb} {mean_text(key, m, 'tspan')}",
                )
            )
    damage = interval_chart(
        rows,
        low=0,
        high=upper(top),
        title="damage per fight (mean, 95% interval)",
        label="damage dealt and taken per combatant",
    )
    items = [(c, "box", s) for s, c in colours.items()]
    items += [
        ("#777", "box", "dealt"),
        ("#777", "light", "taken"),
        (INK_, "whisker", "95% interval"),
    ]
    return section(
        "Damage per fight",
        "What each combatant dealt and took in a fight: the mean over the fights, with its"
        " 95% interval (Student's t, clipped at 0; Garwood's exact interval when every fight"
        " gave the same figure).",
        damage,
        legend(items),
        ident="damage",
    )


def _survival_section(
    fighters: list[dict[str, Any]], labels: list[str], colours: dict[str, str]
) -> str:
    """The share of fights each combatant survived, and its kills."""
    rows = [
        Bar(
            label=labels[i],
            value=f["survival"],
            low=f["survival_ci95"][0],
            high=f["survival_ci95"][1],
            colour=colours.get(f["side"], "#777"),
            key=f"combatants.{i}.survival",
            figures=(
                f"{number(f'combatants.{i}.survived', f['survived'], tag='tspan')}/"
                f"{number(f'combatants.{i}.fights', f['fights'], tag='tspan')} · "
                f"{number(f'combatants.{i}.kills', f['kills'], tag='tspan')} kills"
                f" ({number(f'combatants.{i}.kills_mean', f['kills_mean'], 'f2', tag='tspan')}"
                " a fight)"
            ),
        )
        for i, f in enumerate(fighters)
    ]
    survival = interval_chart(
        rows,
        low=0,
        high=1,
        title="fights survived (Wilson's 95% interval)",
        label="survival per combatant",
        shown=_pct_axis,
    )
    return section(
        "Survival and kills",
        "The share of fights each combatant was never defeated in (one that fled survived),"
        " and the others it defeated.",
        survival,
        ident="survival",
    )


def _falls_section(
    fighters: list[dict[str, Any]], labels: list[str], colours: dict[str, str]
) -> str:
    """The round each combatant fell in, over the fights it fell in; those that never fell."""
    fell = [(i, f) for i, f in enumerate(fighters) if f["fell"]]
    last = max(
        [f["fell_round"]["ci95"][1] for _, f in fell if f["fell_round"]["ci95"]]
        + [f["fell_round"]["mean"] for _, f in fell]
        + [1]
    )
    rows = [
        Bar(
            label=labels[i],
            value=f["fell_round"]["mean"],
            low=(f["fell_round"]["ci95"] or [None, None])[0],
            high=(f["fell_round"]["ci95"] or [None, None])[1],
            colour=colours.get(f["side"], "#777"),
            style="dot",
            key=f"combatants.{i}.fell_round.mean",
            figures=(
                f"fell in {number(f'combatants.{i}.fell', f['fell'], tag='tspan')}: round"
                f" {mean_text(f'combatants.{i}.fell_round', f['fell_round'], 'tspan')}"
            ),
        )
        for i, f in fell
    ]
    standing = [labels[i] for i, f in enumerate(fighters) if not f["fell"]]
    never = f" Never fell: {esc(', '.join(standing))}." if standing else ""
    falls = (
        interval_chart(
            rows,
            low=0,
            high=upper(last),
            title="round it fell in (mean, 95% interval)",
            label="the round each combatant fell in",
        )
        if rows
        else ""
    )
    return section(
        "When they fall",
        "The round each combatant was defeated in, over the fights it was (a dot without"
        f" whiskers: a single fall).{never}",
        falls,
        ident="falls",
    )


INK_ = "#222"


def _combatants_table(
    fighters: list[dict[str, Any]], names: dict[str, str], colours: dict[str, str]
) -> str:
    rows = []
    for i, f in enumerate(fighters):
        k = f"combatants.{i}"
        rows.append(
            [
                swatch(colours.get(f["side"], "#777")) + esc(names.get(f["id"], f["id"])),
                esc(f["side"]),
                esc(", ".join(f["policies"])),
                f"{number(f'{k}.survived', f['survived'])}/{f['fights']}",
                f'<span class="ci">{number(f"{k}.survival_ci95", f["survival_ci95"], "pct-range")}</span>',
                mean_text(f"{k}.damage_dealt", f["damage_dealt"]),
                mean_text(f"{k}.damage_taken", f["damage_taken"]),
                number(f"{k}.kills", f["kills"]),
                number(f"{k}.fell", f["fell"]),
                mean_text(f"{k}.fell_round", f["fell_round"]),
            ]
        )
    headings = (
        "combatant",
        "side",
        "policy",
        "survived",
        "95% CI",
        "dealt",
        "taken",
        "kills",
        "fell",
        "in round",
    )
    return table(headings, rows, right_from=3, ident="combatant-table")


def _footer(data: dict[str, Any]) -> str:
    workers = f"cluster {esc(data['cluster'])}" if data.get("cluster") else f"{data['jobs']} job(s)"
    return (
        f"Made by <code>initiative {data['command']}</code> from {esc(data['encounter'])}:"
        f" {data['fought']} fights in {data['seconds']:.2f} s with {workers}. Every figure on this"
        " page is the one its <code>--json</code> gives. Fight one again:"
        f" <code>{esc(data['rerun'])}</code>"
    )


def _win_bar(group: str, i: int, entry: dict[str, Any], label: str, colour: str, total: int) -> Bar:
    """The win-rate bar of ``entry``, the ``i``-th of the ``--json`` list ``group``."""
    key = f"{group}.{i}"
    won = f"{number(f'{key}.wins', entry['wins'], tag='tspan')}/{total}"
    return share_bar(label, key, entry, won, colour=colour, gap=False)


def _wins_chart(data: dict[str, Any], rows: list[Bar], total: int, what: str, per: str) -> str:
    """The win rates of ``rows`` and the fights without a winner, with their intervals."""
    return interval_chart(
        [*rows, *_no_winner_rows(data, total)],
        low=0,
        high=1,
        title=f"share of the {what} (95% Wilson interval for a win rate)",
        label=f"win rate per {per} with 95% intervals",
        shown=_pct_axis,
    )


def batch_page(data: dict[str, Any], spec: EncounterSpec, results: Sequence[Summary]) -> str:
    """The report of ``initiative batch``: ``data`` is what its ``--json`` prints."""
    colours = side_colours(spec)
    runs = data["runs"]
    sides = data["sides"]
    rows = [
        _win_bar("sides", i, s, s["side"], colours.get(s["side"], "#777"), runs)
        for i, s in enumerate(sides)
    ]
    wins = _wins_chart(data, rows, runs, "fights", "side")
    items = [(colours[s["side"]], "box", s["side"]) for s in sides if s["side"] in colours]
    items += [
        (STALEMATE, "hatched", "stalemate"),
        (UNDECIDED, "box", "undecided"),
        (INK_, "whisker", "95% interval"),
    ]
    policies = "; ".join(
        f"{swatch(colours.get(s['side'], '#777'))}{esc(s['side'])}: {esc(', '.join(s['policies']))}"
        for s in sides
    )
    side_rows = [
        [
            swatch(colours.get(s["side"], "#777")) + esc(s["side"]),
            esc(", ".join(s["policies"])),
            number(f"sides.{i}.wins", s["wins"]),
            number(f"sides.{i}.rate", s["rate"], "pct"),
            f'<span class="ci">{number(f"sides.{i}.ci95", s["ci95"], "pct-range")}</span>',
            mean_text(f"sides.{i}.damage", s["damage"]),
            number(f"sides.{i}.faults", s["faults"]),
        ]
        for i, s in enumerate(sides)
    ]
    side_table = table(
        ("side", "policy", "wins", "rate", "95% CI", "damage dealt", "faults"),
        side_rows,
        right_from=2,
        ident="side-table",
    )
    fights = [(r.rounds, r.winner, r.stalemate) for r in results]
    leader = max(sides, key=lambda s: s["wins"])
    facts = [
        ("fights (one a seed)", number("runs", runs)),
        (
            f"won by {leader['side']}",
            number(f"sides.{sides.index(leader)}.rate", leader["rate"], "pct"),
        ),
        ("rounds, mean", number("rounds.mean", data["rounds"]["mean"], "f1")),
        ("no winner", number("no_winner", data["no_winner"])),
    ]
    meta = f"{esc(data['encounter'])} · seeds {_seeds(data, runs)} · {policies}"
    return page(
        command="batch",
        title=spec.name or data["encounter"],
        meta=meta,
        facts=facts,
        sections=[
            section(
                "Who wins",
                f"The share of the {runs} fights each side won; fights without a"
                " winner are shown apart.",
                wins,
                legend(items),
                side_table,
                ident="wins",
            ),
            _rounds_section(data, fights, [(s, colours[s]) for s in spec.sides]),
            figure_sections(data, {c.id: c.display for c in spec.combatants}, colours),
            _combatant_sections(data, spec, colours),
        ],
        footer=_footer(data),
    )


def duel_page(data: dict[str, Any], spec: EncounterSpec, results: Sequence[Summary]) -> str:
    """The report of ``initiative duel``: ``data`` is what its ``--json`` prints; ``results``
    are its games in order (even: A on the first side; odd: A on the second)."""
    colours = side_colours(spec)
    one, two = spec.sides
    games = data["games"]
    who = data["policies"]
    names = {p["label"]: f"{p['label']} {p['policy']}" for p in who}
    pair = data["paired"]
    a = who[0]["policy"]
    facts = [
        ("seeds, each fought both ways", number("seeds", data["seeds"])),
        ("games", number("games", games)),
        (f"won by A {a}", number("policies.0.rate", who[0]["rate"], "pct")),
        ("p (paired sign test)", number("paired.p", pair["p"], "p")),
    ]
    meta = (
        f"{esc(data['encounter'])} · seeds {_seeds(data, data['seeds'])} · A {esc(a)} against"
        f" B {esc(who[1]['policy'])}, each on {swatch(colours[one])}{esc(one)} and on"
        f" {swatch(colours[two])}{esc(two)}"
    )
    kinds = [(names[p["label"]], POLICY_COLOURS[i]) for i, p in enumerate(who)]
    return page(
        command="duel",
        title=spec.name or data["encounter"],
        meta=meta,
        facts=facts,
        sections=[
            _duel_wins_section(data, spec, names),
            _paired_section(data),
            _rounds_section(data, _duel_fights(spec, results, names), kinds),
            _combatant_sections(data, spec, colours),
        ],
        footer=_footer(data),
    )


def _duel_fights(
    spec: EncounterSpec, results: Sequence[Summary], names: dict[str, str]
) -> list[tuple[int, str | None, bool]]:
    """Each game's rounds, the policy that won it (by its name on the page) and whether it was
    a stalemate: A is on the first side in the even games, on the second in the odd ones."""
    one, two = spec.sides
    fights = []
    for i, r in enumerate(results):
        side_of = {one: "A", two: "B"} if i % 2 == 0 else {one: "B", two: "A"}
        fights.append(
            (r.rounds, None if r.winner is None else names[side_of[r.winner]], r.stalemate)
        )
    return fights


def _duel_wins_section(data: dict[str, Any], spec: EncounterSpec, names: dict[str, str]) -> str:
    """Each policy's win rate, the games without a winner apart, and its wins by side."""
    one, two = spec.sides
    games = data["games"]
    who = data["policies"]
    rows = [
        _win_bar("policies", i, p, names[p["label"]], POLICY_COLOURS[i], games)
        for i, p in enumerate(who)
    ]
    wins = _wins_chart(data, rows, games, "games", "policy")
    items = [(POLICY_COLOURS[i], "box", names[p["label"]]) for i, p in enumerate(who)]
    items += [
        (STALEMATE, "hatched", "stalemate"),
        (UNDECIDED, "box", "undecided"),
        (INK_, "whisker", "95% interval"),
    ]
    policy_rows = [
        [
            f"{swatch(POLICY_COLOURS[i])}{esc(names[p['label']])}",
            number(f"policies.{i}.wins_by_side.{one}", p["wins_by_side"][one]),
            number(f"policies.{i}.wins_by_side.{two}", p["wins_by_side"][two]),
            number(f"policies.{i}.wins", p["wins"]),
            number(f"policies.{i}.rate", p["rate"], "pct"),
            f'<span class="ci">{number(f"policies.{i}.ci95", p["ci95"], "pct-range")}</span>',
            number(f"policies.{i}.faults", p["faults"]),
        ]
        for i, p in enumerate(who)
    ]
    policy_table = table(
        ("policy", f"wins as {one}", f"wins as {two}", "wins", "rate", "95% CI", "faults"),
        policy_rows,
        right_from=1,
        ident="policy-table",
    )
    return section(
        "Who wins",
        f"The share of the {games} games each policy won; games without a winner are shown apart.",
        wins,
        legend(items),
        policy_table,
        ident="wins",
    )


def _paired_section(data: dict[str, Any]) -> str:
    """The seeds where each policy did better, and the verdict of the sign test over them."""
    pair = data["paired"]
    a, b = data["policies"][0]["policy"], data["policies"][1]["policy"]
    rows = [
        Bar(
            label=label,
            value=pair[key],
            low=None,
            high=None,
            colour=colour,
            figures=f"{number(f'paired.{key}', pair[key], tag='tspan')} seed(s)",
        )
        for label, key, colour in (
            (f"{a} better", "a_better", POLICY_COLOURS[0]),
            (f"{b} better", "b_better", POLICY_COLOURS[1]),
            ("even", "even", UNDECIDED),
        )
    ]
    paired = interval_chart(
        rows,
        low=0,
        high=upper(max(pair["seeds"], 1)),
        title="seeds",
        label="seeds where each policy did better",
    )
    better = data["better"]
    verdict = (
        f"{esc(better)} is better than {esc(b if better == a else a)}"
        if better is not None
        else f"no clear difference between {esc(a)} and {esc(b)}"
    )
    lede = (
        f'<span class="verdict" id="verdict">{verdict}</span> (p ='
        f" {number('paired.p', pair['p'], 'p')}, exact two-sided sign test over the"
        f" {pair['a_better'] + pair['b_better']} seed(s) that were not even). Each seed is fought"
        " twice with the same dice, once with each policy on each side."
    )
    return section("Paired by seed", lede, paired, ident="paired")
