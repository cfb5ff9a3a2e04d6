"""Expectation suite of the `games` table: identity, header-derived columns and the ingest equation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import runner
from gopat.transforms.tables.registry import contract

TABLE = "games"
SCHEMA = contract(TABLE)
NOT_NULL = (
    "game_id", "source", "source_sha256", "member", "member_name_guessed", "tree_index", "handicap", "board_size",
    "move_count", "setup_stones", "sequence_sha1",
)
MIN_COMPARED_MOVES = 20
INGEST_FACTS = ("files_in", "files_ingested", "files_rejected", "games", "duplicates", "trees_in", "trees_rejected")
HEX_BYTES = r"^(?:[0-9a-f]{2})+$"  # member_raw: the raw name bytes (docs/releases.md#member-names)
SOURCE_RULES = {  # the rules of the source columns games and rejects share (transforms/tables/registry.py)
    "source_sha256_is_64_hex_digits": (
        "source, member, source_sha256", "NOT regexp_matches(source_sha256, '^[0-9a-f]{64}$')"),
    "member_raw_is_hex_bytes": ("source, member, member_raw", f"NOT regexp_matches(member_raw, '{HEX_BYTES}')"),
}
# Row rules counted in one scan (runner.count_invariants): name -> (columns shown on failure, the condition a row
# violates it with). A rule on a column skips its NULLs; the columns that must have none have a rule of their own.
ROW_RULES = {
    **runner.not_null_rules(NOT_NULL, shown="game_id"),
    **SOURCE_RULES,
    "game_id_starts_with_12_hex_digits": ("game_id", "NOT regexp_matches(game_id, '^[0-9a-f]{12}:')"),
    "sequence_sha1_is_40_hex_digits": ("game_id, sequence_sha1", "NOT regexp_matches(sequence_sha1, '^[0-9a-f]{40}$')"),
    "tree_index_at_least_0": ("game_id, tree_index", "tree_index < 0"),
    "board_size_between_2_and_25": ("game_id, board_size", "NOT board_size BETWEEN 2 AND 25"),
    "move_count_at_least_0": ("game_id, move_count", "move_count < 0"),
    "setup_stones_at_least_0": ("game_id, setup_stones", "setup_stones < 0"),
    "handicap_at_least_0": ("game_id, handicap", "handicap < 0"),
    "winner_is_b_w_or_d": ("game_id, winner", "winner NOT IN ('B', 'W', 'D')"),
    "year_between_1000_and_2999": ("game_id, year", "NOT year BETWEEN 1000 AND 2999"),
}


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table games in `con` (tables are named games, moves, rejects, pattern_stats in the
    connection's default schema). `manifest` holds the ingest and families facts of the schema contract.

    Every check is a violation count computed in DuckDB, which GX asserts: no frame of the games is held, so the
    suite's memory does not grow with the corpus.
    """
    ingest = {
        name: runner.manifest_fact(manifest, "ingest", name)
        for name in INGEST_FACTS
    }
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    return runner.run_invariants(TABLE, [
        schema,
        runner.rows_invariant(con, TABLE, "games_rows_equal_manifest_games", expected=ingest["games"],
                              facts=f"manifest ingest.games={ingest['games']}"),
        *runner.count_invariants(con, TABLE, checks=ROW_RULES),
        *_invariants(con, ingest),
    ])


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
