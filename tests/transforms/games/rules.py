"""Go rules written plainly for the tests: an ASCII board over the product's cell codes, and a rules oracle on
nested lists (sets of stones and liberties, simple ko), independent of gopat.transforms.games.board."""

from __future__ import annotations

import numpy as np

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
