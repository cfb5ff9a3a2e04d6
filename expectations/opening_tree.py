"""Expectation suite of the `opening_tree` table: flow of games through the tree and canonical frames."""

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

TABLE = "opening_tree"
SCHEMA = {
    "depth": "INTEGER",
    "node": "VARCHAR",
    "move": "VARCHAR",
    "colour": "VARCHAR",
    "child": "VARCHAR",
    "games": "BIGINT",
    "node_games": "BIGINT",
    "share": "DOUBLE",
    "results_known": "BIGINT",
    "unknown_results": "BIGINT",
    "black_score": "DOUBLE",
    "black_win_rate": "DOUBLE",
    "moves": "INTEGER",
}
POSITION_RE = r"^B:(?:[a-s]{2}(?: [a-s]{2})*)?\|W:(?:[a-s]{2}(?: [a-s]{2})*)?$"

# Each query returns the violating rows (sql_invariant counts them). The D4 macros come from
# transforms/analytics/sql/fuseki__d4.sql; FRAMES holds every distinct node's 8 images.
FRAMES = """
    CREATE OR REPLACE TEMP TABLE opening_tree_frames AS
    SELECT nodes.node, d4.t, d4_position(nodes.b, nodes.w, d4.t) AS image
    FROM (SELECT DISTINCT node, position_black(node) AS b, position_white(node) AS w FROM opening_tree) AS nodes
    CROSS JOIN range(8) AS d4 (t)"""
CHECKS = {
    "opening_tree_edges_sum_to_node_games": """
        SELECT depth, node, sum(games), min(node_games), max(node_games) FROM opening_tree
        GROUP BY depth, node
        HAVING sum(games) <> min(node_games) OR min(node_games) <> max(node_games)""",
    "opening_tree_node_games_equal_games_arriving": """
        WITH arriving AS (
            SELECT depth + 1 AS depth, child AS node, sum(games) AS games FROM opening_tree GROUP BY ALL
        ),
        nodes AS (SELECT DISTINCT depth, node, node_games, moves FROM opening_tree)
        SELECT coalesce(n.depth, a.depth), coalesce(n.node, a.node), n.node_games, a.games
        FROM nodes AS n FULL JOIN arriving AS a USING (depth, node)
        WHERE coalesce(n.depth, a.depth) BETWEEN 1 AND (SELECT max(moves) - 1 FROM opening_tree)
          AND n.node_games IS DISTINCT FROM a.games""",
    "opening_tree_one_root": """
        SELECT list(DISTINCT node) AS roots FROM opening_tree WHERE depth = 0
        HAVING roots <> ['B:|W:']""",
    "opening_tree_depth_within_moves": """
        SELECT depth, moves FROM opening_tree
        WHERE depth < 0 OR depth >= moves OR moves <> (SELECT max(moves) FROM opening_tree)""",
    "opening_tree_node_has_depth_stones": """
        SELECT depth, node FROM opening_tree
        WHERE len(position_black(node)) <> (depth + 1) // 2 OR len(position_white(node)) <> depth // 2
           OR colour <> CASE WHEN depth % 2 = 0 THEN 'B' ELSE 'W' END""",
    "opening_tree_node_is_smallest_of_its_8_variants": """
        SELECT node, t FROM opening_tree_frames WHERE image < node""",
    "opening_tree_move_is_smallest_under_the_node_stabiliser": """
        SELECT tree.node, tree.move, frames.t
        FROM opening_tree AS tree
        INNER JOIN opening_tree_frames AS frames ON frames.node = tree.node AND frames.image = tree.node
        WHERE d4_point(tree.move, frames.t) < tree.move""",
    "opening_tree_move_is_on_an_empty_point": """
        SELECT node, move FROM opening_tree
        WHERE NOT regexp_full_match(move, '[a-s]{2}')
           OR list_contains(position_black(node), move) OR list_contains(position_white(node), move)""",
    "opening_tree_child_is_node_plus_move": """
        WITH grown AS (
            SELECT node, move, child,
                   position_black(node) || CASE WHEN colour = 'B' THEN [move] ELSE [] END AS b,
                   position_white(node) || CASE WHEN colour = 'W' THEN [move] ELSE [] END AS w
            FROM opening_tree
        )
        SELECT node, move, child FROM grown, range(8) AS d4 (t)
        GROUP BY node, move, child
        HAVING min(d4_position(b, w, t)) IS DISTINCT FROM child""",
    "opening_tree_results_add_up": """
        SELECT depth, node, move FROM opening_tree
        WHERE results_known + unknown_results <> games OR unknown_results < 0
           OR black_score < 0 OR black_score > results_known
           OR black_win_rate IS DISTINCT FROM (CASE WHEN results_known > 0 THEN black_score / results_known END)
           OR abs(share - games / node_games) > 1e-12""",
    "opening_tree_root_counts_the_opening_games": """
        SELECT (SELECT max(node_games) FROM opening_tree WHERE depth = 0) AS in_tree,
               (SELECT count(DISTINCT game_id) FROM opening_games) AS opening_games
        WHERE in_tree IS DISTINCT FROM opening_games AND (in_tree IS NOT NULL OR opening_games > 0)""",
}
MATCHES_FUSEKI = """
    SELECT f.key, f.games, t.games
    FROM (SELECT key, games FROM fuseki WHERE kind = 'position') AS f
    FULL JOIN (
        SELECT child AS key, sum(games) AS games FROM opening_tree
        WHERE depth = (SELECT max(moves) - 1 FROM opening_tree) GROUP BY child
    ) AS t USING (key)
    WHERE f.games IS DISTINCT FROM t.games"""


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> SuiteResult:
    """Validate table opening_tree in `con` (with the games and moves it was built from).

    Every node's edges carry all its games and every node's games arrive through edges from the
    depth above; nodes, moves and children are rechecked against the 8 symmetries in DuckDB. When
    table fuseki exists with the same number of moves, the leaves' counts must equal its position
    counts. GX asserts every violation count is 0.
    """
    games = manifest_fact(manifest, "ingest", "games")
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(name not in columns for name in SCHEMA):
        return run_invariants(TABLE, [schema])
    moves = con.execute("SELECT max(moves) FROM opening_tree").fetchall()[0][0]
    con.execute("SET VARIABLE opening_moves = ?", [moves or 1])
    con.execute(sql_text("fuseki__d4"))
    con.execute(sql_text("fuseki__games"))
    con.execute(FRAMES)
    try:
        invariants = [schema, *(sql_invariant(con, name, query) for name, query in CHECKS.items())]
    finally:
        con.execute("DROP TABLE IF EXISTS temp.opening_games")
        con.execute("DROP TABLE IF EXISTS temp.opening_tree_frames")
    if "fuseki" in _tables(con) and con.execute("SELECT max(moves) FROM fuseki").fetchall()[0][0] == moves:
        invariants.append(sql_invariant(con, "opening_tree_leaves_match_fuseki_positions", MATCHES_FUSEKI))
    root = con.execute("SELECT coalesce(max(node_games), 0) FROM opening_tree WHERE depth = 0").fetchall()[0][0]
    invariants.append(
        Invariant("opening_tree_games_within_manifest_games", max(0, root - games), f"{root} games > manifest {games}")
    )
    frame = con.sql("SELECT depth, node, move, colour, child, games, share, black_win_rate FROM opening_tree").df()
    return combine(TABLE, [run_invariants(TABLE, invariants), run_suite(TABLE, frame, _expectations())])


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema() AND table_catalog = current_database()"
    ).fetchall()
    return {name for (name,) in rows}


def _expectations() -> list[e.Expectation]:
    """Column-level GX expectations on a pandas frame of the table's main columns."""
    return [
        *(e.ExpectColumnValuesToNotBeNull(column=c) for c in ("depth", "node", "move", "colour", "child", "games")),
        e.ExpectCompoundColumnsToBeUnique(column_list=["depth", "node", "move"]),
        e.ExpectColumnValuesToBeInSet(column="colour", value_set=["B", "W"]),
        e.ExpectColumnValuesToBeBetween(column="games", min_value=1),
        e.ExpectColumnValuesToBeBetween(column="share", min_value=0, max_value=1),
        e.ExpectColumnValuesToBeBetween(column="black_win_rate", min_value=0, max_value=1),
        e.ExpectColumnValuesToMatchRegex(column="node", regex=POSITION_RE),
        e.ExpectColumnValuesToMatchRegex(column="child", regex=POSITION_RE),
    ]
