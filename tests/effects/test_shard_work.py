"""The work of a shard: an ingest shard's files hold its rows, and an extraction shard reads back from the staged
moves and setups files exactly the games that were replayed."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import duckdb
import numpy as np
import polars as pl

from gopat.effects.shard_work import INGESTED_TABLES, StagedGames, extract_shard, ingest_shard, read_games
from gopat.transforms.games.archives import iter_members
from gopat.transforms.games.records import ingest_members
from gopat.transforms.patterns.canonical import PATTERN_COUNTS_SCHEMA, canonical_events, canonical_shard
from gopat.transforms.patterns.extract import extract

SHA = "0" * 64
HAND_WRITTEN = [  # setup stones, a pass, no move at all, a 9x9 board
    ("setup.sgf", b"(;GM[1]FF[4]SZ[19]AB[dd][pp]AW[dp];B[qd];W[tt];B[dc];W[])"),
    ("empty.sgf", b"(;GM[1]FF[4]SZ[19]AB[jj])"),
    ("small.sgf", b"(;GM[1]FF[4]SZ[9];B[ee];W[cc];B[gg])"),
]


def staged(ingest: Path, folder: Path) -> StagedGames:
    """The files extraction reads, written from an ingest shard's files as the build writes them: games and their
    board size, moves and setups, each in game_id order."""
    with duckdb.connect() as con:
        for name, query in (
            ("games", "SELECT game_id, board_size FROM read_parquet(?) ORDER BY game_id"),
            ("moves", "FROM read_parquet(?) ORDER BY game_id, move_number"),
            ("setups", "FROM read_parquet(?) ORDER BY game_id, stone_number"),
        ):
            source = ingest / name / "shard-000001.parquet"
            con.execute(f"COPY ({query.replace('?', repr(str(source)))}) TO '{folder / name}.parquet'")
    return StagedGames(games=folder / "games.parquet", moves=folder / "moves.parquet", setups=folder / "setups.parquet")


def test_the_games_read_back_are_the_games_replayed(tiny_archive: Path, tmp_path: Path) -> None:
    members = [(m.name, m.data) for m in islice(iter_members(tiny_archive), 30)] + HAND_WRITTEN
    ingested = ingest_shard(members, source="tiny", source_sha256=SHA, source_index=3, folder=tmp_path / "ingest",
                            name="shard-000001")
    shard = ingest_members(members, source="tiny", source_sha256=SHA)
    assert set(ingested.files) == set(INGESTED_TABLES)
    games = pl.read_parquet(ingested.files["games"])
    assert games["source_index"].to_list() == [3] * shard.games.height
    assert games.drop("source_index").equals(shard.games)
    assert pl.read_parquet(ingested.files["moves"]).equals(shard.moves)
    assert (ingested.games, ingested.files_ingested) == (shard.games.height, len(members))

    files = staged(tmp_path / "ingest", tmp_path)
    ids = sorted(shard.replays)
    assert len(ids) == 33
    got_ids, got = read_games(files, ids[0], ids[-1])
    assert got_ids == ids
    for game_id, game in zip(got_ids, got, strict=True):
        replayed = shard.replays[game_id]
        assert game.board_size == replayed.board_size, game_id
        assert np.array_equal(game.setup.reshape(-1, 3), replayed.setup.reshape(-1, 3)), game_id
        assert np.array_equal(game.moves.reshape(-1, 3), replayed.moves.reshape(-1, 3)), game_id
    assert read_games(files, ids[5], ids[9])[0] == ids[5:10]
    assert read_games(files, None, None) == ([], [])


def test_an_extraction_shard_is_each_family_extracted_alone(tiny_archive: Path) -> None:
    """Families that share a replay (families.replay_groups) give the rows each gives alone, a family at a time."""
    members = [(m.name, m.data) for m in islice(iter_members(tiny_archive), 12)] + HAND_WRITTEN
    replays = ingest_members(members, source="tiny", source_sha256=SHA).replays
    ids = sorted(replays)
    games = [replays[game_id] for game_id in ids]
    families = ("sq3", "sq5", "d12", "blk4", "dia13")
    rows = list(extract_shard(games, families, game_ids=ids, event_families=("dia13", "d12")))
    assert [family.family for family in rows] == ["sq5", "blk4", "sq3", "d12", "dia13"]
    for family in rows:
        alone = extract(games, families=(family.family,))
        assert pl.from_arrow(family.counts).equals(canonical_shard(alone.counts).select(PATTERN_COUNTS_SCHEMA.names))
        assert family.counts.schema == PATTERN_COUNTS_SCHEMA
        events = canonical_events(alone.events, game_ids=ids) if family.family in ("dia13", "d12") else None
        assert family.events == events
        assert family.chosen == alone.chosen_events[family.family]
