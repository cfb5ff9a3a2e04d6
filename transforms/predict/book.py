"""Opening book: the stones of a game's first moves as one whole-board pattern, counted modulo the 8 symmetries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gopat.transforms.games.packed import GameMoves

BOOK_MOVES = 16  # the book predicts moves 1..16 of 19x19 games without setup stones
BOOK_SIZE = 19
_ZOBRIST = np.random.default_rng(20061).integers(1, 2**63, size=(2, BOOK_SIZE * BOOK_SIZE), dtype=np.int64)


def point_images(size: int = BOOK_SIZE) -> np.ndarray:
    """(8, size * size): the image of every row-major point under each of the 8 board symmetries (identity first)."""
    r, c = np.divmod(np.arange(size * size), size)
    s = size - 1
    images = [(r, c), (c, s - r), (s - r, s - c), (s - c, r), (c, r), (r, s - c), (s - c, s - r), (s - r, c)]
    return np.array([rr * size + cc for rr, cc in images], dtype=np.int64)


_IMAGES = point_images()


def _openings(games: Sequence[GameMoves]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game (19x19, no setup): its first BOOK_MOVES moves up to the first pass, as colours and points.

    Returns (kept game indices, colours (n, BOOK_MOVES), points (n, BOOK_MOVES)); points -1 after the end.
    """
    kept, colours, points = [], [], []
    for i, game in enumerate(games):
        if game.board_size != BOOK_SIZE or len(game.setup):
            continue
        moves = np.asarray(game.moves[:BOOK_MOVES], dtype=np.int64).reshape(-1, 3)
        n = len(moves) if (moves[:, 1] >= 0).all() else int(np.argmax(moves[:, 1] < 0))
        row = np.full((2, BOOK_MOVES), -1, dtype=np.int64)
        row[0, :n], row[1, :n] = moves[:n, 0], moves[:n, 1] * BOOK_SIZE + moves[:n, 2]
        kept.append(i)
        colours.append(row[0])
        points.append(row[1])
    shape = (len(kept), BOOK_MOVES)
    return (np.array(kept, dtype=np.int64), np.array(colours, dtype=np.int64).reshape(shape),
            np.array(points, dtype=np.int64).reshape(shape))


def _positions(colours: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game and move t (0-based), the canonical key of the stones of moves before t and which symmetries reach it.

    A key is the smallest over the 8 symmetries of a Zobrist sum over the stones (order-free, so
    transpositions meet). Returns (keys (n, BOOK_MOVES), tied (n, BOOK_MOVES, 8) booleans).
    """
    played = points >= 0
    safe = np.where(played, points, 0)
    colour = np.clip(colours - 1, 0, 1)
    z = np.where(played[None], _ZOBRIST[colour[None], _IMAGES[:, safe]], 0)  # (8, n, BOOK_MOVES)
    before = np.cumsum(z, axis=2) - z  # wrapping int64 sums
    keys = before.min(axis=0)
    return keys, np.moveaxis(before == keys[None], 0, 2)


@dataclass(frozen=True)
class Book:
    """Opening positions (canonical ``keys``, sorted) with the ``games`` reaching each, and per position its moves:
    ``points[starts[i]:starts[i + 1]]`` (canonical images, sorted) and the games that played each (``chosen``)."""

    keys: np.ndarray
    games: np.ndarray
    starts: np.ndarray
    points: np.ndarray
    chosen: np.ndarray

    def counts(
        self, game: GameMoves, positions: Sequence[tuple[int, np.ndarray]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per (move number, candidate points) of ``game``: games reaching the position before that move
        and games playing each candidate point there.

        Zeros when the game or position is outside the book: another board size, setup stones, a
        pass before it, beyond BOOK_MOVES, or never reached in the book's games.
        """
        kept, colours, points = _openings([game])
        keys, tied = _positions(colours, points) if len(kept) else (None, None)
        out = []
        for move, candidates in positions:
            zeros = np.zeros(len(candidates), dtype=np.int64)
            if keys is None or tied is None or not (
                1 <= move <= BOOK_MOVES and (move == 1 or points[0, move - 2] >= 0)
            ):
                out.append((zeros, zeros))
                continue
            node = int(np.searchsorted(self.keys, keys[0, move - 1]))
            if node == len(self.keys) or self.keys[node] != keys[0, move - 1]:
                out.append((zeros, zeros))
                continue
            images = _IMAGES[tied[0, move - 1]][:, candidates].min(axis=0)
            moves = self.points[self.starts[node]:self.starts[node + 1]]
            at = np.minimum(np.searchsorted(moves, images), len(moves) - 1)
            chosen = np.where(moves[at] == images, self.chosen[self.starts[node] + at], 0)
            out.append((np.full(len(candidates), self.games[node], dtype=np.int64), chosen))
        return out


def build_book(games: Sequence[GameMoves]) -> Book:
    """The opening book of ``games``: each position of their first BOOK_MOVES moves and the move played there."""
    _, colours, points = _openings(games)
    keys, tied = _positions(colours, points)
    played = points >= 0
    images = np.moveaxis(_IMAGES[:, np.where(played, points, 0)], 0, 2)
    images = np.where(tied, images, np.iinfo(np.int64).max).min(axis=2)
    node_keys, node_games = np.unique(keys[played], return_counts=True)
    edges, chosen = np.unique(np.stack([keys[played], images[played]], axis=1).reshape(-1, 2), axis=0,
                              return_counts=True)  # sorted by position, then point
    starts = np.searchsorted(edges[:, 0], node_keys)
    return Book(keys=node_keys, games=node_games.astype(np.int64), starts=np.append(starts, len(edges)),
                points=edges[:, 1], chosen=chosen.astype(np.int64))
