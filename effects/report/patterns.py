"""The report's pattern pages (``patterns-<family>.html``) and don't-care templates page (``templates.html``)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import duckdb
from matplotlib.figure import Figure

from gopat.effects.report.frame import CHART_COLOURS, card, chart, number, percent
from gopat.effects.report.options import ReportOptions
from gopat.effects.report.queries import Row, fetch, fetch_one
from gopat.transforms.patterns.render import pattern_svg


def _pattern_cards(family: str, rows: Sequence[Row]) -> str:
    cards = [
        card(pattern_svg(family, key), key, [
            ("occurrence", number(occurrence)), ("chosen", number(chosen)), ("chosen rate", percent(rate)),
            ("variants", number(orbit))])
        for key, occurrence, chosen, rate, orbit in rows
    ]
    return f'<div class="cards">{"".join(cards)}</div>' if cards else "<p>None.</p>"


def patterns_page(con: duckdb.DuckDBPyConnection, family: str, options: ReportOptions) -> str:
    """The body of ``patterns-<family>.html``: totals, the most played, the most urgent, and two charts."""
    params = {"family": family, "symmetry": options.symmetry}
    keys, occurrence, chosen = fetch_one(con, "report/pattern_totals", params)
    parts = [f"<p class=note>{number(keys)} canonical patterns under {options.symmetry} symmetries, "
             f"{number(occurrence)} occurrences (candidate points), {number(chosen)} chosen. A diagram shows the "
             "pattern in its canonical orientation: grey cells are off the board (the thick line is the edge), "
             "faint stubs lead to points outside the pattern, the red square marks the candidate point(s), a red "
             "ring the last move (d12), digits on stones their chain's liberties (capped at 3).</p>"]
    most = fetch(con, "report/patterns_most_played", {**params, "top": options.top})
    parts += [f"<h2>Most played ({len(most)})</h2>", _pattern_cards(family, most)]
    urgent = fetch(con, "report/patterns_highest_rate",
                   {**params, "min_occurrence": options.rate_min_occurrence, "top": options.top})
    floor = number(options.rate_min_occurrence)
    parts += [f"<h2>Highest chosen rate, occurrence at least {floor} ({len(urgent)})</h2>",
              _pattern_cards(family, urgent)]
    by_stones = fetch(con, "report/patterns_rate_by_stones", params)
    ranks = sorted({round(1.1 ** i) for i in range(400) if round(1.1 ** i) <= keys})
    ranked = fetch(con, "report/patterns_occurrence_by_rank", {**params, "ranks": ranks})
    if ranked:
        parts += ["<h2>Chosen rate by stones; occurrence by rank</h2>", _pattern_charts(family, by_stones, ranked)]
    return "".join(parts)


def _pattern_charts(family: str, by_stones: Sequence[Row], ranked: Sequence[Row]) -> str:
    """Chosen rate by stones in the pattern (left) and occurrence by rank on log-log axes (right)."""
    new = Figure(figsize=(10, 3.2))
    left, right = new.subplots(1, 2)
    left.bar([s for s, _ in by_stones], [r * 100 for _, r in by_stones], color=CHART_COLOURS[0])
    left.set_xlabel("stones in the pattern")
    left.set_ylabel("chosen rate (%)")
    right.loglog([r for r, _ in ranked], [n for _, n in ranked], color=CHART_COLOURS[1], marker=".", linewidth=1)
    right.set_xlabel("rank of the pattern")
    right.set_ylabel("occurrence")
    for axes in (left, right):
        axes.spines[["top", "right"]].set_visible(False)
    new.tight_layout()
    return chart(new, f"patterns-{family}")


def templates_page(con: duckdb.DuckDBPyConnection, options: ReportOptions) -> str:
    """The body of ``templates.html``: the most common templates of each family and symmetry."""
    parts = ["<p class=note>A template stands for every pattern it matches: <b>?</b> is any of empty, black and "
             "white, <b>x</b> black or empty, <b>o</b> white or empty (dashed purple circles). Occurrence and "
             "chosen are summed over the concrete patterns it covers.</p>"]
    groups = fetch(con, "report/template_groups")
    if not groups:
        parts.append("<p>This release has no don't-care templates.</p>")
    for family, symmetry, count, floor in groups:
        rows = fetch(con, "report/templates", {"family": family, "symmetry": symmetry, "top": options.templates})
        cards = [card(pattern_svg(family, t), t, [
            ("patterns covered", number(p)), ("occurrence", number(o)), ("chosen", number(c)),
            ("chosen rate", percent(r)), ("wildcards", number(w))]) for t, p, o, c, r, w in rows]
        parts.append(f"<h2>{escape(family)}, {symmetry} symmetries: the {len(rows)} most common of {number(count)} "
                     f"(patterns with occurrence at least {number(floor)})</h2>")
        parts.append(f'<div class="cards">{"".join(cards)}</div>')
    return "".join(parts)
