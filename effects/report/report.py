"""Static, offline HTML report of a release, built from its Parquet files with DuckDB.

Pages: ``index.html`` (corpus summary, :mod:`.summary`), ``patterns-<family>.html`` (top patterns as board
diagrams) and ``templates.html`` (don't-care templates) from :mod:`.patterns`, ``moves-<family>.html`` (the pattern
events of move_patterns: the most played patterns by year and their players, :mod:`.events`), ``fuseki.html``
(opening sequences on a 19x19 board, popularity per year) and ``openings.html`` (an opening-tree explorer) from
:mod:`.openings`.
Every page is one self-contained file (:mod:`.frame`): CSS inline, diagrams as inline SVG from
:mod:`gopat.transforms.patterns.render`, charts as inline SVG drawn by matplotlib; no script, font or stylesheet is
fetched from anywhere. The explorer needs no script either: each position is a section shown when the URL's
fragment names it (CSS ``:target``), so clicking a move is following a link. The queries are
``transforms/analytics/sql/report/*.sql`` (:mod:`.queries`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import duckdb

from gopat.effects.report.events import event_families, events_page
from gopat.effects.report.frame import page
from gopat.effects.report.openings import fuseki_page, openings_page
from gopat.effects.report.options import ReportOptions
from gopat.effects.report.patterns import patterns_page, templates_page
from gopat.effects.report.summary import index_page
from gopat.effects.warehouse.layout import Layout, Manifest, read_manifest
from gopat.effects.warehouse.open import connect_release

__all__ = ["ReportOptions", "build_report", "release_tables", "report_summary"]



def release_tables(
    warehouse: Path, release: str | None = None, *, spill: Path | None = None
) -> tuple[duckdb.DuckDBPyConnection, Manifest]:
    """An in-memory DuckDB with one view per table of a release, spilling to `spill` if given
    (effects/warehouse/open.py), and its manifest."""
    con, version = connect_release(warehouse, release, spill=spill)
    return con, read_manifest(Layout(Path(warehouse)), version)


def build_report(
    warehouse: Path, output: Path, *, release: str | None = None, options: ReportOptions | None = None
) -> list[Path]:
    """Write the report of a release (default: the current one) into ``output``; returns the pages.

    The queries' DuckDB spills to a temporary folder beyond SPILL_MEMORY (docs/report.md)."""
    options = options or ReportOptions()
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gopat-report-") as spill:
        con, manifest = release_tables(warehouse, release, spill=Path(spill))
        with con:
            nav, pages = _pages(con, manifest, options)
    written = []
    for name, (title, body) in pages.items():
        path = output / name
        path.write_text(page(title, body, name=name, nav=nav, manifest=manifest), encoding="utf-8")
        written.append(path)
    return written


def _pages(con: duckdb.DuckDBPyConnection, manifest: Manifest, options: ReportOptions
           ) -> tuple[list[tuple[str, str]], dict[str, tuple[str, str]]]:
    """The navigation (file name, label) and every page's title and body by file name."""
    families = [row[0] for row in con.execute(
        "SELECT DISTINCT family FROM pattern_stats WHERE symmetry = ? ORDER BY family", [options.symmetry]).fetchall()]
    played = event_families(con)
    nav = [("index.html", "Summary")] + [(f"patterns-{f}.html", f) for f in families] + [
        (f"moves-{f}.html", f"{f} by year") for f in played] + [
        ("templates.html", "Templates"), ("fuseki.html", "Fuseki"), ("openings.html", "Opening explorer")]
    pages = {"index.html": ("Release summary", index_page(con, manifest, families, options))}
    for family in families:
        pages[f"patterns-{family}.html"] = (f"Patterns: {family}", patterns_page(con, family, options))
    for family in played:
        pages[f"moves-{family}.html"] = (f"Pattern events: {family}", events_page(con, family, options))
    pages["templates.html"] = ("Don't-care templates", templates_page(con, options))
    pages["fuseki.html"] = ("Fuseki", fuseki_page(con, options))
    pages["openings.html"] = ("Opening explorer", openings_page(con, options))
    return nav, pages


def report_summary(pages: Sequence[Path]) -> str:
    """One line per written page with its size, for the CLI."""
    return "\n".join(f"{path} ({path.stat().st_size:,} bytes)" for path in pages)
