"""Expectation suite of the `rejects` table: reason codes, messages, rejected files and rejected game trees."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import runner
from gopat.expectations.games import SOURCE_RULES
from gopat.transforms.tables.registry import contract

TABLE = "rejects"
SCHEMA = contract(TABLE)
WHOLE_SOURCE_EVIDENCE = "source_sha256 is NULL only for a whole source (member '')"
SNAKE_CASE = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"
ROW_RULES = {  # counted in one scan, as the games suite's (expectations/games.py ROW_RULES)
    **runner.not_null_rules(("source", "member", "member_name_guessed", "reason", "message"), shown="source"),
    **SOURCE_RULES,
    "reason_is_snake_case": ("source, member, reason", f"NOT regexp_matches(reason, '{SNAKE_CASE}')"),
    "tree_index_at_least_0": ("source, member, tree_index", "tree_index < 0"),
}


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
    return runner.run_invariants(TABLE, [
        schema,
        runner.rows_invariant(con, TABLE, "rejects_rows_equal_files_plus_trees_rejected",
                              expected=files_rejected + trees_rejected,
                              facts=f"files_rejected={files_rejected}, trees_rejected={trees_rejected}"),
        *runner.count_invariants(con, TABLE, checks=ROW_RULES),
        *runner.sql_invariants(
            con,
            "checks/rejects",
            params={"files_rejected": files_rejected},
            evidence={
                "unfetched_source_is_whole_source_reject": WHOLE_SOURCE_EVIDENCE,
                "file_rows_equal_files_rejected": f"files_rejected={files_rejected}",
            },
        ),
    ])
