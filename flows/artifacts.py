"""Prefect artifacts of every build run: a markdown summary, a table of top patterns, a link to the Data Docs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast
from uuid import UUID

from prefect.artifacts import create_link_artifact, create_markdown_artifact, create_table_artifact

from gopat.effects.warehouse.layout import Layout
from gopat.effects.warehouse.manifest import Ingest
from gopat.effects.warehouse.open import connect_release
from gopat.transforms.analytics.loader import sql_text

SUMMARY_KEY = "gopat-build-summary"
TOP_PATTERNS_KEY = "gopat-top-patterns"
DATA_DOCS_KEY = "gopat-data-docs"
TOP_PER_FAMILY = 5


def summary_markdown(manifest: Mapping[str, Any], *, published: bool) -> str:
    """The run summary: whether a release was published, files in / games / rejects, sources, timings."""
    version, ingest = manifest["version"], manifest["ingest"]
    if published:
        head = f"Published release **{version}**."
    else:
        head = (
            f"**Nothing new**: no new or changed source (same inputs, code and config as the current "
            f"release), so nothing was published; release **{version}** stays current."
        )
    lines = [
        "# gopat build", "", head, "",
        "| files in | ingested | rejected | games | duplicates | release |",
        "|---:|---:|---:|---:|---:|---|",
        f"| {ingest['files_in']} | {ingest['files_ingested']} | {ingest['files_rejected']} | {ingest['games']} "
        f"| {ingest['duplicates']} | {version} |",
        "",
        f"Ingest equations: {Ingest(**ingest).line()}.",
        "", "Sources:", "",
        *(f"- `{s['source']}` (sha256 `{s['sha256']}`)" for s in manifest["sources"]),
    ]
    if published and manifest.get("timings"):
        lines += ["", "Timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in manifest["timings"].items())]
    return "\n".join(lines) + "\n"


def top_patterns(layout: Layout, version: str, *, per_family: int = TOP_PER_FAMILY, symmetry: int = 8
                 ) -> list[dict[str, Any]]:
    """The most chosen canonical patterns of each family of release `version` (ties: more occurrences, then smaller
    key).

    One top-N query per family, which DuckDB answers with a small heap, not a sort of the table.
    """
    con, _ = connect_release(layout.root, version)
    with con:
        distinct = con.execute("SELECT DISTINCT family FROM pattern_stats ORDER BY 1").fetchall()
        result: list[dict[str, Any]] = []
        for (family,) in distinct:
            rows = con.execute(sql_text("queries/pattern_stats_top"), [family, symmetry, per_family])
            names = [column[0] for column in rows.description]
            result += [dict(zip(names, row, strict=True)) for row in rows.fetchall()]
    return result


def data_docs_link(release_dir: Path) -> str:
    """A file URL of the release's Data Docs (its first index.html, else its first .html), else of the folder."""
    pages = sorted(release_dir.rglob("*.html"), key=lambda p: (p.name != "index.html", len(p.parts), p))
    return (pages[0] if pages else release_dir).resolve().as_uri()


def publish_artifacts(layout: Layout, manifest: Mapping[str, Any], *, published: bool) -> dict[str, UUID]:
    """Create the three artifacts of a build run for `manifest`'s release; returns their ids by key."""
    version = manifest["version"]
    release_dir = layout.release_dir(version)
    link = data_docs_link(release_dir)
    # Called from a sync flow, Prefect's dispatching functions return the artifact's id, not a coroutine.
    return {
        SUMMARY_KEY: cast(UUID, create_markdown_artifact(
            summary_markdown(manifest, published=published), key=SUMMARY_KEY,
            description=f"release {version}: {'published' if published else 'nothing new'}",
        )),
        TOP_PATTERNS_KEY: cast(UUID, create_table_artifact(
            top_patterns(layout, version), key=TOP_PATTERNS_KEY,
            description=f"release {version}: the {TOP_PER_FAMILY} most chosen patterns of each family (8 symmetries)",
        )),
        DATA_DOCS_KEY: cast(UUID, create_link_artifact(
            link, link_text=f"Data Docs of release {version}" if link.endswith(".html") else f"release {version}",
            key=DATA_DOCS_KEY, description=f"release {version}: validation results",
        )),
    }
