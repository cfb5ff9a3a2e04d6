"""The game a GTP engine keeps: the board under the product's rules, the move history and undo, and the move choice.

The board is the product's (``transforms/games/board.py``: captures, suicide illegal, simple ko).
The predictor is trained on 19x19 games only (the corpus, the opening book and the shipped
weights, docs/prediction.md), so 19 is the one board size.

How ``genmove`` chooses (:func:`choose_move`): the predictor ranks every legal point (suicide and
a simple-ko recapture are not legal, so never candidates); the engine plays the best-ranked one
that does not fill a one-point eye of its own colour. A one-point eye is an empty point whose four
neighbours are the mover's stones or the board's edge and whose diagonal points hold no opponent
stone on the edge or in a corner, at most one in the centre (the usual rule). It passes when no
candidate is left, or when the opponent has just passed and the best remaining candidate's
probability is below :data:`PASS_FLOOR`, so that games end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gopat.transforms.games.board import BLACK, EDGE, EMPTY, OK, REASONS, WHITE, new_board, play_move
from gopat.transforms.games.packed import GameMoves
from gopat.transforms.games.render import COLUMN_LETTERS, board_text
from gopat.transforms.predict.book import BOOK_SIZE
from gopat.transforms.predict.predictor import Candidate, Position

SIZE = BOOK_SIZE  # 19: the only size the predictor was trained on
PASS = (-1, -1)
# After the opponent's pass the engine plays on only if its best candidate is at least this likely;
# otherwise it passes too and the game ends.
PASS_FLOOR = 0.2
_PAD = 1
_VERTEX = re.compile(r"([A-HJ-Za-hj-z])([0-9]{1,2})")
_COLOURS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}


def parse_colour(text: str) -> int | None:
    """BLACK or WHITE for ``b``, ``w``, ``black``, ``white`` (any case); None for anything else."""
    return _COLOURS.get(text.lower())


def parse_vertex(text: str) -> tuple[int, int] | None:
    """(row, col) of a GTP vertex (``D4``, any case, no letter I; row 0 at the top), PASS for ``pass``;
    None when it is not a vertex. A vertex off the 19x19 board (``A20``, ``Z1``) is returned as is."""
    if text.lower() == "pass":
        return PASS
    match = _VERTEX.fullmatch(text)
    if match is None or int(match[2]) == 0:
        return None
    return SIZE - int(match[2]), COLUMN_LETTERS.index(match[1].upper())


def vertex(row: int, col: int) -> str:
    """The GTP vertex of (row, col), ``pass`` for PASS."""
    return "pass" if (row, col) == PASS else f"{COLUMN_LETTERS[col]}{SIZE - row}"


def colour_name(colour: int) -> str:
    """``Black`` or ``White``."""
    return "Black" if colour == BLACK else "White"


@dataclass(frozen=True)
class _Snapshot:
    board: np.ndarray
    ko: np.ndarray
    captures: tuple[int, int]


class GameState:
    """A 19x19 game: the board, simple-ko state, stones captured by each colour, the moves played and their undo."""

    def __init__(self) -> None:
        self.komi = 7.5
        self.clear()

    def clear(self) -> None:
        """The empty board, no moves, no captures (komi is kept)."""
        self.board = new_board(SIZE, _PAD)
        self.ko = np.array([-1, 0], dtype=np.int64)
        self.captures = (0, 0)  # stones captured by Black, by White
        self.history: list[tuple[int, int, int]] = []
        self._undo: list[_Snapshot] = []

    @property
    def width(self) -> int:
        """Width of the padded board."""
        return SIZE + 2 * _PAD

    def at(self, row: int, col: int) -> int:
        """EMPTY, BLACK or WHITE at an on-board point."""
        return int(self.board[(row + _PAD) * self.width + col + _PAD])

    def to_move(self) -> int:
        """The colour after the last move's (Black on an empty history)."""
        return 3 - self.history[-1][0] if self.history else BLACK

    def play(self, colour: int, row: int, col: int) -> str | None:
        """Play a move (PASS for a pass); None when played, else why it is illegal (board.REASONS)."""
        snapshot = _Snapshot(self.board.copy(), self.ko.copy(), self.captures)
        n_cells = len(self.board)
        mark, stack, taken = (np.zeros(n_cells, dtype=np.int64) for _ in range(3))
        status, n_captured = play_move(self.board, SIZE, _PAD, colour, row, col, self.ko, mark,
                                       np.zeros(1, dtype=np.int64), stack, taken)
        if status != OK:
            return REASONS[status]
        black, white = self.captures
        self.captures = (black + n_captured, white) if colour == BLACK else (black, white + n_captured)
        self.history.append((colour, row, col))
        self._undo.append(snapshot)
        return None

    def undo(self) -> bool:
        """Take back the last move; False when there is none."""
        if not self._undo:
            return False
        snapshot = self._undo.pop()
        self.board, self.ko, self.captures = snapshot.board, snapshot.ko, snapshot.captures
        self.history.pop()
        return True

    def opponent_passed(self, colour: int) -> bool:
        """Whether the last move is a pass by the other colour."""
        return bool(self.history) and self.history[-1] == (3 - colour, *PASS)

    def own_eye(self, row: int, col: int, colour: int) -> bool:
        """Whether the empty point is a one-point eye of ``colour`` (the rule in the module docstring)."""
        s, w = (row + _PAD) * self.width + col + _PAD, self.width
        if self.board[s] != EMPTY or any(self.board[q] not in (colour, EDGE) for q in (s - w, s - 1, s + 1, s + w)):
            return False
        diagonals = [int(self.board[q]) for q in (s - w - 1, s - w + 1, s + w - 1, s + w + 1)]
        return diagonals.count(3 - colour) <= (0 if EDGE in diagonals else 1)

    def game(self, colour: int) -> GameMoves:
        """The moves so far as a game whose next move is ``colour``'s (a trailing pass names the colour to
        :func:`gopat.transforms.predict.predictor.score_position`)."""
        moves = np.array([*self.history, (colour, *PASS)], dtype=np.int64)
        return GameMoves(SIZE, np.zeros((0, 3), dtype=np.int64), moves)

    def text(self) -> str:
        """The board as text (``X`` Black, ``O`` White, ``+`` star points) and a line on the game."""
        stones = [(self.at(r, c), r, c) for r in range(SIZE) for c in range(SIZE) if self.at(r, c) != EMPTY]
        last = f", last move {colour_name(self.history[-1][0])} {vertex(*self.history[-1][1:])}" if self.history else ""
        return (f"{board_text(SIZE, stones)}\n{colour_name(self.to_move())} to move, {len(self.history)} moves{last}; "
                f"captured by Black {self.captures[0]}, by White {self.captures[1]}; komi {self.komi:g}")


def choose_move(position: Position, state: GameState, colour: int) -> Candidate | None:
    """The move ``genmove`` plays for ``colour`` from the predictor's ranking of ``state``; None to pass."""
    for candidate in position.candidates:
        if state.own_eye(candidate.row, candidate.col, colour):
            continue
        if state.opponent_passed(colour) and candidate.probability < PASS_FLOOR:
            return None
        return candidate
    return None
