"""Static, offline HTML report of a release, built from its Parquet files with DuckDB.

Pages: ``index.html`` (corpus summary), ``patterns-<family>.html`` (top patterns as board
diagrams), ``templates.html`` (don't-care templates), ``fuseki.html`` (opening sequences on a
19x19 board, popularity per year) and ``openings.html`` (an opening-tree explorer). Every page is
one self-contained file: CSS inline, diagrams as inline SVG from :mod:`gopat.transforms.patterns.render`, charts
as inline SVG drawn by matplotlib; no script, font or stylesheet is fetched from anywhere. The
explorer needs no script either: each position is a section shown when the URL's fragment names
it (CSS ``:target``), so clicking a move is following a link.
"""

from __future__ import annotations

import heapq
import io
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

import duckdb
import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from gopat.effects.warehouse.layout import Layout, current_version, read_manifest
from gopat.transforms.games.render import Mark, board_svg, point_name, position_stones, sequence_stones, sgf_point
from gopat.transforms.patterns.render import pattern_svg

_MARK_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_LONGEST_BIN = 400  # game-length histogram: longer games go into the last bin
_CHART_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")

_CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;margin:0;color:#222;background:#faf8f3}
nav{background:#2b2118;padding:.6em 1.2em}nav a{color:#f3e2bd;margin-right:1.2em;text-decoration:none}
nav a.here{color:#fff;font-weight:bold}
main{max-width:1180px;margin:0 auto;padding:1em 1.2em}h1{font-size:1.6em}h2{margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0}td,th{border-bottom:1px solid #ddd;padding:.25em .7em;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;flex-wrap:wrap;gap:14px}
.card{background:#fff;border:1px solid #e2dccf;border-radius:6px;padding:8px;display:flex;flex-direction:column;
align-items:center}
.card dl{display:grid;grid-template-columns:auto auto;gap:0 .6em;margin:.4em 0 0;font-size:.85em}
.card dt{color:#666}.card dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
code,.key{font-family:"DejaVu Sans Mono",monospace;font-size:.78em;word-break:break-all;max-width:260px}
.chart{max-width:100%;height:auto}.note{color:#555;font-size:.9em;max-width:60em}
.node{display:none}.node:target{display:block}main:not(:has(.node:target)) #n0{display:block}
.explorer{display:flex;gap:20px;flex-wrap:wrap;align-items:flex-start}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(500px,1fr));gap:0 28px}.grid .wide{grid-column:1/-1}
.panel h2{margin-top:.9em}
footer{color:#777;font-size:.8em;padding:1em 1.2em}
"""


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """How much each page shows.

    ``top``: pattern cards per section; ``rate_min_occurrence``: the floor for the "highest chosen
    rate" section; ``templates``: cards per family and symmetry; ``fuseki``: opening sequences
    drawn, ``fuseki_chart``: lines in the popularity chart; ``explorer_nodes`` /
    ``explorer_min_games``: positions in the explorer (the most played first, each reachable
    from the empty board); ``symmetry``: 8 or 16 for the pattern pages.
    """

    top: int = 24
    rate_min_occurrence: int = 1000
    templates: int = 12
    fuseki: int = 12
    fuseki_chart: int = 6
    explorer_nodes: int = 400
    explorer_min_games: int = 2
    symmetry: int = 8

    def __post_init__(self) -> None:
        for name in ("top", "rate_min_occurrence", "templates", "fuseki", "fuseki_chart", "explorer_nodes",
                     "explorer_min_games"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if self.symmetry not in (8, 16):
            raise ValueError(f"symmetry must be 8 or 16, got {self.symmetry!r}")


def release_tables(warehouse: Path, release: str | None = None) -> tuple[duckdb.DuckDBPyConnection, dict]:
    """An in-memory DuckDB with one view per Parquet table of a release, and its manifest."""
    layout = Layout(Path(warehouse))
    version = release or current_version(layout)
    if version is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    manifest = read_manifest(layout, version)
    con = duckdb.connect()
    for parquet in sorted(layout.release_dir(version).glob("*.parquet")):
        path = str(parquet.resolve()).replace("'", "''")
        con.execute(f'CREATE VIEW "{parquet.stem}" AS SELECT * FROM read_parquet(\'{path}\')')
    return con, manifest


def build_report(
    warehouse: Path, output: Path, *, release: str | None = None, options: ReportOptions | None = None
) -> list[Path]:
    """Write the report of a release (default: the current one) into ``output``; returns the pages."""
    options = options or ReportOptions()
    con, manifest = release_tables(warehouse, release)
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    families = [row[0] for row in con.execute(
        "SELECT DISTINCT family FROM pattern_stats WHERE symmetry = ? ORDER BY family", [options.symmetry]).fetchall()]
    nav = [("index.html", "Summary")] + [(f"patterns-{f}.html", f) for f in families] + [
        ("templates.html", "Templates"), ("fuseki.html", "Fuseki"), ("openings.html", "Opening explorer")]
    pages = {"index.html": ("Release summary", _index(con, manifest, families, options))}
    for family in families:
        pages[f"patterns-{family}.html"] = (f"Patterns: {family}", _patterns_page(con, family, options))
    pages["templates.html"] = ("Don't-care templates", _templates_page(con, options))
    pages["fuseki.html"] = ("Fuseki", _fuseki_page(con, options))
    pages["openings.html"] = ("Opening explorer", _openings_page(con, options))
    written = []
    for name, (title, body) in pages.items():
        path = output / name
        path.write_text(_page(title, body, name, nav, manifest), encoding="utf-8")
        written.append(path)
    return written


# ---------------------------------------------------------------------------------------------
# Page frame, tables and charts.


def _page(title: str, body: str, name: str, nav: Sequence[tuple[str, str]], manifest: dict) -> str:
    links = "".join(f'<a href="{href}"{" class=here" if href == name else ""}>{escape(label)}</a>'
                    for href, label in nav)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{escape(title)} - gopat {escape(manifest["version"])}</title>'
        f"<style>{_CSS}</style></head><body><nav>{links}</nav><main><h1>{escape(title)}</h1>{body}</main>"
        f'<footer>Release {escape(manifest["version"])}, created {escape(manifest["created"])}, code '
        f'{escape(manifest["code_version"])}; made by <code>gopat report</code>.</footer></body></html>\n'
    )


def _number(value: float | int | None) -> str:
    return "-" if value is None else f"{int(value):,}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], numeric: Sequence[bool]) -> str:
    head = "".join(f'<th{" class=n" if n else ""}>{escape(h)}</th>' for h, n in zip(headers, numeric))
    body = "".join(
        "<tr>" + "".join(f'<td{" class=n" if n else ""}>{cell}</td>' for cell, n in zip(row, numeric)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _card(diagram: str, caption: str, facts: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    return f'<div class="card">{diagram}<div class="key">{escape(caption)}</div><dl>{items}</dl></div>'


def _chart(figure: Figure, name: str) -> str:
    """A matplotlib figure as inline SVG (class ``chart``), text kept as text, ids salted by ``name``."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    return svg.replace("<svg ", f'<svg class="chart" data-chart="{escape(name)}" ', 1)


def _figure(width: float = 8.0, height: float = 3.0, *, counts: str = "y") -> tuple[Figure, Axes]:
    """A figure with one plot whose ``counts`` axis ('x' or 'y') has a grid and integer ticks."""
    figure = Figure(figsize=(width, height))
    axes = figure.add_subplot()
    axes.spines[["top", "right"]].set_visible(False)
    axes.grid(axis=counts, color="#ddd", linewidth=0.6)
    axes.set_axisbelow(True)
    (axes.xaxis if counts == "x" else axes.yaxis).set_major_locator(MaxNLocator(integer=True))
    return figure, axes


# ---------------------------------------------------------------------------------------------
# Pages.


def _panel(title: str, content: str, *, wide: bool = False) -> str:
    return f'<section class="panel{" wide" if wide else ""}"><h2>{escape(title)}</h2>{content}</section>'


def _index(con: duckdb.DuckDBPyConnection, manifest: dict, families: list[str], options: ReportOptions) -> str:
    panels = _corpus_panels(con, manifest) + _game_charts(con)
    rows = con.execute("""
        SELECT family, count(*), sum(occurrence), sum(chosen) FROM pattern_stats WHERE symmetry = ?
        GROUP BY family ORDER BY family
    """, [options.symmetry]).fetchall()
    panels.append(_panel(f"Pattern families ({options.symmetry} symmetries)", _table(
        ["family", "canonical patterns", "occurrence", "chosen", "chosen rate"],
        [(f'<a href="patterns-{escape(f)}.html">{escape(f)}</a>', _number(k), _number(o), _number(c),
          _percent(c / o if o else None)) for f, k, o, c in rows],
        [False, True, True, True, True]) + '<p>Also: <a href="templates.html">don\'t-care templates</a>, '
        '<a href="fuseki.html">fuseki</a>, <a href="openings.html">opening explorer</a>.</p>', wide=True))
    top = [con.execute(
        "SELECT key, occurrence, chosen, chosen_rate FROM pattern_stats WHERE family = ? AND symmetry = ? "
        "ORDER BY chosen DESC, key LIMIT 1", [family, options.symmetry]).fetchone() for family in families]
    cards = [_card(pattern_svg(family, key), f"{family}: {key}", [
        ("occurrence", _number(occurrence)), ("chosen", _number(chosen)), ("chosen rate", _percent(rate))])
        for family, (key, occurrence, chosen, rate) in zip(families, top)]
    panels.append(_panel("The most played pattern of each family", f'<div class="cards">{"".join(cards)}</div>',
                         wide=True))
    return f'<div class="grid">{"".join(panels)}</div>'


def _corpus_panels(con: duckdb.DuckDBPyConnection, manifest: dict) -> list[str]:
    """The release and its ingest equation; games and rejects per source; rejects by reason."""
    ingest = manifest.get("ingest", {})
    games, moves, with_year = con.execute(
        "SELECT count(*), coalesce(sum(move_count), 0), count(year) FROM games").fetchone()
    facts = [
        ("release", escape(manifest["version"])), ("created", escape(manifest["created"])),
        ("code version", escape(manifest["code_version"])),
        ("files in", _number(ingest.get("files_in"))), ("files ingested", _number(ingest.get("files_ingested"))),
        ("files rejected", _number(ingest.get("files_rejected"))), ("games", _number(games)),
        ("duplicate games dropped", _number(ingest.get("duplicates"))), ("moves", _number(moves)),
        ("games with a year", _number(with_year)),
    ]
    sources = con.execute("""
        SELECT s.source, s.sha256, coalesce(g.games, 0), coalesce(r.rejects, 0)
        FROM (SELECT unnest(?::STRUCT(source VARCHAR, sha256 VARCHAR)[], recursive := true)) AS s
        LEFT JOIN (SELECT source_sha256, count(*) AS games FROM games GROUP BY ALL) AS g ON g.source_sha256 = s.sha256
        LEFT JOIN (SELECT source_sha256, count(*) AS rejects FROM rejects GROUP BY ALL) AS r
            ON r.source_sha256 = s.sha256
        ORDER BY s.source
    """, [[{"source": s["source"], "sha256": s["sha256"]} for s in manifest.get("sources", [])]]).fetchall()
    source_table = _table(
        ["source", "sha256", "games", "rejects"],
        [(escape(s), f"<code>{escape(h[:16])}</code>", _number(g), _number(r)) for s, h, g, r in sources],
        [False, False, True, True])
    reasons = con.execute(
        "SELECT reason, count(*), min(message) FROM rejects GROUP BY reason ORDER BY count(*) DESC, reason").fetchall()
    if reasons:
        figure, axes = _figure(7, 0.6 + 0.3 * len(reasons), counts="x")
        axes.barh([r for r, _, _ in reasons][::-1], [n for _, n, _ in reasons][::-1], color=_CHART_COLOURS[1])
        axes.set_xlabel("rejected files, members or sources")
        rejected = _chart(figure, "rejects-by-reason") + _table(
            ["reason", "count", "example message"],
            [(f"<code>{escape(r)}</code>", _number(n), escape(m)) for r, n, m in reasons], [False, True, False])
    else:
        rejected = "<p>No file was rejected.</p>"
    return [_panel("Corpus", _table(["", ""], facts, [False, True])),
            f'<div>{_panel("Sources", source_table)}{_panel("Rejects by reason", rejected)}</div>']


def _game_charts(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Charts of games per year and of game length."""
    years = con.execute(
        "SELECT year, count(*) FROM games WHERE year IS NOT NULL GROUP BY year ORDER BY year").fetchall()
    if years:
        figure, axes = _figure()
        axes.bar([y for y, _ in years], [n for _, n in years], color=_CHART_COLOURS[0], width=0.8)
        axes.set_xlabel("year (DT)")
        axes.set_ylabel("games")
        per_year = _chart(figure, "games-per-year")
    else:
        per_year = "<p>No game has a year.</p>"
    panels = [_panel("Games per year", per_year)]
    lengths = [n for (n,) in con.execute("SELECT move_count FROM games").fetchall()]
    if lengths:
        cap = min(max(lengths), _LONGEST_BIN)
        figure, axes = _figure()
        axes.hist([min(n, cap) for n in lengths], bins=range(0, cap + 11, 10), color=_CHART_COLOURS[2])
        axes.set_xlabel(f"moves in the main line (10-move bins; longer than {cap} in the last)"
                        if max(lengths) > cap else "moves in the main line (10-move bins)")
        axes.set_ylabel("games")
        panels.append(_panel("Game length", _chart(figure, "game-length")))
    return panels


def _pattern_cards(family: str, rows: Sequence[tuple]) -> str:
    cards = [
        _card(pattern_svg(family, key), key, [
            ("occurrence", _number(occurrence)), ("chosen", _number(chosen)), ("chosen rate", _percent(rate)),
            ("variants", _number(orbit))])
        for key, occurrence, chosen, rate, orbit in rows
    ]
    return f'<div class="cards">{"".join(cards)}</div>' if cards else "<p>None.</p>"


def _patterns_page(con: duckdb.DuckDBPyConnection, family: str, options: ReportOptions) -> str:
    where = "family = ? AND symmetry = ?"
    params = [family, options.symmetry]
    keys, occurrence, chosen = con.execute(
        f"SELECT count(*), sum(occurrence), sum(chosen) FROM pattern_stats WHERE {where}", params).fetchone()
    parts = [f"<p class=note>{_number(keys)} canonical patterns under {options.symmetry} symmetries, "
             f"{_number(occurrence)} occurrences (candidate points), {_number(chosen)} chosen. A diagram shows the "
             "pattern in its canonical orientation: grey cells are off the board (the thick line is the edge), "
             "faint stubs lead to points outside the pattern, the red square marks the candidate point(s), a red "
             "ring the last move (d12), digits on stones their chain's liberties (capped at 3).</p>"]
    columns = "key, occurrence, chosen, chosen_rate, orbit_size"
    most = con.execute(f"SELECT {columns} FROM pattern_stats WHERE {where} ORDER BY chosen DESC, key LIMIT ?",
                       [*params, options.top]).fetchall()
    parts += [f"<h2>Most played ({len(most)})</h2>", _pattern_cards(family, most)]
    urgent = con.execute(
        f"SELECT {columns} FROM pattern_stats WHERE {where} AND occurrence >= ? "
        "ORDER BY chosen_rate DESC, occurrence DESC, key LIMIT ?", [*params, options.rate_min_occurrence, options.top],
    ).fetchall()
    floor = _number(options.rate_min_occurrence)
    parts += [f"<h2>Highest chosen rate, occurrence at least {floor} ({len(urgent)})</h2>",
              _pattern_cards(family, urgent)]
    by_stones = con.execute(
        f"SELECT stones, sum(chosen) / sum(occurrence) FROM pattern_stats WHERE {where} "
        "GROUP BY stones ORDER BY stones", params).fetchall()
    ranks = sorted({round(1.1 ** i) for i in range(400) if round(1.1 ** i) <= keys})
    ranked = con.execute(f"""
        SELECT rank, occurrence FROM (
            SELECT row_number() OVER (ORDER BY occurrence DESC) AS rank, occurrence FROM pattern_stats WHERE {where})
        WHERE rank IN (SELECT unnest(?::BIGINT[])) ORDER BY rank
    """, [*params, ranks]).fetchall()
    if ranked:
        figure = Figure(figsize=(10, 3.2))
        left, right = figure.subplots(1, 2)
        left.bar([s for s, _ in by_stones], [r * 100 for _, r in by_stones], color=_CHART_COLOURS[0])
        left.set_xlabel("stones in the pattern")
        left.set_ylabel("chosen rate (%)")
        right.loglog([r for r, _ in ranked], [n for _, n in ranked], color=_CHART_COLOURS[1], marker=".", linewidth=1)
        right.set_xlabel("rank of the pattern")
        right.set_ylabel("occurrence")
        for axes in (left, right):
            axes.spines[["top", "right"]].set_visible(False)
        figure.tight_layout()
        parts += ["<h2>Chosen rate by stones; occurrence by rank</h2>", _chart(figure, f"patterns-{family}")]
    return "".join(parts)


def _templates_page(con: duckdb.DuckDBPyConnection, options: ReportOptions) -> str:
    parts = ["<p class=note>A template stands for every pattern it matches: <b>?</b> is any of empty, black and "
             "white, <b>x</b> black or empty, <b>o</b> white or empty (dashed purple circles). Occurrence and "
             "chosen are summed over the concrete patterns it covers.</p>"]
    groups = con.execute(
        "SELECT family, symmetry, count(*), any_value(min_occurrence) FROM dont_care_templates "
        "GROUP BY family, symmetry ORDER BY family, symmetry").fetchall()
    if not groups:
        parts.append("<p>This release has no don't-care templates.</p>")
    for family, symmetry, count, floor in groups:
        rows = con.execute(
            "SELECT template, patterns, occurrence, chosen, chosen_rate, wildcards FROM dont_care_templates "
            "WHERE family = ? AND symmetry = ? ORDER BY occurrence DESC, template LIMIT ?",
            [family, symmetry, options.templates]).fetchall()
        cards = [_card(pattern_svg(family, t), t, [
            ("patterns covered", _number(p)), ("occurrence", _number(o)), ("chosen", _number(c)),
            ("chosen rate", _percent(r)), ("wildcards", _number(w))]) for t, p, o, c, r, w in rows]
        parts.append(f"<h2>{escape(family)}, {symmetry} symmetries: the {len(rows)} most common of {_number(count)} "
                     f"(patterns with occurrence at least {_number(floor)})</h2>")
        parts.append(f'<div class="cards">{"".join(cards)}</div>')
    return "".join(parts)


def _fuseki_page(con: duckdb.DuckDBPyConnection, options: ReportOptions) -> str:
    rows = con.execute("""
        SELECT key, sgf, games, first_year, last_year, black_win_rate, results_known, moves, year_counts
        FROM fuseki WHERE kind = 'sequence' ORDER BY games DESC, key LIMIT ?
    """, [options.fuseki]).fetchall()
    if not rows:
        return "<p>This release has no opening games.</p>"
    per_year = dict(con.execute("""
        SELECT year, sum(games) FROM (
            SELECT unnest(year_counts, recursive := true) FROM fuseki WHERE kind = 'sequence')
        GROUP BY year ORDER BY year
    """).fetchall())
    total = con.execute("SELECT sum(games) FROM fuseki WHERE kind = 'sequence'").fetchone()[0]
    parts = [f"<p class=note>The first {rows[0][7]} moves of {_number(total)} opening games (19x19, no handicap), "
             "equal up to the 8 symmetries of the board, drawn in the canonical orientation with move numbers. "
             "Black's win rate counts a draw as half.</p>"]
    if per_year:
        figure, axes = _figure(9, 3.4)
        busiest = max(per_year.values())
        years = sorted(y for y, n in per_year.items() if n >= busiest / 10)  # a handful of games is noise
        for i, (key, *_, year_counts) in enumerate(rows[:options.fuseki_chart]):
            counts = {entry["year"]: entry["games"] for entry in year_counts}
            axes.plot(years, [100 * counts.get(y, 0) / per_year[y] for y in years], marker=".", linewidth=1.2,
                      color=_CHART_COLOURS[i % len(_CHART_COLOURS)], label=f"#{i + 1} {key[:17]}...")
        axes.yaxis.set_major_locator(MaxNLocator())
        axes.set_ylabel("share of the year's opening games (%)")
        axes.set_xlabel("year")
        axes.legend(fontsize=7, frameon=False, loc="upper left")
        parts += [f"<h2>Popularity per year of the top {min(len(rows), options.fuseki_chart)}</h2>",
                  _chart(figure, "fuseki-per-year")]
    cards = []
    for rank, (key, sgf, games, first, last, rate, known, _, _) in enumerate(rows, start=1):
        stones, labels = sequence_stones(key)
        span = "-" if first is None else str(first) if first == last else f"{first}-{last}"
        cards.append(_card(board_svg(19, stones, labels=labels, cell=16, title=f"fuseki #{rank}: {key}"), sgf, [
            ("rank", str(rank)), ("games", _number(games)), ("years", span),
            ("Black wins", f"{_percent(rate)} of {_number(known)}")]))
    parts += [f"<h2>The {len(rows)} most played sequences</h2>", f'<div class="cards">{"".join(cards)}</div>']
    return "".join(parts)


def _explorer_nodes(edges: Sequence[tuple], options: ReportOptions) -> dict[tuple[int, str], int]:
    """Positions shown in the explorer: the most played first, each reached from an already shown one."""
    children: dict[tuple[int, str], list[tuple[int, str]]] = {}
    games: dict[tuple[int, str], int] = {}
    for depth, node, _, _, child, _, node_games, *_ in edges:
        children.setdefault((depth, node), []).append((depth + 1, child))
        games[(depth, node)] = node_games
    root = (0, "B:|W:")
    if root not in games:
        return {}
    chosen: dict[tuple[int, str], int] = {}
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


def _openings_page(con: duckdb.DuckDBPyConnection, options: ReportOptions) -> str:
    edges = con.execute("""
        SELECT depth, node, move, colour, child, games, node_games, share, black_win_rate, results_known
        FROM opening_tree WHERE node_games >= ? OR depth = 0
        ORDER BY depth, node_games DESC, node, games DESC, move
    """, [options.explorer_min_games]).fetchall()
    shown = _explorer_nodes(edges, options)
    if not shown:
        return "<p>This release has no opening games.</p>"
    by_node: dict[tuple[int, str], list[tuple]] = {}
    parents: dict[tuple[int, str], list[str]] = {}
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
             "the browser's back button goes back.</p>"]
    for node, index in shown.items():
        depth, position = node
        node_edges = by_node.get(node, [])
        marks, rows = [], []
        for i, (_, _, move, colour, child, games, _, share, rate, known) in enumerate(node_edges):
            row, col = sgf_point(move)
            letter = _MARK_LETTERS[i] if i < len(_MARK_LETTERS) else ""
            target = shown.get((depth + 1, child))
            href = None if target is None else f"#n{target}"
            tip = f"{colour} {point_name(row, col)}: {games} games, Black wins {_percent(rate)}"
            if letter:
                marks.append(Mark(row, col, letter, href=href, tooltip=tip))
            name = f"{colour} {point_name(row, col)}"
            rows.append((letter, f'<a href="{href}">{name}</a>' if href else name, _number(games), _percent(share),
                         f"{_percent(rate)} of {_number(known)}"))
        node_games = node_edges[0][6] if node_edges else 0
        back = "; ".join(parents.get(node, []))
        board = board_svg(19, position_stones(position), marks=marks, cell=20,
                          title=f"after {depth} moves: {position}")
        table = _table(["", "move", "games", "share", "Black wins"], rows, [False, False, True, True, True])
        heading = "Empty board" if depth == 0 else f"After {depth} moves"
        parts.append(
            f'<section class="node" id="n{index}" data-depth="{depth}" data-node="{escape(position)}">'
            f'<h2>{heading}: {_number(node_games)} games</h2>'
            f'<p>{"Reached from " + back if back else ""}</p><div class="explorer">{board}{table}</div></section>'
        )
    return "".join(parts)


def report_summary(pages: Sequence[Path]) -> str:
    """One line per written page with its size, for the CLI."""
    return "\n".join(f"{page} ({page.stat().st_size:,} bytes)" for page in pages)

