"""Small real releases for the warehouse tests: two DuckDB tables published by `publish`, and their catalog."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from gopat.effects.warehouse.layout import Layout, created_now, next_version
from gopat.effects.warehouse.publish import publish

TABLES = ["games", "moves"]


def publish_tables(layout: Layout, *, games: int, content: str, keep: int | None = None) -> str:
    """Publish two real tables (`games` rows and three moves per game) as the next version of `content`."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE games AS SELECT range AS game_id, md5(range::VARCHAR) AS sgf FROM range({games})")
    con.execute(f"CREATE TABLE moves AS SELECT g.range AS game_id, m.range AS move_number "
                f"FROM range({games}) g, range(3) m ORDER BY ALL")
    manifest = {
        "created": created_now(),
        "content_hash": content,
        "ingest": {"games": games},
        "row_counts": {"games": games, "moves": 3 * games},
        "expectations": {
            table: {"table": table, "success": True, "evaluated": 1, "failed": 0,
                    "outcomes": [{"expectation": f"{table}_rows_match", "success": True, "details": "violations=0"}]}
            for table in TABLES
        },
    }
    version = next_version(layout, content)
    publish(layout, con, version=version, tables=TABLES, manifest=manifest, keep=keep)
    con.close()
    return version


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def catalog_views(warehouse: Path) -> dict[str, int]:
    """schema.view -> row count for every view of the catalog (fails if any view is broken)."""
    with duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True) as con:
        names = con.execute(
            "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1, 2"
        ).fetchall()
        return {f"{s}.{v}": con.execute(f"SELECT count(*) FROM {s}.{v}").fetchone()[0] for s, v in names}


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path / "warehouse")
