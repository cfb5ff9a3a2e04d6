"""The games suite passes a valid table and names the check that each injected fault breaks."""

from __future__ import annotations

import json

import duckdb
import pytest

from gopat.expectations import games
from tests.expectations.conftest import game_id


def failing(con: duckdb.DuckDBPyConnection, manifest: dict) -> set[str]:
    """Names of the failed expectations of the games suite."""
    result = games.validate(con, manifest=manifest)
    assert result.table == "games"
    assert result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def test_valid_games_pass(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    result = games.validate(warehouse, manifest=manifest)
    assert result.success, result.failures()
    names = [outcome.expectation for outcome in result.outcomes]
    for required in (
        "game_id_unique",
        "game_id_not_null",
        "board_size_between_2_and_25",
        "move_count_at_least_0",
        "winner_is_b_w_or_d",
        "year_between_1000_and_2999",
        "sequence_sha1_unique_with_20_moves",
        "ingest_files_in_equals_ingested_plus_rejected",
        "ingest_trees_in_equals_games_duplicates_rejected",
        "member_raw_only_for_guessed_names",
        "member_raw_is_hex_bytes",
        "games_rows_equal_manifest_games",
        "games_schema_matches_contract",
    ):
        assert required in names
    assert len(names) == len(set(names))
    assert json.loads(json.dumps(result.to_dict()))["failed"] == 0


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (
            f"UPDATE games SET game_id = '{game_id('pro/a.sgf')}' WHERE member = 'pro/c.sgf'",
            {"game_id_unique", "game_id_is_sha256_prefix_member_tree"},
        ),
        (
            "UPDATE games SET game_id = NULL WHERE member = 'pro/a.sgf'",
            {"game_id_not_null", "game_id_is_sha256_prefix_member_tree"},
        ),
        ("UPDATE games SET board_size = 26 WHERE tree_index = 1", {"board_size_between_2_and_25"}),
        ("UPDATE games SET board_size = 1 WHERE tree_index = 1", {"board_size_between_2_and_25"}),
        ("UPDATE games SET move_count = -1 WHERE tree_index = 1", {"move_count_at_least_0"}),
        ("UPDATE games SET winner = 'X' WHERE member = 'pro/a.sgf'", {"winner_is_b_w_or_d"}),
        ("UPDATE games SET winner = 'b' WHERE member = 'pro/a.sgf'", {"winner_is_b_w_or_d"}),
        ("UPDATE games SET year = 999 WHERE member = 'pro/a.sgf'", {"year_between_1000_and_2999"}),
        ("UPDATE games SET year = 3000 WHERE member = 'pro/a.sgf'", {"year_between_1000_and_2999"}),
        ("UPDATE games SET handicap = NULL WHERE tree_index = 1", {"handicap_not_null"}),
        (
            "UPDATE games SET source_sha256 = upper(source_sha256), "
            "game_id = upper(left(game_id, 12)) || substr(game_id, 13)",
            {"source_sha256_is_64_hex_digits", "game_id_starts_with_12_hex_digits"},
        ),
        (
            "UPDATE games SET game_id = game_id || '#0' WHERE member = 'pro/a.sgf'",
            {"game_id_is_sha256_prefix_member_tree"},
        ),
        (
            # A second long game with the first long game's move sequence: a missed duplicate.
            """INSERT INTO games SELECT * REPLACE (game_id || '#1' AS game_id, 1 AS tree_index)
               FROM games WHERE member = 'pro/c.sgf'""",
            {"sequence_sha1_unique_with_20_moves", "games_rows_equal_manifest_games"},
        ),
        (
            "UPDATE games SET sequence_sha1 = 'not-a-sha1' WHERE member = 'pro/a.sgf'",
            {"sequence_sha1_is_40_hex_digits"},
        ),
        ("DELETE FROM games WHERE tree_index = 1", {"games_rows_equal_manifest_games"}),
        (
            # a raw name that is not lower-case hex, and a guessed name without its raw bytes
            "UPDATE games SET member_raw = upper(member_raw) WHERE member_raw IS NOT NULL;"
            "UPDATE games SET member_name_guessed = true WHERE member = 'pro/a.sgf'",
            {"member_raw_is_hex_bytes", "member_raw_only_for_guessed_names"},
        ),
    ],
)
def test_injected_fault_is_caught(
    warehouse: duckdb.DuckDBPyConnection, manifest: dict, fault: str, expected: set[str]
) -> None:
    warehouse.execute(fault)
    assert failing(warehouse, manifest) == expected


def test_short_games_may_share_a_sequence(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    """Only games of at least 20 moves must have distinct sequences; short ones are not compared."""
    warehouse.execute(
        "UPDATE games SET sequence_sha1 = (SELECT sequence_sha1 FROM games WHERE member = 'pro/a.sgf') "
        "WHERE tree_index = 1"
    )
    assert not failing(warehouse, manifest)
    warehouse.execute("UPDATE games SET move_count = 20 WHERE member = 'pro/a.sgf' OR tree_index = 1")
    assert failing(warehouse, manifest) == {"sequence_sha1_unique_with_20_moves"}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"files_in": 7}, {"ingest_files_in_equals_ingested_plus_rejected"}),
        ({"files_rejected": 1}, {"ingest_files_in_equals_ingested_plus_rejected"}),
        ({"games": 6, "trees_in": 8}, {"games_rows_equal_manifest_games"}),
        ({"trees_rejected": 0}, {"ingest_trees_in_equals_games_duplicates_rejected"}),
        ({"files_ingested": 3, "files_rejected": 3}, {"game_members_within_files_ingested"}),
        (
            {"files_in": 10, "files_ingested": 8, "duplicates": 0, "trees_in": 6},
            {"ingest_every_ingested_file_gave_a_game"},
        ),
        ({"duplicates": -1, "trees_in": 5}, {"ingest_counts_not_negative"}),
    ],
)
def test_manifest_mismatch_is_caught(
    warehouse: duckdb.DuckDBPyConnection, manifest: dict, change: dict, expected: set[str]
) -> None:
    manifest["ingest"].update(change)
    result = games.validate(warehouse, manifest=manifest)
    assert {outcome.expectation for outcome in result.failures()} == expected
