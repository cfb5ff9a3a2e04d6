"""Distinct N-move games and positions on an empty board modulo symmetry (Burnside), and table game_counts."""

from __future__ import annotations

import math
from collections import Counter

import duckdb
import polars as pl

from gopat.transforms.analytics.loader import run
from gopat.transforms.checks import positive
from gopat.transforms.patterns.keys import square_points
from gopat.transforms.patterns.symmetry import d4_point_images


def _check_int(name: str, value: int, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")


def _cycle_counts(image: tuple[int, ...]) -> Counter[int]:
    """Number of cycles of each length of a permutation given as ``image[j]``."""
    counts: Counter[int] = Counter()
    seen = [False] * len(image)
    for start in range(len(image)):
        if seen[start]:
            continue
        length = 0
        point = start
        while not seen[point]:
            seen[point] = True
            point = image[point]
            length += 1
        counts[length] += 1
    return counts


def _fixed_colourings(cycles: list[tuple[int, int]], black: int, white: int) -> int:
    """Ways to choose disjoint black and white point sets of the given sizes that are unions of cycles.

    ``cycles`` lists (cycle length, number of such cycles); the answer is the coefficient of
    ``x**black * y**white`` in the product of ``(1 + x**length + y**length) ** count``.
    """
    length, count = cycles[0]
    if len(cycles) == 1:
        if black % length or white % length:
            return 0
        i, j = black // length, white // length
        return math.comb(count, i) * math.comb(count - i, j) if i + j <= count else 0
    total = 0
    for i in range(min(count, black // length) + 1):
        for j in range(min(count - i, white // length) + 1):
            rest = _fixed_colourings(cycles[1:], black - i * length, white - j * length)
            total += math.comb(count, i) * math.comb(count - i, j) * rest
    return total


def count_games(moves: int, *, board_size: int = 19) -> tuple[int, int]:
    """Distinct ``moves``-move sequences and positions on an empty board, modulo symmetry.

    A sequence is ``moves`` distinct points, Black and White alternating (no captures, no passes); a
    position is the resulting set of ceil(moves/2) black and floor(moves/2) white points. Two
    sequences (positions) are the same when one of the 8 symmetries of the square maps one onto the
    other. Computed with Burnside's lemma in exact integers: a sequence is fixed by a symmetry g iff
    every point of it is, giving a falling factorial of g's fixed points; a position is fixed iff its
    black and white sets are unions of g's cycles, counted from g's cycle type.

    Returns
    -------
    ``(sequences, positions)``; ``(1, 1)`` for 0 moves, ``(0, 0)`` for more moves than points.
    """
    _check_int("moves", moves, 0)
    _check_int("board_size", board_size, 1)
    return _count(moves, _cycle_types(board_size))


def _cycle_types(board_size: int) -> list[list[tuple[int, int]]]:
    """Per symmetry of the square, its (cycle length, count) pairs on the board, rarest first."""
    return [
        sorted(_cycle_counts(image).items(), key=lambda item: item[1])
        for image in d4_point_images(square_points(board_size))
    ]


def _count(moves: int, cycle_types: list[list[tuple[int, int]]]) -> tuple[int, int]:
    """Burnside sums for :func:`count_games`; the most common cycle length is solved directly."""
    black, white = (moves + 1) // 2, moves // 2
    sequences = sum(math.perm(dict(cycles).get(1, 0), moves) for cycles in cycle_types)
    positions = sum(_fixed_colourings(cycles, black, white) for cycles in cycle_types)
    return sequences // len(cycle_types), positions // len(cycle_types)


def game_counts_frame(max_moves: int, *, board_size: int = 19) -> pl.DataFrame:
    """The ``game_counts`` table: one row per N = 1..max_moves of :func:`count_games`.

    Columns: ``board_size`` and ``moves`` (Int64); ``sequences`` and ``positions`` (String) hold the
    exact counts as decimal integers, because they exceed Int64 from about N = 8 and Decimal(38, 0)
    from about N = 16 on 19x19; ``sequences_approx`` and ``positions_approx`` (Float64) are the same
    counts rounded for sorting and plotting, ``inf`` beyond the float range.
    """
    _check_int("max_moves", max_moves, 0)
    _check_int("board_size", board_size, 1)
    cycle_types = _cycle_types(board_size)
    rows = [_count(n, cycle_types) for n in range(1, max_moves + 1)]

    def approx(value: int) -> float:
        try:
            return float(value)
        except OverflowError:
            return math.inf

    return pl.DataFrame(
        {
            "board_size": [board_size] * len(rows),
            "moves": list(range(1, max_moves + 1)),
            "sequences": [str(s) for s, _ in rows],
            "positions": [str(p) for _, p in rows],
            "sequences_approx": [approx(s) for s, _ in rows],
            "positions_approx": [approx(p) for _, p in rows],
        },
        schema={
            "board_size": pl.Int64,
            "moves": pl.Int64,
            "sequences": pl.String,
            "positions": pl.String,
            "sequences_approx": pl.Float64,
            "positions_approx": pl.Float64,
        },
    )


def build_game_counts(con: duckdb.DuckDBPyConnection, *, max_moves: int = 8, board_size: int = 19) -> None:
    """Create table ``game_counts``: distinct N-move sequences and positions modulo the 8 symmetries.

    Rows for N = 1..``max_moves`` from :func:`gopat.transforms.analytics.counting.game_counts_frame` (exact decimal
    strings plus float approximations); ``transforms/analytics/sql/models/game_counts.sql``.
    """
    frame = game_counts_frame(positive("max_moves", max_moves), board_size=positive("board_size", board_size))
    con.register("game_counts_input", frame.to_arrow())
    try:
        run(con, "models/game_counts")
    finally:
        con.unregister("game_counts_input")
