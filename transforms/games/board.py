"""Go board with full rules (captures, suicide illegal, simple ko) and replay."""

from __future__ import annotations

import numpy as np

from gopat.transforms.kernels import kernel

EMPTY, BLACK, WHITE, EDGE = 0, 1, 2, 3
MIN_SIZE, MAX_SIZE = 2, 25

OK, OCCUPIED, SUICIDE, KO, OFF_BOARD = 0, 1, 2, 3, 4
REASONS: tuple[str | None, ...] = (None, "occupied", "suicide", "ko", "off_board")



@kernel(cache=True)
def new_board(size: int, pad: int) -> np.ndarray:
    """Empty flat int8 board of ``size`` with a border of ``pad`` off-board (3) cells on every side."""
    width = size + 2 * pad
    board = np.full(width * width, EDGE, dtype=np.int8)
    for r in range(size):
        start = (r + pad) * width + pad
        board[start:start + size] = EMPTY
    return board


@kernel(cache=True)
def flood_chain(board: np.ndarray, stride: int, start: int, mark: np.ndarray, counter: np.ndarray,
                stack: np.ndarray, cap: int) -> tuple[int, int]:
    """Chain holding the stone at flat index ``start``.

    Writes the chain's stones to ``stack[:n]`` and returns ``(n, liberties)``. ``mark`` is an int64
    array of the board's length and ``counter`` a one-element int64 array: each call takes a fresh
    stamp from it, so nothing needs clearing. With ``cap > 0`` the fill stops as soon as ``cap``
    distinct liberties are found (then ``n`` may be partial).
    """
    counter[0] += 1
    stamp = counter[0]
    colour = board[start]
    mark[start] = stamp
    stack[0] = start
    n = 1
    head = 0
    libs = 0
    while head < n:
        p = stack[head]
        head += 1
        for q in (p - stride, p - 1, p + 1, p + stride):
            if mark[q] == stamp:
                continue
            v = board[q]
            if v == colour:
                mark[q] = stamp
                stack[n] = q
                n += 1
            elif v == EMPTY:
                mark[q] = stamp
                libs += 1
                if cap > 0 and libs >= cap:
                    return n, libs
    return n, libs


@kernel(cache=True)
def play_move(board: np.ndarray, size: int, pad: int, colour: int, row: int, col: int, ko: np.ndarray,
              mark: np.ndarray, counter: np.ndarray, stack: np.ndarray, captured: np.ndarray) -> tuple[int, int]:
    """Play one move on a flat padded board; returns ``(status, n_captured)``.

    ``(row, col) == (-1, -1)`` is a pass. Status is OK, OCCUPIED, SUICIDE, KO or OFF_BOARD; an
    illegal move leaves the board and ``ko`` untouched. ``ko`` is an int64 array ``[point,
    forbidden colour]`` (point -1 when none) updated after every legal move. Captured stones are
    removed and their flat indices written to ``captured[:n_captured]``.
    """
    if row == -1 and col == -1:
        ko[0] = -1
        ko[1] = 0
        return OK, 0
    if row < 0 or col < 0 or row >= size or col >= size:
        return OFF_BOARD, 0
    stride = size + 2 * pad
    pos = (row + pad) * stride + col + pad
    if board[pos] != EMPTY:
        return OCCUPIED, 0
    if ko[0] == pos and ko[1] == colour:
        return KO, 0
    board[pos] = colour
    opponent = 3 - colour
    n_captured = 0
    for q in (pos - stride, pos - 1, pos + 1, pos + stride):
        if board[q] == opponent:
            n, libs = flood_chain(board, stride, q, mark, counter, stack, 1)
            if libs == 0:
                for i in range(n):
                    board[stack[i]] = EMPTY
                    captured[n_captured] = stack[i]
                    n_captured += 1
    n, libs = flood_chain(board, stride, pos, mark, counter, stack, 2)
    if libs == 0:
        board[pos] = EMPTY
        return SUICIDE, 0
    if n_captured == 1 and n == 1 and libs == 1:
        ko[0] = captured[0]
        ko[1] = opponent
    else:
        ko[0] = -1
        ko[1] = 0
    return OK, n_captured


@kernel(cache=True)
def place_setup(board: np.ndarray, size: int, pad: int, setup: np.ndarray) -> None:
    """Put setup stones ``(colour, row, col)`` on the board without captures (a later one wins)."""
    stride = size + 2 * pad
    for i in range(setup.shape[0]):
        board[(setup[i, 1] + pad) * stride + setup[i, 2] + pad] = setup[i, 0]


@kernel(cache=True)
def _replay(size: int, setup: np.ndarray, moves: np.ndarray) -> tuple[int, int]:
    pad = 1
    board = new_board(size, pad)
    place_setup(board, size, pad, setup)
    n_cells = board.shape[0]
    ko = np.array([-1, 0], dtype=np.int64)
    mark = np.zeros(n_cells, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    stack = np.empty(n_cells, dtype=np.int64)
    captured = np.empty(n_cells, dtype=np.int64)
    for i in range(moves.shape[0]):
        status, _ = play_move(board, size, pad, moves[i, 0], moves[i, 1], moves[i, 2], ko,
                              mark, counter, stack, captured)
        if status != OK:
            return i, status
    return moves.shape[0], OK


def check_size(board_size: int) -> None:
    """Raise ValueError unless ``board_size`` is a supported board size (2..25)."""
    if not MIN_SIZE <= board_size <= MAX_SIZE:
        raise ValueError(f"board size {board_size} not in {MIN_SIZE}..{MAX_SIZE}")


def as_stones(array: np.ndarray, *, what: str) -> np.ndarray:
    """Validate a ``(k, 3)`` array of ``(colour, row, col)`` rows with colour 1 or 2; int64 copy."""
    stones = np.asarray(array)
    if stones.size == 0:
        return np.zeros((0, 3), dtype=np.int64)
    if stones.ndim != 2 or stones.shape[1] != 3 or not np.issubdtype(stones.dtype, np.integer):
        raise ValueError(f"{what} must be an integer (k, 3) array of colour, row, col")
    if not ((stones[:, 0] == BLACK) | (stones[:, 0] == WHITE)).all():  # np.isin: 5x the time on a game
        raise ValueError(f"{what} colour must be 1 (black) or 2 (white)")
    return np.ascontiguousarray(stones, dtype=np.int64)


def replay(board_size: int, setup: np.ndarray, moves: np.ndarray) -> tuple[int, str | None]:
    """Replay setup stones then moves with full rules.

    ``setup`` is a ``(k, 3)`` int array ``(colour, row, col)`` placed first without captures (the
    later of two stones on one point wins); ``moves`` is ``(m, 3)`` with passes as ``(colour, -1,
    -1)``. Captures of the opponent come first, then suicide, simple ko, occupied and off-board
    points are illegal. Returns the number of legal moves before the first illegal one and the
    reason (``'occupied'``, ``'suicide'``, ``'ko'``, ``'off_board'``) or None.
    """
    check_size(board_size)
    setup_arr = as_stones(setup, what="setup")
    moves_arr = as_stones(moves, what="moves")
    rows_cols = setup_arr[:, 1:]
    if ((rows_cols < 0) | (rows_cols >= board_size)).any():
        raise ValueError("setup stone off the board")
    n_legal, status = _replay(board_size, setup_arr, moves_arr)
    return int(n_legal), REASONS[status]
