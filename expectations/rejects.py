"""Expectation suite of the `rejects` table: reason codes, messages, rejected files and rejected game trees."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import expect as e
from gopat.expectations import runner
from gopat.expectations.games import HEX_BYTES
from gopat.transforms.tables.registry import contract

TABLE = "rejects"
SCHEMA = contract(TABLE)
WHOLE_SOURCE_EVIDENCE = "source_sha256 is NULL only for a whole source (member '')"
SNAKE_CASE = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table rejects in `con` (tables are named games, moves, rejects, pattern_stats in the
    connection's default schema). `manifest` holds the ingest and families facts of the schema contract.

    One row per rejected file, archive member or whole source (``tree_index`` NULL; a whole-source
    reject counts as one file), so those rows number the manifest's ``files_rejected``; one row per
    rejected game tree of a file that gave games (``tree_index`` set), numbering ``trees_rejected``
    (docs/releases.md#ingest-contract).
    """
    files_rejected = runner.manifest_fact(manifest, "ingest", "files_rejected")
    trees_rejected = runner.manifest_fact(manifest, "ingest", "trees_rejected")
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    invariants = runner.run_invariants(
        TABLE,
        [
            schema,
            *runner.sql_invariants(
                con,
                "checks/rejects",
                params={"files_rejected": files_rejected},
                evidence={
                    "unfetched_source_is_whole_source_reject": WHOLE_SOURCE_EVIDENCE,
                    "file_rows_equal_files_rejected": f"files_rejected={files_rejected}",
                },
            ),
        ],
    )
    frame = con.sql(f"SELECT {', '.join(SCHEMA)} FROM {TABLE}").df()
    expectations = [
        e.ExpectTableRowCountToEqual(
            value=files_rejected + trees_rejected, meta={"check": "rejects_rows_equal_files_plus_trees_rejected"}
        ),
        *(
            e.ExpectColumnValuesToNotBeNull(column=column)
            for column in ("source", "member", "member_name_guessed", "reason", "message")
        ),
        e.ExpectColumnValuesToMatchRegex(column="reason", regex=SNAKE_CASE),
        e.ExpectColumnValuesToMatchRegex(column="source_sha256", regex=r"^[0-9a-f]{64}$"),
        e.ExpectColumnValuesToMatchRegex(column="member_raw", regex=HEX_BYTES),
        e.ExpectColumnValuesToBeBetween(column="tree_index", min_value=0),
    ]
    return runner.combine(TABLE, [invariants, runner.run_suite(TABLE, frame, expectations)])
