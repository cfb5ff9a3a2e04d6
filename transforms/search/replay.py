"""Games replayed once into board events, so a search replays without liberties (docs/search.md#index).

A game's positions are 0 (after its setup stones) to n (after its n moves). Position i's events set
points to a value (0 empty, 1 black, 2 white): the setup stones for position 0; for a move, its
stone first, then the stones it captured. A pass has no event. Every position also records the
colour that moved into it (0 for position 0), and every game which points ever held a black stone
(bit 1) or a white one (bit 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from gopat.transforms.games.board import OK, new_board, play_move
from gopat.transforms.kernels import kernel


@dataclass(frozen=True, slots=True)
class Events:
    """The events of many games; game g's positions are `first_pos[g]` .. `first_pos[g + 1] - 1`.

    Game g's events start at `event_start[g]`, position after position: position i has `count[i]`
    of them, in `point` (row * size + col) and `value`; `colour[i]` moved into it;
    `ever[ever_start[g]:ever_start[g + 1]]` is game g's board of bits.
    """

    size: np.ndarray
    first_pos: np.ndarray
    event_start: np.ndarray
    count: np.ndarray
    point: np.ndarray
    value: np.ndarray
    colour: np.ndarray
    ever_start: np.ndarray
    ever: np.ndarray


@kernel(cache=True, parallel=True)
def _fill(sizes: np.ndarray, setup_start: np.ndarray, setups: np.ndarray, move_start: np.ndarray,
          moves: np.ndarray, first_pos: np.ndarray, ev_start: np.ndarray, ever_start: np.ndarray,
          pos_count: np.ndarray, point: np.ndarray, value: np.ndarray, colour: np.ndarray,
          ever: np.ndarray, status: np.ndarray) -> None:
    for g in numba.prange(sizes.shape[0]):
        size = sizes[g]
        pad = 1
        stride = size + 2
        board = new_board(size, pad)
        ko = np.array([-1, 0], dtype=np.int64)
        mark = np.zeros(board.shape[0], dtype=np.int64)
        counter = np.zeros(1, dtype=np.int64)
        stack = np.empty(board.shape[0], dtype=np.int64)
        captured = np.empty(board.shape[0], dtype=np.int64)
        e = ev_start[g]
        base = ever_start[g]
        for s in range(setup_start[g], setup_start[g + 1]):
            c, r, col = setups[s, 0], setups[s, 1], setups[s, 2]
            board[(r + pad) * stride + col + pad] = c
            point[e] = r * size + col
            value[e] = c
            ever[base + r * size + col] |= c
            e += 1
        pos = first_pos[g]
        pos_count[pos] = e - ev_start[g]
        colour[pos] = 0
        for m in range(move_start[g], move_start[g + 1]):
            pos += 1
            before = e
            c, r, col = moves[m, 0], moves[m, 1], moves[m, 2]
            colour[pos] = c
            done, n_captured = play_move(board, size, pad, c, r, col, ko, mark, counter, stack, captured)
            if done != OK:
                status[g] = m - move_start[g] + 1
                break
            if r >= 0:
                point[e] = r * size + col
                value[e] = c
                ever[base + r * size + col] |= c
                e += 1
                for j in range(n_captured):
                    q = (captured[j] // stride - pad) * size + captured[j] % stride - pad
                    point[e] = q
                    value[e] = 0
                    e += 1
            pos_count[pos] = e - before


@kernel(cache=True)
def _compact(ev_start: np.ndarray, used: np.ndarray, point: np.ndarray, value: np.ndarray,
             out_point: np.ndarray, out_value: np.ndarray) -> None:
    k = 0
    for g in range(used.shape[0]):
        for e in range(ev_start[g], ev_start[g] + used[g]):
            out_point[k] = point[e]
            out_value[k] = value[e]
            k += 1


def replay_events(sizes: np.ndarray, setup_start: np.ndarray, setups: np.ndarray, move_start: np.ndarray,
                  moves: np.ndarray) -> Events:
    """Replay every game (setups and moves as `transforms.games.packed.pack_games` gives them) into events.

    Raises ValueError when a move is illegal: a release holds legal moves only (docs/releases.md).
    """
    n_setup, n_moves = np.diff(setup_start), np.diff(move_start)
    first_pos = np.concatenate([[0], np.cumsum(n_moves + 1)]).astype(np.int64)
    ev_start = np.concatenate([[0], np.cumsum(2 * (n_setup + n_moves))]).astype(np.int64)
    ever_start = np.concatenate([[0], np.cumsum(sizes.astype(np.int64) ** 2)]).astype(np.int64)
    n_pos = int(first_pos[-1])
    pos_count = np.zeros(n_pos, dtype=np.int16)  # a move's stone and its captures: at most 1 + 360
    point = np.zeros(int(ev_start[-1]), dtype=np.int16)
    value = np.zeros(int(ev_start[-1]), dtype=np.int8)
    colour = np.zeros(n_pos, dtype=np.int8)
    ever = np.zeros(int(ever_start[-1]), dtype=np.uint8)
    status = np.zeros(len(sizes), dtype=np.int64)
    _fill(sizes.astype(np.int64), setup_start, setups, move_start, moves, first_pos, ev_start, ever_start,
          pos_count, point, value, colour, ever, status)
    if status.any():
        g = int(np.flatnonzero(status)[0])
        raise ValueError(f"game {g}: move {int(status[g])} is illegal on replay")
    used = np.add.reduceat(pos_count, first_pos[:-1], dtype=np.int64) if len(sizes) else np.zeros(0, np.int64)
    event_start = np.concatenate([[0], np.cumsum(used)]).astype(np.int64)
    out_point = np.empty(int(event_start[-1]), dtype=np.int16)
    out_value = np.empty(int(event_start[-1]), dtype=np.int8)
    _compact(ev_start, used, point, value, out_point, out_value)
    return Events(size=sizes.astype(np.int8), first_pos=first_pos, event_start=event_start, count=pos_count,
                  point=out_point, value=out_value, colour=colour, ever_start=ever_start, ever=ever)
