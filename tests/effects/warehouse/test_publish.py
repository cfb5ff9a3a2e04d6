"""Publishing releases: verifiable files, byte-identical Parquet, an uncommitted release reused, retention, failure;
a partitioned table staged as a folder, and the runs of the complete counts kept or deleted."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from gopat.effects.report.report import release_tables
from gopat.effects.warehouse.catalog import refresh_catalog
from gopat.effects.warehouse.files import tree_digest
from gopat.effects.warehouse.layout import (
    Layout,
    count_runs,
    current_version,
    next_version,
    read_manifest,
    table_files,
    versions,
)
from gopat.effects.warehouse.open import connect_release
from gopat.effects.warehouse.publish import publish, set_current
from gopat.effects.warehouse.verify import list_releases, verify
from tests.effects.warehouse.releases import (
    PARTS,
    catalog_views,
    publish_partitioned,
    publish_tables,
    sha256,
    write_parts,
)


def test_publish_writes_a_verifiable_release_and_makes_it_current(layout: Layout) -> None:
    version = publish_tables(layout, games=50, content="a" * 12)
    assert version == "0001-aaaaaaaaaaaa" and current_version(layout) == version
    folder = layout.release_dir(version)
    manifest = read_manifest(layout, version)
    assert sorted(manifest["files"]) == ["datadocs/index.html", "games.parquet", "moves.parquet"]
    for name, entry in manifest["files"].items():
        assert entry == {"sha256": sha256(folder / name), "bytes": (folder / name).stat().st_size}
    assert verify(layout, version) == []
    assert catalog_views(layout.root) == {"current.games": 50, "current.moves": 150, "v1.games": 50, "v1.moves": 150}
    assert [p.name for p in layout.releases.iterdir() if p.name.startswith(".")] == []


def test_parquet_is_byte_identical_for_the_same_table_written_twice(tmp_path: Path) -> None:
    """1.1 million rows, two row groups, written by DuckDB's parallel writer."""
    checksums = []
    for run in range(2):
        con = duckdb.connect(config={"threads": 4})
        con.execute("CREATE TABLE t AS SELECT range AS id, hash(range) AS h FROM range(1100000) ORDER BY h")
        layout = Layout(tmp_path / f"w{run}")
        publish(layout, con, version="0001-bbbbbbbbbbbb", tables=["t"], manifest={"created": "fixed"})
        checksums.append(read_manifest(layout, "0001-bbbbbbbbbbbb")["files"])
        parquet = layout.release_dir("0001-bbbbbbbbbbbb") / "t.parquet"
        with duckdb.connect() as check:
            groups = check.execute(
                "SELECT count(DISTINCT row_group_id) FROM parquet_metadata(?)", [str(parquet)]
            ).fetchone()[0]
        assert groups > 1
    assert checksums[0] == checksums[1]


def test_retention_keeps_the_newest_releases_and_the_catalog_only_those(layout: Layout) -> None:
    made = [publish_tables(layout, games=10 + i, content=f"{i:012x}", keep=2) for i in range(4)]
    assert versions(layout) == made[2:]
    assert current_version(layout) == made[3]
    assert sorted(catalog_views(layout.root)) == ["current.games", "current.moves", "v3.games", "v3.moves",
                                                  "v4.games", "v4.moves"]
    assert [p.name for p in layout.releases.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(ValueError, match="keep must be a positive int, got 0"):
        publish_tables(layout, games=1, content="f" * 12, keep=0)


def test_a_complete_release_left_uncommitted_is_reused_and_a_damaged_one_rewritten(layout: Layout) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    second = publish_tables(layout, games=6, content="2" * 12)
    set_current(layout, first)  # the state a build killed between renaming its release and CURRENT leaves
    refresh_catalog(layout)
    assert next_version(layout, "2" * 12) == second
    inode = (layout.release_dir(second) / "games.parquet").stat().st_ino
    assert publish_tables(layout, games=6, content="2" * 12) == second
    assert (layout.release_dir(second) / "games.parquet").stat().st_ino == inode
    assert current_version(layout) == second and versions(layout) == [first, second]

    set_current(layout, first)
    refresh_catalog(layout)
    with (layout.release_dir(second) / "moves.parquet").open("r+b") as fh:
        fh.truncate(10)
    assert publish_tables(layout, games=6, content="2" * 12) == second
    assert verify(layout, second) == [] and current_version(layout) == second
    assert next_version(layout, "1" * 12) == "0003-111111111111", "an older content gets a new number"


def test_a_failed_publish_removes_its_files_and_keeps_the_previous_release(layout: Layout) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    catalog_before = sha256(layout.catalog)
    con = duckdb.connect()
    con.execute("CREATE TABLE games AS SELECT 1 AS game_id")
    with pytest.raises(duckdb.CatalogException, match="missing_table"):
        publish(layout, con, version="0002-222222222222", tables=["games", "missing_table"], manifest={})
    assert versions(layout) == [first] and current_version(layout) == first
    assert sorted(p.name for p in layout.releases.iterdir()) == ["0001-111111111111", "CURRENT"]
    assert sha256(layout.catalog) == catalog_before


def test_a_staged_folder_is_published_as_a_partitioned_table(layout: Layout) -> None:
    version, rows = publish_partitioned(layout, games=4, content="a" * 12)
    folder, manifest = layout.release_dir(version), read_manifest(layout, version)
    names = [f"pattern_stats/{part}" for part in sorted(PARTS)]
    assert sorted(manifest["files"]) == ["datadocs/index.html", "games.parquet", *names]
    for name in names:
        assert manifest["files"][name] == {"sha256": sha256(folder / name), "bytes": (folder / name).stat().st_size}
        staged = layout.staging / name
        assert (folder / name).stat().st_ino == staged.stat().st_ino, "hard-linked, not copied"
    assert verify(layout, version) == [] and [info.tables for info in list_releases(layout)] == [2]
    assert table_files(folder)["pattern_stats"] == [folder / name for name in names]
    assert len(rows) == 2 * len(PARTS) and rows != sorted(rows)  # in the order of the paths, not of the keys
    with duckdb.connect(str(layout.catalog), read_only=True) as con:
        assert con.execute("SELECT * FROM v1.pattern_stats").fetchall() == rows
        assert con.execute("SELECT * FROM current.pattern_stats").fetchall() == rows
        assert con.execute("SELECT tables FROM releases").fetchall() == [(2,)]
    opened, _ = connect_release(layout.root)
    assert opened.execute("SELECT * FROM pattern_stats").fetchall() == rows
    assert opened.execute("SELECT count(*) FROM games").fetchone() == (4,)
    reported, _ = release_tables(layout.root)
    assert reported.execute("SELECT * FROM pattern_stats").fetchall() == rows


def test_an_empty_staged_folder_is_refused_and_nothing_is_published(layout: Layout) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    (layout.staging / "pattern_stats").mkdir(parents=True)
    con = duckdb.connect()
    con.execute("CREATE TABLE games AS SELECT 1 AS game_id")
    with pytest.raises(ValueError, match="holds no file"):
        publish(layout, con, version="0002-222222222222", tables=["games", "pattern_stats"], manifest={},
                staged={"pattern_stats": layout.staging / "pattern_stats"})
    assert versions(layout) == [first] and current_version(layout) == first
    assert sorted(p.name for p in layout.releases.iterdir()) == ["0001-111111111111", "CURRENT"]


def test_state_runs_that_no_kept_release_lists_are_deleted(layout: Layout) -> None:
    first, _ = publish_partitioned(layout, games=3, content="1" * 12)
    run = count_runs(read_manifest(layout, first))[-1]
    assert tree_digest(layout.run_dir(first)) == (run["sha256"], run["bytes"])
    write_parts(layout.runs / "0009-999999999999")  # left by a build killed before CURRENT switched
    (layout.runs / "0000-000000000000.parquet").write_bytes(b"PAR1")  # a run file of an older gopat
    (layout.runs / "notes.txt").write_text("not a run")
    write_parts(layout.run_dir("0002-222222222222"), salt=7)  # the same version's run of a killed build

    second, _ = publish_partitioned(layout, games=4, content="2" * 12, runs=[first], keep=1)
    assert second == "0002-222222222222"
    assert sorted(p.name for p in layout.runs.iterdir()) == [first, second, "notes.txt"]
    run = count_runs(read_manifest(layout, second))[-1]
    assert tree_digest(layout.run_dir(second)) == (run["sha256"], run["bytes"]), "the killed build's run replaced"

    third, _ = publish_partitioned(layout, games=5, content="3" * 12, keep=1)  # a new base run: the others go
    assert sorted(p.name for p in layout.runs.iterdir()) == [third, "notes.txt"]
    assert versions(layout) == [third]
