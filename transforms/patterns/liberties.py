"""Chain liberties kept up to date while a game replays, and the keys of last-move families (d12) with liberties.

Pattern extraction and move prediction both use these kernels.
"""

from __future__ import annotations

import numpy as np

from gopat.transforms.games.board import BLACK, EMPTY, WHITE, flood_chain
from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.hashtable import add_row


@kernel(cache=True)
def last_move_keys(rows: np.ndarray, n: int, f: int, board: np.ndarray, width: int, last: int, played: int,
                   colour: int, offsets: np.ndarray, candidates: np.ndarray, has_liberty: bool,
                   label: np.ndarray, mark: np.ndarray, counter: np.ndarray, stack: np.ndarray) -> tuple[int, int]:
    """Batch rows of a last_move family around ``last``: occurrences and the chosen event.

    Rows (see :func:`commit`) are ``(key without the colour digit, f + 1, black to move, white to
    move)`` for each empty candidate in ``candidates`` order, each followed by ``(key, -(f + 1),
    colour index, 0)`` if it is ``played`` (-1: none). Each empty candidate point S gets the
    mover's stone; the key is the stone digits, then (with
    a liberty plane) each stone's chain liberties capped at 3, with no captures removed. The
    chains through the layout are filled once (``label`` rows: stamp from ``counter[1]``, chain
    number, liberties); placing S only merges the mover's chains next to S into S's chain and
    takes one liberty (S) from the opponent's chains next to S. Returns (rows used, chosen events).
    """
    counter[1] += 1
    stamp = counter[1]
    n_points = offsets.shape[0]
    stone_key = np.int64(0)
    for j in range(n_points):
        stone_key = stone_key * 4 + board[last + offsets[j]]
    if has_liberty:
        n_chains = 0
        for j in range(offsets.shape[0]):
            cell = last + offsets[j]
            v = board[cell]
            if (v == BLACK or v == WHITE) and label[cell, 0] != stamp:  # noqa: SIM109 - numba kernel: two compares, no tuple
                size, libs = flood_chain(board, width, cell, mark, counter, stack, 0)
                for i in range(size):
                    label[stack[i], 0] = stamp
                    label[stack[i], 1] = n_chains
                    label[stack[i], 2] = libs
                n_chains += 1
    chosen = 0
    for k in range(candidates.shape[0]):
        s = last + offsets[candidates[k]]
        if board[s] != EMPTY:
            continue
        board[s] = colour
        key = stone_key + (colour << (2 * (n_points - 1 - candidates[k])))
        if has_liberty:
            merged = 0
            touched = 0
            for q in (s - width, s - 1, s + 1, s + width):
                if label[q, 0] == stamp:
                    if board[q] == colour:
                        merged |= 1 << label[q, 1]
                    else:
                        touched |= 1 << label[q, 1]
            _, libs_s = flood_chain(board, width, s, mark, counter, stack, 3)
            for j in range(offsets.shape[0]):
                cell = last + offsets[j]
                libs = 0
                if cell == s:
                    libs = libs_s
                elif label[cell, 0] == stamp:
                    chain = 1 << label[cell, 1]
                    if merged & chain:
                        libs = libs_s
                    elif touched & chain:
                        libs = min(label[cell, 2] - 1, 3)
                    else:
                        libs = min(label[cell, 2], 3)
                key = key * 4 + libs
        board[s] = EMPTY
        n = add_row(rows, n, f + 1, key, int(colour == BLACK), int(colour == WHITE))
        if s == played:
            n = add_row(rows, n, -(f + 1), key, colour - 1, 0)
            chosen += 1
    return n, chosen


@kernel(cache=True)
def fill_liberties(board: np.ndarray, width: int, libs: np.ndarray, seen: np.ndarray, counter: np.ndarray,
                   mark: np.ndarray, stack: np.ndarray) -> None:
    """Set ``libs[cell]`` to the liberties of the chain on every cell, capped at 3 (0 where no stone).

    ``board`` is a flat padded board; ``libs`` (int8), ``seen`` and ``mark`` (int64) have its length;
    ``counter`` is an int64 array of 3 stamps: [0] for :func:`flood_chain`, [2] for ``seen``.
    """
    counter[2] += 1
    stamp = counter[2]
    libs[:] = 0
    for cell in range(board.shape[0]):
        v = board[cell]
        if (v == BLACK or v == WHITE) and seen[cell] != stamp:  # noqa: SIM109 - numba kernel: two compares, no tuple
            size, count = flood_chain(board, width, cell, mark, counter, stack, 0)
            for k in range(size):
                seen[stack[k]] = stamp
                libs[stack[k]] = min(count, 3)


@kernel(cache=True)
def refresh_liberties(board: np.ndarray, width: int, p: int, captured: np.ndarray, n_captured: int, libs: np.ndarray,
                      changed: np.ndarray, old: np.ndarray, seen: np.ndarray, counter: np.ndarray, mark: np.ndarray,
                      stack: np.ndarray) -> int:
    """Bring ``libs`` (see :func:`fill_liberties`) up to date after a move at ``p`` captured ``captured[:n_captured]``.

    Only these chains can change: the one through ``p``, the opponent's next to ``p`` (one liberty
    less) and the mover's next to a captured stone (liberties gained); captured cells become 0.
    Writes the cells whose digit changed to ``changed[:n]`` and their previous digits to ``old[:n]``;
    returns ``n``.
    """
    counter[2] += 1
    stamp = counter[2]
    n = 0
    for i in range(n_captured):
        cell = captured[i]
        if libs[cell] != 0:
            changed[n] = cell
            old[n] = libs[cell]
            libs[cell] = 0
            n += 1
    for i in range(-1, n_captured):
        centre = p if i < 0 else captured[i]
        for q in (centre, centre - width, centre - 1, centre + 1, centre + width):
            v = board[q]
            if (v == BLACK or v == WHITE) and seen[q] != stamp:  # noqa: SIM109 - numba kernel: two compares, no tuple
                size, count = flood_chain(board, width, q, mark, counter, stack, 0)
                digit = min(count, 3)
                for k in range(size):
                    cell = stack[k]
                    seen[cell] = stamp
                    if libs[cell] != digit:
                        changed[n] = cell
                        old[n] = libs[cell]
                        libs[cell] = digit
                        n += 1
    return n
