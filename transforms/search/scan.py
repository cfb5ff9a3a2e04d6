"""The search kernel: replay each candidate game's events and keep, per placement, its unmet cells.

A placement's count of unmet cells changes only when one of its cells changes, so each event
updates the placements listed for its point and the codes whose answer it flips
(docs/search.md#how-it-is-fast). A game is replayed only when some placement's stones all lie on
points that ever held a stone of their colour in that game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from gopat.transforms.kernels import kernel
from gopat.transforms.search.diagram import ALLOWED
from gopat.transforms.search.placements import Placements
from gopat.transforms.search.replay import Events

BLACK, WHITE = 1, 2


@dataclass(frozen=True, slots=True)
class Hits:
    """Per searched game: the hit position (-1: none), its placement, and the continuation's position (-1: none)."""

    position: np.ndarray
    placement: np.ndarray
    continuation: np.ndarray


@kernel(cache=True)
def _may_match(ever: np.ndarray, base: int, stone_start: np.ndarray, stones: np.ndarray) -> bool:
    """Whether some placement has every stone on a point that ever held that colour (bit 1 black, 2 white)."""
    for p in range(stone_start.shape[0] - 1):
        good = True
        for j in range(stone_start[p], stone_start[p + 1]):
            if ever[base + stones[j, 0]] & stones[j, 1] == 0:
                good = False
                break
        if good:
            return True
    return False


@kernel(cache=True)
def _to_move(colour: np.ndarray, first: int, k: int, n_pos: int, all_black_setup: bool) -> int:
    """The colour to move at position k: the next move's, else the opposite of the last, else by the setup."""
    if k + 1 < n_pos:
        return int(colour[first + k + 1])
    if k > 0:
        return 3 - int(colour[first + k])
    return WHITE if all_black_setup else BLACK


@kernel(cache=True)
def _first_zero(counts: np.ndarray, swapped: np.ndarray, eligible: np.ndarray) -> int:
    for p in range(counts.shape[0]):
        if counts[p] == 0 and eligible[swapped[p]]:
            return p
    return -1


@kernel(cache=True)
def _scan_game(g: int, size: int, ev: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
               plc: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
               allowed: np.ndarray, to_move: int) -> tuple[int, int]:
    """(hit position, placement) of game g, or (-1, -1)."""
    first_pos, bounds, point, value, colour = ev
    unmet, start, by_point, swapped, _ = plc
    counts = unmet.copy()
    zeros = np.zeros(2, dtype=np.int64)
    for p in range(counts.shape[0]):
        if counts[p] == 0:
            zeros[swapped[p]] += 1
    board = np.zeros(size * size, dtype=np.int8)
    eligible = np.ones(2, dtype=np.bool_)
    first = first_pos[g]
    n_pos = first_pos[g + 1] - first
    all_black_setup = bounds[first + 1] > bounds[first]
    for k in range(n_pos):
        for e in range(bounds[first + k], bounds[first + k + 1]):
            q = point[e]
            b = value[e]
            if k == 0 and b != BLACK:
                all_black_setup = False
            a = board[q]
            if a == b:
                continue
            board[q] = b
            for t in range(allowed.shape[0]):
                d = allowed[t, a] - allowed[t, b]
                if d == 0:
                    continue
                for j in range(start[q * allowed.shape[0] + t], start[q * allowed.shape[0] + t + 1]):
                    p = by_point[j]
                    old = counts[p]
                    counts[p] = old + d
                    if old == 0:
                        zeros[swapped[p]] -= 1
                    elif old + d == 0:
                        zeros[swapped[p]] += 1
        if zeros[0] + zeros[1] == 0:
            continue
        if to_move != 0:
            mover = _to_move(colour, first, k, n_pos, all_black_setup)
            eligible[0] = mover == to_move
            eligible[1] = mover == 3 - to_move
            if not ((zeros[0] > 0 and eligible[0]) or (zeros[1] > 0 and eligible[1])):
                continue
        return k, _first_zero(counts, swapped, eligible)
    return -1, -1


@kernel(cache=True)
def _continuation(g: int, size: int, k: int, box: np.ndarray, first_pos: np.ndarray, bounds: np.ndarray,
                  point: np.ndarray, colour: np.ndarray) -> int:
    """The first position after k whose move (not a pass) lies inside `box` (row0, col0, row1, col1), or -1."""
    first = first_pos[g]
    for j in range(k + 1, first_pos[g + 1] - first):
        i = first + j
        if colour[i] != 0 and bounds[i + 1] > bounds[i]:
            r, c = divmod(point[bounds[i]], size)
            if box[0] <= r <= box[2] and box[1] <= c <= box[3]:
                return j
    return -1


@kernel(cache=True, parallel=True)
def _scan(games: np.ndarray, size: int, ev: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
          ever_start: np.ndarray, ever: np.ndarray,
          plc: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
          stone_start: np.ndarray, stones: np.ndarray, allowed: np.ndarray, to_move: int,
          out: np.ndarray) -> None:
    first_pos, bounds, point, _, colour = ev
    box = plc[4]
    for i in numba.prange(games.shape[0]):
        g = games[i]
        out[i, 0] = -1
        out[i, 1] = -1
        out[i, 2] = -1
        if not _may_match(ever, ever_start[g], stone_start, stones):
            continue
        k, p = _scan_game(g, size, ev, plc, allowed, to_move)
        if k >= 0:
            out[i, 0] = k
            out[i, 1] = p
            out[i, 2] = _continuation(g, size, k, box[p], first_pos, bounds, point, colour)


def scan(events: Events, games: np.ndarray, placements: Placements, *, to_move: int) -> Hits:
    """Search `games` (indices into `events`, all of the placements' board size); to_move 0 (any), 1 or 2."""
    ev = (events.first_pos, events.bounds, events.point, events.value, events.colour)
    plc = (placements.unmet, placements.start, placements.by_point, placements.swapped, placements.box)
    out = np.empty((len(games), 3), dtype=np.int64)
    if len(placements):
        _scan(np.ascontiguousarray(games, dtype=np.int64), placements.size, ev, events.ever_start, events.ever,
              plc, placements.stone_start, placements.stones, ALLOWED, to_move, out)
    else:
        out[:] = -1
    return Hits(position=out[:, 0], placement=out[:, 1], continuation=out[:, 2])
