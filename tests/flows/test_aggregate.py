"""aggregate_patterns: summing the shards in many key ranges gives the same sorted table as in one."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import duckdb
import pytest

from flows import build
from flows.shards import extract_shard
from transforms.archives import iter_members
from transforms.games import ingest_members
from transforms.patterns import DEFAULT_FAMILIES


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


def pattern_stats(stage: Path, rows_per_part: int, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    monkeypatch.setattr(build, "SUM_ROWS_PER_QUERY", rows_per_part)
    with duckdb.connect() as con:
        build.aggregate_patterns.fn(con, stage, show="quiet")
        return con.execute("FROM pattern_stats").fetchall()


def test_many_key_ranges_give_the_one_range_table(stage: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = pattern_stats(stage, 10**9, monkeypatch)
    with duckdb.connect() as con:
        shard_rows = con.execute(f"SELECT count(*) FROM '{stage}/patterns/*.parquet'").fetchone()[0]
    assert shard_rows > 50_000  # enough rows that 1,000 per part means dozens of parts per family
    assert pattern_stats(stage, 1_000, monkeypatch) == whole
    keys = [(family, symmetry, key) for family, symmetry, key, *_ in whole]
    assert keys == sorted(keys)  # written in order, no global sort
    assert len(set(keys)) == len(keys)
    assert {family for family, _, _ in keys} == set(DEFAULT_FAMILIES)
