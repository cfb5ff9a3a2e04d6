"""aggregate_patterns and merge_pattern_stats: the table of a corpus comes out the same however it is cut.

Summing the shards in many key ranges gives the file summed in one range, byte for byte; the table
of some shards merged with the table of the others (an incremental build) gives the file of all of
them.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from gopat.effects import parquet
from gopat.flows import build
from gopat.flows.shards import extract_shard
from gopat.transforms.games.archives import iter_members
from gopat.transforms.games.records import ingest_members
from gopat.transforms.patterns.families import DEFAULT_FAMILIES


@pytest.fixture(scope="module")
def stage(tmp_path_factory: pytest.TempPathFactory, tiny_archive: Path) -> Path:
    """Three shards of real games (60 games of tiny.tar.gz), as the build's workers write them."""
    members = [(m.name, m.data) for m in islice(iter_members(tiny_archive), 60)]
    games = list(ingest_members(members, source="tiny", source_sha256="0" * 64).replays.values())
    folder = tmp_path_factory.mktemp("stage")
    (folder / "patterns").mkdir()
    for i in range(3):
        parquet, _ = extract_shard(games[i * 20 : (i + 1) * 20], DEFAULT_FAMILIES)
        (folder / "patterns" / f"shard-{i:05d}.parquet").write_bytes(parquet)
    return folder


def pattern_stats(stage: Path, rows_per_part: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple], bytes]:
    """The rows and the bytes of the stage's pattern_stats file summed in parts of about `rows_per_part` shard rows."""
    monkeypatch.setattr(build, "SUM_ROWS_PER_QUERY", rows_per_part)
    with duckdb.connect() as con:
        out = build.aggregate_patterns.fn(con, stage, out=stage / "pattern_stats.parquet", show="quiet")
        return con.execute(f"FROM read_parquet('{out}')").fetchall(), out.read_bytes()


def test_many_key_ranges_give_the_one_range_file(stage: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 700)  # row groups that ranges of 1,000 shard rows cut across
    whole, whole_bytes = pattern_stats(stage, 10**9, monkeypatch)
    with duckdb.connect() as con:
        shard_rows = con.execute(f"SELECT count(*) FROM '{stage}/patterns/*.parquet'").fetchone()[0]
    assert shard_rows > 50_000  # enough rows that 1,000 per part means dozens of parts per family
    assert pattern_stats(stage, 1_000, monkeypatch) == (whole, whole_bytes)
    keys = [(family, symmetry, key) for family, symmetry, key, *_ in whole]
    assert keys == sorted(keys)  # written in order, no global sort
    assert len(set(keys)) == len(keys)
    assert {family for family, _, _ in keys} == set(DEFAULT_FAMILIES)


def summed(stage: Path, shards: list[int], out: Path) -> Path:
    """The pattern_stats file of some of the stage's shards."""
    folder = out.parent / out.stem
    (folder / "patterns").mkdir(parents=True)
    for shard in shards:
        name = f"shard-{shard:05d}.parquet"
        (folder / "patterns" / name).write_bytes((stage / "patterns" / name).read_bytes())
    with duckdb.connect() as con:
        return build.aggregate_patterns.fn(con, folder, out=out, show="quiet")


@pytest.mark.parametrize(("previous", "new"), [([0], [1, 2]), ([0, 1], [2]), ([1, 2], [0])])
def test_previous_table_merged_with_new_counts_is_the_whole_table(
    stage: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, previous: list[int], new: list[int]
) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 700)  # many row groups: the two-way merge takes many steps
    monkeypatch.setattr(build, "SUM_ROWS_PER_QUERY", 5_000)
    whole = summed(stage, [0, 1, 2], tmp_path / "whole.parquet")
    merged = build.merge_pattern_stats.fn(
        summed(stage, previous, tmp_path / "previous.parquet"), summed(stage, new, tmp_path / "new.parquet"),
        tmp_path / "merged.parquet", show="quiet",
    )
    assert pq.read_table(merged).equals(pq.read_table(whole))
    assert merged.read_bytes() == whole.read_bytes()
    groups = pq.ParquetFile(merged).metadata
    assert groups.num_row_groups > 100
    assert max(groups.row_group(i).num_rows for i in range(groups.num_row_groups)) == 700
