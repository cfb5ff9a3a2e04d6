"""Small real releases for the warehouse tests: DuckDB tables (and a partitioned table written with pyarrow, with a
run of the complete counts) published by `publish`, and their catalog."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gopat.effects.warehouse.files import tree_digest
from gopat.effects.warehouse.layout import Layout, created_now, next_version
from gopat.effects.warehouse.publish import publish

TABLES = ["games", "moves"]
# a partitioned table's files (docs/releases.md#release-folder), in the order they are written: not their path order
PARTS = ("sq5/08/0001.parquet", "d12/16/0000.parquet", "sq5/08/0000.parquet", "d12/08/0000.parquet")


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


def write_parts(folder: Path, *, salt: int = 0, parts: tuple[str, ...] = PARTS) -> list[tuple[object, ...]]:
    """Write a partitioned table's Parquet files under `folder` (two rows each, of the family and symmetry of their
    path); returns the table's rows: the files' rows in the order of their relative paths."""
    rows = {}
    for index, part in enumerate(parts):
        family, symmetry, _ = part.split("/")
        keys = [f"{salt}{index}{row}" for row in range(2)]
        table = pa.table({"family": [family] * 2, "symmetry": pa.array([int(symmetry)] * 2, pa.int8()),
                          "key": keys, "occurrence": pa.array([index + 1, index + 2], pa.int64())})
        (folder / part).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, folder / part)
        rows[part] = [(family, int(symmetry), key, count) for key, count in zip(keys, [index + 1, index + 2],
                                                                                strict=True)]
    return [row for part in sorted(rows) for row in rows[part]]


def publish_partitioned(
    layout: Layout, *, games: int, content: str, runs: list[str] | None = None, keep: int | None = None
) -> tuple[str, list[tuple[object, ...]]]:
    """Publish `games` and a partitioned `pattern_stats` staged as a folder, with a run of the complete counts of the
    new version whose manifest lists the versions `runs` before it (only their names: what retention reads,
    docs/releases.md#complete-counts); returns the version and pattern_stats' rows."""
    version = next_version(layout, content)
    shutil.rmtree(layout.staging, ignore_errors=True)  # the staging of an earlier call: the release keeps its links
    staged, state = layout.staging / "pattern_stats", layout.staging / "state"
    rows = write_parts(staged, salt=games)
    write_parts(state, salt=-games)
    digest, size = tree_digest(state)
    con = duckdb.connect()
    con.execute(f"CREATE TABLE games AS SELECT range AS game_id FROM range({games})")
    manifest = {"created": created_now(), "content_hash": content, "ingest": {"games": games},
                "state": {"runs": [*({"version": run} for run in runs or []),
                                   {"version": version, "sha256": digest, "bytes": size}]}}
    publish(layout, con, version=version, tables=["games", "pattern_stats"], manifest=manifest, keep=keep,
            staged={"pattern_stats": staged}, run=state)
    con.close()
    return version, rows


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
