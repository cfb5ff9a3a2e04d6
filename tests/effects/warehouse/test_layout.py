"""What names a release: the content hash of its inputs, code and config; the tables of a release folder."""

from __future__ import annotations

from pathlib import Path

from gopat.effects.warehouse.layout import content_hash, manifest_tables, table_files


def test_content_hash_depends_on_bytes_names_code_and_config() -> None:
    base = {"source_sha256s": ["1" * 64], "code": "c", "config": {"families": ["sq3"]}, "sources": ["a.tgz"]}
    variants = [{"source_sha256s": ["2" * 64]}, {"sources": ["b.tgz"]}, {"code": "d"}, {"config": {"families": []}}]
    hashes = {content_hash(**base)} | {content_hash(**{**base, **change}) for change in variants}
    assert len(hashes) == 5
    assert content_hash(**base) == content_hash(**dict(base))


def test_table_files_are_the_top_files_and_the_partitioned_folders(tmp_path: Path) -> None:
    written = ["moves.parquet", "pattern_stats/sq5/08/0001.parquet", "games.parquet",
               "pattern_stats/d12/16/0000.parquet", "pattern_stats/sq5/08/0000.parquet",
               "pattern_stats/d12/08/0000.parquet", "pattern_stats/notes.txt", "datadocs/index.html", "manifest.json",
               "empty/deep/readme.txt"]
    for name in written:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    parts = ["d12/08/0000.parquet", "d12/16/0000.parquet", "sq5/08/0000.parquet", "sq5/08/0001.parquet"]
    tables = table_files(tmp_path)
    assert list(tables) == ["games", "moves", "pattern_stats"]
    assert tables == {"games": [tmp_path / "games.parquet"], "moves": [tmp_path / "moves.parquet"],
                      "pattern_stats": [tmp_path / "pattern_stats" / part for part in parts]}
    assert manifest_tables(reversed(written)) == {
        table: [path.relative_to(tmp_path).as_posix() for path in files] for table, files in tables.items()}
