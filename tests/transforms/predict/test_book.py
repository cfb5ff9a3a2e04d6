"""The opening book: positions merge across the 8 symmetries and move orders; games outside it count nothing."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.games.packed import GameMoves
from gopat.transforms.predict.book import BOOK_MOVES, BOOK_SIZE, build_book, point_images

B, W = 1, 2
ALL_POINTS = np.arange(BOOK_SIZE * BOOK_SIZE)


def game(moves: list[tuple[int, int, int]], *, size: int = BOOK_SIZE, setup: tuple = ()) -> GameMoves:
    return GameMoves(
        size, np.array(setup, dtype=np.int16).reshape(-1, 3), np.array(moves, dtype=np.int16).reshape(-1, 3)
    )


def alternate(points: list[tuple[int, int]]) -> GameMoves:
    return game([(B if i % 2 == 0 else W, r, c) for i, (r, c) in enumerate(points)])


def counts_at(book, g: GameMoves, move: int) -> tuple[np.ndarray, np.ndarray]:
    [(reached, chosen)] = book.counts(g, [(move, ALL_POINTS)])
    return reached, chosen


def test_point_images_are_the_eight_symmetries():
    images = point_images()
    assert images[0].tolist() == ALL_POINTS.tolist()
    corners = {int(images[g][3 * BOOK_SIZE + 15]) for g in range(8)}  # pd (3,15) is a 4-4 point
    assert corners == {3 * 19 + 3, 3 * 19 + 15, 15 * 19 + 3, 15 * 19 + 15}
    assert len({tuple(row) for row in images.tolist()}) == 8


def test_corners_merge_and_transpositions_meet():
    first = alternate([(3, 15), (15, 3), (2, 2)])
    mirrored = alternate([(15, 3), (3, 15), (16, 16)])  # the same opening, rotated half a turn
    book = build_book([first, mirrored])
    reached, chosen = counts_at(book, alternate([]), 1)  # empty board: both games, every 4-4 point twice
    assert (reached == 2).all()
    assert {p for p in ALL_POINTS if chosen[p]} == {3 * 19 + 3, 3 * 19 + 15, 15 * 19 + 3, 15 * 19 + 15}
    assert chosen[3 * 19 + 3] == 2
    # after B pd W dp, black's 3-3 invasion in the two empty corners is the same move (the position is symmetric)
    reached, chosen = counts_at(book, first, 3)
    assert (reached == 2).all() and chosen[2 * 19 + 2] == 2 and chosen[16 * 19 + 16] == 2 and chosen.sum() == 4
    # the same three stones in another order meet at the fourth move
    a = alternate([(3, 3), (15, 15), (3, 15), (15, 3)])
    b = alternate([(3, 15), (15, 15), (3, 3), (15, 3)])
    book = build_book([a, b])
    reached, chosen = counts_at(book, a, 4)
    assert (reached == 2).all() and chosen[15 * 19 + 3] == 2


def test_games_and_positions_outside_the_book_count_nothing():
    opening = [(3, 15), (15, 3), (2, 2), (16, 16)]
    book = build_book([alternate(opening)])
    assert counts_at(book, alternate(opening), 2)[0].all()
    small = game([(B, 2, 2)], size=9)
    handicap = game([(W, 15, 3)], setup=[(B, 3, 15)])
    passed = game([(B, -1, -1), (W, 15, 3), (B, 3, 15)])
    for g, move in ((small, 1), (handicap, 1), (passed, 3), (alternate(opening), BOOK_MOVES + 1)):
        reached, chosen = counts_at(book, g, move)
        assert not reached.any() and not chosen.any()
    # a book built from such games is empty; a pass ends a game's opening
    assert not len(build_book([small, handicap]).keys)
    assert build_book([passed]).games.sum() == 0
    assert build_book([game([(B, 3, 15), (W, -1, -1), (B, 15, 3)])]).games.sum() == 1  # the move before it


openings = st.lists(st.tuples(st.integers(0, 18), st.integers(0, 18)), min_size=1, max_size=BOOK_MOVES, unique=True)


@settings(max_examples=40, deadline=None)
@given(games=st.lists(openings, min_size=1, max_size=6), query=openings, g=st.integers(0, 7), data=st.data())
def test_counts_do_not_depend_on_the_symmetry_of_the_query(games, query, g, data):
    book = build_book([alternate(points) for points in games] + [alternate(query)])
    images = point_images()
    turned = alternate([divmod(int(images[g][r * BOOK_SIZE + c]), BOOK_SIZE) for r, c in query])
    move = data.draw(st.integers(1, len(query)))
    reached, chosen = counts_at(book, alternate(query), move)
    reached_t, chosen_t = counts_at(book, turned, move)
    assert reached[0] >= 1 and chosen[query[move - 1][0] * BOOK_SIZE + query[move - 1][1]] >= 1  # the query's own move
    assert (reached_t == reached).all()
    assert (chosen_t[images[g]] == chosen).all()  # the point p of the query is the point images[g][p] of the turned one
