"""Expectation suite of the `moves` table: keys, game references, numbering and board coordinates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import runner
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.tables.registry import contract

TABLE = "moves"
SCHEMA = contract(TABLE)


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table moves in `con` (tables are named games, moves, rejects, pattern_stats in the
    connection's default schema). `manifest` holds the ingest and families facts of the schema contract.

    Every row check runs in DuckDB as a violation count (the table has ~10M rows); GX asserts the
    counts. The games table is needed for the reference, numbering and board-size checks; the
    manifest holds no fact about moves.
    """
    missing = {"game_id", "move_count", "board_size"} - set(runner.table_columns(con, "games"))
    if missing:
        raise ValueError(f"moves checks need games columns {sorted(missing)}")
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    return runner.run_invariants(TABLE, [schema, *_invariants(con)])


def _invariants(con: duckdb.DuckDBPyConnection) -> list[runner.Invariant]:
    """Row invariants of moves as DuckDB queries that return the violating rows (checks/moves.sql)."""
    con.execute(sql_text("checks/moves_per_game"))
    try:
        return runner.sql_invariants(
            con,
            "checks/moves",
            evidence={
                "game_id_move_number_unique": "game_id, rows, distinct non-null move numbers",
                "move_numbers_contiguous_1_to_move_count": "game_id, move_count, distinct numbers, first, last",
            },
        )
    finally:
        con.execute("DROP TABLE IF EXISTS temp.moves_per_game__")
