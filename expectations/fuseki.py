"""Expectation suite of the `fuseki` table: canonical forms, counts, years and win rates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import expect as e
from gopat.expectations.runner import (
    Invariant,
    SuiteResult,
    combine,
    manifest_fact,
    run_invariants,
    run_suite,
    schema_invariant,
    sql_invariant,
    table_columns,
)
from gopat.transforms.analytics.sql import sql_text

TABLE = "fuseki"
SCHEMA = {
    "kind": "VARCHAR",
    "moves": "INTEGER",
    "key": "VARCHAR",
    "sgf": "VARCHAR",
    "position": "VARCHAR",
    "games": "BIGINT",
    "distinct_sequences": "BIGINT",
    "first_year": "INTEGER",
    "last_year": "INTEGER",
    "year_counts": "STRUCT(\"year\" INTEGER, games BIGINT)[]",
    "unknown_year": "BIGINT",
    "results_known": "BIGINT",
    "unknown_results": "BIGINT",
    "black_score": "DOUBLE",
    "black_win_rate": "DOUBLE",
    "example_game_id": "VARCHAR",
}
POSITION_RE = r"^B:(?:[a-s]{2}(?: [a-s]{2})*)?\|W:(?:[a-s]{2}(?: [a-s]{2})*)?$"

# Each query returns the violating rows (sql_invariant counts them). The D4 macros come from
# transforms/analytics/sql/fuseki__d4.sql.
CHECKS = {
    "fuseki_sequence_is_smallest_of_its_8_variants": """
        SELECT key, t FROM fuseki, range(8) AS d4 (t)
        WHERE kind = 'sequence' AND array_to_string(d4_points(string_split(key, ' '), t), ' ') < key""",
    "fuseki_position_is_smallest_of_its_8_variants": """
        SELECT key, t FROM fuseki, range(8) AS d4 (t)
        WHERE kind = 'position' AND d4_position(position_black(key), position_white(key), t) < key""",
    "fuseki_position_of_sequence_is_its_canonical_position": """
        WITH stones AS (
            SELECT key, position, string_split(key, ' ') AS seq FROM fuseki WHERE kind = 'sequence'
        )
        SELECT key, position FROM stones, range(8) AS d4 (t)
        GROUP BY key, position
        HAVING min(d4_position(
            list_filter(seq, lambda p, i: i % 2 = 1), list_filter(seq, lambda p, i: i % 2 = 0), t
        )) IS DISTINCT FROM position""",
    "fuseki_key_has_moves_distinct_points": """
        SELECT kind, key FROM fuseki
        WHERE length(list_distinct(regexp_extract_all(key, '[a-s]{2}'))) <> moves
           OR len(regexp_extract_all(key, '[a-s]{2}')) <> moves
           OR len(position_black(position)) <> (moves + 1) // 2""",
    "fuseki_keys_match_their_kind": """
        SELECT kind, key FROM fuseki
        WHERE NOT regexp_full_match(key, CASE kind WHEN 'sequence' THEN '[a-s]{2}( [a-s]{2})*'
                                          ELSE 'B:([a-s]{2}( [a-s]{2})*)?[|]W:([a-s]{2}( [a-s]{2})*)?' END)
           OR (kind = 'position' AND key <> position)""",
    "fuseki_sgf_spells_the_sequence": """
        SELECT key, sgf FROM fuseki
        WHERE (kind = 'sequence' AND sgf IS DISTINCT FROM array_to_string(list_transform(
                   string_split(key, ' '),
                   lambda p, i: ';' || CASE WHEN i % 2 = 1 THEN 'B' ELSE 'W' END || '[' || p || ']'
               ), ''))
           OR (kind = 'position' AND sgf IS NOT NULL)""",
    "fuseki_one_moves_value": "SELECT DISTINCT moves FROM fuseki OFFSET 1",
    "fuseki_sequences_and_positions_count_the_same_games": """
        SELECT sum(games) FILTER (WHERE kind = 'sequence') AS sequences,
               sum(games) FILTER (WHERE kind = 'position') AS positions
        FROM fuseki
        HAVING sequences IS DISTINCT FROM positions""",
    "fuseki_position_rows_sum_their_sequences": """
        WITH per_position AS (
            SELECT position, sum(games) AS games, count(*) AS sequences
            FROM fuseki WHERE kind = 'sequence' GROUP BY position
        )
        SELECT p.key, p.games, s.games, p.distinct_sequences, s.sequences
        FROM (SELECT * FROM fuseki WHERE kind = 'position') AS p
        FULL JOIN per_position AS s ON s.position = p.key
        WHERE p.games IS DISTINCT FROM s.games OR p.distinct_sequences IS DISTINCT FROM s.sequences""",
    "fuseki_year_counts_add_up": """
        SELECT kind, key FROM fuseki
        WHERE coalesce(list_sum(list_transform(year_counts, lambda y: y.games)), 0) + unknown_year <> games
           OR first_year IS DISTINCT FROM list_min(list_transform(year_counts, lambda y: y.year))
           OR last_year IS DISTINCT FROM list_max(list_transform(year_counts, lambda y: y.year))
           OR list_transform(year_counts, lambda y: y.year)
              <> list_sort(list_distinct(list_transform(year_counts, lambda y: y.year)))
           OR list_bool_or(list_transform(year_counts, lambda y: y.games < 1))""",
    "fuseki_results_add_up": """
        SELECT kind, key FROM fuseki
        WHERE results_known + unknown_results <> games OR unknown_results < 0
           OR black_score < 0 OR black_score > results_known
           OR black_win_rate IS DISTINCT FROM (CASE WHEN results_known > 0 THEN black_score / results_known END)
           OR black_score * 2 <> round(black_score * 2)""",
    "fuseki_games_are_the_opening_games": """
        SELECT (SELECT sum(games) FROM fuseki WHERE kind = 'sequence') AS in_fuseki,
               (SELECT count(DISTINCT game_id) FROM opening_games) AS opening_games
        WHERE in_fuseki IS DISTINCT FROM opening_games AND (in_fuseki IS NOT NULL OR opening_games > 0)""",
    "fuseki_example_game_is_an_opening_game": """
        SELECT example_game_id FROM fuseki
        WHERE example_game_id NOT IN (SELECT game_id FROM opening_games)""",
}


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> SuiteResult:
    """Validate table fuseki in `con` (with the games and moves it was built from).

    Canonical forms are rechecked against all 8 symmetries in DuckDB; the games counted are
    rechecked against the opening games of the `games` and `moves` tables (fuseki__games.sql
    with the table's `moves`) and the manifest's game count. GX asserts every violation count is 0.
    """
    games = manifest_fact(manifest, "ingest", "games")
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(name not in columns for name in SCHEMA):
        return run_invariants(TABLE, [schema])
    moves = con.execute("SELECT max(moves) FROM fuseki").fetchall()[0][0]
    con.execute("SET VARIABLE opening_moves = ?", [moves or 1])
    con.execute(sql_text("fuseki__d4"))
    con.execute(sql_text("fuseki__games"))
    try:
        invariants = [schema, *(sql_invariant(con, name, query) for name, query in CHECKS.items())]
    finally:
        con.execute("DROP TABLE IF EXISTS temp.opening_games")
    counted = con.execute("SELECT coalesce(sum(games), 0) FROM fuseki WHERE kind = 'sequence'").fetchall()[0][0]
    invariants.append(
        Invariant("fuseki_games_within_manifest_games", max(0, counted - games), f"{counted} games > manifest {games}")
    )
    frame = con.sql("SELECT kind, moves, key, position, games, black_win_rate, example_game_id FROM fuseki").df()
    return combine(TABLE, [run_invariants(TABLE, invariants), run_suite(TABLE, frame, _expectations(games))])


def _expectations(games: int) -> list[e.Expectation]:
    """Column-level GX expectations on a pandas frame of the table's main columns."""
    return [
        *(e.ExpectColumnValuesToNotBeNull(column=column) for column in ("kind", "moves", "key", "position", "games")),
        e.ExpectColumnValuesToBeInSet(column="kind", value_set=["sequence", "position"]),
        e.ExpectCompoundColumnsToBeUnique(column_list=["kind", "key"]),
        e.ExpectColumnValuesToBeBetween(column="moves", min_value=1),
        e.ExpectColumnValuesToBeBetween(column="games", min_value=1, max_value=games),
        e.ExpectColumnValuesToBeBetween(column="black_win_rate", min_value=0, max_value=1),
        e.ExpectColumnValuesToMatchRegex(column="position", regex=POSITION_RE),
        e.ExpectColumnValuesToNotBeNull(column="example_game_id"),
    ]
