"""The page around a report's charts: its head and style, the header with the facts, sections,
tables of figures, and the footer. One look for the four commands (the ``view`` page's fonts
and side colours)."""

from __future__ import annotations

from collections.abc import Sequence

from ._draw import ACCENT, DEFS, INK, esc

STYLE = f"""
  * {{ box-sizing: border-box; }}
  body {{ margin: 0; background: #f4f4f2; color: {INK};
         font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }}
  main {{ max-width: 980px; margin: 0 auto; padding: 28px 20px 40px; }}
  header {{ margin-bottom: 8px; }}
  .kicker {{ margin: 0; font-size: 12px; letter-spacing: .08em; text-transform: uppercase;
            color: #777; }}
  h1 {{ margin: 2px 0 4px; font-size: 28px; line-height: 1.2; overflow-wrap: anywhere; }}
  .meta {{ margin: 0 0 14px; color: #555; overflow-wrap: anywhere; }}
  .facts {{ display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr));
           gap: 10px; margin: 0; }}
  .fact {{ background: #fff; border: 1px solid #e2e2de; border-left: 4px solid {ACCENT};
          border-radius: 6px; padding: 8px 12px; min-width: 0; }}
  .fact .value {{ display: block; font-size: 22px; font-weight: 650; line-height: 1.25;
                 font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }}
  .fact .label {{ display: block; font-size: 12.5px; color: #666; overflow-wrap: anywhere; }}
  section {{ background: #fff; border: 1px solid #e2e2de; border-radius: 8px;
            padding: 14px 18px 16px; margin: 16px 0; }}
  h2 {{ margin: 0 0 2px; font-size: 18px; }}
  .lede {{ margin: 0 0 10px; color: #555; font-size: 13.5px; overflow-wrap: anywhere; }}
  svg.chart {{ display: block; max-width: 100%; height: auto; overflow: hidden;
              font-family: inherit; }}
  svg.defs {{ position: absolute; }}
  .chart .tick {{ font-size: 12px; fill: #444; font-variant-numeric: tabular-nums; }}
  .chart .axis {{ stroke: #777; stroke-width: 1; }}
  .chart .grid {{ stroke: #ececec; stroke-width: 1; }}
  .chart .rule {{ stroke: #e4e4e4; stroke-width: 1; }}
  .chart .axis-title {{ font-size: 12.5px; fill: #555; }}
  .chart .label {{ font-size: 13px; fill: {INK}; }}
  .chart .figures {{ font-size: 13px; fill: {INK}; font-variant-numeric: tabular-nums; }}
  .chart .figures .ci, .chart .figures .quiet {{ fill: #6a6a6a; }}
  .chart .whisker {{ stroke: {INK}; stroke-width: 1.5; }}
  .chart .whisker.cut {{ fill: {INK}; stroke-width: 1; }}
  .chart .zero {{ stroke: #999; stroke-dasharray: 4 3; }}
  .chart .band {{ fill: {ACCENT}; fill-opacity: .16; }}
  .chart .mean {{ stroke: {ACCENT}; stroke-width: 2; }}
  .chart .note {{ font-size: 12px; fill: #555; }}
  .chart .ci-band {{ fill-opacity: .16; stroke: none; }}
  .chart .curve {{ fill: none; stroke-width: 2.5; stroke-linejoin: round; }}
  .chart .point {{ stroke: #fff; stroke-width: 1.5; }}
  .chart .target {{ stroke: {INK}; stroke-width: 1.2; stroke-dasharray: 6 4; }}
  .chart .bracket {{ fill: {ACCENT}; fill-opacity: .25; }}
  .chart .fair {{ fill: #009e73; fill-opacity: .10; stroke: #009e73; stroke-opacity: .5;
                 stroke-dasharray: 3 3; }}
  table.grid td.heat {{ min-width: 5.5em; }}
  table.grid .ci {{ display: block; font-size: 11px; color: #333; }}
  table.grid caption {{ caption-side: top; text-align: left; font-size: 12.5px; color: #555;
                       padding-bottom: 4px; }}
  .scale {{ display: inline-block; width: 160px; height: 10px; border-radius: 2px;
           vertical-align: middle; }}
  .chart .mark {{ font-size: 11px; fill: #666; }}
  .legend {{ display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 8px 0 0; font-size: 13px;
            color: #333; }}
  .legend > span {{ display: inline-flex; align-items: center; gap: 6px; }}
  .legend svg {{ flex: none; }}
  .table-box {{ overflow-x: auto; margin-top: 12px; }}
  table.figures {{ border-collapse: collapse; width: 100%; font-size: 13.5px;
                  font-variant-numeric: tabular-nums; }}
  table.figures th {{ text-align: left; font-size: 12px; font-weight: 600; color: #555;
                     border-bottom: 1.5px solid #bbb; padding: 4px 8px; white-space: nowrap; }}
  table.figures td {{ border-bottom: 1px solid #eee; padding: 4px 8px;
                     overflow-wrap: break-word; }}
  table.figures .r {{ text-align: right; white-space: nowrap; }}
  table.figures .ci {{ color: #666; }}
  .swatch {{ display: inline-block; width: 10px; height: 10px; border-radius: 50%;
            margin-right: 6px; vertical-align: baseline; }}
  table.grid {{ border-collapse: separate; border-spacing: 3px; font-size: 13px;
               font-variant-numeric: tabular-nums; }}
  table.grid th {{ font-size: 12.5px; font-weight: 600; padding: 4px 8px; text-align: right;
                  overflow-wrap: anywhere; max-width: 14em; }}
  table.grid thead th {{ text-align: center; vertical-align: bottom; }}
  table.grid td {{ text-align: center; padding: 6px 10px; border-radius: 4px; min-width: 7em; }}
  table.grid td.self {{ background: #f3f3f3; color: #aaa; }}
  table.grid .p {{ display: block; font-size: 11px; color: #444; }}
  .verdict {{ font-weight: 600; }}
  footer {{ margin-top: 18px; font-size: 12.5px; color: #666; overflow-wrap: anywhere; }}
  code {{ font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }}
  @media print {{
    body {{ background: #fff; }}
    main {{ padding: 0; }}
    section, .fact {{ break-inside: avoid; border-color: #ccc; }}
  }}
"""


def page(
    *,
    command: str,
    title: str,
    meta: str,
    facts: Sequence[tuple[str, str]],
    sections: Sequence[str],
    footer: str,
) -> str:
    """A whole report: ``title`` is user text (escaped here); ``meta``, the facts' values,
    the sections and the footer are HTML already."""
    cards = "".join(
        f'<div class="fact"><span class="value">{value}</span>'
        f'<span class="label">{esc(label)}</span></div>'
        for label, value in facts
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} · initiative {command}</title>
<style>{STYLE}</style>
</head>
<body>
{DEFS}
<main class="report" data-command="{command}">
<header>
<p class="kicker">initiative {command}</p>
<h1>{esc(title)}</h1>
<p class="meta">{meta}</p>
<div class="facts">{cards}</div>
</header>
{"".join(sections)}
<footer>{footer}</footer>
</main>
</body>
</html>
"""


def section(title: str, lede: str, *body: str, ident: str = "") -> str:
    """A card of the page: a heading, a sentence on how to read it (HTML), then its body."""
    attr = f' id="{ident}"' if ident else ""
    return (
        f'<section{attr}><h2>{esc(title)}</h2><p class="lede">{lede}</p>{"".join(body)}</section>'
    )


def table(
    headings: Sequence[str], rows: Sequence[Sequence[str]], right_from: int, ident: str = ""
) -> str:
    """A table of figures; the cells are HTML, the columns from ``right_from`` on are numbers
    (right-aligned)."""
    head = "".join(
        f'<th class="{"r" if i >= right_from else ""}">{esc(h)}</th>'
        for i, h in enumerate(headings)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"r" if i >= right_from else ""}">{c}</td>' for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    attr = f' id="{ident}"' if ident else ""
    return (
        f'<div class="table-box"><table class="figures"{attr}><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def swatch(colour: str) -> str:
    return f'<span class="swatch" style="background:{colour}"></span>'
