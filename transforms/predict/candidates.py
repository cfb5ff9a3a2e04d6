"""Candidate rows: every legal point of a position with its level counts, d12 response and context.

:func:`game_rows` replays whole games (fitting and evaluation), :func:`position_rows` one position (scoring).
"""

from __future__ import annotations

import numpy as np

from gopat.transforms.games.board import EMPTY, OK, flood_chain
from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.liberties import last_move_keys
from gopat.transforms.predict.ranking import LINES
from gopat.transforms.predict.replay import advance, buffers, legal, lookup, smallest_image, start_game


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
            if not legal(board, libs, ko, width, s, colour):
                continue
            index_of[s] = n
            points[n] = r * size + c
            for lv in range(n_levels):
                if dirty[lv, s, view]:
                    best = keys[lv, s, view, 0]
                    for g in range(1, 8):
                        best = min(best, keys[lv, s, view, g])
                    key = lv_top[lv] + best
                    o, h = lookup(table, lv_tag[lv], key)
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
                if legal(board, libs, ko, width, s, colour):
                    full = (np.int64(colour) << (2 * (n_digits - 1))) | rows[i, 0]
                    key = smallest_image(full, n_digits, d12_perms, d12_maps)
                    o, h = lookup(table, d12_tag, key)
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
def game_rows(sizes: np.ndarray, setup_start: np.ndarray, setups: np.ndarray, move_start: np.ndarray,
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
        board, libs, seen, mark, counter, stack, flat, keys = start_game(
            size, setups[setup_start[gi]:setup_start[gi + 1]], pad, n_levels, lv_start, lv_rc, lv_w, lv_lw)
        width = size + 2 * pad
        (dirty, cache, ko, label, rows, index_of, points, cand_keys, occ, chosen, captured, changed,
         old_libs, t_mark, t_stamp, t_stack, t_taken) = buffers(size, board.shape[0], n_levels, d12_cands.shape[0])
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
            status = advance(board, libs, ko, size, pad, colour, row, col, keys, dirty, lv_start, lv_w, lv_lw,
                              lv_lib, flat, seen, mark, counter, stack, captured, changed, old_libs)
            if status != OK:
                return p, gi
            before, last = last, row * size + col if row >= 0 else -1
    return p, -1


@kernel(cache=True)
def position_rows(size: int, setup: np.ndarray, moves: np.ndarray, colour: int, pad: int, lv_start: np.ndarray,
              lv_rc: np.ndarray, lv_w: np.ndarray, lv_lw: np.ndarray, lv_lib: np.ndarray, lv_top: np.ndarray,
              lv_tag: np.ndarray, table: np.ndarray, d12_offsets: np.ndarray, d12_cands: np.ndarray,
              d12_perms: np.ndarray, d12_maps: np.ndarray, d12_tag: int,
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Replay ``moves``, then the candidates of ``colour`` as :func:`game_rows` writes them, and their keys.

    Returns (board, n, points, keys, occ, chosen, context); n is -1 - t when move t is illegal.
    """
    n_levels = lv_start.shape[0] - 1
    board, libs, seen, mark, counter, stack, flat, keys = start_game(size, setup, pad, n_levels, lv_start, lv_rc,
                                                                      lv_w, lv_lw)
    width = size + 2 * pad
    (dirty, cache, ko, label, rows, index_of, points, cand_keys, occ, chosen, captured, changed,
     old_libs, t_mark, t_stamp, t_stack, t_taken) = buffers(size, board.shape[0], n_levels, d12_cands.shape[0])
    context = np.zeros((size * size, 5), dtype=np.int64)
    last, before = -1, -1
    for t in range(moves.shape[0]):
        row, col = moves[t, 1], moves[t, 2]
        status = advance(board, libs, ko, size, pad, moves[t, 0], row, col, keys, dirty, lv_start, lv_w, lv_lw,
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
