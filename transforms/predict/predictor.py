"""Move prediction from pattern statistics: nested patterns around every legal point, counted and ranked."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gopat.transforms.games.board import BLACK, EMPTY, OK, WHITE, flood_chain, new_board, place_setup, play_move
from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.canonical import key_strings
from gopat.transforms.patterns.extract import GameMoves, pack_games
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.hashtable import fmix64
from gopat.transforms.patterns.liberties import fill_liberties, last_move_keys, refresh_liberties
from gopat.transforms.patterns.symmetry import d4_point_images
from gopat.transforms.predict.book import BOOK_MOVES, Book, build_book
from gopat.transforms.predict.ranking import (
    LINES,
    Weights,
    feature_index,
    fit_weights,
    largest_level,
    load_weights,
    ranks,
)

# The nested levels a predictor may use, largest first: diamonds of growing size around the
# candidate (Stern et al. 2006, Pachi), liberty counts on the cells up to 13 points (a key holds at
# most 31 base-4 digits). A weights file (transforms/predict/ranking.py) names the levels it was fitted for.
LEVELS: tuple[str, ...] = ("dia29", "dia21", "lib13", "lib9", "lib5")
RESPONSE = "d12"  # the seed's response pattern around the last move
PHASES: tuple[tuple[int, int | None], ...] = ((1, 30), (31, 100), (101, 200), (201, None))
TOP_K = (1, 5, 10)

_PHASE_STARTS = np.array([lo for lo, _ in PHASES], dtype=np.int64)
_KEY, _OCC, _CHOSEN = 0, 1, 2  # stats table columns; the key holds the level's tag in bits 60-62
_TAG_SHIFT, _MAX_KEY_DIGITS = 60, 30
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
def _fill_table(table: np.ndarray, tags: np.ndarray, keys: np.ndarray, occurrence: np.ndarray, chosen: np.ndarray,
) -> None:
    for r in range(keys.shape[0]):
        packed = (tags[r] << _TAG_SHIFT) | keys[r]
        i = _slot(table, packed)
        table[i, _KEY] = packed
        table[i, _OCC] += occurrence[r]
        table[i, _CHOSEN] += chosen[r]


@kernel(cache=True)
def _lookup(table: np.ndarray, tag: int, key: Int) -> tuple[int, int]:
    i = _slot(table, (tag << _TAG_SHIFT) | key)
    return table[i, _OCC], table[i, _CHOSEN]


@kernel(cache=True)
def _start_game(size: int, setup: np.ndarray, pad: int, n_levels: int, lv_start: np.ndarray, lv_rc: np.ndarray,
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
def _legal(board: np.ndarray, libs: np.ndarray, ko: np.ndarray, width: int, s: int, colour: int) -> bool:
    """True if ``colour`` may play on the empty point ``s`` (not suicide, not a ko recapture)."""
    if board[s] != EMPTY or (ko[0] == s and ko[1] == colour):
        return False
    for q in (s - width, s - 1, s + 1, s + width):
        v = board[q]
        if v == EMPTY or (v == colour and libs[q] >= 2) or (v == 3 - colour and libs[q] == 1):
            return True
    return False


@kernel(cache=True)
def _canonical(key: int, n_digits: int, perms: np.ndarray, maps: np.ndarray) -> Int:
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
def _candidates(board: np.ndarray, libs: np.ndarray, ko: np.ndarray, size: int, pad: int, colour: int, last: int,
                keys: np.ndarray, dirty: np.ndarray, cache: np.ndarray, table: np.ndarray, lv_top: np.ndarray,
                lv_tag: np.ndarray, d12_offsets: np.ndarray, d12_cands: np.ndarray, d12_perms: np.ndarray,
                d12_maps: np.ndarray, d12_tag: int, label: np.ndarray, mark: np.ndarray, counter: np.ndarray,
                stack: np.ndarray, rows: np.ndarray, index_of: np.ndarray, points: np.ndarray, cand_keys: np.ndarray,
                occ: np.ndarray, chosen: np.ndarray) -> int:
    """Fill the legal points of the position and, per level (then d12), their canonical key and counts.

    ``cache[lv, a, view]`` holds (canonical key, occurrence, chosen) of an anchor for a view (0:
    black to move, 1: white to move, colours swapped so that the mover is black) and is refreshed
    only when ``dirty``. d12 columns are (-1, 0, 0) for points without a response pattern. Returns
    the number of legal points.
    """
    width = size + 2 * pad
    view = colour - 1
    n_levels = keys.shape[0]
    n = 0
    for r in range(size):
        for c in range(size):
            s = (r + pad) * width + c + pad
            if not _legal(board, libs, ko, width, s, colour):
                continue
            index_of[s] = n
            points[n] = r * size + c
            for lv in range(n_levels):
                if dirty[lv, s, view]:
                    best = keys[lv, s, view, 0]
                    for g in range(1, 8):
                        best = min(best, keys[lv, s, view, g])
                    key = lv_top[lv] + best
                    o, h = _lookup(table, lv_tag[lv], key)
                    cache[lv, s, view, 0] = key
                    cache[lv, s, view, 1] = o
                    cache[lv, s, view, 2] = h
                    dirty[lv, s, view] = False
                cand_keys[n, lv] = cache[lv, s, view, 0]
                occ[n, lv] = cache[lv, s, view, 1]
                chosen[n, lv] = cache[lv, s, view, 2]
            cand_keys[n, n_levels] = -1
            occ[n, n_levels] = 0
            chosen[n, n_levels] = 0
            n += 1
    if d12_tag >= 0 and last >= 0:
        lr, lc = last // width - pad, last % width - pad
        if lr >= 2 and lr <= size - 3 and lc >= 2 and lc <= size - 3:
            n_digits = d12_perms.shape[1]
            d12_flat = d12_offsets[:, 0] * width + d12_offsets[:, 1]
            last_move_keys(rows, 0, 0, board, width, last, -1, colour, d12_flat, d12_cands, True,
                           label, mark, counter, stack)
            i = 0
            for k in range(d12_cands.shape[0]):
                s = last + d12_flat[d12_cands[k]]
                if board[s] != EMPTY:
                    continue
                if _legal(board, libs, ko, width, s, colour):
                    full = (np.int64(colour) << (2 * (n_digits - 1))) | rows[i, 0]
                    key = _canonical(full, n_digits, d12_perms, d12_maps)
                    o, h = _lookup(table, d12_tag, key)
                    cand_keys[index_of[s], n_levels] = key
                    occ[index_of[s], n_levels] = o
                    chosen[index_of[s], n_levels] = h
                i += 1
    return n


@kernel(cache=True)
def _tactics(board: np.ndarray, libs: np.ndarray, width: int, colour: int, s: int, last: int, mark: np.ndarray,
             stamp: np.ndarray, stack: np.ndarray, taken: np.ndarray) -> int:
    """Tactical cell of a legal move at ``s``: stones captured, whether they hold the last move, the new
    chain's liberties (1, 2, 3, 4+), whether it ataris an opponent chain, whether it extends a chain in atari.

    ``libs`` are the chains' liberties capped at 3 (see fill_liberties). The move is tried on
    ``board`` and taken back. ``mark``, ``stack`` and ``taken`` are scratch arrays of the board's
    length, ``stamp`` the one-element stamp counter of ``mark`` (see flood_chain).
    """
    opponent = 3 - colour
    captured, captures_last, atari, escape = 0, 0, 0, 0
    for q in (s - width, s - 1, s + 1, s + width):
        v = board[q]
        if v == opponent and libs[q] == 1:
            seen = False
            for k in range(captured):
                seen = seen or taken[k] == q
            if not seen:
                n, _ = flood_chain(board, width, q, mark, stamp, stack, 0)
                taken[captured:captured + n] = stack[:n]
                captured += n
        elif v == opponent and libs[q] == 2:
            atari = 1
        elif v == colour and libs[q] == 1:
            escape = 1
    board[s] = colour
    for k in range(captured):
        board[taken[k]] = EMPTY
        captures_last = captures_last or taken[k] == last
    _, after = flood_chain(board, width, s, mark, stamp, stack, 4)
    board[s] = EMPTY
    for k in range(captured):
        board[taken[k]] = opponent
    size_bin = 0 if captured == 0 else 1 if captured == 1 else 2 if captured <= 3 else 3
    return (((size_bin * 2 + captures_last) * 4 + after - 1) * 2 + atari) * 2 + escape


def tactics_text(cell: int) -> str:
    """A tactical cell (:func:`_tactics`) in words, e.g. "captures 2-3 (the last move), 4+ liberties, atari"."""
    rest, escape = divmod(cell, 2)
    rest, atari = divmod(rest, 2)
    rest, liberties = divmod(rest, 4)
    size_bin, captures_last = divmod(rest, 2)
    words = []
    if size_bin:
        words.append(f"captures {('1', '2-3', '4+')[size_bin - 1]}" + (" (the last move)" if captures_last else ""))
    words.append(f"{('1', '2', '3', '4+')[liberties]} {'liberty' if liberties == 0 else 'liberties'}")
    words += ["atari"] * atari + ["escapes atari"] * escape
    return ", ".join(words)


@kernel(cache=True)
def _advance(board: np.ndarray, libs: np.ndarray, ko: np.ndarray, size: int, pad: int, colour: int, row: int,
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


@dataclass(frozen=True)
class Levels:
    """Kernel arrays of the nested pattern levels (largest first) and of the d12 response family."""

    names: tuple[str, ...]
    response: str
    pad: int
    start: np.ndarray
    rc: np.ndarray
    weights: np.ndarray
    lib_weights: np.ndarray
    has_liberty: np.ndarray
    top: np.ndarray
    d12_offsets: np.ndarray
    d12_candidates: np.ndarray
    d12_perms: np.ndarray
    d12_maps: np.ndarray


def levels(names: Sequence[str], *, response: str = RESPONSE) -> Levels:
    """Kernel arrays for candidate families ``names`` (largest first) and a last_move ``response`` family."""
    names = tuple(names)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"levels must be distinct family names, got {list(names)}")
    starts, rcs, weights, lib_weights, has_liberty, top = [0], [], [], [], [], []
    pad = 1
    for name in names:
        family = FAMILIES.get(name)
        if family is None or family.anchor != "candidate":
            raise ValueError(f"{name!r} is not a candidate pattern family")
        if family.layout.n_digits > _MAX_KEY_DIGITS:
            raise ValueError(f"{name!r} keys have {family.layout.n_digits} digits, at most {_MAX_KEY_DIGITS} fit")
        n_points, planes = len(family.layout.points), len(family.layout.planes)
        images = np.array(d4_point_images(family.layout.points), dtype=np.int64)
        weights.append(np.int64(4) ** (planes * n_points - 1 - images))
        lib_weights.append(np.int64(4) ** (n_points - 1 - images) * (planes == 2))
        rcs.append(family.geometry.offsets)
        starts.append(starts[-1] + n_points)
        has_liberty.append(planes == 2)
        top.append(np.int64(4) ** (family.layout.n_digits - 1))
        pad = max(pad, int(np.abs(family.geometry.offsets).max()))
    family = FAMILIES.get(response)
    if family is None or family.anchor != "last_move" or family.layout.planes != ("stone", "liberty"):
        raise ValueError(f"{response!r} is not a last_move family with liberties")
    d12_offsets, d12_candidates = family.geometry.offsets, family.geometry.candidates
    group = family.group(16)
    perms = np.array([e.perm for e in group.elements], dtype=np.int64)
    maps = np.array([e.maps for e in group.elements], dtype=np.int64)
    pad = max(pad, int(np.abs(d12_offsets).max()))
    return Levels(
        names=names, response=response, pad=pad,
        start=np.array(starts, dtype=np.int64), rc=np.concatenate(rcs).astype(np.int64),
        weights=np.ascontiguousarray(np.concatenate(weights, axis=1)),
        lib_weights=np.ascontiguousarray(np.concatenate(lib_weights, axis=1)),
        has_liberty=np.array(has_liberty, dtype=np.bool_), top=np.array(top, dtype=np.int64),
        d12_offsets=d12_offsets.astype(np.int64), d12_candidates=d12_candidates.astype(np.int64),
        d12_perms=perms, d12_maps=maps,
    )  # fmt: skip


@kernel(cache=True)
def _buffers(size: int, n_cells: int, n_levels: int, n_d12: int) -> tuple[np.ndarray, ...]:
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


@kernel(cache=True)
def _distance(point: int, move: int, size: int) -> int:
    """Coulom's distance |dr| + |dc| + max(|dr|, |dc|) between two row-major points; 0 when ``move`` is -1."""
    if move < 0:
        return 0
    dr, dc = abs(point // size - move // size), abs(point % size - move % size)
    return dr + dc + max(dr, dc)


@kernel(cache=True)
def _context(n: int, points: np.ndarray, board: np.ndarray, libs: np.ndarray, size: int, pad: int, colour: int,
             last: int, before: int, t_mark: np.ndarray, t_stamp: np.ndarray, t_stack: np.ndarray,
             t_taken: np.ndarray, out: np.ndarray, at: int) -> None:
    """Per candidate point: distances to the last two moves, tactical cell, the point, its line cell
    (gopat.transforms.predict.ranking.LINES); into ``out`` from row ``at``."""
    width = size + 2 * pad
    padded_last = (last // size + pad) * width + last % size + pad if last >= 0 else -1
    for i in range(n):
        out[at + i, 0] = _distance(points[i], last, size)
        out[at + i, 1] = _distance(points[i], before, size)
        s = (points[i] // size + pad) * width + points[i] % size + pad
        out[at + i, 2] = _tactics(board, libs, width, colour, s, padded_last, t_mark, t_stamp, t_stack, t_taken)
        out[at + i, 3] = points[i]
        r, c = points[i] // size, points[i] % size
        a, b = min(r, size - 1 - r), min(c, size - 1 - c)
        out[at + i, 4] = min(min(a, b), LINES - 1) * LINES + min(max(a, b), LINES - 1)


@kernel(cache=True, nogil=True)
def _game_rows(sizes: np.ndarray, setup_start: np.ndarray, setups: np.ndarray, move_start: np.ndarray,
               moves: np.ndarray, first: int, stop: int, pad: int, lv_start: np.ndarray, lv_rc: np.ndarray,
               lv_w: np.ndarray, lv_lw: np.ndarray, lv_lib: np.ndarray, lv_top: np.ndarray, lv_tag: np.ndarray,
               table: np.ndarray, d12_offsets: np.ndarray, d12_cands: np.ndarray, d12_perms: np.ndarray,
               d12_maps: np.ndarray, d12_tag: int, out_occ: np.ndarray, out_chosen: np.ndarray,
               out_context: np.ndarray, pos_count: np.ndarray, pos_played: np.ndarray, pos_move: np.ndarray,
) -> tuple[int, int]:
    """The candidates of every position before a board move of games ``first`` .. ``stop`` - 1.

    Per candidate (position after position, row-major within one): occurrence and chosen per level
    and response pattern; distances to the last two moves, tactical cell, point, line (:func:`_context`). Per
    position: candidates, the played one's index among them, move number. Returns (positions, -1),
    or (positions so far, game index) at an illegal move.
    """
    n_levels = lv_start.shape[0] - 1
    at, p = 0, 0
    for gi in range(first, stop):
        size = sizes[gi]
        board, libs, seen, mark, counter, stack, flat, keys = _start_game(
            size, setups[setup_start[gi]:setup_start[gi + 1]], pad, n_levels, lv_start, lv_rc, lv_w, lv_lw)
        width = size + 2 * pad
        (dirty, cache, ko, label, rows, index_of, points, cand_keys, occ, chosen, captured, changed,
         old_libs, t_mark, t_stamp, t_stack, t_taken) = _buffers(size, board.shape[0], n_levels, d12_cands.shape[0])
        last, before = -1, -1
        for t in range(move_start[gi], move_start[gi + 1]):
            colour, row, col = moves[t, 0], moves[t, 1], moves[t, 2]
            if row >= 0:
                padded_last = (last // size + pad) * width + last % size + pad if last >= 0 else -1
                n = _candidates(board, libs, ko, size, pad, colour, padded_last, keys, dirty, cache, table, lv_top,
                                lv_tag, d12_offsets, d12_cands, d12_perms, d12_maps, d12_tag, label, mark, counter,
                                stack, rows, index_of, points, cand_keys, occ, chosen)
                played = -1
                for i in range(n):
                    if points[i] == row * size + col:
                        played = i
                if played < 0:
                    return p, gi
                out_occ[at:at + n, :] = occ[:n, :]
                out_chosen[at:at + n, :] = chosen[:n, :]
                _context(n, points, board, libs, size, pad, colour, last, before, t_mark, t_stamp, t_stack,
                         t_taken, out_context, at)
                pos_count[p], pos_played[p], pos_move[p] = n, played, t - move_start[gi] + 1
                at += n
                p += 1
            status = _advance(board, libs, ko, size, pad, colour, row, col, keys, dirty, lv_start, lv_w, lv_lw,
                              lv_lib, flat, seen, mark, counter, stack, captured, changed, old_libs)
            if status != OK:
                return p, gi
            before, last = last, row * size + col if row >= 0 else -1
    return p, -1


@kernel(cache=True)
def _position(size: int, setup: np.ndarray, moves: np.ndarray, colour: int, pad: int, lv_start: np.ndarray,
              lv_rc: np.ndarray, lv_w: np.ndarray, lv_lw: np.ndarray, lv_lib: np.ndarray, lv_top: np.ndarray,
              lv_tag: np.ndarray, table: np.ndarray, d12_offsets: np.ndarray, d12_cands: np.ndarray,
              d12_perms: np.ndarray, d12_maps: np.ndarray, d12_tag: int,
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Replay ``moves``, then the candidates of ``colour`` as :func:`_game_rows` writes them, and their keys.

    Returns (board, n, points, keys, occ, chosen, context); n is -1 - t when move t is illegal.
    """
    n_levels = lv_start.shape[0] - 1
    board, libs, seen, mark, counter, stack, flat, keys = _start_game(size, setup, pad, n_levels, lv_start, lv_rc,
                                                                      lv_w, lv_lw)
    width = size + 2 * pad
    (dirty, cache, ko, label, rows, index_of, points, cand_keys, occ, chosen, captured, changed,
     old_libs, t_mark, t_stamp, t_stack, t_taken) = _buffers(size, board.shape[0], n_levels, d12_cands.shape[0])
    context = np.zeros((size * size, 5), dtype=np.int64)
    last, before = -1, -1
    for t in range(moves.shape[0]):
        row, col = moves[t, 1], moves[t, 2]
        status = _advance(board, libs, ko, size, pad, moves[t, 0], row, col, keys, dirty, lv_start, lv_w, lv_lw,
                          lv_lib, flat, seen, mark, counter, stack, captured, changed, old_libs)
        if status != OK:
            return board, -1 - t, points, cand_keys, occ, chosen, context
        before, last = last, row * size + col if row >= 0 else -1
    padded_last = (last // size + pad) * width + last % size + pad if last >= 0 else -1
    n = _candidates(board, libs, ko, size, pad, colour, padded_last, keys, dirty, cache, table, lv_top, lv_tag,
                    d12_offsets, d12_cands, d12_perms, d12_maps, d12_tag, label, mark, counter, stack, rows,
                    index_of, points, cand_keys, occ, chosen)
    _context(n, points, board, libs, size, pad, colour, last, before, t_mark, t_stamp, t_stack, t_taken, context, 0)
    return board, n, points, cand_keys, occ, chosen, context


@dataclass(frozen=True)
class Predictor:
    """Pattern statistics in a hash table, the pattern levels, the opening book and the ranking weights."""

    levels: Levels
    table: np.ndarray
    weights: Weights
    n_patterns: int
    book: Book

    def _args(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        lv, n_levels = self.levels, len(self.levels.names)
        return (
            lv.pad, lv.start, lv.rc, lv.weights, lv.lib_weights, lv.has_liberty, lv.top,
            np.arange(1, n_levels + 1, dtype=np.int64), self.table, lv.d12_offsets, lv.d12_candidates,
            lv.d12_perms, lv.d12_maps, n_levels + 1,
        )  # fmt: skip


def load_predictor(stats: pl.DataFrame | Iterable[pl.DataFrame], *, weights: Weights | None = None,
                   rows: int | None = None, book: Book | None = None) -> Predictor:
    """A predictor from 16-symmetry pattern statistics (columns family, key as digit text, occurrence, chosen).

    ``stats`` is one frame, or batches of one whose total rows ``rows`` bounds (the hash table is
    sized from it, so a release's statistics never sit in memory as text all at once). The levels
    and response family are those of ``weights`` (default: the shipped ones); rows of other
    families are ignored. Patterns never chosen count: a pattern seen often and never played says
    the point is poor. ``book`` is the opening book of the same games (default: an empty one).
    """
    weights = weights or load_weights()
    lv = levels(weights.levels, response=weights.response)
    if isinstance(stats, pl.DataFrame):
        stats, rows = [stats], len(stats) if rows is None else rows
    elif rows is None:
        raise ValueError("give the number of rows of batched statistics")
    table = np.zeros((1 << max(4, (4 * rows // 3).bit_length()), 3), dtype=np.int64)  # load factor < 3/4
    tags = {name: tag for tag, name in enumerate((*lv.names, lv.response), start=1)}
    loaded, filling = 0, None
    with ThreadPoolExecutor(1) as pool:  # one batch goes into the table while the next is decoded
        for batch in stats:
            frame = batch.filter(pl.col("family").is_in(list(tags))).select(
                pl.col("family").replace_strict(tags, return_dtype=pl.Int64),
                pl.col("key").str.to_integer(base=4, dtype=pl.Int64), "occurrence", "chosen")
            loaded += len(frame)
            if loaded > rows:
                raise ValueError(f"more than the {rows} announced pattern rows")
            if filling is not None:
                filling.result()
            filling = pool.submit(_fill_table, table, *(frame[c].to_numpy().astype(np.int64, copy=False)
                                                        for c in frame.columns))
        if filling is not None:
            filling.result()
    return Predictor(levels=lv, table=table, weights=weights, n_patterns=loaded, book=book or build_book([]))


@dataclass(frozen=True)
class Rows:
    """Candidates of consecutive positions (see :func:`_game_rows`) and the positions' counts, played index, move."""

    occurrence: np.ndarray
    chosen: np.ndarray
    context: np.ndarray
    book: np.ndarray
    counts: np.ndarray
    played: np.ndarray
    move: np.ndarray

    def features(self) -> np.ndarray:
        """:func:`gopat.transforms.predict.ranking.feature_index` of every candidate."""
        return feature_index(self.occurrence, self.chosen, self.context[:, 0], self.context[:, 1],
                             np.repeat(self.move, self.counts), self.context[:, 2], self.book, self.context[:, 4])


def candidate_rows(predictor: Predictor, games: Sequence[GameMoves], *, batch_rows: int = 4_000_000,
                   threads: int = 2) -> Iterator[Rows]:
    """The candidates of every position before a board move of ``games``, in batches of whole games.

    A batch holds at most ``batch_rows`` candidates unless one game alone has more; ``threads``
    batches are worked on at once (the kernel releases the GIL). Raises ValueError naming the game
    (its index in ``games``) with an illegal move.
    """
    sizes, setup_start, setups, move_start, moves = pack_games(games)
    board_moves = np.cumsum([0, *((moves[move_start[i]:move_start[i + 1], 1] >= 0).sum() * int(sizes[i]) ** 2
                                  for i in range(len(sizes)))])
    n_levels = len(predictor.levels.names)

    def batch(first: int, stop: int) -> Rows:
        n_rows = int(board_moves[stop] - board_moves[first])
        n_positions = int((moves[move_start[first]:move_start[stop], 1] >= 0).sum())
        occurrence = np.empty((n_rows, n_levels + 1), dtype=np.int64)
        chosen = np.empty((n_rows, n_levels + 1), dtype=np.int64)
        context = np.empty((n_rows, 5), dtype=np.int64)
        counts, played, move = (np.empty(n_positions, dtype=np.int64) for _ in range(3))
        _, bad = _game_rows(sizes, setup_start, setups, move_start, moves, first, stop, *predictor._args(),
                            occurrence, chosen, context, counts, played, move)
        if bad >= 0:
            raise ValueError(f"game {bad}: illegal move")
        used = int(counts.sum())
        per_game = [int((moves[move_start[i]:move_start[i + 1], 1] >= 0).sum()) for i in range(first, stop)]
        book = _book_rows(predictor.book, games[first:stop], per_game, counts, move, context[:used, 3])
        return Rows(occurrence=occurrence[:used], chosen=chosen[:used], context=context[:used], book=book,
                    counts=counts, played=played, move=move)

    bounds, first = [], 0
    while first < len(sizes):
        stop = max(first + 1, int(np.searchsorted(board_moves, board_moves[first] + batch_rows, side="right")) - 1)
        bounds.append((first, stop))
        first = stop
    with ThreadPoolExecutor(threads) as pool:
        pending: deque[Future[Rows]] = deque()
        for first, stop in bounds:
            pending.append(pool.submit(batch, first, stop))
            if len(pending) == threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _book_rows(book: Book, games: Sequence[GameMoves], per_game: list[int], counts: np.ndarray, move: np.ndarray,
               points: np.ndarray) -> np.ndarray:
    """Opening-book counts (games reaching, games playing) of every candidate of consecutive positions.

    ``per_game`` is each game's number of positions (board moves); ``move`` each position's move
    number, ``points`` each candidate's row-major point.
    """
    out = np.zeros((len(points), 2), dtype=np.int64)
    starts = np.cumsum(counts) - counts
    first = np.cumsum([0, *per_game])
    for g, game in enumerate(games):
        early = [p for p in range(first[g], first[g + 1]) if move[p] <= BOOK_MOVES]
        pairs = [(int(move[p]), points[starts[p]:starts[p] + counts[p]]) for p in early]
        for p, (reached, chosen) in zip(early, book.counts(game, pairs), strict=True):
            out[starts[p]:starts[p] + counts[p], 0] = reached
            out[starts[p]:starts[p] + counts[p], 1] = chosen
    return out


def evaluate(predictor: Predictor, games: Sequence[GameMoves]) -> dict[str, Any]:
    """Rank all legal points before every board move of ``games`` and measure where the played move ranked.

    Returns a JSON-ready dict: ``positions``, ``top1``, ``top5``, ``top10`` (shares of positions
    whose move ranked within 1, 5, 10), ``games``, ``phases`` (the same per range of move numbers
    1-30, 31-100, 101-200, 201+), ``matched`` (share of positions whose move's largest pattern seen
    before was each level, or ``none``), ``response_matched`` (share whose move had a response
    pattern seen before), ``book_matched`` (share whose position was in the opening book) and
    ``pattern_points`` (cells per level). Candidates rank by score, then by row-major point.
    Raises ValueError for an illegal move.
    """
    names = predictor.levels.names
    hits = np.zeros((len(PHASES), len(TOP_K)), dtype=np.int64)
    positions = np.zeros(len(PHASES), dtype=np.int64)
    matched = np.zeros(len(names) + 1, dtype=np.int64)
    response = book = 0
    for rows in candidate_rows(predictor, games):
        index = rows.features()
        rank = ranks(predictor.weights.score(index), rows.counts, rows.played)
        phase = np.searchsorted(_PHASE_STARTS, rows.move, side="right") - 1
        np.add.at(positions, phase, 1)
        for k, top in enumerate(TOP_K):
            np.add.at(hits[:, k], phase, rank <= top)
        played = np.cumsum(rows.counts) - rows.counts + rows.played
        matched += np.bincount(largest_level(index[played]), minlength=len(names) + 1)
        response += int((rows.occurrence[played, len(names)] >= 1).sum())
        book += int((rows.book[played, 0] >= 1).sum())
    total = int(positions.sum())

    def shares(counts: np.ndarray, n: int) -> dict[str, float]:
        return {f"top{k}": round(float(counts[i]) / n, 4) if n else 0.0 for i, k in enumerate(TOP_K)}

    return {
        "positions": total,
        **shares(hits.sum(axis=0), total),
        "games": len(games),
        "phases": {_phase_name(lo, hi): {"positions": int(positions[i]), **shares(hits[i], int(positions[i]))}
                   for i, (lo, hi) in enumerate(PHASES)},
        "matched": {name: round(float(matched[i]) / total, 4) if total else 0.0
                    for i, name in enumerate([*names, "none"])},
        "response_matched": round(response / total, 4) if total else 0.0,
        "book_matched": round(book / total, 4) if total else 0.0,
        "pattern_points": {name: len(FAMILIES[name].layout.points) for name in names},
    }


def fit(predictor: Predictor, games: Sequence[GameMoves], *, distance: bool = True) -> Weights:
    """Weights for the predictor's levels fitted on every position of ``games`` (which its statistics must not hold)."""
    index: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    played: list[np.ndarray] = []
    for rows in candidate_rows(predictor, games):  # keep only the features (int32) of each batch
        index.append(rows.features())
        counts.append(rows.counts)
        played.append(rows.played)
    if not index:
        raise ValueError("no games to fit on")
    return fit_weights(np.concatenate(index), np.concatenate(counts), np.concatenate(played),
                       levels=predictor.levels.names, response=predictor.levels.response,
                       distance=distance)


def _phase_name(lo: int, hi: int | None) -> str:
    return f"{lo}-{hi}" if hi is not None else f"{lo}+"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A legal point: its score and probability, the largest pattern seen before (``family`` None: none),
    per level (largest first, then the response pattern) the canonical key text (None: no response
    pattern here) and counts, its tactical cell (:func:`tactics_text`) and its opening-book counts
    (games reaching the position, games playing the point; zeros outside the book)."""

    row: int
    col: int
    score: float
    probability: float
    family: str | None
    keys: tuple[str | None, ...]
    occurrence: tuple[int, ...]
    chosen: tuple[int, ...]
    tactics: int
    book: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Position:
    """A position (rows of ``.XO``, row 0 at the top), the colour to move and every legal point, best first."""

    board: tuple[str, ...]
    colour: int
    moves: int
    last: tuple[int, int] | None
    candidates: tuple[Candidate, ...]


def score_position(predictor: Predictor, game: GameMoves, *, moves: int) -> Position:
    """Every legal point of the position after the first ``moves`` moves of ``game``, best first.

    Points rank by score, then by row-major index (as :func:`evaluate` ranks them); probability is
    the softmax of the scores. The colour to move is that of the record's next move, else the
    opposite of the last move's, else White after black setup stones only (handicap), else Black.
    """
    sizes, _, setup, _, played = pack_games([game])
    if isinstance(moves, bool) or not isinstance(moves, int) or not 0 <= moves <= len(played):
        raise ValueError(f"the move number must be within 0..{len(played)} for this game, got {moves!r}")
    if moves < len(played):
        colour = int(played[moves, 0])
    elif moves > 0:
        colour = 3 - int(played[moves - 1, 0])
    else:
        colour = WHITE if len(setup) and (setup[:, 0] == BLACK).all() else BLACK
    size = int(sizes[0])
    board, n, points, keys, occ, chosen, context = _position(size, setup, played[:moves], colour, *predictor._args())
    if n < 0:
        raise ValueError(f"move {-n} is illegal")
    names = predictor.levels.names
    digits = [FAMILIES[name].layout.n_digits for name in (*names, predictor.levels.response)]
    [(reached, book)] = predictor.book.counts(game, [(moves + 1, context[:n, 3])])
    index = feature_index(occ[:n], chosen[:n], context[:n, 0], context[:n, 1], np.full(n, moves + 1),
                          context[:n, 2], np.stack([reached, book], axis=1), context[:n, 4])
    scores = predictor.weights.score(index)
    probability = np.exp(scores - scores.max(initial=-np.inf))
    probability /= probability.sum()
    largest = largest_level(index)
    texts = [key_strings(np.maximum(keys[:n, lv], 0), d) for lv, d in enumerate(digits)]
    candidates = []
    for i in sorted(range(n), key=lambda i: (-scores[i], i)):
        candidates.append(Candidate(
            row=int(points[i]) // size, col=int(points[i]) % size, score=float(scores[i]),
            probability=float(probability[i]), family=names[largest[i]] if largest[i] < len(names) else None,
            keys=tuple(str(texts[lv][i]) if keys[i, lv] >= 0 else None for lv in range(len(digits))),
            occurrence=tuple(int(v) for v in occ[i, :len(digits)]),
            chosen=tuple(int(v) for v in chosen[i, :len(digits)]),
            tactics=int(context[i, 2]), book=(int(reached[i]), int(book[i])),
        ))  # fmt: skip
    pad = predictor.levels.pad
    width = size + 2 * pad
    rows = tuple("".join(".XO#"[board[(r + pad) * width + c + pad]] for c in range(size)) for r in range(size))
    last_move = next(((int(m[1]), int(m[2])) for m in played[:moves][::-1][:1] if m[1] >= 0), None)
    return Position(board=rows, colour=colour, moves=moves, last=last_move, candidates=tuple(candidates))
