"""Board rules and replay: golden ASCII positions, a pure-Python rules oracle, and sgfmill on real games."""

from __future__ import annotations

import tarfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards, sgf, sgf_moves

from gopat.transforms.games.board import (
    BLACK,
    EDGE,
    EMPTY,
    OK,
    REASONS,
    WHITE,
    check_size,
    new_board,
    play_move,
    replay,
)

B, W = 1, 2
_SYMBOLS = {".": EMPTY, "X": BLACK, "O": WHITE}
_CHARS = ".XO#"


class Board:
    """A Go position with full rules on the compiled kernels, for the tests (golden ASCII positions)."""

    def __init__(self, size: int) -> None:
        check_size(size)
        self.size = size
        self._pad = 1
        self._cells = new_board(size, self._pad)
        n_cells = self._cells.shape[0]
        self._ko = np.array([-1, 0], dtype=np.int64)
        self._mark = np.zeros(n_cells, dtype=np.int64)
        self._counter = np.zeros(1, dtype=np.int64)
        self._stack = np.empty(n_cells, dtype=np.int64)
        self._captured = np.empty(n_cells, dtype=np.int64)

    @classmethod
    def from_ascii(cls, text: str) -> Board:
        """Board from rows of ``.`` (empty), ``X`` (black), ``O`` (white); spaces are ignored."""
        rows = ["".join(line.split()) for line in text.strip().splitlines()]
        rows = [row for row in rows if row]
        if not rows or any(len(row) != len(rows) for row in rows):
            raise ValueError("ASCII board must be a square of '.', 'X', 'O'")
        board = cls(len(rows))
        for r, row in enumerate(rows):
            for c, char in enumerate(row):
                if char not in _SYMBOLS:
                    raise ValueError(f"unknown board character {char!r}")
                board._cells[board._index(r, c)] = _SYMBOLS[char]
        return board

    def _index(self, row: int, col: int) -> int:
        return (row + self._pad) * (self.size + 2 * self._pad) + col + self._pad

    def play(self, colour: int, row: int, col: int) -> int:
        """Play ``colour`` at ``(row, col)`` (``(-1, -1)`` passes); returns the number of stones captured.

        Raises ValueError('occupied' | 'suicide' | 'ko' | 'off_board') for an illegal move, which
        leaves the position unchanged.
        """
        if colour not in (BLACK, WHITE):
            raise ValueError("colour must be 1 (black) or 2 (white)")
        status, n_captured = play_move(self._cells, self.size, self._pad, colour, row, col, self._ko,
                                       self._mark, self._counter, self._stack, self._captured)
        if status != OK:
            raise ValueError(REASONS[status])
        return int(n_captured)

    def to_ascii(self) -> str:
        """Rows of ``.XO``, top row first, one line per row."""
        return "\n".join("".join(_CHARS[self[r, c]] for c in range(self.size))
                         for r in range(self.size))

    def __getitem__(self, rc: tuple[int, int]) -> int:
        """Cell state at ``(row, col)``: 0 empty, 1 black, 2 white, 3 off the board."""
        row, col = rc
        if not (0 <= row < self.size and 0 <= col < self.size):
            return EDGE
        return int(self._cells[self._index(row, col)])


def board(text: str) -> Board:
    return Board.from_ascii(text)


class RulesOracle:
    """Obviously-correct Go rules on nested lists: sets of stones and liberties, simple ko."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.cells = [[0] * size for _ in range(size)]
        self.ko: tuple[int, int, int] | None = None  # (row, col, colour that may not play there)

    def neighbours(self, r: int, c: int):
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < self.size and 0 <= cc < self.size:
                yield rr, cc

    def chain(self, r: int, c: int) -> tuple[set, set]:
        colour = self.cells[r][c]
        stones, libs, todo = {(r, c)}, set(), [(r, c)]
        while todo:
            point = todo.pop()
            for rr, cc in self.neighbours(*point):
                if self.cells[rr][cc] == 0:
                    libs.add((rr, cc))
                elif self.cells[rr][cc] == colour and (rr, cc) not in stones:
                    stones.add((rr, cc))
                    todo.append((rr, cc))
        return stones, libs

    def play(self, colour: int, r: int, c: int) -> str | None:
        """Play a move; returns the reason it is illegal (position unchanged) or None."""
        if (r, c) == (-1, -1):
            self.ko = None
            return None
        if not (0 <= r < self.size and 0 <= c < self.size):
            return "off_board"
        if self.cells[r][c]:
            return "occupied"
        if self.ko == (r, c, colour):
            return "ko"
        self.cells[r][c] = colour
        captured = set()
        for rr, cc in self.neighbours(r, c):
            if self.cells[rr][cc] == 3 - colour:
                stones, libs = self.chain(rr, cc)
                if not libs:
                    captured |= stones
        for rr, cc in captured:
            self.cells[rr][cc] = 0
        stones, libs = self.chain(r, c)
        if not libs:
            self.cells[r][c] = 0
            return "suicide"
        self.ko = None
        if len(captured) == 1 and len(stones) == 1 and len(libs) == 1:
            (kr, kc), = captured
            self.ko = (kr, kc, 3 - colour)
        return None

    def ascii(self) -> str:
        return "\n".join("".join(".XO"[v] for v in row) for row in self.cells)


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
