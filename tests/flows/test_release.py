"""Releases on disk: publish, reuse, retention, recovery, catalog, verify, pack, Data Docs, the CLI.

Most tests publish real DuckDB tables with `flows.release.publish` (the function the build calls);
the slow ones run the whole build flow in-process on ten games of tiny.tar.gz.
"""

from __future__ import annotations

import hashlib
import html.parser
import json
import os
import shutil
import tarfile
from pathlib import Path

import duckdb
import pytest

from gopat.cli.main import main
from gopat.effects.report.datadocs import render_datadocs
from gopat.effects.warehouse.catalog import refresh_catalog
from gopat.effects.warehouse.layout import (
    Layout,
    content_hash,
    created_now,
    current_version,
    next_version,
    read_manifest,
    resolve_version,
    versions,
)
from gopat.effects.warehouse.lock import build_lock, recover
from gopat.effects.warehouse.publish import publish, set_current
from gopat.effects.warehouse.verify import list_releases, verify

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


def test_content_hash_depends_on_bytes_names_code_and_config() -> None:
    base = {"source_sha256s": ["1" * 64], "code": "c", "config": {"families": ["sq3"]}, "sources": ["a.tgz"]}
    variants = [{"source_sha256s": ["2" * 64]}, {"sources": ["b.tgz"]}, {"code": "d"}, {"config": {"families": []}}]
    hashes = {content_hash(**base)} | {content_hash(**{**base, **change}) for change in variants}
    assert len(hashes) == 5
    assert content_hash(**base) == content_hash(**dict(base))


def test_retention_keeps_the_newest_releases_and_the_catalog_only_those(layout: Layout) -> None:
    made = [publish_tables(layout, games=10 + i, content=f"{i:012x}", keep=2) for i in range(4)]
    assert versions(layout) == made[2:]
    assert current_version(layout) == made[3]
    assert sorted(catalog_views(layout.root)) == ["current.games", "current.moves", "v3.games", "v3.moves",
                                                  "v4.games", "v4.moves"]
    assert [p.name for p in layout.releases.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(ValueError, match="keep must be at least 1"):
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


def test_recover_removes_leftovers_and_rebuilds_a_stale_catalog(layout: Layout) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    second = publish_tables(layout, games=7, content="2" * 12)
    set_current(layout, first)  # CURRENT switched but the catalog not swapped in yet
    leftovers = [layout.releases / ".tmp-0003-333333333333-99", layout.releases / ".trash-0000-x-99",
                 layout.staging / "abc" / "work.duckdb"]
    for path in leftovers:
        path.mkdir(parents=True)
    (layout.releases / "CURRENT.tmp-99").write_text(second)
    (layout.root / ".catalog-99.duckdb").write_bytes(b"partial")
    assert catalog_views(layout.root)["current.games"] == 7
    done = recover(layout)
    assert sorted(done) == [".catalog-99.duckdb", ".tmp-0003-333333333333-99", ".trash-0000-x-99",
                            "CURRENT.tmp-99", "abc", "catalog.duckdb"]
    assert sorted(p.name for p in layout.releases.iterdir()) == ["0001-111111111111", "0002-222222222222", "CURRENT"]
    assert list(layout.staging.iterdir()) == []
    assert not (layout.root / ".catalog-99.duckdb").exists()
    assert catalog_views(layout.root)["current.games"] == 5
    assert recover(layout) == []


def test_a_deleted_or_moved_release_gets_a_working_catalog_at_the_next_lock(layout: Layout, tmp_path: Path) -> None:
    publish_tables(layout, games=5, content="1" * 12)
    publish_tables(layout, games=7, content="2" * 12)
    shutil.rmtree(layout.release_dir("0001-111111111111"))
    with pytest.raises(duckdb.IOException):
        catalog_views(layout.root)
    with build_lock(layout):
        pass
    assert sorted(catalog_views(layout.root)) == ["current.games", "current.moves", "v2.games", "v2.moves"]
    moved = tmp_path / "moved"
    shutil.move(layout.root, moved)
    with build_lock(Layout(moved)):
        pass
    assert catalog_views(moved) == {"current.games": 7, "current.moves": 21, "v2.games": 7, "v2.moves": 21}


def test_the_build_lock_is_exclusive_and_names_its_holder(layout: Layout) -> None:
    with build_lock(layout):
        with pytest.raises(RuntimeError, match=rf"another build \(pid {os.getpid()}\) holds .*\.build\.lock"):
            with build_lock(layout):
                pass
    with build_lock(layout):
        pass


def test_cli_lists_shows_packs_and_verifies(layout: Layout, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    second = publish_tables(layout, games=9, content="2" * 12)
    warehouse = ["--warehouse", str(layout.root)]
    assert main(["releases", *warehouse, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["version"], r["games"], r["tables"], r["status"]) for r in rows] == [
        (first, 5, 2, "kept"), (second, 9, 2, "current")]
    assert main(["release", "show", "current", *warehouse]) == 0
    shown = capsys.readouterr().out
    assert f"release {second} (current)" in shown
    assert read_manifest(layout, second)["files"]["moves.parquet"]["sha256"] in shown
    assert resolve_version(layout, "1") == first and resolve_version(layout, first) == first

    packs = [tmp_path / "a.tar.gz", tmp_path / "b.tar.gz"]
    for pack in packs:
        assert main(["release", "pack", "2", "-o", str(pack), *warehouse]) == 0
    assert packs[0].read_bytes() == packs[1].read_bytes()
    with tarfile.open(packs[0]) as tar:
        assert tar.getnames() == [f"{second}/{name}" for name in
                                  ("manifest.json", "datadocs/index.html", "games.parquet", "moves.parquet")]
    assert not list(tmp_path.glob("*.part"))

    assert main(["verify", *warehouse]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [f"{first}: ok", f"{second}: ok"]
    target = layout.release_dir(first) / "games.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    assert main(["verify", first, *warehouse]) == 1
    assert "games.parquet: sha256" in capsys.readouterr().out
    assert main(["release", "pack", first, "-o", str(tmp_path / "bad.tar.gz"), *warehouse]) == 1
    assert "fails verification" in capsys.readouterr().err and not (tmp_path / "bad.tar.gz").exists()
    target.write_bytes(bytes(data[:100]))
    assert [r.status for r in list_releases(layout)] == ["damaged", "current"]
    assert main(["release", "show", "7", *warehouse]) == 1
    assert "release '7' not found" in capsys.readouterr().err


class _Page(html.parser.HTMLParser):
    """Collects tags, attributes and text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_data_docs_are_self_contained_and_show_every_outcome(layout: Layout) -> None:
    version = publish_tables(layout, games=5, content="1" * 12)
    page = (layout.release_dir(version) / "datadocs" / "index.html").read_text()
    failing = {
        "version": "0009-999999999999",
        "expectations": {"pattern_stats": {"table": "pattern_stats", "success": False, "evaluated": 2, "failed": 1,
                                           "outcomes": [
                                               {"expectation": "chosen_at_most_occurrence", "success": False,
                                                "details": "violations=3: e.g. <1, 2>"},
                                               {"expectation": "keys_unique", "success": True, "details": "ok"}]}},
    }
    for document, expected in ((page, ["games_rows_match", "moves_rows_match", "every expectation passed"]),
                               (render_datadocs(failing), ["chosen_at_most_occurrence", "FAILED",
                                                           "violations=3: e.g. <1, 2>", "must not be published"])):
        parser = _Page()
        parser.feed(document)
        assert not {"script", "link", "img", "iframe", "object", "embed"} & set(parser.tags)
        assert "style" in parser.tags
        for name, value in parser.attributes:
            assert name != "src"
            if name == "href":
                assert value.startswith("#")
        assert ("content", "default-src 'none'; style-src 'unsafe-inline'") in parser.attributes
        assert "http://" not in document and "https://" not in document and "url(" not in document
        text = "".join(parser.text)
        assert all(snippet in text for snippet in expected), expected


@pytest.fixture(scope="module")
def ten_games(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of ten SGF games taken from tiny.tar.gz."""
    folder = tmp_path_factory.mktemp("games")
    with tarfile.open(tiny_archive) as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile() and m.name.endswith(".sgf")), key=lambda m: m.name)
        for index, member in enumerate(members[:10]):
            (folder / f"{index:02d}.sgf").write_bytes(tar.extractfile(member).read())
    return folder


@pytest.mark.slow
@pytest.mark.usefixtures("prefect_harness")
def test_broken_table_fails_its_expectation_and_keep_prunes_old_releases(
    ten_games: Path, layout: Layout, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    catalog_before = sha256(layout.catalog)
    build = ["build", "--source", str(ten_games), "--warehouse", str(layout.root),
             "--families", "sq3", "--workers", "1"]

    monkeypatch.setenv("GOPAT_FAULT_SQL",
                       "UPDATE games SET board_size = 99 WHERE game_id = (SELECT min(game_id) FROM games)")
    assert main(build) == 1
    error = capsys.readouterr().err
    assert "gopat: error: expectations failed, nothing published" in error
    assert "games: expect_column_values_to_be_between(board_size)" in error
    assert versions(layout) == [first] and current_version(layout) == first
    assert sha256(layout.catalog) == catalog_before
    assert sorted(p.name for p in layout.releases.iterdir()) == [first, "CURRENT"]
    assert not layout.staging.exists() or list(layout.staging.iterdir()) == []

    monkeypatch.delenv("GOPAT_FAULT_SQL")
    assert main([*build, "--keep", "1"]) == 0
    second = current_version(layout)
    assert versions(layout) == [second] and second.startswith("0002-")
    assert sorted(catalog_views(layout.root)) == sorted(
        f"{schema}.{table}" for schema in ("current", "v2") for table in read_manifest(layout, second)["row_counts"])
    assert read_manifest(layout, second)["expectations"]["games"]["success"] is True
