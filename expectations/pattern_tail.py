"""Expectation suite of the `pattern_tail` table: one row per family and symmetry, its threshold, consistent sums.

How the tail adds up with pattern_stats to the complete counts is checked by the pattern_stats suite.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations.runner import (
    SuiteResult,
    manifest_fact,
    run_invariants,
    schema_invariant,
    sql_invariants,
    table_columns,
)
from gopat.transforms.tables.registry import contract

TABLE = "pattern_tail"
SCHEMA = contract(TABLE)


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> SuiteResult:
    """Validate table pattern_tail in `con` against the manifest's families and config.min_occurrence.

    Every check runs in DuckDB as a violation count (checks/pattern_tail.sql): one row per
    family of the build and symmetry 8 and 16, with the family's threshold; counts that keys seen
    fewer than `min_occurrence` times can have (a threshold of 1 leaves nothing out).
    """
    families = manifest.get("families")
    if not isinstance(families, Mapping):
        raise ValueError("manifest lacks families")
    built = sorted(families)
    thresholds = [manifest_fact(manifest, "config", "min_occurrence", name) for name in built]
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(columns.get(name) != kind for name, kind in SCHEMA.items()):
        return run_invariants(TABLE, [schema])
    return run_invariants(TABLE, [
        schema, *sql_invariants(con, "checks/pattern_tail", params={"built": built, "thresholds": thresholds}),
    ])
