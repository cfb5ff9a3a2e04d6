"""The move_patterns suite: the rows the build's extraction gives for real games pass, and each broken row is named."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gopat.expectations import move_patterns
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.games.archives import iter_members
from gopat.transforms.games.records import ingest_members
from gopat.transforms.patterns.canonical import key_strings
from gopat.transforms.patterns.families import FAMILIES
from tests.effects.shards import shard_rows

FAMILIES_PUBLISHED = ("d12", "dia13", "sq3")
# docs/patterns.md#d12: White's reply next to Black's first move is a d12 event; the move after a pass is not, and
# neither is a reply to a move on the second line.
HAND_WRITTEN = b"(;GM[1]FF[4]SZ[19];B[jj];W[jk];B[];W[kk];B[jl];W[bb];B[bc];W[ki])"
COUNTED = "rows_per_family_equal_the_board_moves_counted"
MANIFEST_EVENTS = "rows_per_family_equal_manifest_chosen_events"
KEY_COUNTS = "key_counts_equal_pattern_stats_chosen"
UNPUBLISHED = "rows_of_unpublished_keys_equal_pattern_tail_chosen"
CANONICAL = "key8_canonical_and_key16_its_16_canonical_key"
ROW_MOVE = "each_row_is_a_counted_board_move_of_its_colour"
ADDED_KEYS = "added_key_counts_equal_new_games_chosen"


@pytest.fixture(scope="module")
def folder(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """games, moves, pattern_stats (family, symmetry, key, chosen) and move_patterns of 8 tiny games and one
    hand-written game, from the build's own ingest and extraction, as Parquet files."""
    members = [(m.name, m.data) for m in islice(iter_members(tiny_archive), 8)] + [("hand.sgf", HAND_WRITTEN)]
    shard = ingest_members(members, source="tiny", source_sha256="0" * 64)
    ids = sorted(shard.replays)
    counts, events, _ = shard_rows([shard.replays[i] for i in ids], FAMILIES_PUBLISHED, game_ids=ids,
                                      event_families=FAMILIES_PUBLISHED)
    stats = pl.DataFrame(pl.from_arrow(counts))
    texts = np.concatenate([key_strings(part["key"].to_numpy(), FAMILIES[family].layout.n_digits)
                            for (family,), part in stats.group_by("family", maintain_order=True)])
    out = tmp_path_factory.mktemp("move_patterns")
    stats.sort("family", maintain_order=True).select("family", "symmetry", "chosen").with_columns(
        key=pl.Series(texts)).write_parquet(out / "pattern_stats.parquet")
    shard.games.write_parquet(out / "games.parquet")
    shard.moves.write_parquet(out / "moves.parquet")
    pq.write_table(pa.concat_tables(events), out / "move_patterns.parquet")
    added = ids[-3:]  # an incremental build's games: their counts as its new run holds them (int64 keys)
    added_counts, _, _ = shard_rows([shard.replays[i] for i in added], FAMILIES_PUBLISHED, game_ids=added,
                                       event_families=FAMILIES_PUBLISHED)
    pq.write_table(added_counts, out / "pattern_counts_new.parquet")
    pl.DataFrame({"game_id": added}).write_parquet(out / "extract_games.parquet")
    return out


@pytest.fixture
def con(folder: Path, tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB file holding the four tables (fresh per test: the tests break them)."""
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    for table in ("games", "moves", "pattern_stats", "move_patterns"):
        connection.execute(f"CREATE TABLE {table} AS FROM read_parquet(?)", [str(folder / f"{table}.parquet")])
    connection.execute(  # every key published: nothing left out
        "CREATE TABLE pattern_tail AS SELECT DISTINCT family, symmetry, 1 AS min_occurrence, 0::BIGINT AS keys, "
        "0::BIGINT AS occurrence, 0::BIGINT AS chosen FROM pattern_stats")
    yield connection
    connection.close()


@pytest.fixture
def manifest(con: duckdb.DuckDBPyConnection) -> dict:
    """The manifest facts of the valid tables: the families and, per family, its chosen events (sum of chosen)."""
    chosen = con.execute("SELECT family, sum(chosen) FROM pattern_stats WHERE symmetry = 8 GROUP BY ALL").fetchall()
    return {"config": {"event_families": list(FAMILIES_PUBLISHED)},
            "families": {family: {"chosen_events": int(total)} for family, total in chosen}}


def failing(con: duckdb.DuckDBPyConnection, manifest: dict) -> set[str]:
    result = move_patterns.validate(con, manifest=manifest)
    assert result.table == "move_patterns"
    assert result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def test_valid_table_passes_and_has_the_moves_of_docs_patterns(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    result = move_patterns.validate(con, manifest=manifest)
    assert result.success, result.failures()
    assert len(result.outcomes) == 10
    hand = con.execute("SELECT game_id FROM games WHERE member = 'hand.sgf'").fetchone()[0]
    rows = con.execute("SELECT family, move_number FROM move_patterns WHERE game_id = ? ORDER BY ALL",
                       [hand]).fetchall()
    board_moves = [1, 2, 4, 5, 6, 7, 8]  # move 3 is a pass
    assert rows == [("d12", 2), ("d12", 5)] + [(family, n) for family in ("dia13", "sq3") for n in board_moves]
    per_family = dict(con.execute("SELECT family, count(*) FROM move_patterns GROUP BY ALL").fetchall())
    played = con.execute("SELECT count(*) FROM moves WHERE row IS NOT NULL").fetchone()[0]
    assert per_family["sq3"] == per_family["dia13"] == played > 1000
    assert 0 < per_family["d12"] < played


ONE_D12_ROW = "(SELECT min(rowid) FROM move_patterns WHERE family = 'd12' AND colour = 'W')"
ONE_SQ3_ROW = "(SELECT min(rowid) FROM move_patterns WHERE family = 'sq3' AND colour = 'W')"
OTHER_SQ3_ROW = ("(SELECT max(rowid) FROM move_patterns WHERE family = 'sq3' AND colour = 'W' "
                 f"AND key8 <> (SELECT key8 FROM move_patterns WHERE rowid = {ONE_SQ3_ROW}))")


@pytest.mark.parametrize(("fault", "expected"), [
    (f"DELETE FROM move_patterns WHERE rowid = {ONE_D12_ROW}", {MANIFEST_EVENTS, COUNTED, KEY_COUNTS}),
    (f"INSERT INTO move_patterns FROM move_patterns WHERE rowid = {ONE_D12_ROW}",
     {MANIFEST_EVENTS, COUNTED, KEY_COUNTS, "family_game_id_move_number_unique"}),
    # the keys of another White sq3 move: valid and canonical, only the sums against pattern_stats see them
    (f"UPDATE move_patterns SET key8 = (SELECT key8 FROM move_patterns WHERE rowid = {OTHER_SQ3_ROW}), "
     f"key16 = (SELECT key16 FROM move_patterns WHERE rowid = {OTHER_SQ3_ROW}) WHERE rowid = {ONE_SQ3_ROW}",
     {KEY_COUNTS}),
    (f"UPDATE move_patterns SET key16 = key8 WHERE rowid = {ONE_D12_ROW}", {KEY_COUNTS, UNPUBLISHED, CANONICAL}),
    (f"UPDATE move_patterns SET colour = 'B' WHERE rowid = {ONE_D12_ROW}",
     {"key8_colour_digit_is_the_colour", ROW_MOVE}),
    # a d12 row moved to the first move of its game (a move d12 never counts), same colour, no other row there
    ("UPDATE move_patterns SET move_number = 1 WHERE rowid = "
     "(SELECT min(rowid) FROM move_patterns WHERE family = 'd12' AND colour = 'B')", {ROW_MOVE}),
    ("UPDATE move_patterns SET family = 'sq5' WHERE rowid = (SELECT min(rowid) FROM move_patterns)",
     {"family_is_a_move_patterns_family", MANIFEST_EVENTS, COUNTED, KEY_COUNTS, CANONICAL}),
    ("UPDATE pattern_stats SET chosen = chosen + 1 WHERE rowid = "
     "(SELECT min(rowid) FROM pattern_stats WHERE family = 'dia13' AND symmetry = 16 AND chosen > 0)", {KEY_COUNTS}),
    ("UPDATE move_patterns SET key8 = '1' || key8[2:] WHERE family = 'dia13' AND colour = 'W'",
     {"key8_colour_digit_is_the_colour", KEY_COUNTS, UNPUBLISHED, CANONICAL}),
    ("UPDATE move_patterns SET key8 = key8 || '0' WHERE rowid = (SELECT min(rowid) FROM move_patterns)",
     {KEY_COUNTS, UNPUBLISHED, CANONICAL}),
])
def test_broken_row_is_named(con: duckdb.DuckDBPyConnection, manifest: dict, fault: str, expected: set[str]) -> None:
    con.execute(fault)
    assert failing(con, manifest) == expected


def test_keys_left_out_of_pattern_stats_are_counted_by_the_tail(
    con: duckdb.DuckDBPyConnection, manifest: dict
) -> None:
    con.execute("UPDATE pattern_tail SET keys = t.keys, occurrence = t.chosen, chosen = t.chosen FROM ("
                "SELECT family, symmetry, count(*) AS keys, sum(chosen) AS chosen FROM pattern_stats "
                "WHERE family = 'dia13' AND chosen <= 1 GROUP BY ALL) AS t "
                "WHERE pattern_tail.family = t.family AND pattern_tail.symmetry = t.symmetry")
    con.execute("DELETE FROM pattern_stats WHERE family = 'dia13' AND chosen <= 1")
    assert con.execute("SELECT sum(chosen) FROM pattern_tail").fetchone()[0] > 0
    assert not failing(con, manifest)
    con.execute("UPDATE pattern_tail SET chosen = chosen - 1 WHERE family = 'dia13' AND symmetry = 16")
    assert failing(con, manifest) == {UNPUBLISHED}


def test_a_missing_column_fails_the_schema_only(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    con.execute("ALTER TABLE move_patterns DROP COLUMN key16")
    assert failing(con, manifest) == {"move_patterns_schema_matches_contract"}


def test_manifest_chosen_events_are_checked(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    manifest["families"]["sq3"]["chosen_events"] += 1
    assert failing(con, manifest) == {MANIFEST_EVENTS}
    with pytest.raises(ValueError, match="event_families"):
        move_patterns.validate(con, manifest={"families": manifest["families"]})


@pytest.fixture
def added(con: duckdb.DuckDBPyConnection, folder: Path, manifest: dict) -> dict:
    """`con` as an incremental build leaves it for the suite: the last 3 games are its new games (schema `added`, view
    pattern_counts_new); returns its manifest, every family published from threshold 1."""
    con.execute("CREATE TABLE extract_games AS FROM read_parquet(?)", [str(folder / "extract_games.parquet")])
    con.execute("CREATE TABLE move_patterns_added AS FROM move_patterns SEMI JOIN extract_games USING (game_id)")
    con.execute("CREATE TABLE pattern_counts_new AS FROM read_parquet(?)", [str(folder / "pattern_counts_new.parquet")])
    con.execute(sql_text("steps/added_rows"))
    return {**manifest, "incremental": {"base": "0001-x", "new_sources": 1, "files_in": 3},
            "config": {**manifest["config"], "min_occurrence": dict.fromkeys(FAMILIES_PUBLISHED, 1)}}


def test_incremental_build_checks_its_rows_against_the_new_games_counts(
    con: duckdb.DuckDBPyConnection, added: dict
) -> None:
    assert 0 < con.execute("SELECT count(*) FROM added.move_patterns").fetchone()[0] < con.execute(
        "SELECT count(*) FROM move_patterns").fetchone()[0]
    result = move_patterns.validate(con, manifest=added)
    assert result.success, result.failures()
    assert {outcome.expectation for outcome in result.outcomes} >= {ADDED_KEYS, COUNTED, CANONICAL, MANIFEST_EVENTS}
    assert not {outcome.expectation for outcome in result.outcomes} & {KEY_COUNTS, UNPUBLISHED}
    assert con.execute("SELECT current_setting('search_path')").fetchone() == ("",)


ONE_ADDED_SQ3_ROW = "(SELECT min(rowid) FROM move_patterns_added WHERE family = 'sq3' AND colour = 'W')"
OTHER_ADDED_SQ3_ROW = (
    "(SELECT max(rowid) FROM move_patterns_added WHERE family = 'sq3' AND colour = 'W' "
    f"AND key8 <> (SELECT key8 FROM move_patterns_added WHERE rowid = {ONE_ADDED_SQ3_ROW}))")


@pytest.mark.parametrize(("fault", "expected"), [
    (f"DELETE FROM move_patterns_added WHERE rowid = {ONE_ADDED_SQ3_ROW}", {ADDED_KEYS, COUNTED}),
    # another valid key: only the sums against the new games' counts see it
    (f"UPDATE move_patterns_added SET key8 = (SELECT key8 FROM move_patterns_added WHERE rowid = {OTHER_ADDED_SQ3_ROW}"
     f"), key16 = (SELECT key16 FROM move_patterns_added WHERE rowid = {OTHER_ADDED_SQ3_ROW}) "
     f"WHERE rowid = {ONE_ADDED_SQ3_ROW}", {ADDED_KEYS}),
    (f"UPDATE move_patterns_added SET key16 = key8 WHERE rowid = {ONE_ADDED_SQ3_ROW}", {ADDED_KEYS, CANONICAL}),
    ("UPDATE move_patterns_added SET game_id = (SELECT min(game_id) FROM games) "
     "WHERE rowid = (SELECT min(rowid) FROM move_patterns_added)", {ROW_MOVE}),  # a row of a game not added
    ("DELETE FROM extract_games WHERE game_id = (SELECT min(game_id) FROM extract_games)", {COUNTED, ROW_MOVE}),
])
def test_broken_added_row_is_named(
    con: duckdb.DuckDBPyConnection, added: dict, fault: str, expected: set[str]
) -> None:
    con.execute(fault)
    assert failing(con, added) == expected


def test_family_published_from_a_threshold_is_checked_against_pattern_stats_in_full(
    con: duckdb.DuckDBPyConnection, added: dict
) -> None:
    added["config"]["min_occurrence"]["dia13"] = 2
    outcomes = {outcome.expectation for outcome in move_patterns.validate(con, manifest=added).outcomes}
    assert {KEY_COUNTS, UNPUBLISHED, ADDED_KEYS} <= outcomes
    con.execute("DELETE FROM move_patterns WHERE rowid = (SELECT min(rowid) FROM move_patterns "
                "WHERE family = 'dia13' AND game_id NOT IN (FROM extract_games))")  # a previous row
    assert failing(con, added) == {KEY_COUNTS, MANIFEST_EVENTS}

