"""The move_patterns files: a build's file written from event shards; an incremental build links the previous
release's files and adds its own."""

from __future__ import annotations

import shutil
from itertools import islice
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gopat.effects import parquet
from gopat.effects.parquet import write_parquet
from gopat.flows import patterns as pattern_tasks
from gopat.transforms.games.archives import iter_members
from gopat.transforms.games.records import ingest_members
from gopat.transforms.patterns.canonical import EVENTS_SCHEMA
from tests.effects.shards import shard_rows

EVENT_FAMILIES = ("d12", "sq3")
SHARDS = 3


@pytest.fixture(scope="module")
def events(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Event shards of 36 tiny games, consecutive in game_id order as extract_shards writes them."""
    members = [(m.name, m.data) for m in islice(iter_members(tiny_archive), 36)]
    replays = ingest_members(members, source="tiny", source_sha256="0" * 64).replays
    ids = sorted(replays)
    folder = tmp_path_factory.mktemp("events")
    for i in range(SHARDS):
        batch = ids[i * len(ids) // SHARDS : (i + 1) * len(ids) // SHARDS]
        _, rows, _ = shard_rows([replays[g] for g in batch], ("sq3", "d12"), game_ids=batch,
                                   event_families=EVENT_FAMILIES)
        write_parquet(folder / f"shard-{i:05d}.parquet", rows, schema=EVENTS_SCHEMA)
    return folder


def written(events: Path, shards: list[int], folder: Path, *, one_shard: bool = False,
            previous: Path | None = None, first_source: int = 0) -> Path:
    """The staged move_patterns folder of some event shards (`one_shard`: copied into one), extending release
    `previous` if given."""
    (folder / "events").mkdir(parents=True)
    with duckdb.connect() as con:
        for table in ("games", "moves", "extract_games"):  # what schema `added` reads (steps/added_rows.sql)
            con.execute(f"CREATE TABLE {table} (game_id VARCHAR)")
        if one_shard:
            con.execute("COPY (FROM read_parquet(?) ORDER BY family, game_id, move_number) TO ?",
                        [[str(events / f"shard-{i:05d}.parquet") for i in shards],
                         str(folder / "events" / "shard-00000.parquet")])
        else:
            for i in shards:
                shutil.copyfile(events / f"shard-{i:05d}.parquet", folder / "events" / f"shard-{i:05d}.parquet")
        out = pattern_tasks.move_patterns_file.fn(con, folder, families=list(EVENT_FAMILIES), previous=previous,
                                                  first_source=first_source)
        rows = sum(pq.read_metadata(path).num_rows for path in out.iterdir())
        assert con.execute("SELECT count(*) FROM move_patterns").fetchall() == [(rows,)]
        if previous is not None:
            added = con.execute("SELECT count(*) FROM added.move_patterns").fetchall()
            assert added == [(pq.read_metadata(folder / "move_patterns_added.parquet").num_rows,)]
    return out


def rows(*paths: Path) -> list[tuple[str, str, int]]:
    """(family, game_id, move_number) of every row of move_patterns files, sorted."""
    table = pa.concat_tables(pq.read_table(path) for path in paths)
    return sorted(zip(*(table[name].to_pylist() for name in ("family", "game_id", "move_number")), strict=True))


def test_shards_give_the_file_of_one_shard_sorted_in_row_groups_of_one_family(
    events: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 700)
    folder = written(events, list(range(SHARDS)), tmp_path / "shards")
    [path] = folder.iterdir()
    assert path.name == "000000.parquet"
    assert path.read_bytes() == (written(events, list(range(SHARDS)), tmp_path / "one", one_shard=True)
                                 / "000000.parquet").read_bytes()
    table = pq.read_table(path)
    found = list(zip(*(table[name].to_pylist() for name in ("family", "game_id", "move_number")), strict=True))
    assert found == sorted(found) and len(set(found)) == len(found) > 2_000
    assert set(table["family"].to_pylist()) == set(EVENT_FAMILIES)
    metadata = pq.ParquetFile(path).metadata
    groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
    assert max(group.num_rows for group in groups) == 700
    assert all(group.column(0).statistics.min == group.column(0).statistics.max for group in groups)


@pytest.mark.parametrize(("previous", "new"), [([0], [1, 2]), ([1, 2], [0])])
def test_incremental_build_links_the_previous_files_and_adds_its_own(
    events: Path, tmp_path: Path, previous: list[int], new: list[int]
) -> None:
    whole = written(events, list(range(SHARDS)), tmp_path / "whole")
    release = tmp_path / "release"
    release.mkdir()
    written(events, previous, tmp_path / "previous").rename(release / "move_patterns")
    folder = written(events, new, tmp_path / "added", previous=release, first_source=3)
    assert sorted(path.name for path in folder.iterdir()) == ["000000.parquet", "000003.parquet"]
    linked = release / "move_patterns" / "000000.parquet"
    assert (folder / "000000.parquet").stat().st_ino == linked.stat().st_ino
    assert rows(*folder.iterdir()) == rows(*whole.iterdir())
    assert rows(folder / "000003.parquet") == sorted(set(rows(*whole.iterdir())) - set(rows(linked)))


def test_incremental_build_without_new_rows_adds_no_file(events: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    written(events, [0], tmp_path / "previous").rename(release / "move_patterns")
    folder = written(events, [], tmp_path / "added", previous=release, first_source=1)
    assert [path.name for path in folder.iterdir()] == ["000000.parquet"]


def test_duckdb_gives_freed_memory_back_only_while_shards_are_extracted() -> None:
    returning = "SELECT current_setting('allocator_background_threads')"
    with duckdb.connect() as con:
        with pattern_tasks._memory_returned(con):
            assert con.execute(returning).fetchone() == (True,)
        assert con.execute(returning).fetchone() == (False,)
        with pytest.raises(KeyboardInterrupt), pattern_tasks._memory_returned(con):
            raise KeyboardInterrupt
        assert con.execute(returning).fetchone() == (False,)
