"""Replayed games as the arrays compiled kernels read: one game's moves (`GameMoves`) and a shard's, packed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from gopat.transforms.games.board import as_stones, check_size


@dataclass(frozen=True, slots=True)
class GameMoves:
    """A replayed game: board size, setup stones ``(colour, row, col)`` and the legal main line.

    ``moves`` is the legal prefix only, ``(colour, row, col)`` with passes as ``(colour, -1, -1)``.
    """

    board_size: int
    setup: np.ndarray
    moves: np.ndarray


class PackedGames(NamedTuple):
    """Games as kernel arrays (:func:`pack_games`): game ``g``'s setup stones are ``setups[setup_start[g]:setup_start[g
    + 1]]`` and its moves ``moves[move_start[g]:move_start[g + 1]]``, each ``(colour, row, col)``."""

    sizes: np.ndarray
    setup_start: np.ndarray
    setups: np.ndarray
    move_start: np.ndarray
    moves: np.ndarray


def pack_games(games: Sequence[GameMoves]) -> PackedGames:
    """The games' setups and moves as kernel arrays (:class:`PackedGames`).

    Raises ValueError for an unsupported board size or a setup stone or move off the board (a
    pass is (-1, -1)).
    """
    sizes = np.array([game.board_size for game in games], dtype=np.int64)
    for size in np.unique(sizes):
        check_size(int(size))
    setups = [as_stones(game.setup, what="setup") for game in games]
    moves = [as_stones(game.moves, what="moves") for game in games]
    setup_start = np.cumsum([0] + [len(s) for s in setups]).astype(np.int64)
    move_start = np.cumsum([0] + [len(m) for m in moves]).astype(np.int64)
    setup_all = np.concatenate(setups) if setups else np.zeros((0, 3), dtype=np.int64)
    moves_all = np.concatenate(moves) if moves else np.zeros((0, 3), dtype=np.int64)
    setup_sizes = np.repeat(sizes, np.diff(setup_start))
    if ((setup_all[:, 1:] < 0) | (setup_all[:, 1:] >= setup_sizes[:, None])).any():
        raise ValueError("setup stone off the board")
    move_sizes = np.repeat(sizes, np.diff(move_start))
    passes = (moves_all[:, 1] == -1) & (moves_all[:, 2] == -1)
    off = np.flatnonzero(~passes & ((moves_all[:, 1:] < 0) | (moves_all[:, 1:] >= move_sizes[:, None])).any(axis=1))
    if len(off):
        game = int(np.searchsorted(move_start, off[0], side="right")) - 1
        raise ValueError(f"game {game}: move {off[0] - move_start[game] + 1} is illegal (off_board)")
    return PackedGames(sizes, setup_start, setup_all, move_start, moves_all)
