"""Expectation suite of the `moves` table: keys, game references, numbering and board coordinates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations.runner import (
    Invariant,
    SuiteResult,
    run_invariants,
    schema_invariant,
    sql_invariant,
    table_columns,
)

TABLE = "moves"
SCHEMA = {
    "game_id": "VARCHAR",
    "move_number": "INTEGER",
    "colour": "VARCHAR",
    "row": "SMALLINT",
    "col": "SMALLINT",
    "point": "VARCHAR",
}
# One aggregate per game, shared by the uniqueness and numbering checks.
PER_GAME = f"""
    SELECT game_id, count(*) AS moves, count(DISTINCT move_number) AS numbers,
           min(move_number) AS first, max(move_number) AS last
    FROM {TABLE} GROUP BY game_id
"""


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> SuiteResult:
    """Validate table moves in `con` (tables are named games, moves, rejects, pattern_stats in the
    connection's default schema). `manifest` holds the ingest and families facts of the schema contract.

    Every row check runs in DuckDB as a violation count (the table has ~10M rows); GX asserts the
    counts. The games table is needed for the reference, numbering and board-size checks; the
    manifest holds no fact about moves.
    """
    missing = {"game_id", "move_count", "board_size"} - set(table_columns(con, "games"))
    if missing:
        raise ValueError(f"moves checks need games columns {sorted(missing)}")
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(columns.get(name) != kind for name, kind in SCHEMA.items()):
        return run_invariants(TABLE, [schema])
    return run_invariants(TABLE, [schema, *_invariants(con)])


def _invariants(con: duckdb.DuckDBPyConnection) -> list[Invariant]:
    """Row invariants of moves as DuckDB queries that return the violating rows."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE moves_per_game__ AS {PER_GAME}")
    try:
        return [
            sql_invariant(
                con,
                "game_id_move_number_unique",
                """SELECT game_id, moves, numbers FROM moves_per_game__ WHERE moves <> numbers""",
                evidence="game_id, rows, distinct non-null move numbers",
            ),
            sql_invariant(
                con,
                "game_id_exists_in_games",
                f"SELECT game_id, move_number FROM {TABLE} ANTI JOIN games USING (game_id)",
            ),
            sql_invariant(
                con,
                "move_numbers_contiguous_1_to_move_count",
                """SELECT g.game_id, g.move_count, coalesce(p.numbers, 0) AS numbers, p.first, p.last
                   FROM games AS g LEFT JOIN moves_per_game__ AS p USING (game_id)
                   WHERE g.move_count IS NULL
                      OR coalesce(p.moves, 0) <> g.move_count
                      OR coalesce(p.numbers, 0) <> g.move_count
                      OR (g.move_count > 0 AND (p.first <> 1 OR p.last <> g.move_count))""",
                evidence="game_id, move_count, distinct numbers, first, last",
            ),
            sql_invariant(
                con,
                "colour_in_b_w",
                f"SELECT game_id, move_number, colour FROM {TABLE} WHERE colour IS NULL OR colour NOT IN ('B', 'W')",
            ),
            sql_invariant(
                con,
                "row_col_on_board_or_both_null",
                f"""SELECT m.game_id, m.move_number, m.row, m.col, g.board_size
                    FROM {TABLE} AS m JOIN games AS g USING (game_id)
                    WHERE (m.row IS NULL) <> (m.col IS NULL)
                       OR m.row < 0 OR m.col < 0 OR m.row >= g.board_size OR m.col >= g.board_size""",
            ),
            sql_invariant(
                con,
                "point_is_sgf_col_row_letters",
                f"""SELECT game_id, move_number, row, col, point FROM {TABLE}
                    WHERE point IS DISTINCT FROM chr((97 + col)::INTEGER) || chr((97 + row)::INTEGER)""",
            ),
        ]
    finally:
        con.execute("DROP TABLE IF EXISTS temp.moves_per_game__")
