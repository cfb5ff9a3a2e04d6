"""Expectation suite of the `games` table: identity, header-derived columns and the ingest equation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import expect as e
from gopat.expectations import runner
from gopat.transforms.tables.registry import contract

TABLE = "games"
SCHEMA = contract(TABLE)
COLUMNS = (
    "game_id",
    "source",
    "source_sha256",
    "member",
    "member_raw",
    "member_name_guessed",
    "tree_index",
    "year",
    "winner",
    "handicap",
    "board_size",
    "move_count",
    "setup_stones",
    "sequence_sha1",
)
MIN_COMPARED_MOVES = 20
INGEST_FACTS = ("files_in", "files_ingested", "files_rejected", "games", "duplicates", "trees_in", "trees_rejected")
HEX_BYTES = r"^(?:[0-9a-f]{2})+$"  # member_raw: the raw name bytes (docs/releases.md#member-names)


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table games in `con` (tables are named games, moves, rejects, pattern_stats in the
    connection's default schema). `manifest` holds the ingest and families facts of the schema contract.
    """
    ingest = {
        name: runner.manifest_fact(manifest, "ingest", name)
        for name in INGEST_FACTS
    }
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    frame = con.sql(f"SELECT {', '.join(COLUMNS)} FROM {TABLE}").df()
    invariants = runner.run_invariants(TABLE, [schema, *_invariants(con, ingest)])
    return runner.combine(TABLE, [invariants, runner.run_suite(TABLE, frame, _expectations(ingest))])


def _expectations(ingest: Mapping[str, int]) -> list[e.Expectation]:
    """Column-level GX expectations on the pandas frame of COLUMNS."""
    not_null = [column for column in COLUMNS if column not in ("year", "winner", "member_raw")]
    return [
        e.ExpectTableRowCountToEqual(value=ingest["games"], meta={"check": "games_rows_equal_manifest_games"}),
        *(e.ExpectColumnValuesToNotBeNull(column=column) for column in not_null),
        e.ExpectColumnValuesToBeUnique(column="game_id"),
        e.ExpectColumnValuesToMatchRegex(column="game_id", regex=r"^[0-9a-f]{12}:"),
        e.ExpectColumnValuesToMatchRegex(column="source_sha256", regex=r"^[0-9a-f]{64}$"),
        e.ExpectColumnValuesToMatchRegex(column="sequence_sha1", regex=r"^[0-9a-f]{40}$"),
        e.ExpectColumnValuesToMatchRegex(column="member_raw", regex=HEX_BYTES),
        e.ExpectColumnValuesToBeBetween(column="tree_index", min_value=0),
        e.ExpectColumnValuesToBeBetween(column="board_size", min_value=2, max_value=25),
        e.ExpectColumnValuesToBeBetween(column="move_count", min_value=0),
        e.ExpectColumnValuesToBeBetween(column="setup_stones", min_value=0),
        e.ExpectColumnValuesToBeBetween(column="handicap", min_value=0),
        e.ExpectColumnValuesToBeInSet(column="winner", value_set=["B", "W", "D"]),
        e.ExpectColumnValuesToBeBetween(column="year", min_value=1000, max_value=2999),
    ]


def _invariants(con: duckdb.DuckDBPyConnection, ingest: Mapping[str, int]) -> list[runner.Invariant]:
    """Row and table invariants computed in DuckDB (checks/games.sql), plus the manifest's ingest arithmetic."""
    files_in, ingested, rejected = ingest["files_in"], ingest["files_ingested"], ingest["files_rejected"]
    counts = ", ".join(f"{name}={value}" for name, value in ingest.items())
    trees = ingest["trees_in"] - ingest["games"] - ingest["duplicates"] - ingest["trees_rejected"]
    return [
        runner.Invariant("ingest_files_in_equals_ingested_plus_rejected", abs(files_in - ingested - rejected), counts),
        runner.Invariant("ingest_trees_in_equals_games_duplicates_rejected", abs(trees), counts),
        runner.Invariant("ingest_counts_not_negative", sum(value < 0 for value in ingest.values()), counts),
        runner.Invariant(
            "ingest_every_ingested_file_gave_a_game",
            max(0, ingested - ingest["games"] - ingest["duplicates"]),
            f"games + duplicates < files_ingested: {counts}",
        ),
        *runner.sql_invariants(
            con,
            "checks/games",
            params={"files_ingested": ingested, "min_moves": MIN_COMPARED_MOVES},
            evidence={"game_members_within_files_ingested": f"files_ingested={ingested}"},
        ),
    ]
