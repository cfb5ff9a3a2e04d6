"""The setups suite passes a valid table and names the check that each injected fault breaks."""

from __future__ import annotations

import duckdb
import pytest

from gopat.expectations import setups
from tests.expectations.conftest import game_id

A, B = game_id("pro/a.sgf"), game_id("pro/b.sgf")
SETUPS_DDL = """
CREATE TABLE setups (
    game_id VARCHAR, stone_number INTEGER, colour VARCHAR, row SMALLINT, col SMALLINT, point VARCHAR
)"""


@pytest.fixture
def con(warehouse: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The valid warehouse with two black handicap stones in game A (19x19) and one white stone in B (9x9)."""
    warehouse.execute(SETUPS_DDL)
    warehouse.execute(f"""
        INSERT INTO setups VALUES
            ('{A}', 1, 'B', 3, 15, 'pd'), ('{A}', 2, 'B', 15, 3, 'dp'), ('{B}', 1, 'W', 2, 2, 'cc');
        UPDATE games SET setup_stones = 2 WHERE game_id = '{A}';
        UPDATE games SET setup_stones = 1 WHERE game_id = '{B}';
    """)
    return warehouse


def failing(con: duckdb.DuckDBPyConnection) -> set[str]:
    result = setups.validate(con, manifest={})
    assert result.table == "setups" and result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def test_valid_setups_pass(con: duckdb.DuckDBPyConnection) -> None:
    result = setups.validate(con, manifest={})
    assert result.success, result.failures()
    assert [outcome.expectation for outcome in result.outcomes] == [
        "setups_schema_matches_contract",
        "setups_game_id_exists_in_games",
        "setups_numbered_1_to_setup_stones",
        "setups_one_stone_per_point",
        "setups_colour_in_b_w",
        "setups_on_board",
        "setups_point_is_sgf_col_row_letters",
    ]


@pytest.mark.parametrize(("fault", "expected"), [
    (f"DELETE FROM setups WHERE game_id = '{A}' AND stone_number = 2", {"setups_numbered_1_to_setup_stones"}),
    (f"UPDATE setups SET stone_number = 3 WHERE game_id = '{A}' AND stone_number = 2",
     {"setups_numbered_1_to_setup_stones"}),
    (f"UPDATE games SET setup_stones = 0 WHERE game_id = '{B}'", {"setups_numbered_1_to_setup_stones"}),
    (f"UPDATE setups SET game_id = '{A}x' WHERE game_id = '{A}'",
     {"setups_game_id_exists_in_games", "setups_numbered_1_to_setup_stones"}),
    (f"UPDATE setups SET row = 15, col = 3, point = 'dp' WHERE game_id = '{A}' AND stone_number = 1",
     {"setups_one_stone_per_point"}),
    ("UPDATE setups SET colour = 'E' WHERE stone_number = 1", {"setups_colour_in_b_w"}),
    (f"UPDATE setups SET row = 9, point = 'cj' WHERE game_id = '{B}'", {"setups_on_board"}),
    (f"UPDATE setups SET row = NULL WHERE game_id = '{B}'", {"setups_on_board", "setups_point_is_sgf_col_row_letters"}),
    (f"UPDATE setups SET point = 'aa' WHERE game_id = '{B}'", {"setups_point_is_sgf_col_row_letters"}),
])
def test_injected_fault_is_caught(con: duckdb.DuckDBPyConnection, fault: str, expected: set[str]) -> None:
    con.execute(fault)
    assert failing(con) == expected


def test_a_wrong_schema_stops_at_the_contract(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("ALTER TABLE setups ALTER stone_number TYPE BIGINT")
    assert failing(con) == {"setups_schema_matches_contract"}
