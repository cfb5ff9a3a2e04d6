"""The report's summary page (``index.html``): the corpus, sources, rejects, games and pattern families."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

import duckdb

from gopat.effects.report.frame import CHART_COLOURS, card, chart, figure, number, panel, percent, table
from gopat.effects.report.options import ReportOptions
from gopat.effects.report.queries import fetch, fetch_one
from gopat.transforms.patterns.render import pattern_svg

_LONGEST_BIN = 400  # game-length histogram: longer games go into the last bin


def index_page(con: duckdb.DuckDBPyConnection, manifest: Mapping[str, Any], families: list[str],
               options: ReportOptions) -> str:
    """The body of ``index.html``."""
    panels = _corpus_panels(con, manifest) + _game_charts(con)
    rows = fetch(con, "report/family_totals", {"symmetry": options.symmetry})
    panels.append(panel(f"Pattern families ({options.symmetry} symmetries)", table(
        ["family", "canonical patterns", "occurrence", "chosen", "chosen rate"],
        [(f'<a href="patterns-{escape(f)}.html">{escape(f)}</a>', number(k), number(o), number(c),
          percent(c / o if o else None)) for f, k, o, c in rows],
        [False, True, True, True, True]) + '<p>Also: <a href="templates.html">don\'t-care templates</a>, '
        '<a href="fuseki.html">fuseki</a>, <a href="openings.html">opening explorer</a>.</p>', wide=True))
    top = [fetch_one(con, "report/family_top", {"family": family, "symmetry": options.symmetry}) for family in families]
    cards = [card(pattern_svg(family, key), f"{family}: {key}", [
        ("occurrence", number(occurrence)), ("chosen", number(chosen)), ("chosen rate", percent(rate))])
        for family, (key, occurrence, chosen, rate) in zip(families, top, strict=True)]
    panels.append(panel("The most played pattern of each family", f'<div class="cards">{"".join(cards)}</div>',
                        wide=True))
    return f'<div class="grid">{"".join(panels)}</div>'


def _corpus_panels(con: duckdb.DuckDBPyConnection, manifest: Mapping[str, Any]) -> list[str]:
    """The release and its ingest equation (docs/releases.md#manifest); games and rejects per source; rejects by
    reason."""
    ingest = manifest.get("ingest", {})
    games, moves, with_year = fetch_one(con, "report/corpus_totals")
    facts = [
        ("release", escape(manifest["version"])), ("created", escape(manifest["created"])),
        ("code version", escape(manifest["code_version"])),
        ("files in", number(ingest.get("files_in"))), ("files ingested", number(ingest.get("files_ingested"))),
        ("files rejected", number(ingest.get("files_rejected"))), ("games", number(games)),
        ("duplicate games dropped", number(ingest.get("duplicates"))), ("moves", number(moves)),
        ("games with a year", number(with_year)),
    ]
    sources = fetch(con, "report/sources", {
        "sources": [{"source": s["source"], "sha256": s["sha256"]} for s in manifest.get("sources", [])]})
    source_table = table(
        ["source", "sha256", "games", "rejects"],
        [(escape(s), f"<code>{escape(h[:16])}</code>", number(g), number(r)) for s, h, g, r in sources],
        [False, False, True, True])
    reasons = fetch(con, "report/reject_reasons")
    if reasons:
        new, axes = figure(7, 0.6 + 0.3 * len(reasons), counts="x")
        axes.barh([r for r, _, _ in reasons][::-1], [n for _, n, _ in reasons][::-1], color=CHART_COLOURS[1])
        axes.set_xlabel("rejected files, members or sources")
        rejected = chart(new, "rejects-by-reason") + table(
            ["reason", "count", "example message"],
            [(f"<code>{escape(r)}</code>", number(n), escape(m)) for r, n, m in reasons], [False, True, False])
    else:
        rejected = "<p>No file was rejected.</p>"
    return [panel("Corpus", table(["", ""], facts, [False, True])),
            f'<div>{panel("Sources", source_table)}{panel("Rejects by reason", rejected)}</div>']


def _game_charts(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Charts of games per year and of game length."""
    years = fetch(con, "report/games_per_year")
    if years:
        new, axes = figure()
        axes.bar([y for y, _ in years], [n for _, n in years], color=CHART_COLOURS[0], width=0.8)
        axes.set_xlabel("year (DT)")
        axes.set_ylabel("games")
        per_year = chart(new, "games-per-year")
    else:
        per_year = "<p>No game has a year.</p>"
    panels = [panel("Games per year", per_year)]
    lengths = [n for (n,) in con.execute("SELECT move_count FROM games").fetchall()]
    if lengths:
        cap = min(max(lengths), _LONGEST_BIN)
        new, axes = figure()
        axes.hist([min(n, cap) for n in lengths], bins=range(0, cap + 11, 10), color=CHART_COLOURS[2])
        axes.set_xlabel(f"moves in the main line (10-move bins; longer than {cap} in the last)"
                        if max(lengths) > cap else "moves in the main line (10-move bins)")
        axes.set_ylabel("games")
        panels.append(panel("Game length", chart(new, "game-length")))
    return panels
