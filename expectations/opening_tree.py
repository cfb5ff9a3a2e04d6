"""Expectation suite of the `opening_tree` table: flow of games through the tree and canonical frames."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import expect as e
from gopat.expectations import runner
from gopat.expectations.fuseki import load_opening_games, within_manifest_games
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.tables.registry import contract

TABLE = "opening_tree"
SCHEMA = contract(TABLE)
KEY = ("depth", "node", "move")
LEAVES_MATCH_FUSEKI = "opening_tree_leaves_match_fuseki_positions"  # the check that needs table fuseki
POSITION_RE = r"^B:(?:[a-s]{2}(?: [a-s]{2})*)?\|W:(?:[a-s]{2}(?: [a-s]{2})*)?$"


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table opening_tree in `con` (with the games and moves it was built from).

    Every node's edges carry all its games and every node's games arrive through edges from the
    depth above; nodes, moves and children are rechecked against the 8 symmetries in DuckDB
    (checks/opening_tree.sql). When table fuseki exists with the same number of moves, the
    leaves' counts must equal its position counts. GX asserts every violation count is 0.
    """
    games = runner.manifest_fact(manifest, "ingest", "games")
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA, types=False)
    if stopped:
        return stopped
    moves = load_opening_games(con, TABLE, manifest)
    con.execute(sql_text("checks/opening_tree_frames"))
    checks = runner.sql_checks("checks/opening_tree")
    leaves = checks.pop(LEAVES_MATCH_FUSEKI)
    try:
        invariants = [schema, *(runner.sql_invariant(con, name, query) for name, query in checks.items())]
    finally:
        con.execute("DROP TABLE IF EXISTS temp.opening_games")
        con.execute("DROP TABLE IF EXISTS temp.opening_tree_frames")
    if "fuseki" in runner.table_names(con) and con.execute("SELECT max(moves) FROM fuseki").fetchall()[0][0] == moves:
        invariants.append(runner.sql_invariant(con, LEAVES_MATCH_FUSEKI, leaves))
    root = con.execute("SELECT coalesce(max(node_games), 0) FROM opening_tree WHERE depth = 0").fetchall()[0][0]
    invariants.append(within_manifest_games("opening_tree_games_within_manifest_games", root, games))
    return runner.run_checks(con, TABLE, invariants, _expectations())


def _expectations() -> list[e.Expectation]:
    """Column-level GX expectations on the table's main columns."""
    return [
        *runner.key_expectations(KEY, not_null=(*KEY, "colour", "child", "games")),
        e.ExpectColumnValuesToBeInSet(column="colour", value_set=["B", "W"]),
        e.ExpectColumnValuesToBeBetween(column="games", min_value=1),
        e.ExpectColumnValuesToBeBetween(column="share", min_value=0, max_value=1),
        e.ExpectColumnValuesToBeBetween(column="black_win_rate", min_value=0, max_value=1),
        e.ExpectColumnValuesToMatchRegex(column="node", regex=POSITION_RE),
        e.ExpectColumnValuesToMatchRegex(column="child", regex=POSITION_RE),
    ]
