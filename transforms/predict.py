"""Move prediction from pattern statistics: nested patterns around every legal point rank the moves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numba import njit

from transforms.board import BLACK, EMPTY, OK, WHITE, new_board, place_setup, play_move
from transforms.patterns import FAMILIES, GameMoves, fill_liberties, last_move_keys, pack_games, refresh_liberties
from transforms.symmetry import d4_point_images

# The nested levels, largest first: diamonds of growing size around the candidate (Stern et al.
# 2006, Pachi), liberty counts on the cells up to 13 points (a key holds at most 31 base-4 digits).
# dia29 is used when a release has it: it helps in the opening but triples the build's pattern rows.
LEVELS: tuple[str, ...] = ("dia29", "dia21", "lib13", "lib9", "lib5")
OPTIONAL_LEVELS: tuple[str, ...] = ("dia29",)
RESPONSE = "d12"  # the seed's response pattern around the last move
REQUIRED_FAMILIES: tuple[str, ...] = (*(f for f in LEVELS if f not in OPTIONAL_LEVELS), RESPONSE)
PHASES: tuple[tuple[int, int | None], ...] = ((1, 30), (31, 100), (101, 200), (201, None))
TOP_K = (1, 5, 10)

_PHASE_STARTS = np.array([lo for lo, _ in PHASES], dtype=np.int64)
_TOP_K = np.array(TOP_K, dtype=np.int64)
_KEY, _OCC, _CHOSEN = 0, 1, 2  # stats table columns; the key holds the level's tag in bits 60-62
_TAG_SHIFT, _MAX_KEY_DIGITS = 60, 30
_MIX1, _MIX2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53  # murmur3 fmix64
_SWAP = np.array([0, 2, 1, 3], dtype=np.int64)  # colour swap of a stone digit


@njit(cache=True)
def _slot(table, packed):
    """Slot of a packed key (tag << 60 | key) in the open-addressing table, or the free slot where it goes."""
    h = np.uint64(packed)
    h = (h ^ (h >> np.uint64(33))) * np.uint64(_MIX1)
    h = (h ^ (h >> np.uint64(33))) * np.uint64(_MIX2)
    mask = table.shape[0] - 1
    i = np.int64((h ^ (h >> np.uint64(33))) & np.uint64(mask))
    while table[i, _KEY] != 0 and table[i, _KEY] != packed:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _fill_table(table, tags, keys, occurrence, chosen):
    for r in range(keys.shape[0]):
        packed = (tags[r] << _TAG_SHIFT) | keys[r]
        i = _slot(table, packed)
        table[i, _KEY] = packed
        table[i, _OCC] += occurrence[r]
        table[i, _CHOSEN] += chosen[r]


@njit(cache=True)
def _lookup(table, tag, key):
    i = _slot(table, (tag << _TAG_SHIFT) | key)
    return table[i, _OCC], table[i, _CHOSEN]


@njit(cache=True)
def _start_game(size, setup, pad, n_levels, lv_start, lv_rc, lv_w, lv_lw):
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


@njit(cache=True)
def _rekey(keys, dirty, lv_start, lv_w, lv_lw, lv_lib, flat, cell, old_stone, new_stone, lib_delta):
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


@njit(cache=True)
def _legal(board, libs, ko, width, s, colour):
    """True if ``colour`` may play on the empty point ``s`` (not suicide, not a ko recapture)."""
    if board[s] != EMPTY or (ko[0] == s and ko[1] == colour):
        return False
    for q in (s - width, s - 1, s + 1, s + width):
        v = board[q]
        if v == EMPTY or (v == colour and libs[q] >= 2) or (v == 3 - colour and libs[q] == 1):
            return True
    return False


@njit(cache=True)
def _canonical(key, n_digits, perms, maps):
    """Smallest image of a full key (colour digit first) under a group given as digit perms and value maps."""
    digits = np.empty(n_digits, dtype=np.int64)
    for i in range(n_digits):
        digits[i] = (key >> (2 * (n_digits - 1 - i))) & 3
    best = key
    for e in range(perms.shape[0]):
        image = np.int64(0)
        for i in range(n_digits):
            image = image * 4 + maps[e, i, digits[perms[e, i]]]
        best = min(best, image)
    return best


@njit(cache=True)
def _candidates(board, libs, ko, size, pad, colour, last, keys, dirty, cache, table, lv_top, lv_tag,
                d12_offsets, d12_cands, d12_perms, d12_maps, d12_tag, label, mark, counter, stack, rows,
                index_of, points, cand_keys, occ, chosen):
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
        if 2 <= lr and lr <= size - 3 and 2 <= lc and lc <= size - 3:
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


@njit(cache=True)
def _advance(board, libs, ko, size, pad, colour, row, col, keys, dirty, lv_start, lv_w, lv_lw, lv_lib, flat,
             seen, mark, counter, stack, captured, changed, old_libs):
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
    response: str | None
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


def levels(names: Sequence[str], *, response: str | None = "d12") -> Levels:
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
    if response is None:
        d12_offsets = np.zeros((0, 2), dtype=np.int64)
        d12_candidates = np.zeros(0, dtype=np.int64)
        perms, maps = np.zeros((0, 1), dtype=np.int64), np.zeros((0, 1, 4), dtype=np.int64)
    else:
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


def _stats_table(levels_: Levels, families: np.ndarray, keys: np.ndarray, occurrence: np.ndarray,
                chosen: np.ndarray) -> np.ndarray:
    """Hash table of canonical (16-symmetry) keys -> occurrence, chosen for the levels' families."""
    order = list(levels_.names) + ([levels_.response] if levels_.response else [])
    tags = np.zeros(len(families), dtype=np.int64)
    for i, name in enumerate(order):
        tags[np.asarray(families) == name] = i + 1
    keep = tags > 0
    capacity = 1 << max(4, int(3 * keep.sum() // 2).bit_length())
    table = np.zeros((capacity, 3), dtype=np.int64)
    _fill_table(table, tags[keep], np.asarray(keys, dtype=np.int64)[keep],
                np.asarray(occurrence, dtype=np.int64)[keep], np.asarray(chosen, dtype=np.int64)[keep])
    return table


@njit(cache=True)
def _scores(occ, chosen, n, n_levels, min_occurrence, shrink, response_min, response_shrink, base, scores, matched):
    """Score of each of the ``n`` candidates and the index of its largest matched level (-1: none).

    From the smallest level up, a level seen at least ``min_occurrence`` times replaces the score
    by its chosen rate shrunk towards the score so far (``shrink`` pseudo-occurrences): the largest
    such level decides, the smaller ones break its ties and temper it when it is rare. The
    response column (after the levels) lifts the score to its own shrunk rate when that is higher
    and it was seen at least ``response_min`` times.
    """
    for i in range(n):
        score = base
        matched[i] = -1
        for lv in range(n_levels - 1, -1, -1):
            if occ[i, lv] >= min_occurrence:
                score = (chosen[i, lv] + shrink * score) / (occ[i, lv] + shrink)
                matched[i] = lv
        o = occ[i, n_levels]
        if o >= response_min and o > 0:
            score = max(score, (chosen[i, n_levels] + response_shrink * score) / (o + response_shrink))
        scores[i] = score


@njit(cache=True)
def _phase(move_number):
    """Index of the PHASES range holding a move number."""
    phase = 0
    while phase + 1 < _PHASE_STARTS.shape[0] and move_number >= _PHASE_STARTS[phase + 1]:
        phase += 1
    return phase


@njit(cache=True)
def _buffers(size, n_cells, n_levels, n_d12):
    """A game's working arrays for the ranking kernels: level key caches, ko, d12 scratch, candidate rows."""
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
        np.empty(n_points, dtype=np.float64),  # scores
        np.empty(n_points, dtype=np.int64),  # matched
        np.empty(n_cells, dtype=np.int64),  # captured
        np.empty(n_cells, dtype=np.int64),  # changed
        np.empty(n_cells, dtype=np.int64),  # old_libs
    )


@njit(cache=True)
def _evaluate(sizes, setup_start, setups, move_start, moves, pad, lv_start, lv_rc, lv_w, lv_lw, lv_lib, lv_top,
              lv_tag, table, d12_offsets, d12_cands, d12_perms, d12_maps, d12_tag, min_occurrence, shrink,
              response_min, response_shrink, base, hits, positions, matched_counts, response_counts):
    """Rank every legal point before every board move of every game; add up where the played move ranked.

    ``hits[phase, k]`` counts positions whose move ranked within TOP_K[k]; ``positions[phase]``
    the positions; ``matched_counts[level]`` the positions whose move matched that level as its
    largest (last: none); ``response_counts[0]`` those whose move had a response pattern.
    Candidates rank by score, then by point index. Returns -1 or the index of a game with an
    illegal move.
    """
    n_levels = lv_start.shape[0] - 1
    for gi in range(sizes.shape[0]):
        size = sizes[gi]
        board, libs, seen, mark, counter, stack, flat, keys = _start_game(
            size, setups[setup_start[gi]:setup_start[gi + 1]], pad, n_levels, lv_start, lv_rc, lv_w, lv_lw)
        width = size + 2 * pad
        (dirty, cache, ko, label, rows, index_of, points, cand_keys, occ, chosen, scores, matched, captured,
         changed, old_libs) = _buffers(size, board.shape[0], n_levels, d12_cands.shape[0])
        last = -1
        for t in range(move_start[gi], move_start[gi + 1]):
            colour, row, col = moves[t, 0], moves[t, 1], moves[t, 2]
            if row >= 0:
                n = _candidates(board, libs, ko, size, pad, colour, last, keys, dirty, cache, table, lv_top, lv_tag,
                                d12_offsets, d12_cands, d12_perms, d12_maps, d12_tag, label, mark, counter, stack,
                                rows, index_of, points, cand_keys, occ, chosen)
                _scores(occ, chosen, n, n_levels, min_occurrence, shrink, response_min, response_shrink, base,
                        scores, matched)
                target = row * size + col
                played = -1
                for i in range(n):
                    if points[i] == target:
                        played = i
                if played < 0:
                    return gi
                rank = 1
                for i in range(n):
                    if scores[i] > scores[played] or (scores[i] == scores[played] and i < played):
                        rank += 1
                phase = _phase(t - move_start[gi] + 1)
                positions[phase] += 1
                for k in range(_TOP_K.shape[0]):
                    if rank <= _TOP_K[k]:
                        hits[phase, k] += 1
                matched_counts[matched[played] if matched[played] >= 0 else n_levels] += 1
                if occ[played, n_levels] >= response_min and occ[played, n_levels] > 0:
                    response_counts[0] += 1
            status = _advance(board, libs, ko, size, pad, colour, row, col, keys, dirty, lv_start, lv_w, lv_lw,
                              lv_lib, flat, seen, mark, counter, stack, captured, changed, old_libs)
            if status != OK:
                return gi
            last = (row + pad) * width + col + pad if row >= 0 else -1
    return -1


@njit(cache=True)
def _position(size, setup, moves, colour, pad, lv_start, lv_rc, lv_w, lv_lw, lv_lib, lv_top, lv_tag, table,
              d12_offsets, d12_cands, d12_perms, d12_maps, d12_tag, min_occurrence, shrink, response_min,
              response_shrink, base):
    """Replay ``moves``, then score every legal point for ``colour``.

    Returns (board, n, points, keys, occ, chosen, scores, matched) as :func:`_candidates` and
    :func:`_scores` fill them; n is -1 - t when move t is illegal.
    """
    n_levels = lv_start.shape[0] - 1
    board, libs, seen, mark, counter, stack, flat, keys = _start_game(size, setup, pad, n_levels, lv_start, lv_rc,
                                                                      lv_w, lv_lw)
    width = size + 2 * pad
    (dirty, cache, ko, label, rows, index_of, points, cand_keys, occ, chosen, scores, matched, captured,
     changed, old_libs) = _buffers(size, board.shape[0], n_levels, d12_cands.shape[0])
    last = -1
    for t in range(moves.shape[0]):
        status = _advance(board, libs, ko, size, pad, moves[t, 0], moves[t, 1], moves[t, 2], keys, dirty, lv_start,
                          lv_w, lv_lw, lv_lib, flat, seen, mark, counter, stack, captured, changed, old_libs)
        if status != OK:
            return board, -1 - t, points, cand_keys, occ, chosen, scores, matched
        last = (moves[t, 1] + pad) * width + moves[t, 2] + pad if moves[t, 1] >= 0 else -1
    n = _candidates(board, libs, ko, size, pad, colour, last, keys, dirty, cache, table, lv_top, lv_tag,
                    d12_offsets, d12_cands, d12_perms, d12_maps, d12_tag, label, mark, counter, stack, rows,
                    index_of, points, cand_keys, occ, chosen)
    _scores(occ, chosen, n, n_levels, min_occurrence, shrink, response_min, response_shrink, base, scores, matched)
    return board, n, points, cand_keys, occ, chosen, scores, matched


@dataclass(frozen=True, slots=True)
class Rule:
    """How counts become a score (see :func:`_scores`): k, the shrinkage and the response pattern's use."""

    min_occurrence: int = 1
    shrink: float = 30.0
    response_min: int = 5
    response_shrink: float = 3.0
    base: float = 0.004

    def __post_init__(self) -> None:
        if self.min_occurrence < 1 or self.response_min < 1:
            raise ValueError("min_occurrence and response_min must be at least 1")
        if self.shrink <= 0 or self.response_shrink <= 0 or not 0 < self.base < 1:
            raise ValueError("shrink values must be positive and base in (0, 1)")


@dataclass(frozen=True)
class Predictor:
    """Pattern statistics in a hash table, the pattern levels and the scoring rule."""

    levels: Levels
    table: np.ndarray
    rule: Rule
    n_patterns: int

    def _args(self) -> tuple:
        lv, n_levels = self.levels, len(self.levels.names)
        return (
            lv.pad, lv.start, lv.rc, lv.weights, lv.lib_weights, lv.has_liberty, lv.top,
            np.arange(1, n_levels + 1, dtype=np.int64), self.table, lv.d12_offsets, lv.d12_candidates,
            lv.d12_perms, lv.d12_maps, n_levels + 1 if lv.response else -1, self.rule.min_occurrence,
            float(self.rule.shrink), self.rule.response_min, float(self.rule.response_shrink), float(self.rule.base),
        )  # fmt: skip


def load_predictor(stats: pl.DataFrame, *, names: Sequence[str] = LEVELS, response: str | None = RESPONSE,
                   rule: Rule = Rule()) -> Predictor:
    """A predictor from 16-symmetry pattern statistics (columns family, key as digit text, occurrence, chosen).

    Rows of other families are ignored. Patterns never chosen are dropped by the caller's query or
    here: they would only lower a point's score a little (0.2 points of top-1 measured) and are
    most of the rows.
    """
    lv = levels(names, response=response)
    wanted = [*lv.names, *([lv.response] if lv.response else [])]
    frame = stats.filter(pl.col("family").is_in(wanted) & (pl.col("chosen") >= 1)).select(
        "family", pl.col("key").str.to_integer(base=4, dtype=pl.Int64), "occurrence", "chosen")
    table = _stats_table(lv, frame["family"].to_numpy(), frame["key"].to_numpy(), frame["occurrence"].to_numpy(),
                        frame["chosen"].to_numpy())
    return Predictor(levels=lv, table=table, rule=rule, n_patterns=len(frame))


def evaluate(predictor: Predictor, games: Sequence[GameMoves]) -> dict:
    """Rank all legal points before every board move of ``games`` and measure where the played move ranked.

    Returns a JSON-ready dict: ``positions``, ``top1``, ``top5``, ``top10`` (shares of positions
    whose move ranked within 1, 5, 10), ``games``, ``phases`` (the same per range of move numbers
    1-30, 31-100, 101-200, 201+), ``matched`` (share of positions whose move's largest pattern seen
    at least k times was each level, or ``none``), ``response_matched`` (share whose move had a
    response pattern seen at least ``response_min`` times) and ``pattern_points`` (cells per level).
    Raises ValueError for an illegal move.
    """
    n_levels = len(predictor.levels.names)
    hits = np.zeros((len(PHASES), len(TOP_K)), dtype=np.int64)
    positions = np.zeros(len(PHASES), dtype=np.int64)
    matched = np.zeros(n_levels + 1, dtype=np.int64)
    response = np.zeros(1, dtype=np.int64)
    bad = _evaluate(*pack_games(games), *predictor._args(), hits, positions, matched, response)
    if bad >= 0:
        raise ValueError(f"game {bad}: illegal move")
    total = int(positions.sum())

    def shares(counts: np.ndarray, n: int) -> dict[str, float]:
        return {f"top{k}": round(float(counts[i]) / n, 4) if n else 0.0 for i, k in enumerate(TOP_K)}

    names = [*predictor.levels.names, "none"]
    return {
        "positions": total,
        **shares(hits.sum(axis=0), total),
        "games": len(games),
        "phases": {_phase_name(lo, hi): {"positions": int(positions[i]), **shares(hits[i], int(positions[i]))}
                   for i, (lo, hi) in enumerate(PHASES)},
        "matched": {name: round(float(matched[i]) / total, 4) if total else 0.0 for i, name in enumerate(names)},
        "response_matched": round(float(response[0]) / total, 4) if total else 0.0,
        "pattern_points": {name: len(FAMILIES[name].layout.points) for name in predictor.levels.names},
    }


def _phase_name(lo: int, hi: int | None) -> str:
    return f"{lo}-{hi}" if hi is not None else f"{lo}+"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A legal point: its score, the largest pattern seen at least k times (``family`` None: none) and,
    per level (largest first, then the response pattern), the canonical key text (None: no response
    pattern here) and counts."""

    row: int
    col: int
    score: float
    family: str | None
    keys: tuple[str | None, ...]
    occurrence: tuple[int, ...]
    chosen: tuple[int, ...]


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

    Points rank by score, then by row-major index (as :func:`evaluate` ranks them). The colour to
    move is that of the record's next move, else the opposite of the last move's, else White after
    black setup stones only (handicap), else Black.
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
    board, n, points, keys, occ, chosen, scores, matched = _position(size, setup, played[:moves], colour,
                                                                     *predictor._args())
    if n < 0:
        raise ValueError(f"move {-n} is illegal")
    names = predictor.levels.names
    digits = [FAMILIES[name].layout.n_digits for name in names]
    if predictor.levels.response:
        digits.append(FAMILIES[predictor.levels.response].layout.n_digits)
    candidates = []
    for i in sorted(range(n), key=lambda i: (-scores[i], i)):
        candidates.append(Candidate(
            row=int(points[i]) // size, col=int(points[i]) % size, score=float(scores[i]),
            family=names[matched[i]] if matched[i] >= 0 else None,
            keys=tuple(_key_text(int(keys[i, lv]), d) if keys[i, lv] >= 0 else None for lv, d in enumerate(digits)),
            occurrence=tuple(int(v) for v in occ[i, :len(digits)]), chosen=tuple(int(v) for v in chosen[i, :len(digits)]),
        ))  # fmt: skip
    pad = predictor.levels.pad
    width = size + 2 * pad
    rows = tuple("".join(".XO#"[board[(r + pad) * width + c + pad]] for c in range(size)) for r in range(size))
    last_move = next(((int(m[1]), int(m[2])) for m in played[:moves][::-1][:1] if m[1] >= 0), None)
    return Position(board=rows, colour=colour, moves=moves, last=last_move, candidates=tuple(candidates))


def _key_text(key: int, n_digits: int) -> str:
    return "".join(str((key >> (2 * (n_digits - 1 - i))) & 3) for i in range(n_digits))
