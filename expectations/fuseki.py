"""Expectation suite of the `fuseki` table: canonical forms, counts, years and win rates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import expect as e
from gopat.expectations import runner
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.tables.registry import contract

TABLE = "fuseki"
SCHEMA = contract(TABLE)
POSITION_RE = r"^B:(?:[a-s]{2}(?: [a-s]{2})*)?\|W:(?:[a-s]{2}(?: [a-s]{2})*)?$"


def load_opening_games(con: duckdb.DuckDBPyConnection, table: str, manifest: Mapping[str, Any]) -> int | None:
    """Create temp.opening_games (models/opening_games.sql) for the build's number of opening moves; return it (None:
    not known and the table empty).

    The number is the manifest's `config.fuseki_moves`, else the largest `moves` of `table` (one of the module
    constants `fuseki` or `opening_tree`, never user input): a build whose games are all shorter than the
    opening has an empty table and no opening games.
    """
    moves = manifest.get("config", {}).get("fuseki_moves")
    if moves is None:
        moves = con.execute(f"SELECT max(moves) FROM {table}").fetchall()[0][0]
    con.execute("SET VARIABLE opening_moves = ?", [moves or 1])
    con.execute(sql_text("macros/d4"))
    con.execute(sql_text("models/opening_games"))
    return None if moves is None else int(moves)


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table fuseki in `con` (with the games and moves it was built from).

    Canonical forms are rechecked against all 8 symmetries in DuckDB (checks/fuseki.sql); the games counted are
    rechecked against the opening games of the `games` and `moves` tables (models/opening_games.sql
    with the build's number of opening moves) and the manifest's game count. GX asserts every violation count is 0.
    """
    games = runner.manifest_fact(manifest, "ingest", "games")
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA, types=False)
    if stopped:
        return stopped
    load_opening_games(con, TABLE, manifest)
    try:
        invariants = [schema, *runner.sql_invariants(con, "checks/fuseki")]
    finally:
        con.execute("DROP TABLE IF EXISTS temp.opening_games")
    counted = con.execute("SELECT coalesce(sum(games), 0) FROM fuseki WHERE kind = 'sequence'").fetchall()[0][0]
    invariants.append(within_manifest_games("fuseki_games_within_manifest_games", counted, games))
    return runner.run_checks(con, TABLE, invariants, _expectations(games))


def within_manifest_games(name: str, counted: int, games: int) -> runner.Invariant:
    """The invariant `name`: the `counted` games of an opening table are no more than the manifest's `games`."""
    return runner.Invariant(name, max(0, counted - games), f"{counted} games > manifest {games}")


def _expectations(games: int) -> list[e.Expectation]:
    """Column-level GX expectations on the table's main columns."""
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
