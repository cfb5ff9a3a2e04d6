"""Expectation suite of the `setups` table: game references, numbering against `games.setup_stones`, points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import runner
from gopat.transforms.tables.registry import contract

TABLE = "setups"
SCHEMA = contract(TABLE)


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table setups in `con` against games (its `setup_stones` and `board_size`).

    Every check runs in DuckDB as a violation count (checks/setups.sql); GX asserts the counts. The
    manifest holds no fact about setups.
    """
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    return runner.run_invariants(TABLE, [schema, *runner.sql_invariants(con, "checks/setups")])
