"""Fuzzing the replay kernels and the row builder on random boards (2..25) and move sequences.

Every move is played on the compiled board and on sgfmill's board (an independent implementation
of captures): the verdicts agree (occupied, ko, suicide, off-board), the positions agree after
every move, `replay` stops at the first illegal move, and `game_row` keeps exactly the legal prefix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards

from gopat.transforms.games.board import (
    BLACK,
    KO,
    MAX_SIZE,
    MIN_SIZE,
    OCCUPIED,
    OFF_BOARD,
    OK,
    REASONS,
    SUICIDE,
    WHITE,
    new_board,
    place_setup,
    play_move,
    replay,
)
from gopat.transforms.games.parsing import HEADER_KEYS, PASS, GameRecord
from gopat.transforms.games.records import game_row
from tests.fuzz.strategies import CI, Draw

NAME = "replay"
Stone = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Game:
    """A board size, setup stones and moves ``(colour, row, col)``; passes are ``(colour, -1, -1)``."""

    size: int
    setup: tuple[Stone, ...]
    moves: tuple[Stone, ...]


@st.composite
def games(draw: Draw) -> Game:
    """Moves mostly inside a small window (so groups touch and get captured), some anywhere, passes, off-board."""
    size = draw(st.integers(MIN_SIZE, MAX_SIZE))
    window = draw(st.integers(min(2, size), min(size, 7)))
    top, left = draw(st.integers(0, size - window)), draw(st.integers(0, size - window))
    inside = st.tuples(st.integers(top, top + window - 1), st.integers(left, left + window - 1))
    anywhere = st.tuples(st.integers(0, size - 1), st.integers(0, size - 1))
    off = st.tuples(st.integers(-3, size + 3), st.integers(-3, size + 3))
    point = st.one_of(inside, inside, inside, inside, anywhere, st.just((PASS, PASS)), off)
    colour = st.sampled_from((BLACK, WHITE))
    setup = draw(st.lists(st.tuples(colour, inside | anywhere), max_size=window * window))
    moves = draw(st.lists(st.tuples(colour, point), max_size=300))
    if draw(st.booleans()):  # alternating colours, as in a game record
        moves = [(BLACK if i % 2 == 0 else WHITE, p) for i, (_, p) in enumerate(moves)]
    return Game(size, tuple((c, r, k) for c, (r, k) in setup), tuple((c, r, k) for c, (r, k) in moves))


def inputs(seeds: tuple[bytes, ...]) -> st.SearchStrategy[Game]:
    """Random games (the seeds are not used: positions are built move by move)."""
    return games()


def grid(board: np.ndarray, size: int) -> list[list[int]]:
    """The compiled board's points, row by row."""
    return board.reshape(size + 2, size + 2)[1:-1, 1:-1].tolist()  # type: ignore[no-any-return]


def their_grid(board: boards.Board) -> list[list[int]]:
    """sgfmill's points in the same coordinates and colour codes."""
    code = {None: 0, "b": BLACK, "w": WHITE}
    return [[code[board.get(row, col)] for col in range(board.side)] for row in range(board.side)]


def expected_status(theirs: boards.Board, ko: tuple[int, int, int] | None, move: Stone) -> int:
    """The verdict for a move, from sgfmill's position and the ko point it returned for the last move."""
    colour, row, col = move
    if (row, col) == (PASS, PASS):
        return OK
    if not (0 <= row < theirs.side and 0 <= col < theirs.side):
        return OFF_BOARD
    if theirs.get(row, col) is not None:
        return OCCUPIED
    if ko == (row, col, colour):
        return KO
    trial = theirs.copy()
    trial.play(row, col, "b" if colour == BLACK else "w")
    return SUICIDE if trial.get(row, col) is None else OK


def check(game: Game) -> None:
    """Raise AssertionError when the kernels and sgfmill disagree, or replay / game_row keep another prefix."""
    size, pad = game.size, 1
    setup = np.array(game.setup, dtype=np.int16).reshape(-1, 3)
    ours = new_board(size, pad)
    place_setup(ours, size, pad, setup.astype(np.int64))
    theirs = boards.Board(size)
    for colour, row, col in game.setup:  # no captures in setup, a later stone wins (as place_setup)
        theirs.board[row][col] = "b" if colour == BLACK else "w"
    n_cells = ours.shape[0]
    ko_state, mark, counter = np.array([-1, 0], np.int64), np.zeros(n_cells, np.int64), np.zeros(1, np.int64)
    stack, captured = np.empty(n_cells, np.int64), np.empty(n_cells, np.int64)
    ko: tuple[int, int, int] | None = None
    first_illegal: tuple[int, str | None] | None = None
    for index, move in enumerate(game.moves):
        colour, row, col = move
        expected = expected_status(theirs, ko, move)
        status, n_captured = play_move(ours, size, pad, colour, row, col, ko_state, mark, counter, stack, captured)
        assert status == expected, (index, move, REASONS[status], REASONS[expected])
        if status == OK and row != PASS:
            opponent = "w" if colour == BLACK else "b"
            before = sum(line.count(opponent) for line in theirs.board)
            point = theirs.play(row, col, "b" if colour == BLACK else "w")
            assert before - sum(line.count(opponent) for line in theirs.board) == n_captured, (index, move)
            ko = None if point is None else (*point, WHITE if colour == BLACK else BLACK)
        elif status == OK:
            ko = None
        elif first_illegal is None:
            first_illegal = (index, REASONS[status])
        assert grid(ours, size) == their_grid(theirs), (index, move)
    moves = np.array(game.moves, dtype=np.int16).reshape(-1, 3)
    legal, reason = first_illegal or (len(game.moves), None)
    assert replay(size, setup, moves) == (legal, reason)
    record = GameRecord(0, size, dict.fromkeys(HEADER_KEYS), game.setup, game.moves, (), "utf-8")
    columns, kept = game_row(record, game_id="fuzz")
    assert columns["move_count"] == legal and kept.moves.tolist() == moves[:legal].tolist()
    assert [f for f in columns["flags"] if f.startswith("illegal_")] == ([f"illegal_{reason}"] if reason else [])


def reproducer(game: Game) -> bytes:
    """The game as text, to save for a failing input."""
    return repr(game).encode()


@settings(CI, max_examples=300)
@given(game=games())
def test_replay_agrees_with_sgfmill_on_random_games(game: Game) -> None:
    check(game)
