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
Arrays = tuple[np.ndarray, ...]  # the kernels take the fields of Events and Placements as tuples of arrays


@dataclass(frozen=True, slots=True)
class Hits:
    """Per searched game: the hit position (-1: none), its placement, and the continuation's position (-1: none),
    board point and colour."""

    position: np.ndarray
    placement: np.ndarray
    continuation: np.ndarray
    point: np.ndarray
    colour: np.ndarray


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
def _scan_game(g: int, size: int, ev: Arrays, plc: Arrays, allowed: np.ndarray, to_move: int) -> tuple[int, int, int]:
    """(hit position k, placement, index of position k + 1's first event) of game g, or (-1, -1, -1)."""
    first_pos, event_start, count, point, value, colour = ev
    unmet, start, by_point, swapped, _ = plc
    codes = allowed.shape[0]
    counts = unmet.copy()
    zeros = np.zeros(2, dtype=np.int64)
    for p in range(counts.shape[0]):
        if counts[p] == 0:
            zeros[swapped[p]] += 1
    board = np.zeros(size * size, dtype=np.int8)
    eligible = np.ones(2, dtype=np.bool_)
    first = first_pos[g]
    n_pos = first_pos[g + 1] - first
    all_black_setup = count[first] > 0
    e = event_start[g]
    for k in range(n_pos):
        stop = e + count[first + k]
        for x in range(e, stop):
            q = point[x]
            b = value[x]
            if k == 0 and b != BLACK:
                all_black_setup = False
            if start[q * codes] == start[(q + 1) * codes]:
                continue  # no placement has a cell on q: its value never matters
            a = board[q]
            if a == b:
                continue
            board[q] = b
            for t in range(codes):
                d = allowed[t, a] - allowed[t, b]
                if d == 0:
                    continue
                for j in range(start[q * codes + t], start[q * codes + t + 1]):
                    p = by_point[j]
                    old = counts[p]
                    counts[p] = old + d
                    if old == 0:
                        zeros[swapped[p]] -= 1
                    elif old + d == 0:
                        zeros[swapped[p]] += 1
        e = stop
        if zeros[0] + zeros[1] == 0:
            continue
        if to_move != 0:
            mover = _to_move(colour, first, k, n_pos, all_black_setup)
            eligible[0] = mover == to_move
            eligible[1] = mover == 3 - to_move
            if not ((zeros[0] > 0 and eligible[0]) or (zeros[1] > 0 and eligible[1])):
                continue
        return k, _first_zero(counts, swapped, eligible), e
    return -1, -1, -1


@kernel(cache=True)
def _continuation(g: int, size: int, k: int, e: int, box: np.ndarray, first_pos: np.ndarray, count: np.ndarray,
                  point: np.ndarray, colour: np.ndarray) -> tuple[int, int, int]:
    """(position, point, colour) of the first move after position k (not a pass) inside `box` (row0, col0, row1,
    col1), or (-1, -1, -1); `e` is the index of position k + 1's first event."""
    first = first_pos[g]
    for j in range(k + 1, first_pos[g + 1] - first):
        i = first + j
        if colour[i] != 0 and count[i] > 0:
            r, c = divmod(point[e], size)
            if box[0] <= r <= box[2] and box[1] <= c <= box[3]:
                return j, point[e], colour[i]
        e += count[i]
    return -1, -1, -1


@kernel(cache=True, parallel=True)
def _scan(games: np.ndarray, size: int, ev: Arrays, ever_start: np.ndarray, ever: np.ndarray, plc: Arrays,
          stone_start: np.ndarray, stones: np.ndarray, allowed: np.ndarray, to_move: int,
          out: np.ndarray) -> None:
    first_pos, _, count, point, _, colour = ev
    box = plc[4]
    for i in numba.prange(games.shape[0]):
        g = games[i]
        out[i, :] = -1
        if not _may_match(ever, ever_start[g], stone_start, stones):
            continue
        k, p, e = _scan_game(g, size, ev, plc, allowed, to_move)
        if k >= 0:
            out[i, 0] = k
            out[i, 1] = p
            out[i, 2], out[i, 3], out[i, 4] = _continuation(g, size, k, e, box[p], first_pos, count, point, colour)


def scan(events: Events, games: np.ndarray, placements: Placements, *, to_move: int) -> Hits:
    """Search `games` (indices into `events`, all of the placements' board size); to_move 0 (any), 1 or 2."""
    ev = (events.first_pos, events.event_start, events.count, events.point, events.value, events.colour)
    plc = (placements.unmet, placements.start, placements.by_point, placements.swapped, placements.box)
    out = np.empty((len(games), 5), dtype=np.int64)
    if len(placements):
        _scan(np.ascontiguousarray(games, dtype=np.int64), placements.size, ev, events.ever_start, events.ever,
              plc, placements.stone_start, placements.stones, ALLOWED, to_move, out)
    else:
        out[:] = -1
    return Hits(position=out[:, 0], placement=out[:, 1], continuation=out[:, 2], point=out[:, 3], colour=out[:, 4])
