"""Expectation suite of the `setups` table: game references, numbering against `games.setup_stones`, points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations.runner import (
    SuiteResult,
    run_invariants,
    schema_invariant,
    sql_invariants,
    table_columns,
)
from gopat.transforms.tables.registry import contract

TABLE = "setups"
SCHEMA = contract(TABLE)


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> SuiteResult:
    """Validate table setups in `con` against games (its `setup_stones` and `board_size`).

    Every check runs in DuckDB as a violation count (checks/setups.sql); GX asserts the counts. The
    manifest holds no fact about setups.
    """
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(columns.get(name) != kind for name, kind in SCHEMA.items()):
        return run_invariants(TABLE, [schema])
    return run_invariants(TABLE, [schema, *sql_invariants(con, "checks/setups")])
