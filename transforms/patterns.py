"""Pattern family registry and extraction of raw pattern counts from replayed games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from numba import njit

from gopat.transforms.board import (
    BLACK,
    EMPTY,
    OFF_BOARD,
    OK,
    REASONS,
    WHITE,
    as_stones,
    check_size,
    flood_chain,
    new_board,
    place_setup,
    play_move,
)
from gopat.transforms.symmetry import BLOCK4_POINTS, DIAMOND13_POINTS, Group, KeyLayout, square_group, square_points

ANCHORS = ("last_move", "candidate", "block")
LIBERTY_ANCHORS = ("last_move", "candidate")
RAW_SCHEMA = {"family": pl.String, "key": pl.Int64, "occurrence": pl.Int64, "chosen": pl.Int64, "result": pl.Int64}

_SCAN, _LAST_MOVE = 0, 1
_MIN_CAPACITY, _MAX_INITIAL_CAPACITY = 1 << 16, 1 << 22
_MAX_LOAD, _HARD_LOAD = 0.6, 0.85  # grow between games above _MAX_LOAD, inside a game above _HARD_LOAD
_MIX1, _MIX2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53  # murmur3 fmix64
# hash table columns: key, family + 1 (0 = free slot), then per colour to move occurrence, chosen, result
_KEY, _FAM, _OCC, _CHOSEN, _RESULT, _COLUMNS = 0, 1, 2, 4, 6, 8
# anchor state columns: key, empty candidate cells (-1 = not an anchor), segment starts per colour
_EMPTIES, _START_B, _START_W = 1, 2, 3


@dataclass(frozen=True, slots=True)
class Geometry:
    """Integer cell offsets of a family's layout points and the points that are candidates.

    The candidates of ``candidate`` and ``block`` families are the points within less than one
    cell of the centroid (the centre point, or the centre 2x2 of a block) and the anchor is the
    top-left one of them; for ``last_move`` families the anchor is the last move (the layout's
    centre) and the candidates are all other points.
    """

    offsets: np.ndarray  # (n_points, 2) int64 row, col offsets from the anchor
    candidates: np.ndarray  # indices into the layout points


def _geometry(layout: KeyLayout, anchor: str) -> Geometry:
    points = np.array(layout.points, dtype=np.float64)
    centroid = points.mean(axis=0)
    near = np.flatnonzero((np.abs(points - centroid) < 1).all(axis=1))
    origin = points[near].min(axis=0)
    offsets = points - origin
    if not np.array_equal(offsets, np.round(offsets)):
        raise ValueError(f"{anchor} layout points must lie on the board grid around their anchor")
    if anchor in ("last_move", "candidate"):
        if len(near) != 1 or not np.array_equal(points[near[0]], centroid):
            raise ValueError(f"a {anchor} layout needs a point at its centroid")
    elif len(near) != 4:
        raise ValueError("a block layout needs an even square with a centre 2x2")
    if anchor == "last_move":
        candidates = np.setdiff1d(np.arange(len(points)), near)
    else:
        candidates = near
    return Geometry(offsets=offsets.astype(np.int64), candidates=candidates.astype(np.int64))


@dataclass(frozen=True)
class Family:
    """One pattern family: its key layout, what anchors it, and a description for the catalog.

    ``anchor`` is ``'last_move'`` (keys around the previous move, one per empty candidate point of
    the layout with the mover's stone placed there, like d12), ``'candidate'`` (one key per empty
    point, centred on it) or ``'block'`` (the blocks whose centre 2x2 holds an empty point). A
    liberty plane is supported for ``last_move`` and ``candidate`` families: for a candidate family
    each cell's liberty digit is the number of liberties of the chain holding the stone on that
    cell, capped at 3, in the position before the move (0 for an empty or off-board cell).
    """

    name: str
    layout: KeyLayout
    anchor: str
    description: str
    geometry: Geometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.anchor not in ANCHORS:
            raise ValueError(f"unknown anchor {self.anchor!r}; known: {ANCHORS}")
        if "liberty" in self.layout.planes and self.anchor not in LIBERTY_ANCHORS:
            raise ValueError(f"a liberty plane needs one of the anchors {LIBERTY_ANCHORS}")
        object.__setattr__(self, "geometry", _geometry(self.layout, self.anchor))

    def group(self, symmetries: int) -> Group:
        """The family's symmetry group: 8 = the square's symmetries, 16 = with colour swap."""
        if symmetries not in (8, 16):
            raise ValueError(f"symmetries must be 8 or 16, got {symmetries!r}")
        return square_group(self.layout, colour_swap=symmetries == 16)


def gridcular_points(distance: int) -> tuple[tuple[float, float], ...]:
    """Points ``(row, col)`` with ``|row| + |col| + max(|row|, |col|) <= distance``, row by row.

    The nested "diamonds" of Stern, Herbrich & Graepel 2006 and Pachi's spatial dictionaries:
    5, 9, 13, 21 and 29 points for distances 2 to 6 (3 is the 3x3 square, 4 the 13-point diamond).
    """
    if isinstance(distance, bool) or not isinstance(distance, int) or distance < 0:
        raise ValueError(f"distance must be a non-negative int, got {distance!r}")
    reach = distance // 2
    return tuple((float(r), float(c)) for r in range(-reach, reach + 1) for c in range(-reach, reach + 1)
                 if abs(r) + abs(c) + max(abs(r), abs(c)) <= distance)


def _registry(*families: Family) -> dict[str, Family]:
    return {family.name: family for family in families}


FAMILIES: dict[str, Family] = _registry(
    Family("d12", KeyLayout(DIAMOND13_POINTS, ("stone", "liberty")), "last_move",
           "seed 000: 13-point diamond around the last move with liberties, the mover's stone on each empty point"),
    Family("sq3", KeyLayout(square_points(3)), "candidate", "3x3 square centred on each empty point"),
    Family("sq5", KeyLayout(square_points(5)), "candidate", "5x5 square centred on each empty point"),
    Family("dia13", KeyLayout(DIAMOND13_POINTS), "candidate", "13-point diamond (radius 2) centred on each empty point"),
    Family("blk4", KeyLayout(BLOCK4_POINTS), "block",
           "seed 002: 4x4 blocks whose centre 2x2 holds the empty point, 32-bit quadrant code"),
    Family("lib5", KeyLayout(gridcular_points(2), ("stone", "liberty")), "candidate",
           "prediction: the empty point and its 4 neighbours, with chain liberties (1, 2, >=3)"),
    Family("lib9", KeyLayout(gridcular_points(3), ("stone", "liberty")), "candidate",
           "prediction: 3x3 square centred on each empty point, with chain liberties (1, 2, >=3)"),
    Family("lib13", KeyLayout(gridcular_points(4), ("stone", "liberty")), "candidate",
           "prediction: 13-point diamond centred on each empty point, with chain liberties (1, 2, >=3)"),
    Family("dia21", KeyLayout(gridcular_points(5)), "candidate",
           "prediction: 21-point diamond (gridcular distance 5) centred on each empty point"),
    Family("dia29", KeyLayout(gridcular_points(6)), "candidate",
           "prediction: 29-point diamond (gridcular distance 6) centred on each empty point"),
)  # fmt: skip
DEFAULT_FAMILIES: tuple[str, ...] = ("d12", "sq3", "sq5", "dia13", "blk4")
# Move prediction (transforms/predict.py) reads d12 and the levels its weights file names (shipped: all five).
PREDICTION_FAMILIES: tuple[str, ...] = ("lib5", "lib9", "lib13", "dia21", "dia29")


@dataclass(frozen=True, slots=True)
class GameMoves:
    """A replayed game: board size, setup stones ``(colour, row, col)`` and the legal main line.

    ``moves`` is the legal prefix only, ``(colour, row, col)`` with passes as ``(colour, -1, -1)``.
    """

    board_size: int
    setup: np.ndarray
    moves: np.ndarray


@njit(cache=True)
def _home(table, tag, key):
    """First slot probed for ``(tag, key)``: murmur3's 64-bit finaliser of the key and family tag."""
    h = np.uint64(key) ^ (np.uint64(tag) << np.uint64(58))
    h = (h ^ (h >> np.uint64(33))) * np.uint64(_MIX1)
    h = (h ^ (h >> np.uint64(33))) * np.uint64(_MIX2)
    return np.int64((h ^ (h >> np.uint64(33))) & np.uint64(table.shape[0] - 1))


@njit(cache=True)
def _claim(table, i, tag, key):
    """Slot of ``(tag, key)`` probing linearly from ``i``, and 1 if it was newly claimed."""
    mask = table.shape[0] - 1
    while table[i, _FAM] != 0 and (table[i, _KEY] != key or table[i, _FAM] != tag):
        i = (i + 1) & mask
    if table[i, _FAM] != 0:
        return i, 0
    table[i, _KEY] = key
    table[i, _FAM] = tag
    return i, 1


@njit(cache=True)
def _rehash(table, grown):
    """Move every used slot of ``table`` into the empty larger table ``grown``."""
    for i in range(table.shape[0]):
        tag = table[i, _FAM]
        if tag != 0:
            j, _ = _claim(grown, _home(grown, tag, table[i, _KEY]), tag, table[i, _KEY])
            grown[j] = table[i]


@njit(cache=True)
def _commit(table, rows, n, probes):
    """Add the batch ``rows[:n]`` into the table; returns the number of new keys.

    A row is (key, tag, a, b): with tag > 0 it adds occurrences a (black to move) and b (white to
    move); with tag < 0 (the tag negated) it adds one chosen event for colour index a (0 black, 1
    white) and ORs the result mask b. The first probe of every row is loaded into ``probes``
    before any row is added, so that the cache misses of the batch overlap.
    """
    for k in range(n):
        i = _home(table, abs(rows[k, 1]), rows[k, 0])
        probes[k, 0] = i
        probes[k, 1] = table[i, _FAM]
    new_keys = 0
    for k in range(n):
        tag = rows[k, 1]
        i, new = _claim(table, probes[k, 0], abs(tag), rows[k, 0])
        new_keys += new
        if tag > 0:
            table[i, _OCC] += rows[k, 2]
            table[i, _OCC + 1] += rows[k, 3]
        else:
            table[i, _CHOSEN + rows[k, 2]] += 1
            table[i, _RESULT + rows[k, 2]] |= rows[k, 3]
    return new_keys


@njit(cache=True)
def _add_row(rows, n, tag, key, a, b):
    """Write batch row ``n`` (see :func:`_commit`); returns ``n + 1``."""
    rows[n, 0] = key
    rows[n, 1] = tag
    rows[n, 2] = a
    rows[n, 3] = b
    return n + 1


@njit(cache=True)
def _flush(rows, n, anchors, f, a, count_b, count_w):
    """Close anchor ``a``'s key segment (a batch row of its weighted occurrences) and restart it."""
    empties = anchors[f, a, _EMPTIES]
    if empties > 0:
        wb = (count_b - anchors[f, a, _START_B]) * empties
        ww = (count_w - anchors[f, a, _START_W]) * empties
        if wb > 0 or ww > 0:
            n = _add_row(rows, n, f + 1, anchors[f, a, _KEY], wb, ww)
    anchors[f, a, _START_B] = count_b
    anchors[f, a, _START_W] = count_w
    return n


@njit(cache=True)
def last_move_keys(rows, n, f, board, width, last, played, colour, offsets, candidates, has_liberty,
                    label, mark, counter, stack):
    """Batch rows of a last_move family around ``last``: occurrences and the chosen event.

    Rows (see :func:`_commit`) are ``(key without the colour digit, f + 1, black to move, white to
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
            if (v == BLACK or v == WHITE) and label[cell, 0] != stamp:
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
        n = _add_row(rows, n, f + 1, key, int(colour == BLACK), int(colour == WHITE))
        if s == played:
            n = _add_row(rows, n, -(f + 1), key, colour - 1, 0)
            chosen += 1
    return n, chosen


@njit(cache=True)
def fill_liberties(board, width, libs, seen, counter, mark, stack):
    """Set ``libs[cell]`` to the liberties of the chain on every cell, capped at 3 (0 where no stone).

    ``board`` is a flat padded board; ``libs`` (int8), ``seen`` and ``mark`` (int64) have its length;
    ``counter`` is an int64 array of 3 stamps: [0] for :func:`flood_chain`, [2] for ``seen``.
    """
    counter[2] += 1
    stamp = counter[2]
    libs[:] = 0
    for cell in range(board.shape[0]):
        v = board[cell]
        if (v == BLACK or v == WHITE) and seen[cell] != stamp:
            size, count = flood_chain(board, width, cell, mark, counter, stack, 0)
            for k in range(size):
                seen[stack[k]] = stamp
                libs[stack[k]] = min(count, 3)


@njit(cache=True)
def refresh_liberties(board, width, p, captured, n_captured, libs, changed, old, seen, counter, mark, stack):
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
            if (v == BLACK or v == WHITE) and seen[q] != stamp:
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


@njit(cache=True)
def _grown(table, needed):
    """A larger table (a power of two holding ``needed`` keys below the maximum load) with ``table``'s keys."""
    capacity = table.shape[0] * 2
    while needed > _MAX_LOAD * capacity:
        capacity *= 2
    grown = np.zeros((capacity, _COLUMNS), dtype=np.int64)
    _rehash(table, grown)
    return grown


@njit(cache=True)
def _extract(table, n_keys, first, chosen_events, sizes, setup_start, setups, move_start, moves, pad, kinds,
             n_points, has_liberty, want_result, off_start, off_rc, cand_start, cands):
    """Replay games from ``first`` on and add their raw pattern counts to the hash table.

    Scan families (candidate, block) keep each anchor's colourless key up to date as stones and
    (with a liberty plane) chain liberties change; a key's occurrences are added when it ends,
    weighted by the counted positions (per colour to move) it lasted times the anchor's empty
    candidate cells. Each move's additions are batched, then committed. Stops before a game that
    might overload the table; liberty changes, which are not bounded per game, grow the table in
    place above the hard load. Returns (table, next game, keys in the table, keys the next game
    may add, bad game or -1, its bad move, status).
    """
    n_fam = kinds.shape[0]
    total_points = 0
    lib_points = 0
    cand_total = 0
    for f in range(n_fam):
        total_points += n_points[f]
        if kinds[f] == _SCAN and has_liberty[f]:
            lib_points += n_points[f]
        cand_total += cand_start[f + 1] - cand_start[f]
    is_cand = np.zeros(off_rc.shape[0], dtype=np.bool_)
    weight = np.empty(off_rc.shape[0], dtype=np.int64)  # place value of each point's stone digit
    lib_weight = np.zeros(off_rc.shape[0], dtype=np.int64)  # and of its liberty digit (scan families)
    for f in range(n_fam):
        lo, hi = off_start[f], off_start[f + 1]
        planes = 2 if has_liberty[f] else 1
        for j in range(lo, hi):
            weight[j] = np.int64(1) << (2 * (planes * (hi - lo) - 1 - (j - lo)))
            if has_liberty[f] and kinds[f] == _SCAN:
                lib_weight[j] = np.int64(1) << (2 * (hi - 1 - j))
    for f in range(n_fam):
        for k in range(cand_start[f], cand_start[f + 1]):
            is_cand[off_start[f] + cands[k]] = True
    max_cells = 0
    for g in range(first, sizes.shape[0]):
        max_cells = max(max_cells, (sizes[g] + 2 * pad) ** 2)
    # one move: chosen and last_move rows (<= 2 per candidate), then every placed or captured stone
    # and every stone whose liberty digit changed re-keys <= total_points anchors; or the flush of
    # all anchors at the end of a game
    n_rows = (max_cells + 1) * total_points + max_cells * lib_points + 2 * cand_total + n_fam * max_cells
    rows = np.empty((n_rows, 4), dtype=np.int64)
    probes = np.empty((rows.shape[0], 2), dtype=np.int64)
    for g in range(first, sizes.shape[0]):
        size = sizes[g]
        width = size + 2 * pad
        n_cells = width * width
        n_moves = move_start[g + 1] - move_start[g]
        n_stones = setup_start[g + 1] - setup_start[g] + n_moves
        extra = (n_stones + n_moves) * total_points + n_moves * cand_total + n_fam * n_cells
        if n_keys + extra > _MAX_LOAD * table.shape[0]:
            return table, g, n_keys, extra, -1, 0, OK
        board = new_board(size, pad)
        place_setup(board, size, pad, setups[setup_start[g]:setup_start[g + 1]])
        mark = np.zeros(n_cells, dtype=np.int64)
        counter = np.zeros(3, dtype=np.int64)
        stack = np.empty(n_cells, dtype=np.int64)
        captured = np.empty(n_cells, dtype=np.int64)
        label = np.zeros((n_cells, 3), dtype=np.int64)
        libs = np.zeros(n_cells, dtype=np.int8)
        seen = np.zeros(n_cells, dtype=np.int64)
        changed = np.empty(n_cells, dtype=np.int64)
        old_libs = np.empty(n_cells, dtype=np.int64)
        if lib_points > 0:
            fill_liberties(board, width, libs, seen, counter, mark, stack)
        flat = np.empty(off_rc.shape[0], dtype=np.int64)
        for j in range(off_rc.shape[0]):
            flat[j] = off_rc[j, 0] * width + off_rc[j, 1]
        anchors = np.zeros((n_fam, n_cells, 4), dtype=np.int64)
        anchors[:, :, _EMPTIES] = -1
        for f in range(n_fam):
            lo, hi = off_start[f], off_start[f + 1]
            for a in range(n_cells):
                r, c = a // width - pad, a % width - pad
                if kinds[f] == _LAST_MOVE:
                    inside = r >= 0 and c >= 0 and r < size and c < size
                    for j in range(lo, hi):
                        rr, cc = r + off_rc[j, 0], c + off_rc[j, 1]
                        inside = inside and rr >= 0 and cc >= 0 and rr < size and cc < size
                    anchors[f, a, _EMPTIES] = 0 if inside else -1
                    continue
                for k in range(cand_start[f], cand_start[f + 1]):
                    rr, cc = r + off_rc[lo + cands[k], 0], c + off_rc[lo + cands[k], 1]
                    if rr >= 0 and cc >= 0 and rr < size and cc < size:
                        anchors[f, a, _EMPTIES] = 0
                if anchors[f, a, _EMPTIES] == 0:
                    key = np.int64(0)
                    for j in range(lo, hi):
                        v = board[a + flat[j]]
                        key += v * weight[j] + libs[a + flat[j]] * lib_weight[j]
                        if is_cand[j] and v == EMPTY:
                            anchors[f, a, _EMPTIES] += 1
                    anchors[f, a, _KEY] = key
        ko = np.array([-1, 0], dtype=np.int64)
        count_b = 0
        count_w = 0
        last = -1
        for t in range(move_start[g], move_start[g + 1]):
            colour, row, col = moves[t, 0], moves[t, 1], moves[t, 2]
            if row == -1 and col == -1:
                ko[0] = -1
                last = -1
                continue
            if row < 0 or col < 0 or row >= size or col >= size:
                return table, g, n_keys, 0, g, t - move_start[g], OFF_BOARD
            p = (row + pad) * width + col + pad
            n = 0
            for f in range(n_fam):
                lo, hi = off_start[f], off_start[f + 1]
                if kinds[f] == _SCAN:
                    for k in range(cand_start[f], cand_start[f + 1]):
                        mask = colour << (2 * (n_points[f] - 1 - cands[k])) if want_result[f] else 0
                        n = _add_row(rows, n, -(f + 1), anchors[f, p - flat[lo + cands[k]], _KEY], colour - 1, mask)
                        chosen_events[f] += 1
                elif last >= 0 and anchors[f, last, _EMPTIES] >= 0:
                    n, chosen = last_move_keys(rows, n, f, board, width, last, p, colour, flat[lo:hi],
                                                cands[cand_start[f]:cand_start[f + 1]], has_liberty[f],
                                                label, mark, counter, stack)
                    chosen_events[f] += chosen
            if colour == BLACK:
                count_b += 1
            else:
                count_w += 1
            status, n_captured = play_move(board, size, pad, colour, row, col, ko, mark, counter, stack, captured)
            if status != OK:
                return table, g, n_keys, 0, g, t - move_start[g], status
            for x in range(-1, n_captured):
                cell = p if x < 0 else captured[x]
                new_value = np.int64(board[cell])
                old_value = np.int64(3 - colour if x >= 0 else EMPTY)
                for f in range(n_fam):
                    if kinds[f] != _SCAN:
                        continue
                    lo, hi = off_start[f], off_start[f + 1]
                    for j in range(lo, hi):
                        a = cell - flat[j]
                        if anchors[f, a, _EMPTIES] < 0:
                            continue
                        n = _flush(rows, n, anchors, f, a, count_b, count_w)
                        anchors[f, a, _KEY] += (new_value - old_value) * weight[j]
                        if is_cand[j]:
                            anchors[f, a, _EMPTIES] += (new_value == EMPTY) - (old_value == EMPTY)
            if lib_points > 0:
                n_changed = refresh_liberties(board, width, p, captured, n_captured, libs, changed, old_libs,
                                              seen, counter, mark, stack)
                for i in range(n_changed):
                    cell = changed[i]
                    delta = np.int64(libs[cell]) - old_libs[i]
                    for f in range(n_fam):
                        if kinds[f] != _SCAN or not has_liberty[f]:
                            continue
                        for j in range(off_start[f], off_start[f + 1]):
                            a = cell - flat[j]
                            if anchors[f, a, _EMPTIES] < 0:
                                continue
                            n = _flush(rows, n, anchors, f, a, count_b, count_w)
                            anchors[f, a, _KEY] += delta * lib_weight[j]
            if n_keys + n > _HARD_LOAD * table.shape[0]:
                table = _grown(table, n_keys + n)
            n_keys += _commit(table, rows, n, probes)
            last = p
        n = 0
        for f in range(n_fam):
            if kinds[f] == _SCAN:
                for a in range(n_cells):
                    if anchors[f, a, _EMPTIES] >= 0:
                        n = _flush(rows, n, anchors, f, a, count_b, count_w)
        if n_keys + n > _HARD_LOAD * table.shape[0]:
            table = _grown(table, n_keys + n)
        n_keys += _commit(table, rows, n, probes)
    return table, sizes.shape[0], n_keys, 0, -1, 0, OK


@njit(cache=True)
def _rows(table, n_keys, n_digits):
    """Output columns from the table: one row per family, key and colour to move seen."""
    fam = np.empty(2 * n_keys, dtype=np.uint32)
    key = np.empty(2 * n_keys, dtype=np.int64)
    occurrence = np.empty(2 * n_keys, dtype=np.int64)
    chosen = np.empty(2 * n_keys, dtype=np.int64)
    result = np.empty(2 * n_keys, dtype=np.int64)
    r = 0
    for i in range(table.shape[0]):
        tag = table[i, _FAM]
        if tag != 0:
            for c in range(2):
                if table[i, _OCC + c] > 0 or table[i, _CHOSEN + c] > 0:
                    fam[r] = tag - 1
                    key[r] = ((c + 1) << (2 * (n_digits[tag - 1] - 1))) | table[i, _KEY]
                    occurrence[r] = table[i, _OCC + c]
                    chosen[r] = table[i, _CHOSEN + c]
                    result[r] = table[i, _RESULT + c]
                    r += 1
    return fam[:r], key[:r], occurrence[:r], chosen[:r], result[:r]


def _config(names: Sequence[str]) -> tuple:
    """Kernel arrays describing the requested families (offsets, candidates, planes, border width)."""
    unknown = [name for name in names if name not in FAMILIES]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(f"families must be distinct names from {sorted(FAMILIES)}, got {list(names)}")
    families = [FAMILIES[name] for name in names]
    geometries = [family.geometry for family in families]
    # the border holds every anchor of a candidate on the board and every cell of such an anchor
    # (a last_move family is only read around moves whose whole layout is on the board)
    pad = 1
    for family, geo in zip(families, geometries):
        if family.anchor != "last_move":
            reach = np.abs(geo.offsets[:, None, :] - geo.offsets[None, geo.candidates, :]).max()
            pad = max(pad, int(reach), int(np.abs(geo.offsets).max()))
    return (
        pad,
        np.array([_LAST_MOVE if f.anchor == "last_move" else _SCAN for f in families], dtype=np.int64),
        np.array([len(f.layout.points) for f in families], dtype=np.int64),
        np.array(["liberty" in f.layout.planes for f in families], dtype=np.bool_),
        np.array([f.anchor == "block" for f in families], dtype=np.bool_),
        np.cumsum([0] + [len(geo.offsets) for geo in geometries]).astype(np.int64),
        np.concatenate([geo.offsets for geo in geometries]).astype(np.int64),
        np.cumsum([0] + [len(geo.candidates) for geo in geometries]).astype(np.int64),
        np.concatenate([geo.candidates for geo in geometries]).astype(np.int64),
    )


def pack_games(games: Sequence[GameMoves]) -> tuple[np.ndarray, ...]:
    """The games' setups and moves as kernel arrays: (sizes, setup starts, setups, move starts, moves).

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
    return sizes, setup_start, setup_all, move_start, moves_all


def _initial_capacity(expected_keys: int) -> int:
    """Power of two holding ``expected_keys`` below the maximum load, within the initial bounds."""
    capacity = _MIN_CAPACITY
    while expected_keys > _MAX_LOAD * capacity and capacity < _MAX_INITIAL_CAPACITY:
        capacity *= 2
    return capacity


def _new_table(capacity: int) -> np.ndarray:
    # allocated by numpy, not inside numba, so that large tables get transparent huge pages
    return np.zeros((capacity, _COLUMNS), dtype=np.int64)


def extract_patterns(
    games: Sequence[GameMoves], *, families: Sequence[str] = DEFAULT_FAMILIES
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Raw (not canonical) pattern counts of a shard of games, one row per (family, key).

    Columns: family, key (the family's base-4 key with the colour to move as first digit),
    occurrence, chosen and result (blk4: OR of the who-played-where masks of its chosen events in
    the key's 2-bit layout, 01 black, 10 white, 11 both; 0 for other families). Row order is
    deterministic but unspecified. The dict gives per family the number of chosen events emitted,
    equal to the family's sum of chosen. Raises ValueError for an illegal move. Memory: a hash
    table of 64 bytes a slot, 110-210 bytes per distinct key (about 1 GB for 2,000 games).
    """
    names = tuple(families)
    pad, *config = _config(names)
    packed = pack_games(games)
    chosen_events = np.zeros(len(names), dtype=np.int64)
    n_moves, n_points = len(packed[4]), sum(len(FAMILIES[name].layout.points) for name in names)
    table = _new_table(_initial_capacity(n_moves * n_points // 3))
    game, n_keys = 0, 0
    while True:
        table, game, n_keys, extra, bad_game, bad_move, status = _extract(
            table, n_keys, game, chosen_events, *packed, pad, *config
        )
        if bad_game >= 0:
            raise ValueError(f"game {bad_game}: move {bad_move + 1} is illegal ({REASONS[status]})")
        if game == len(games):
            break
        capacity = table.shape[0]
        while n_keys + extra > _MAX_LOAD * capacity:
            capacity *= 2
        grown = _new_table(capacity)
        _rehash(table, grown)
        table = grown
    n_digits = np.array([FAMILIES[name].layout.n_digits for name in names], dtype=np.int64)
    fam, key, occurrence, chosen, result = _rows(table, n_keys, n_digits)
    frame = pl.DataFrame(
        {
            "family": pl.Series(names, dtype=pl.String).gather(fam),
            "key": key,
            "occurrence": occurrence,
            "chosen": chosen,
            "result": result,
        },
        schema=RAW_SCHEMA,
    )
    return frame, {name: int(chosen_events[i]) for i, name in enumerate(names)}


def stones(family: str, keys: np.ndarray) -> np.ndarray:
    """Number of occupied cells (black or white) in the stone plane of each key (int64 array)."""
    layout = FAMILIES[family].layout
    values = np.asarray(keys, dtype=np.int64)
    return _stones(np.ascontiguousarray(values).ravel(), len(layout.points), layout.n_digits).reshape(values.shape)


@njit(cache=True, nogil=True)
def _stones(keys: np.ndarray, n_cells: int, n_digits: int) -> np.ndarray:
    count = np.zeros(keys.size, dtype=np.int64)
    for row in range(keys.size):
        for cell in range(n_cells):
            digit = (keys[row] >> (2 * (n_digits - 2 - cell))) & 3
            count[row] += (digit == 1) | (digit == 2)
    return count


def diagram(family: str, key: int) -> str:
    """Printable diagram of one key; see :func:`diagrams`."""
    return str(diagrams(family, np.array([key], dtype=np.int64))[0])


def diagrams(family: str, keys: np.ndarray) -> np.ndarray:
    """Printable diagrams of many keys: the colour to move, then rows of ``.XO#`` (``#`` off the board).

    A liberty plane (d12) is drawn beside the stones, like seed 000. Drawn (vectorised) by
    :func:`transforms.render.pattern_texts`, the one module that renders diagrams.
    """
    from gopat.transforms.render import pattern_texts  # render builds on this module's FAMILIES

    return pattern_texts(family, np.asarray(keys, dtype=np.int64))
