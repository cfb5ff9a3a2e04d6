"""gopat.open_release: a release's tables as read-only DuckDB views and polars LazyFrames (docs/api.md)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import gopat
from gopat.transforms.tables.registry import TABLES
from tests.docs.release import tiny_release

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    return tiny_release(tmp_path_factory, shared_dir)


def _manifest(warehouse: Path) -> dict[str, object]:
    current = (warehouse / "releases" / "CURRENT").read_text().strip()
    manifest: dict[str, object] = json.loads((warehouse / "releases" / current / "manifest.json").read_text())
    return manifest


def test_every_table_is_a_view_with_the_manifests_row_count(warehouse: Path) -> None:
    manifest = _manifest(warehouse)
    with gopat.open_release(warehouse) as rel:
        assert rel.version == manifest["version"] and rel.manifest == manifest
        counts = manifest["row_counts"]
        assert isinstance(counts, dict) and set(counts) <= set(rel.tables)
        for table, rows in counts.items():
            assert rel.con.sql(f"SELECT count(*) FROM {table}").fetchall() == [(rows,)], table
        assert rel.con.sql("SELECT count(*) FROM games").fetchall()[0][0] > 0


def test_a_lazyframe_holds_the_views_rows_and_derived_columns(warehouse: Path) -> None:
    with gopat.open_release(warehouse) as rel:
        query = "SELECT * FROM pattern_stats WHERE family = 'sq3' ORDER BY symmetry, key"
        expected = pl.from_arrow(rel.con.sql(query).to_arrow_table())
        frame = rel.table("pattern_stats").filter(pl.col("family") == "sq3").sort("symmetry", "key").collect()
        assert frame.height > 0 and "diagram" in frame.columns and "chosen_rate" in frame.columns
        assert_frame_equal(frame, expected)
        diagrams = gopat.columns.pattern_diagrams(frame["family"], frame["key"])
        assert diagrams.to_list() == frame["diagram"].to_list()


def test_the_views_carry_the_registrys_comments(warehouse: Path) -> None:
    with gopat.open_release(warehouse) as rel:
        comments = dict(rel.con.execute(
            "SELECT column_name, comment FROM duckdb_columns() WHERE table_name = 'moves'").fetchall())
    assert comments == {column.name: column.doc for column in TABLES["moves"].columns}


def test_the_connection_cannot_write_and_leaves_no_file(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    rel = gopat.open_release(warehouse)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(duckdb.InvalidInputException, match="read-only"):
        rel.con.execute("CREATE TABLE scratch AS SELECT 1")
    rel.close()
    with pytest.raises(duckdb.ConnectionException):
        rel.con.execute("SELECT 1")


def test_a_release_by_number_or_current_and_clear_errors(warehouse: Path, tmp_path: Path) -> None:
    version = _manifest(warehouse)["version"]
    assert isinstance(version, str)
    for name in (version, str(int(version[:4])), "current"):
        with gopat.open_release(warehouse, release=name) as rel:
            assert rel.version == version
    with pytest.raises(ValueError, match=r"^release '9999' not found in .*releases$"):
        gopat.open_release(warehouse, release="9999")
    with gopat.open_release(warehouse) as rel, pytest.raises(ValueError, match=r"has no table 'nope'; it has .*games"):
        rel.table("nope")
    with pytest.raises(ValueError, match=r"no release in .*; run `gopat build` first"):
        gopat.open_release(tmp_path)
