"""Board rules and replay: golden ASCII positions, a pure-Python rules oracle, and sgfmill on real games."""

from __future__ import annotations

import tarfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards, sgf, sgf_moves

from gopat.transforms.games.board import (
    replay,
)
from tests.transforms.games.rules import B, Board, RulesOracle, W, board


def test_single_capture_in_the_middle():
    b = board("""
        .....
        ..X..
        .XO..
        ..X..
        .....
    """)
    assert b.play(B, 2, 3) == 1
    assert b.to_ascii() == ".....\n..X..\n.X.X.\n..X..\n....."


def test_multi_stone_capture():
    b = board("""
        .XXX.
        XOOOX
        .XX..
        .....
        .....
    """)
    assert b.play(B, 2, 3) == 3
    assert b.to_ascii() == ".XXX.\nX...X\n.XXX.\n.....\n....."


def test_one_move_captures_two_separate_chains():
    b = board("""
        XO.OX
        .X.X.
        .....
        .....
        .....
    """)
    assert b.play(B, 0, 2) == 2
    assert b.to_ascii() == "X.X.X\n.X.X.\n.....\n.....\n....."


def test_capture_in_the_corner_and_on_the_edge():
    corner = board("""
        OX..
        ....
        ....
        ....
    """)
    assert corner.play(B, 1, 0) == 1
    assert corner.to_ascii() == ".X..\nX...\n....\n...."
    edge = board("""
        XOO..
        .XX..
        .....
        .....
        .....
    """)
    assert edge.play(B, 0, 3) == 2
    assert edge.to_ascii() == "X..X.\n.XX..\n.....\n.....\n....."


def test_single_stone_suicide_is_rejected_and_changes_nothing():
    b = board("""
        .X...
        X....
        .....
        .....
        .....
    """)
    before = b.to_ascii()
    with pytest.raises(ValueError, match="suicide"):
        b.play(W, 0, 0)
    assert b.to_ascii() == before


def test_multi_stone_suicide_is_rejected():
    b = board("""
        OO.X.
        XXXX.
        .....
        .....
        .....
    """)
    before = b.to_ascii()
    with pytest.raises(ValueError, match="suicide"):
        b.play(W, 0, 2)
    assert b.to_ascii() == before


def test_capture_that_looks_like_suicide_is_allowed():
    b = board("""
        .XO..
        XO...
        O....
        .....
        .....
    """)
    assert b.play(W, 0, 0) == 2
    assert b.to_ascii() == "O.O..\n.O...\nO....\n.....\n....."


KO = """
    .....
    ..XO.
    .X.XO
    ..XO.
    .....
"""


def test_simple_ko_rejected_then_allowed_after_a_ko_threat():
    b = board(KO)
    assert b.play(W, 2, 2) == 1  # white takes the ko
    with pytest.raises(ValueError, match="ko"):
        b.play(B, 2, 3)  # immediate retake
    assert b[2, 3] == 0
    b.play(B, 4, 0)  # ko threat
    b.play(W, 4, 1)  # answer
    assert b.play(B, 2, 3) == 1  # retake now allowed
    with pytest.raises(ValueError, match="ko"):
        b.play(W, 2, 2)


def test_pass_leaves_the_board_and_clears_the_ko():
    b = board(KO)
    assert b.play(W, 2, 2) == 1
    before = b.to_ascii()
    assert b.play(B, -1, -1) == 0
    assert b.to_ascii() == before
    b.play(W, -1, -1)
    assert b.play(B, 2, 3) == 1


def test_capturing_two_stones_makes_no_ko():
    b = board("""
        .OOX.
        OXX..
        .....
        .....
        .....
    """)
    assert b.play(B, 0, 0) == 2  # the capturing stone is left with one liberty
    assert b.play(W, 0, 1) == 1  # immediate recapture of one stone is legal
    assert b.to_ascii() == ".O.X.\nOXX..\n.....\n.....\n....."


def test_occupied_and_off_board():
    b = board("X.\n..")
    with pytest.raises(ValueError, match="occupied"):
        b.play(W, 0, 0)
    for row, col in ((2, 0), (0, 2), (-1, 0), (0, -1), (-2, -2)):
        with pytest.raises(ValueError, match="off_board"):
            b.play(W, row, col)
    with pytest.raises(ValueError, match=r"colour must be 1 \(black\) or 2 \(white\)"):
        b.play(3, 1, 1)
    assert b[5, 5] == 3 and b[-1, 0] == 3 and b[0, 0] == B and b[1, 1] == 0


def test_ascii_round_trip_and_bad_ascii():
    text = "X.O\n.OX\nXX."
    assert Board.from_ascii(text).to_ascii() == text
    assert Board.from_ascii("X . O\n. O X\nX X .").to_ascii() == text
    for bad in ("X.\n...", "X?\n..", ""):
        with pytest.raises(ValueError, match=r"ASCII board must be a square|unknown board character"):
            Board.from_ascii(bad)
    for size in (1, 26):
        with pytest.raises(ValueError, match=r"board size \d+ not in 2\.\.25"):
            Board(size)


def moves_array(rows: list[tuple[int, int, int]]) -> np.ndarray:
    return np.array(rows, dtype=np.int16).reshape(-1, 3)


def test_replay_prefix_and_reasons():
    empty = moves_array([])
    assert replay(5, empty, moves_array([(B, 0, 0), (W, 1, 1), (B, -1, -1)])) == (3, None)
    assert replay(5, empty, moves_array([(B, 0, 0), (W, 0, 0), (B, 1, 1)])) == (1, "occupied")
    assert replay(5, empty, moves_array([(B, 0, 0), (W, 5, 0)])) == (1, "off_board")
    assert replay(5, empty, moves_array([(B, 0, 1), (W, 4, 4), (B, 1, 0), (W, 0, 0)])) == (3, "suicide")
    ko = moves_array([(B, 1, 2), (W, 1, 3), (B, 2, 1), (W, 2, 4), (B, 3, 2), (W, 3, 3),
                      (B, 2, 3), (W, 2, 2), (B, 2, 3)])
    assert replay(5, empty, ko) == (8, "ko")
    assert replay(5, empty, moves_array([])) == (0, None)


def test_replay_setup_later_stone_wins_and_is_not_captured():
    setup = moves_array([(B, 0, 0), (W, 0, 0), (B, 0, 1), (B, 1, 0)])
    # white (0,0) from setup has no liberty and stays; the point is occupied
    assert replay(3, setup, moves_array([(B, 0, 0)])) == (0, "occupied")
    assert replay(3, setup, moves_array([(W, 2, 2)])) == (1, None)
    with pytest.raises(ValueError, match=r"setup stone off the board"):
        replay(3, moves_array([(B, 3, 0)]), moves_array([]))
    with pytest.raises(ValueError, match=r"moves colour must be 1"):
        replay(3, moves_array([]), moves_array([(0, 1, 1)]))
    with pytest.raises(ValueError, match=r"board size 30 not in 2\.\.25"):
        replay(30, moves_array([]), moves_array([]))


points = st.tuples(st.integers(-1, 5), st.integers(-1, 5))


@settings(max_examples=150, deadline=None)
@given(size=st.integers(2, 5), moves=st.lists(st.tuples(st.sampled_from((B, W)), points), max_size=60))
def test_board_and_replay_agree_with_the_rules_oracle(size, moves):
    oracle = RulesOracle(size)
    b = Board(size)
    rows = []
    first_illegal = None
    for colour, (r, c) in moves:
        rows.append((colour, r, c))
        expected = oracle.play(colour, r, c)
        if expected is None:
            b.play(colour, r, c)
        else:
            with pytest.raises(ValueError, match=expected):
                b.play(colour, r, c)
            if first_illegal is None:
                first_illegal = (len(rows) - 1, expected)
        assert b.to_ascii() == oracle.ascii()
    if first_illegal is None:
        assert replay(size, moves_array([]), moves_array(rows)) == (len(rows), None)
    else:
        assert replay(size, moves_array([]), moves_array(rows)) == first_illegal


def test_real_games_end_in_the_same_position_as_sgfmill(tiny_archive):
    """sgfmill's board (row 0 at the bottom) is an independent capture implementation."""
    checked = 0
    with tarfile.open(tiny_archive) as tar:
        for member in tar.getmembers():
            if not member.name.endswith(".sgf") or checked >= 40:
                continue
            game = sgf.Sgf_game.from_bytes(tar.extractfile(member).read())
            size = game.get_size()
            start, plays = sgf_moves.get_setup_and_moves(game)
            if not plays:
                continue
            setup = [(B if colour == "b" else W, size - 1 - r, c) for colour, (r, c) in start.list_occupied_points()]
            rows = [(B if colour == "b" else W, -1, -1) if point is None else
                    (B if colour == "b" else W, size - 1 - point[0], point[1]) for colour, point in plays]
            assert replay(size, moves_array(setup), moves_array(rows)) == (len(rows), None)
            mine = Board(size)
            for colour, r, c in setup:
                mine.play(colour, r, c)
            theirs: boards.Board = start.copy()
            for colour, r, c in rows:
                mine.play(colour, r, c)
                if r >= 0:
                    theirs.play(size - 1 - r, c, "b" if colour == B else "w")
            expected = "\n".join(
                "".join({None: ".", "b": "X", "w": "O"}[theirs.get(size - 1 - r, c)] for c in range(size))
                for r in range(size))
            assert mine.to_ascii() == expected
            checked += 1
    assert checked == 40
