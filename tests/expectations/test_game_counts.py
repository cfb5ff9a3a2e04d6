"""The game_counts suite passes on the built table and names each injected fault."""

from __future__ import annotations

import duckdb
import pytest

from gopat.expectations import game_counts
from gopat.transforms.analytics.counting import build_game_counts


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    build_game_counts(connection, max_moves=8)
    return connection


def _failures(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {outcome.expectation for outcome in game_counts.validate(con, manifest={}).failures()}


def test_valid_counts_pass(con: duckdb.DuckDBPyConnection) -> None:
    result = game_counts.validate(con, manifest={})
    assert result.success, result.failures()
    assert "game_counts_match_design_numbers" in {outcome.expectation for outcome in result.outcomes}


def test_small_board_counts_pass() -> None:
    con = duckdb.connect()
    build_game_counts(con, max_moves=12, board_size=3)  # N > 9 points: no game at all
    assert game_counts.validate(con, manifest={}).success
    assert con.execute("SELECT sequences, positions FROM game_counts WHERE moves = 10").fetchall() == [("0", "0")]


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        ("UPDATE game_counts SET sequences = '16417', sequences_approx = 16417 WHERE moves = 2",
         "game_counts_match_design_numbers"),
        ("UPDATE game_counts SET positions = '2919079', positions_approx = 2919079 WHERE moves = 3",
         "game_counts_match_design_numbers"),
        ("UPDATE game_counts SET sequences_approx = sequences_approx * 1.001 WHERE moves = 7",
         "game_counts_approx_equals_exact"),
        ("UPDATE game_counts SET positions = sequences, positions_approx = sequences_approx WHERE moves = 5",
         "game_counts_within_labelled_counts_and_an_eighth"),
        ("UPDATE game_counts SET sequences = '1', sequences_approx = 1 WHERE moves = 6",
         "game_counts_within_labelled_counts_and_an_eighth"),
        ("UPDATE game_counts SET positions = (sequences::HUGEINT + 1)::VARCHAR, "
         "positions_approx = sequences_approx + 1 WHERE moves = 1", "game_counts_positions_not_above_sequences"),
        ("DELETE FROM game_counts WHERE moves = 4", "game_counts_moves_run_from_1"),
        ("UPDATE game_counts SET sequences = '1e9' WHERE moves = 8", "game_counts_exact_counts_are_decimal_integers"),
        ("INSERT INTO game_counts SELECT * FROM game_counts WHERE moves = 8",
         "expect_compound_columns_to_be_unique(board_size, moves)"),
        ("ALTER TABLE game_counts DROP COLUMN positions_approx", "game_counts_schema_matches_contract"),
    ],
)
def test_injected_fault_is_caught(con: duckdb.DuckDBPyConnection, fault: str, check: str) -> None:
    con.execute(fault)
    assert check in _failures(con)
