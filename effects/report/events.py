"""The report's pattern event pages (``moves-<family>.html``): the most played patterns of a `move_patterns` family,
their trend by year and the players who play them most (docs/releases.md#move_patterns)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import duckdb
from matplotlib.ticker import MaxNLocator

from gopat.effects.report.frame import CHART_COLOURS, card, chart, figure, number, percent, table
from gopat.effects.report.options import ReportOptions
from gopat.effects.report.queries import Row, fetch
from gopat.transforms.patterns.render import pattern_svg

TREND_PATTERNS = 6  # patterns drawn, charted and listed with their players
PLAYERS_PER_PATTERN = 3


def event_families(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The families with rows in the release's move_patterns (none for a release without the table)."""
    tables = {name for (name,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    if "move_patterns" not in tables:
        return []
    return [family for (family,) in con.execute("SELECT DISTINCT family FROM move_patterns ORDER BY family").fetchall()]


def events_page(con: duckdb.DuckDBPyConnection, family: str, options: ReportOptions) -> str:
    """The body of ``moves-<family>.html``: the most played patterns, their share of each year's moves, and their
    most frequent players."""
    params = {"family": family, "symmetry": options.symmetry}
    top = fetch(con, "report/move_patterns_top", {**params, "top": TREND_PATTERNS})
    keys = [key for key, *_ in top]
    parts = [f"<p class=note>Table <code>move_patterns</code>: one row per move that the family counts, with the "
             f"move's pattern under {options.symmetry} symmetries. The {len(top)} patterns played most, their share "
             "of each year's moves of the family, and the players who played each most (a player's win rate is over "
             "the decided games in which they played it).</p>"]
    cards = [
        card(pattern_svg(family, key), key, [
            ("rank", str(rank)), ("played", number(played)), ("games", number(games)),
            ("years", "-" if first is None else f"{first}-{last}")])
        for rank, (key, played, games, first, last) in enumerate(top, start=1)
    ]
    parts += [f"<h2>The {len(top)} most played patterns</h2>", f'<div class="cards">{"".join(cards)}</div>']
    trend = fetch(con, "report/move_patterns_trend", {**params, "keys": keys})
    if trend and keys:
        parts += ["<h2>Share of the year's moves</h2>", _trend_chart(family, keys, trend)]
    players = fetch(con, "report/move_patterns_players", {**params, "keys": keys, "per": PLAYERS_PER_PATTERN})
    rows = [(str(keys.index(key) + 1), escape(player), number(played), number(games), percent(rate))
            for key, player, played, games, rate in players]
    parts += ["<h2>Who plays them most</h2>",
              table(["pattern", "player", "played", "games", "win rate"], rows, [True, False, True, True, True])]
    return "".join(parts)


def _trend_chart(family: str, keys: Sequence[str], trend: Sequence[Row]) -> str:
    """Each pattern's share (per 1,000) of the family's moves per year, over the years with at least a tenth of the
    busiest year's moves (a handful of games is noise)."""
    moves = {year: total for year, _, _, total in trend}
    played = {(year, key): count for year, key, count, _ in trend if key is not None}
    busiest = max(moves.values())
    years = sorted(year for year, total in moves.items() if total >= busiest / 10)
    new, axes = figure(9, 3.4)
    for i, key in enumerate(keys):
        axes.plot(years, [1000 * played.get((year, key), 0) / moves[year] for year in years], marker=".",
                  linewidth=1.2, color=CHART_COLOURS[i % len(CHART_COLOURS)], label=f"#{i + 1} {key}")
    axes.yaxis.set_major_locator(MaxNLocator())
    axes.set_ylabel(f"per 1,000 {family} moves")
    axes.set_xlabel("year")
    axes.legend(fontsize=7, frameon=False, loc="upper left")
    return chart(new, f"moves-{family}-per-year")
