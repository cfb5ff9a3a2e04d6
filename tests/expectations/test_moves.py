"""The moves suite passes a valid table and names the check that each injected fault breaks."""

from __future__ import annotations

import duckdb
import pytest

from gopat.expectations import moves
from tests.expectations.conftest import game_id

A, B, C = game_id("pro/a.sgf"), game_id("pro/b.sgf"), game_id("pro/c.sgf")
CONTIGUOUS = "move_numbers_contiguous_1_to_move_count"
ON_BOARD = "row_col_on_board_or_both_null"


def failing(con: duckdb.DuckDBPyConnection, manifest: dict) -> set[str]:
    """Names of the failed expectations of the moves suite."""
    result = moves.validate(con, manifest=manifest)
    assert result.table == "moves"
    assert result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def test_valid_moves_pass(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    result = moves.validate(warehouse, manifest=manifest)
    assert result.success, result.failures()
    assert [outcome.expectation for outcome in result.outcomes] == [
        "moves_schema_matches_contract",
        "game_id_move_number_unique",
        "game_id_exists_in_games",
        "move_numbers_contiguous_1_to_move_count",
        "colour_in_b_w",
        "row_col_on_board_or_both_null",
        "point_is_sgf_col_row_letters",
    ]
    assert not warehouse.sql("SELECT * FROM duckdb_tables() WHERE temporary").fetchall()


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (
            f"INSERT INTO moves SELECT * FROM moves WHERE game_id = '{B}' AND move_number = 2",
            {"game_id_move_number_unique", "move_numbers_contiguous_1_to_move_count"},
        ),
        (
            f"UPDATE moves SET move_number = 1 WHERE game_id = '{B}' AND move_number = 2",
            {"game_id_move_number_unique", "move_numbers_contiguous_1_to_move_count"},
        ),
        (f"UPDATE moves SET move_number = 5 WHERE game_id = '{A}' AND move_number = 2", {CONTIGUOUS}),
        (f"UPDATE moves SET move_number = move_number - 1 WHERE game_id = '{C}'", {CONTIGUOUS}),
        (f"DELETE FROM moves WHERE game_id = '{A}' AND move_number = 3", {"move_numbers_contiguous_1_to_move_count"}),
        (f"DELETE FROM moves WHERE game_id = '{C}'", {"move_numbers_contiguous_1_to_move_count"}),
        (f"UPDATE games SET move_count = 2 WHERE game_id = '{A}'", {"move_numbers_contiguous_1_to_move_count"}),
        (
            f"UPDATE moves SET move_number = NULL WHERE game_id = '{A}' AND move_number = 3",
            {"game_id_move_number_unique", "move_numbers_contiguous_1_to_move_count"},
        ),
        (
            f"UPDATE moves SET game_id = '{A}x' WHERE game_id = '{A}'",
            {"game_id_exists_in_games", "move_numbers_contiguous_1_to_move_count"},
        ),
        (
            f"INSERT INTO moves VALUES ('{A}x', 1, 'B', 3, 3, 'dd')",
            {"game_id_exists_in_games"},
        ),
        (f"UPDATE moves SET colour = 'X' WHERE game_id = '{B}' AND move_number = 1", {"colour_in_b_w"}),
        (f"UPDATE moves SET colour = NULL WHERE game_id = '{B}' AND move_number = 1", {"colour_in_b_w"}),
        # 9x9 game: row 9 is off the board although it would fit on 19x19.
        (f"UPDATE moves SET row = 9, point = 'gj' WHERE game_id = '{B}' AND move_number = 2", {ON_BOARD}),
        (f"UPDATE moves SET col = -1, point = '`e' WHERE game_id = '{B}' AND move_number = 1", {ON_BOARD}),
        (
            f"UPDATE moves SET row = NULL, point = NULL WHERE game_id = '{A}' AND move_number = 1",
            {"row_col_on_board_or_both_null"},
        ),
        (f"UPDATE moves SET point = 'dp' WHERE game_id = '{A}' AND move_number = 1", {"point_is_sgf_col_row_letters"}),
        (f"UPDATE moves SET point = 'tt' WHERE game_id = '{A}' AND move_number = 3", {"point_is_sgf_col_row_letters"}),
    ],
)
def test_injected_fault_is_caught(
    warehouse: duckdb.DuckDBPyConnection, manifest: dict, fault: str, expected: set[str]
) -> None:
    warehouse.execute(fault)
    assert failing(warehouse, manifest) == expected


def test_failure_details_name_the_offending_rows(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    warehouse.execute(f"UPDATE moves SET colour = 'X' WHERE game_id = '{C}' AND move_number IN (4, 9)")
    (failure,) = moves.validate(warehouse, manifest=manifest).failures()
    assert failure.expectation == "colour_in_b_w"
    assert failure.details.startswith("violations=2")
    assert f"{C}, 4, X" in failure.details and f"{C}, 9, X" in failure.details


def test_missing_moves_table_raises(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    warehouse.execute("DROP TABLE moves")
    with pytest.raises(ValueError, match="moves not found"):
        moves.validate(warehouse, manifest=manifest)


def test_schema_drift_is_reported_alone(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    warehouse.execute("ALTER TABLE moves DROP COLUMN point")
    result = moves.validate(warehouse, manifest=manifest)
    assert [(o.expectation, o.success) for o in result.outcomes] == [("moves_schema_matches_contract", False)]
    assert "missing point" in result.outcomes[0].details


def test_mistyped_column_is_reported_alone(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    warehouse.execute("ALTER TABLE moves ALTER COLUMN col TYPE BIGINT")
    result = moves.validate(warehouse, manifest=manifest)
    assert [(o.expectation, o.success) for o in result.outcomes] == [("moves_schema_matches_contract", False)]
    assert "col is BIGINT, not SMALLINT" in result.outcomes[0].details


def test_extra_column_fails_schema_but_rows_are_still_checked(
    warehouse: duckdb.DuckDBPyConnection, manifest: dict
) -> None:
    warehouse.execute("ALTER TABLE moves ADD COLUMN comment VARCHAR")
    warehouse.execute(f"UPDATE moves SET colour = 'b' WHERE game_id = '{A}' AND move_number = 1")
    result = moves.validate(warehouse, manifest=manifest)
    assert {o.expectation for o in result.failures()} == {"moves_schema_matches_contract", "colour_in_b_w"}
    assert result.failures()[0].details == "violations=1: unexpected comment"
