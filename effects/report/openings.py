"""The report's opening pages: ``fuseki.html`` (the most played sequences and their popularity per year) and
``openings.html`` (the opening-tree explorer, one section per position shown through CSS ``:target``)."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape

import duckdb
from matplotlib.ticker import MaxNLocator

from gopat.effects.report.frame import CHART_COLOURS, card, chart, figure, number, percent, table
from gopat.effects.report.options import ReportOptions
from gopat.effects.report.queries import Row, fetch, fetch_one
from gopat.transforms.games.render import Mark, board_svg, point_name, position_stones, sequence_stones, sgf_point

_MARK_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
Node = tuple[int, str]  # (depth, canonical position)


def fuseki_page(con: duckdb.DuckDBPyConnection, options: ReportOptions) -> str:
    """The body of ``fuseki.html``."""
    rows = fetch(con, "report/fuseki_sequences", {"top": options.fuseki})
    if not rows:
        return "<p>This release has no opening games.</p>"
    per_year: dict[int, int] = {year: games for year, games in fetch(con, "report/fuseki_games_per_year")}
    total = fetch_one(con, "report/fuseki_games")[0]
    parts = [f"<p class=note>The first {rows[0][7]} moves of {number(total)} opening games (19x19, no handicap), "
             "equal up to the 8 symmetries of the board, drawn in the canonical orientation with move numbers. "
             "Black's win rate counts a draw as half.</p>"]
    if per_year:
        parts += [f"<h2>Popularity per year of the top {min(len(rows), options.fuseki_chart)}</h2>",
                  _popularity_chart(rows[:options.fuseki_chart], per_year)]
    cards = []
    for rank, (key, sgf, games, first, last, rate, known, _, _) in enumerate(rows, start=1):
        stones, labels = sequence_stones(key)
        span = "-" if first is None else str(first) if first == last else f"{first}-{last}"
        cards.append(card(board_svg(19, stones, labels=labels, cell=16, title=f"fuseki #{rank}: {key}"), sgf, [
            ("rank", str(rank)), ("games", number(games)), ("years", span),
            ("Black wins", f"{percent(rate)} of {number(known)}")]))
    parts += [f"<h2>The {len(rows)} most played sequences</h2>", f'<div class="cards">{"".join(cards)}</div>']
    return "".join(parts)


def _popularity_chart(rows: Sequence[Row], per_year: dict[int, int]) -> str:
    """Each sequence's share of the year's opening games, over the years with at least a tenth of the busiest."""
    new, axes = figure(9, 3.4)
    busiest = max(per_year.values())
    years = sorted(y for y, n in per_year.items() if n >= busiest / 10)  # a handful of games is noise
    for i, (key, *_, year_counts) in enumerate(rows):
        counts = {entry["year"]: entry["games"] for entry in year_counts}
        axes.plot(years, [100 * counts.get(y, 0) / per_year[y] for y in years], marker=".", linewidth=1.2,
                  color=CHART_COLOURS[i % len(CHART_COLOURS)], label=f"#{i + 1} {key[:17]}...")
    axes.yaxis.set_major_locator(MaxNLocator())
    axes.set_ylabel("share of the year's opening games (%)")
    axes.set_xlabel("year")
    axes.legend(fontsize=7, frameon=False, loc="upper left")
    return chart(new, "fuseki-per-year")


def _explorer_nodes(edges: Sequence[Row], options: ReportOptions) -> dict[Node, int]:
    """Positions shown in the explorer: the most played first, each reached from an already shown one."""
    children: dict[Node, list[Node]] = {}
    games: dict[Node, int] = {}
    for depth, node, _, _, child, _, node_games, *_ in edges:
        children.setdefault((depth, node), []).append((depth + 1, child))
        games[(depth, node)] = node_games
    root = (0, "B:|W:")
    if root not in games:
        return {}
    chosen: dict[Node, int] = {}
    queue = [(-games[root], root)]
    while queue and len(chosen) < options.explorer_nodes:
        _, node = heapq.heappop(queue)
        if node in chosen:
            continue
        chosen[node] = len(chosen)
        for child in children.get(node, []):
            if child not in chosen and games.get(child, 0) >= options.explorer_min_games:
                heapq.heappush(queue, (-games[child], child))
    return chosen


def openings_page(con: duckdb.DuckDBPyConnection, options: ReportOptions) -> str:
    """The body of ``openings.html``: one section per shown position, its moves as board letters and a table."""
    edges = fetch(con, "report/opening_edges", {"min_games": options.explorer_min_games})
    shown = _explorer_nodes(edges, options)
    if not shown:
        return "<p>This release has no opening games.</p>"
    by_node: dict[Node, list[Row]] = {}
    parents: dict[Node, list[str]] = {}
    for edge in edges:
        node, child = (edge[0], edge[1]), (edge[0] + 1, edge[4])
        if node in shown:
            by_node.setdefault(node, []).append(edge)
            if child in shown:
                row, col = sgf_point(edge[2])
                source = "the empty board" if node[0] == 0 else f"a position after {node[0]} moves"
                parents.setdefault(child, []).append(
                    f'<a href="#n{shown[node]}">{source}</a> by {edge[3]} {point_name(row, col)}')
    parts = [f"<p class=note>Start from the empty board and click a move (a letter on the board or a row of the "
             f"table) to see its continuations with their counts and Black's win rate. Positions are equal up to "
             f"the 8 symmetries and each is drawn in its canonical orientation, so the board may turn between "
             f"steps. {len(shown)} positions reached by at least {options.explorer_min_games} games are linked; "
             "the browser's back button goes back. Each move's line is its share of the position's games per year "
             "(the years with at least a tenth of the busiest year's games; hover for the figures).</p>"]
    parts += [_node_section(node, index, by_node.get(node, []), shown, "; ".join(parents.get(node, [])))
              for node, index in shown.items()]
    return "".join(parts)


def _node_section(node: Node, index: int, node_edges: Sequence[Row], shown: dict[Node, int], back: str) -> str:
    """The section ``#n<index>`` of one position: the board with a letter per move, and the moves' table."""
    depth, position = node
    marks, rows = [], []
    years = _node_years(node_edges)
    shares = [_move_shares(edge[10], years) for edge in node_edges]
    top = max((share for row in shares for share in row.values()), default=0.0)
    for i, (_, _, move, colour, child, games, _, share, rate, known, _) in enumerate(node_edges):
        row, col = sgf_point(move)
        letter = _MARK_LETTERS[i] if i < len(_MARK_LETTERS) else ""
        target = shown.get((depth + 1, child))
        href = None if target is None else f"#n{target}"
        tip = f"{colour} {point_name(row, col)}: {games} games, Black wins {percent(rate)}"
        if letter:
            marks.append(Mark(row, col, letter, href=href, tooltip=tip))
        name = f"{colour} {point_name(row, col)}"
        rows.append((letter, f'<a href="{href}">{name}</a>' if href else name, number(games), percent(share),
                     f"{percent(rate)} of {number(known)}", _sparkline(shares[i], years, top=top, name=name)))
    node_games = node_edges[0][6] if node_edges else 0
    board = board_svg(19, position_stones(position), marks=marks, cell=20, title=f"after {depth} moves: {position}")
    span = f", {min(years)}-{max(years)}" if len(years) > 1 else ""
    moves = table(["", "move", "games", "share", "Black wins", f"share per year{span}"], rows,
                  [False, False, True, True, True, False])
    heading = "Empty board" if depth == 0 else f"After {depth} moves"
    return (
        f'<section class="node" id="n{index}" data-depth="{depth}" data-node="{escape(position)}">'
        f'<h2>{heading}: {number(node_games)} games</h2>'
        f'<p>{"Reached from " + back if back else ""}</p><div class="explorer">{board}{moves}</div></section>'
    )


def _node_years(node_edges: Sequence[Row]) -> dict[int, int]:
    """A position's games per year (summed over its moves' ``year_counts``), keeping the years with at least a
    tenth of its busiest year's games: a handful of games is noise."""
    totals: Counter[int] = Counter()
    for edge in node_edges:
        totals.update({entry["year"]: entry["games"] for entry in edge[10]})
    busiest = max(totals.values(), default=0)
    return {year: games for year, games in sorted(totals.items()) if games >= busiest / 10}


def _move_shares(year_counts: Sequence[Mapping[str, int]], years: Mapping[int, int]) -> dict[int, float]:
    """A move's share of its position's games in each of ``years`` (position games per year)."""
    counts = {entry["year"]: entry["games"] for entry in year_counts}
    return {year: counts.get(year, 0) / games for year, games in years.items()}


def _sparkline(shares: Mapping[int, float], years: Mapping[int, int], *, top: float, name: str) -> str:
    """A small inline SVG line of ``shares`` by year (0 to ``top`` high), its figures in the tooltip."""
    if len(shares) < 2 or top <= 0:
        return "-"
    first, last = min(shares), max(shares)
    width, height = 120, 22
    points = " ".join(f"{(year - first) / (last - first) * width:.1f},{height - share / top * height:.1f}"
                      for year, share in shares.items())
    tip = "; ".join(f"{year}: {percent(share)} of {number(years[year])}" for year, share in shares.items())
    return (f'<svg class="trend" width="{width}" height="{height}" viewBox="-2 -2 {width + 4} {height + 4}">'
            f"<title>{escape(name)}, share of the position's games: {tip}</title>"
            f'<polyline points="{points}" fill="none" stroke="{CHART_COLOURS[0]}" stroke-width="1.5"/></svg>')
