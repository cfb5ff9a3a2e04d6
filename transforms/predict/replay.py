"""The board a predictor replays: the statistics table, legality, and every level's oriented keys kept up to date.

Compiled kernels shared by :mod:`gopat.transforms.predict.candidates` (candidate rows of whole games and of one
position) and :mod:`gopat.transforms.predict.predictor` (the statistics table it loads).
"""

from __future__ import annotations

import numpy as np

from gopat.transforms.games.board import EMPTY, OK, new_board, place_setup, play_move
from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.hashtable import fmix64
from gopat.transforms.patterns.liberties import fill_liberties, refresh_liberties

_KEY, _OCC, _CHOSEN = 0, 1, 2  # stats table columns; the key holds the level's tag in bits 60-62
TAG_SHIFT = 60
_SWAP = np.array([0, 2, 1, 3], dtype=np.int64)  # colour swap of a stone digit
Int = int | np.int64  # numba's int64 scalars


@kernel(cache=True)
def _slot(table: np.ndarray, packed: Int) -> np.int64:
    """Slot of a packed key (tag << 60 | key) in the open-addressing table, or the free slot where it goes."""
    mask = table.shape[0] - 1
    i = np.int64(fmix64(np.uint64(packed)) & np.uint64(mask))
    while table[i, _KEY] != 0 and table[i, _KEY] != packed:
        i = (i + 1) & mask
    return i


@kernel(cache=True, nogil=True)
def fill_table(table: np.ndarray, tags: np.ndarray, keys: np.ndarray, occurrence: np.ndarray, chosen: np.ndarray,
) -> None:
    for r in range(keys.shape[0]):
        packed = (tags[r] << TAG_SHIFT) | keys[r]
        i = _slot(table, packed)
        table[i, _KEY] = packed
        table[i, _OCC] += occurrence[r]
        table[i, _CHOSEN] += chosen[r]


@kernel(cache=True)
def lookup(table: np.ndarray, tag: int, key: Int) -> tuple[int, int]:
    i = _slot(table, (tag << TAG_SHIFT) | key)
    return table[i, _OCC], table[i, _CHOSEN]


@kernel(cache=True)
def start_game(size: int, setup: np.ndarray, pad: int, n_levels: int, lv_start: np.ndarray, lv_rc: np.ndarray,
                lv_w: np.ndarray, lv_lw: np.ndarray) -> tuple[np.ndarray, ...]:
    """Board, liberties and the 2 x 8 oriented keys of every on-board anchor of every level."""
    width = size + 2 * pad
    n_cells = width * width
    board = new_board(size, pad)
    place_setup(board, size, pad, setup)
    libs = np.zeros(n_cells, dtype=np.int8)
    seen = np.zeros(n_cells, dtype=np.int64)
    mark = np.zeros(n_cells, dtype=np.int64)
    counter = np.zeros(3, dtype=np.int64)
    stack = np.empty(n_cells, dtype=np.int64)
    fill_liberties(board, width, libs, seen, counter, mark, stack)
    flat = lv_rc[:, 0] * width + lv_rc[:, 1]
    keys = np.zeros((n_levels, n_cells, 2, 8), dtype=np.int64)
    for lv in range(n_levels):
        for r in range(size):
            for c in range(size):
                a = (r + pad) * width + c + pad
                for j in range(lv_start[lv], lv_start[lv + 1]):
                    cell = a + flat[j]
                    v = board[cell]
                    lib = libs[cell]
                    for g in range(8):
                        keys[lv, a, 0, g] += v * lv_w[g, j] + lib * lv_lw[g, j]
                        keys[lv, a, 1, g] += _SWAP[v] * lv_w[g, j] + lib * lv_lw[g, j]
    return board, libs, seen, mark, counter, stack, flat, keys


@kernel(cache=True)
def _rekey(keys: np.ndarray, dirty: np.ndarray, lv_start: np.ndarray, lv_w: np.ndarray, lv_lw: np.ndarray,
           lv_lib: np.ndarray, flat: np.ndarray, cell: Int, old_stone: Int, new_stone: Int, lib_delta: Int) -> None:
    """Add a cell's change (stone digit, liberty digit) to the oriented keys of every anchor that reads it.

    A pure liberty change (same stone digit) skips the levels without a liberty plane.
    """
    for lv in range(keys.shape[0]):
        if old_stone == new_stone and not lv_lib[lv]:
            continue
        for j in range(lv_start[lv], lv_start[lv + 1]):
            a = cell - flat[j]
            for g in range(8):
                lib = lib_delta * lv_lw[g, j]
                keys[lv, a, 0, g] += (new_stone - old_stone) * lv_w[g, j] + lib
                keys[lv, a, 1, g] += (_SWAP[new_stone] - _SWAP[old_stone]) * lv_w[g, j] + lib
            dirty[lv, a, 0] = True
            dirty[lv, a, 1] = True


@kernel(cache=True)
def legal(board: np.ndarray, libs: np.ndarray, ko: np.ndarray, width: int, s: int, colour: int) -> bool:
    """True if ``colour`` may play on the empty point ``s`` (not suicide, not a ko recapture)."""
    if board[s] != EMPTY or (ko[0] == s and ko[1] == colour):
        return False
    for q in (s - width, s - 1, s + 1, s + width):
        v = board[q]
        if v == EMPTY or (v == colour and libs[q] >= 2) or (v == 3 - colour and libs[q] == 1):
            return True
    return False


@kernel(cache=True)
def smallest_image(key: int, n_digits: int, perms: np.ndarray, maps: np.ndarray) -> Int:
    """Smallest image of a full key (colour digit first) under a group given as digit perms and value maps."""
    digits = np.empty(n_digits, dtype=np.int64)
    for i in range(n_digits):
        digits[i] = (key >> (2 * (n_digits - 1 - i))) & 3
    best = np.int64(key)
    for e in range(perms.shape[0]):
        image = np.int64(0)
        for i in range(n_digits):
            image = image * 4 + maps[e, i, digits[perms[e, i]]]
        best = min(best, image)
    return best


@kernel(cache=True)
def advance(board: np.ndarray, libs: np.ndarray, ko: np.ndarray, size: int, pad: int, colour: int, row: int,
             col: int, keys: np.ndarray, dirty: np.ndarray, lv_start: np.ndarray, lv_w: np.ndarray, lv_lw: np.ndarray,
             lv_lib: np.ndarray, flat: np.ndarray, seen: np.ndarray, mark: np.ndarray, counter: np.ndarray,
             stack: np.ndarray, captured: np.ndarray, changed: np.ndarray, old_libs: np.ndarray) -> int:
    """Play a move and bring liberties and oriented keys up to date; returns play_move's status."""
    width = size + 2 * pad
    status, n_captured = play_move(board, size, pad, colour, row, col, ko, mark, counter, stack, captured)
    if status != OK or row < 0:
        return status
    p = (row + pad) * width + col + pad
    _rekey(keys, dirty, lv_start, lv_w, lv_lw, lv_lib, flat, p, EMPTY, colour, 0)
    for i in range(n_captured):
        _rekey(keys, dirty, lv_start, lv_w, lv_lw, lv_lib, flat, captured[i], 3 - colour, EMPTY, 0)
    n_changed = refresh_liberties(board, width, p, captured, n_captured, libs, changed, old_libs, seen, counter,
                                  mark, stack)
    for i in range(n_changed):
        cell = changed[i]
        stone = np.int64(board[cell])
        _rekey(keys, dirty, lv_start, lv_w, lv_lw, lv_lib, flat, cell, stone, stone, np.int64(libs[cell]) - old_libs[i])
    return status


@kernel(cache=True)
def buffers(size: int, n_cells: int, n_levels: int, n_d12: int) -> tuple[np.ndarray, ...]:
    """A game's working arrays for the ranking kernels: key caches, ko, d12 and tactics scratch, candidate rows."""
    n_points = size * size
    return (
        np.ones((n_levels, n_cells, 2), dtype=np.bool_),  # dirty
        np.zeros((n_levels, n_cells, 2, 3), dtype=np.int64),  # cache
        np.array([-1, 0], dtype=np.int64),  # ko
        np.zeros((n_cells, 3), dtype=np.int64),  # label
        np.empty((2 * n_d12 + 2, 4), dtype=np.int64),  # rows
        np.full(n_cells, -1, dtype=np.int64),  # index_of
        np.empty(n_points, dtype=np.int64),  # points
        np.empty((n_points, n_levels + 1), dtype=np.int64),  # cand_keys
        np.empty((n_points, n_levels + 1), dtype=np.int64),  # occ
        np.empty((n_points, n_levels + 1), dtype=np.int64),  # chosen
        np.empty(n_cells, dtype=np.int64),  # captured
        np.empty(n_cells, dtype=np.int64),  # changed
        np.empty(n_cells, dtype=np.int64),  # old_libs
        np.zeros(n_cells, dtype=np.int64),  # tactics_mark
        np.zeros(1, dtype=np.int64),  # tactics_stamp
        np.empty(n_cells, dtype=np.int64),  # tactics_stack
        np.empty(n_cells, dtype=np.int64),  # tactics_taken
    )
