"""effects/search_index.py: the index reads moves in any order and places each by its game and number."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

from gopat.effects import search_index

# game "a": B pd, W pass; game "b": B dd, W dp, B pp; listed out of order, as a join may stream them
MOVES = [("b", 3, "B", 15, 15), ("a", 2, "W", None, None), ("b", 1, "B", 3, 3), ("a", 1, "B", 3, 15),
         ("b", 2, "W", 15, 3)]
COUNTS = np.array([2, 3])


def release(moves: list[tuple[str, int, str, int | None, int | None]]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute('CREATE TABLE games (game_id VARCHAR); INSERT INTO games VALUES (\'b\'), (\'a\')')
    con.execute('CREATE TABLE moves (game_id VARCHAR, move_number INTEGER, colour VARCHAR, "row" SMALLINT, '
                "col SMALLINT)")
    con.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?)", moves)
    return con


def test_moves_are_placed_in_game_id_then_move_order() -> None:
    placed = search_index._placed(release(MOVES), "search/moves", COUNTS, table="moves", version="v")
    assert placed.dtype == np.int16
    assert placed.tolist() == [[1, 3, 15], [2, -1, -1], [1, 3, 3], [2, 15, 3], [1, 15, 15]]


@pytest.mark.parametrize(("moves", "message"), [
    (MOVES[1:], "release v: moves has 4 rows, the games count 5"),
    ([*MOVES[:-1], MOVES[0]], "release v: moves has 5 rows, the games count 5"),  # one move twice, one missing
    ([*MOVES, ("a", 3, "B", 0, 0)], "release v: moves numbers a row past its game's count"),
])
def test_moves_that_do_not_fill_the_games_counts_are_refused(
    moves: list[tuple[str, int, str, int | None, int | None]], message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        search_index._placed(release(moves), "search/moves", COUNTS, table="moves", version="v")
