"""gopat.transforms.analytics.counting: Burnside counts against brute-force orbits (docs/symmetry.md#game-counts)."""

from __future__ import annotations

import itertools
import math
import time
from itertools import combinations, permutations

import duckdb
import polars as pl
import pytest

from gopat.transforms.analytics.counting import build_game_counts, count_games, game_counts_frame
from tests.transforms.analytics import analytics_oracles as O
from tests.transforms.analytics.analytics_tables import Game, load_tables
from tests.transforms.analytics.counting_oracles import coordinate_maps, positions_by_marks, sequences_by_augmentation


def brute_sequences(moves: int, size: int) -> int:
    """Number of orbits of move sequences: enumerate every sequence and keep its canonical form."""
    points = [(r, c) for r in range(size) for c in range(size)]
    maps = coordinate_maps(size)
    return len({min(tuple(f(r, c) for r, c in seq) for f in maps) for seq in permutations(points, moves)})


def brute_positions(moves: int, size: int) -> int:
    """Number of orbits of positions: enumerate every (black set, white set) and keep its canonical form."""
    points = [(r, c) for r in range(size) for c in range(size)]
    maps = coordinate_maps(size)
    positions = set()
    n_black, n_white = (moves + 1) // 2, moves // 2
    for black in combinations(points, n_black):
        rest = [p for p in points if p not in black]
        for white in combinations(rest, n_white):
            positions.add(
                min(
                    (tuple(sorted(f(r, c) for r, c in black)), tuple(sorted(f(r, c) for r, c in white)))
                    for f in maps
                )
            )
    return len(positions)


@pytest.mark.parametrize(
    ("size", "max_moves"),
    [(1, 2), (2, 5), (3, 5), (4, 4), (5, 3)],
)
def test_matches_brute_force_on_small_boards(size, max_moves):
    for moves in range(max_moves + 1):
        expected = (brute_sequences(moves, size), brute_positions(moves, size))
        assert count_games(moves, board_size=size) == expected, (size, moves)


@pytest.mark.parametrize(("size", "max_moves"), [(2, 5), (3, 5), (4, 4), (5, 3)])
def test_independent_oracles_match_brute_force(size, max_moves):
    """The two oracles below are themselves checked against enumeration where it is feasible."""
    for moves in range(max_moves + 1):
        assert sequences_by_augmentation(moves, size) == brute_sequences(moves, size), (size, moves)
        assert positions_by_marks(moves, size) == brute_positions(moves, size), (size, moves)


@pytest.mark.parametrize("size", [9, 19, 7, 13])
def test_agrees_with_independent_methods_up_to_8_moves(size):
    """Burnside over elements vs canonical augmentation (sequences) and the table of marks (positions)."""
    for moves in range(9):
        expected = (sequences_by_augmentation(moves, size), positions_by_marks(moves, size))
        assert count_games(moves, board_size=size) == expected, (size, moves)


def test_sequences_and_positions_differ_by_move_order():
    """On 3x3 with 3 moves, different orders of the black stones give the same position."""
    sequences, positions = count_games(3, board_size=3)
    assert sequences > positions


@pytest.mark.parametrize(
    ("moves", "expected"),
    [(1, (55, 55)), (2, (16_416, 16_416)), (3, (5_834_862, 2_919_078))],
)
def test_design_numbers_on_19x19(moves, expected):
    assert count_games(moves) == expected


def test_edge_cases():
    assert count_games(0) == (1, 1)
    assert count_games(0, board_size=4) == (1, 1)
    assert count_games(362) == (0, 0)
    assert count_games(10, board_size=3) == (0, 0)
    full_sequences, full_positions = count_games(9, board_size=3)
    assert full_sequences == math.factorial(9) // 8  # a full sequence has no symmetry
    assert full_positions == brute_positions(9, 3)


def test_n50_is_instant_and_exact():
    start = time.perf_counter()
    sequences, positions = count_games(50)
    assert time.perf_counter() - start < 1.0
    total = math.perm(361, 50)
    assert total // 8 <= sequences <= total
    assert sequences * 8 == total  # no symmetry but the identity fixes 50 distinct points
    assert positions * 8 >= math.comb(361, 25) * math.comb(336, 25)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_bad_arguments_raise(bad):
    with pytest.raises(ValueError, match=r"moves must be an int >= 0"):
        count_games(bad)
    with pytest.raises(ValueError, match=r"board_size must be an int >= 1"):
        count_games(1, board_size=bad)
    with pytest.raises(ValueError, match=r"max_moves must be an int >= 0"):
        game_counts_frame(bad)


def test_game_counts_frame():
    frame = game_counts_frame(20, board_size=19)
    assert frame.schema == pl.Schema(
        {
            "board_size": pl.Int64,
            "moves": pl.Int64,
            "sequences": pl.String,
            "positions": pl.String,
            "sequences_approx": pl.Float64,
            "positions_approx": pl.Float64,
        }
    )
    assert frame["moves"].to_list() == list(range(1, 21))
    assert frame["board_size"].unique().to_list() == [19]
    assert frame["sequences"][:3].to_list() == ["55", "16416", "5834862"]
    assert frame["positions"][:3].to_list() == ["55", "16416", "2919078"]
    for row in frame.iter_rows(named=True):
        sequences, positions = count_games(row["moves"])
        assert int(row["sequences"]) == sequences and int(row["positions"]) == positions
        assert row["sequences_approx"] == float(sequences) and row["positions_approx"] == float(positions)
    assert int(frame["sequences"][-1]) > 2**127  # beyond Int64 and Decimal(38, 0)


def test_game_counts_frame_beyond_float_range():
    frame = game_counts_frame(361, board_size=19)
    assert frame.height == 361
    assert frame["sequences_approx"][-1] == math.inf
    assert int(frame["sequences"][-1]) == math.factorial(361) // 8
    assert game_counts_frame(0).height == 0
    small = game_counts_frame(5, board_size=2)
    assert small["sequences"].to_list() == ["1", "2", "3", "3", "0"]


def _connection(games: list[Game]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_tables(con, games)
    return con


def test_game_counts_table() -> None:
    con = duckdb.connect()
    build_game_counts(con, max_moves=5)
    rows = con.execute("SELECT board_size, moves, sequences, positions, sequences_approx FROM game_counts").fetchall()
    assert rows[:3] == [
        (19, 1, "55", "55", 55.0),
        (19, 2, "16416", "16416", 16416.0),
        (19, 3, "5834862", "2919078", 5834862.0),
    ]
    for board_size, moves, sequences, positions, approx in rows:
        assert (int(sequences), int(positions)) == count_games(moves, board_size=board_size)
        assert approx == pytest.approx(int(sequences))
    build_game_counts(con, max_moves=4, board_size=3)
    cells = [(r, c) for r in range(3) for c in range(3)]
    # the 19x19 symmetries restricted to the points whose coordinates are 0, 9 or 18 act on a 3x3 board
    maps = [{(r, c): (m[(9 * r, 9 * c)][0] // 9, m[(9 * r, 9 * c)][1] // 9) for r, c in cells} for m in O.D4]
    expected = []
    for n in (1, 2, 3, 4):
        orders = list(itertools.permutations(cells, n))
        sequences = {min(tuple(mp[p] for p in seq) for mp in maps) for seq in orders}
        positions = {
            min((tuple(sorted(mp[p] for p in seq[0::2])), tuple(sorted(mp[p] for p in seq[1::2]))) for mp in maps)
            for seq in orders
        }
        expected.append((3, n, str(len(sequences)), str(len(positions))))
    assert con.execute("SELECT board_size, moves, sequences, positions FROM game_counts").fetchall() == expected
