"""Openings: tables fuseki and opening_tree (DuckDB SQL) and the most common opening lines as text."""

from __future__ import annotations

from typing import Any

import duckdb

from gopat.transforms.analytics.loader import run, sql_text
from gopat.transforms.checks import positive


def _opening_games(con: duckdb.DuckDBPyConnection, moves: int) -> None:
    """D4 macros and the temp table ``opening_games`` of the first ``moves`` moves."""
    con.execute("SET VARIABLE opening_moves = ?", [moves])
    run(con, "macros/d4")
    run(con, "models/opening_games")


def build_fuseki(con: duckdb.DuckDBPyConnection, *, moves: int = 10) -> None:
    """Create table ``fuseki``: the first ``moves`` moves as canonical sequences and positions.

    Needs tables ``games`` and ``moves``; definitions in ``transforms/analytics/sql/models/fuseki.sql``.
    """
    _opening_games(con, positive("moves", moves))
    run(con, "models/fuseki")


def build_opening_tree(con: duckdb.DuckDBPyConnection, *, moves: int = 10) -> None:
    """Create table ``opening_tree``: canonical position after k moves -> next move, k = 0..moves-1.

    Needs tables ``games`` and ``moves``; definitions in ``transforms/analytics/sql/models/opening_tree.sql``.
    """
    _opening_games(con, positive("moves", moves))
    run(con, "models/opening_tree")


def _opening_lines(con: duckdb.DuckDBPyConnection, moves: int, top: int) -> tuple[int, list[tuple[Any, ...]]]:
    """Number of opening games and the ``top`` rows of ``transforms/analytics/sql/queries/fuseki_lines.sql``."""
    _opening_games(con, moves)
    try:
        con.execute("SET VARIABLE opening_top = ?", [top])
        rows = con.execute(sql_text("queries/fuseki_lines")).fetchall()
        total = con.execute("SELECT count(DISTINCT game_id) FROM opening_games").fetchall()[0][0]
    finally:
        con.execute("DROP TABLE IF EXISTS temp.opening_games")
    return total, rows


def openings_text(con: duckdb.DuckDBPyConnection, *, moves: int = 6, top: int = 10) -> str:
    """The most common opening lines as readable text (``gopat openings``).

    One line per canonical sequence of the first ``moves`` moves of the opening games (as in
    table fuseki: 19x19, no handicap, up to the 8 symmetries, Black first), most games first:
    rank, games, share of the opening games, Black's win rate among known results, and the moves
    as ``B dd  W pp ...``. Needs tables ``games`` and ``moves``.
    """
    total, rows = _opening_lines(con, positive("moves", moves), positive("top", top))
    lines = [
        f"Most common openings: first {moves} moves of {total} games "
        f"(19x19, no handicap; equal up to the 8 symmetries of the board)",
        f"{'rank':>4} {'games':>6} {'share':>6} {'B win':>6}  moves",
    ]
    for rank, (sequence, games, rate) in enumerate(rows, start=1):
        spelled = "  ".join(f"{'BW'[i % 2]} {point}" for i, point in enumerate(sequence.split(" ")))
        win = "-" if rate is None else f"{rate:.0%}"
        lines.append(f"{rank:>4} {games:>6} {games / total:>6.1%} {win:>6}  {spelled}")
    if not rows:
        lines.append("(no game has that many opening moves)")
    return "\n".join(lines) + "\n"
