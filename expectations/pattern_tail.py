"""Expectation suite of the `pattern_tail` table: one row per family and symmetry, its threshold, consistent sums.

How the tail adds up with pattern_stats to the complete counts is checked by the pattern_stats suite.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import runner
from gopat.transforms.tables.registry import contract

TABLE = "pattern_tail"
SCHEMA = contract(TABLE)


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table pattern_tail in `con` against the manifest's families and config.min_occurrence.

    Every check runs in DuckDB as a violation count (checks/pattern_tail.sql): one row per
    family of the build and symmetry 8 and 16, with the family's threshold; counts that keys seen
    fewer than `min_occurrence` times can have (a threshold of 1 leaves nothing out).
    """
    families = manifest.get("families")
    if not isinstance(families, Mapping):
        raise ValueError("manifest lacks families")
    built = sorted(families)
    thresholds = [runner.manifest_fact(manifest, "config", "min_occurrence", name) for name in built]
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    params = {"built": built, "thresholds": thresholds}
    invariants = runner.sql_invariants(con, "checks/pattern_tail", params=params)
    return runner.run_invariants(TABLE, [schema, *invariants])
