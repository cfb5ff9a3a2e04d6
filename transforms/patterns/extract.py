"""Raw pattern counts from replayed games: the games as kernel arrays and the compiled replay keying every anchor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from gopat.transforms.games.board import (
    BLACK,
    EMPTY,
    OFF_BOARD,
    OK,
    REASONS,
    as_stones,
    check_size,
    new_board,
    place_setup,
    play_move,
)
from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.families import DEFAULT_FAMILIES, FAMILIES
from gopat.transforms.patterns.hashtable import (
    HARD_LOAD,
    KEY,
    MAX_LOAD,
    add_row,
    commit,
    grown_table,
    initial_capacity,
    new_table,
    rehash,
    table_rows,
)
from gopat.transforms.patterns.liberties import fill_liberties, last_move_keys, refresh_liberties

RAW_SCHEMA = {"family": pl.String, "key": pl.Int64, "occurrence": pl.Int64, "chosen": pl.Int64, "result": pl.Int64}
EVENT_SCHEMA = {"family": pl.String, "game": pl.Int32, "move_number": pl.Int32, "key": pl.Int64}
_SCAN, _LAST_MOVE = 0, 1
# anchor state columns: key, empty candidate cells (-1 = not an anchor), segment starts per colour
_EMPTIES, _START_B, _START_W = 1, 2, 3


@dataclass(frozen=True, slots=True)
class GameMoves:
    """A replayed game: board size, setup stones ``(colour, row, col)`` and the legal main line.

    ``moves`` is the legal prefix only, ``(colour, row, col)`` with passes as ``(colour, -1, -1)``.
    """

    board_size: int
    setup: np.ndarray
    moves: np.ndarray


@kernel(cache=True)
def _flush(rows: np.ndarray, n: int, anchors: np.ndarray, f: int, a: int, count_b: int, count_w: int) -> int:
    """Close anchor ``a``'s key segment (a batch row of its weighted occurrences) and restart it."""
    empties = anchors[f, a, _EMPTIES]
    if empties > 0:
        wb = (count_b - anchors[f, a, _START_B]) * empties
        ww = (count_w - anchors[f, a, _START_W]) * empties
        if wb > 0 or ww > 0:
            n = add_row(rows, n, f + 1, anchors[f, a, KEY], wb, ww)
    anchors[f, a, _START_B] = count_b
    anchors[f, a, _START_W] = count_w
    return n


@kernel(cache=True)
def _event(events: np.ndarray, n_events: np.ndarray, f: int, game: int, move: int, key: int) -> None:
    """Record a chosen event: family index, game index, move index in the game, raw key with its colour digit."""
    i = n_events[0]
    events[i, 0] = f
    events[i, 1] = game
    events[i, 2] = move
    events[i, 3] = key
    n_events[0] = i + 1


@kernel(cache=True)
def _extract(table: np.ndarray, n_keys: int, first: int, chosen_events: np.ndarray, events: np.ndarray,
             n_events: np.ndarray, sizes: np.ndarray,
             setup_start: np.ndarray, setups: np.ndarray, move_start: np.ndarray, moves: np.ndarray, pad: int,
             kinds: np.ndarray, n_points: np.ndarray, has_liberty: np.ndarray, want_result: np.ndarray,
             off_start: np.ndarray, off_rc: np.ndarray, cand_start: np.ndarray, cands: np.ndarray,
             ) -> tuple[np.ndarray, int, int, int, int, int, int]:
    """Replay games from ``first`` on and add their raw pattern counts to the hash table.

    Scan families (candidate, block) keep each anchor's colourless key up to date as stones and
    (with a liberty plane) chain liberties change; a key's occurrences are added when it ends,
    weighted by the counted positions (per colour to move) it lasted times the anchor's empty
    candidate cells. Each move's additions are batched, then committed. Stops before a game that
    might overload the table; liberty changes, which are not bounded per game, grow the table in
    place above the hard load. Every chosen event is also recorded in ``events`` (see :func:`_event`;
    ``n_events[0]`` rows used). Returns (table, next game, keys in the table, keys the next game
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
        if n_keys + extra > MAX_LOAD * table.shape[0]:
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
                    anchors[f, a, KEY] = key
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
                colour_digit = np.int64(colour) << (2 * n_points[f] * (2 if has_liberty[f] else 1))
                if kinds[f] == _SCAN:
                    for k in range(cand_start[f], cand_start[f + 1]):
                        mask = colour << (2 * (n_points[f] - 1 - cands[k])) if want_result[f] else 0
                        key = anchors[f, p - flat[lo + cands[k]], KEY]
                        n = add_row(rows, n, -(f + 1), key, colour - 1, mask)
                        chosen_events[f] += 1
                        _event(events, n_events, f, g, t - move_start[g], colour_digit | key)
                elif last >= 0 and anchors[f, last, _EMPTIES] >= 0:
                    before = n
                    n, chosen = last_move_keys(rows, n, f, board, width, last, p, colour, flat[lo:hi],
                                                cands[cand_start[f]:cand_start[f + 1]], has_liberty[f],
                                                label, mark, counter, stack)
                    chosen_events[f] += chosen
                    for i in range(before, n):
                        if rows[i, 1] == -(f + 1):
                            _event(events, n_events, f, g, t - move_start[g], colour_digit | rows[i, 0])
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
                        anchors[f, a, KEY] += (new_value - old_value) * weight[j]
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
                            anchors[f, a, KEY] += delta * lib_weight[j]
            if n_keys + n > HARD_LOAD * table.shape[0]:
                table = grown_table(table, n_keys + n)
            n_keys += commit(table, rows, n, probes)
            last = p
        n = 0
        for f in range(n_fam):
            if kinds[f] == _SCAN:
                for a in range(n_cells):
                    if anchors[f, a, _EMPTIES] >= 0:
                        n = _flush(rows, n, anchors, f, a, count_b, count_w)
        if n_keys + n > HARD_LOAD * table.shape[0]:
            table = grown_table(table, n_keys + n)
        n_keys += commit(table, rows, n, probes)
    return table, sizes.shape[0], n_keys, 0, -1, 0, OK


def _config(names: Sequence[str]) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                            np.ndarray, np.ndarray, np.ndarray]:
    """Kernel arrays describing the requested families (offsets, candidates, planes, border width)."""
    unknown = [name for name in names if name not in FAMILIES]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(f"families must be distinct names from {sorted(FAMILIES)}, got {list(names)}")
    families = [FAMILIES[name] for name in names]
    geometries = [family.geometry for family in families]
    # the border holds every anchor of a candidate on the board and every cell of such an anchor
    # (a last_move family is only read around moves whose whole layout is on the board)
    pad = 1
    for family, geo in zip(families, geometries, strict=True):
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


def pack_games(games: Sequence[GameMoves]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
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


@dataclass(frozen=True, slots=True)
class Extracted:
    """What extraction returns for a shard of games.

    ``counts``: raw (not canonical) counts, one row per (family, key): family, key (the family's
    base-4 key with the colour to move as first digit), occurrence, chosen and result (blk4: OR of
    the who-played-where masks of its chosen events in the key's 2-bit layout, 01 black, 10 white,
    11 both; 0 for other families); row order deterministic but unspecified. ``chosen_events``:
    per family, the number of chosen events, equal to the family's sum of chosen. ``events``: one
    row per chosen event (EVENT_SCHEMA): family, game (index in the shard), move_number (1-based,
    passes counted), raw key; sorted by family order, game, move (blk4: four rows a move).
    """

    counts: pl.DataFrame
    chosen_events: dict[str, int]
    events: pl.DataFrame


def extract_patterns(
    games: Sequence[GameMoves], *, families: Sequence[str] = DEFAULT_FAMILIES
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Raw pattern counts of a shard of games and the chosen events per family (see :class:`Extracted`).

    Raises ValueError for an illegal move. Memory: a hash table of 64 bytes a slot, 110-210 bytes
    per distinct key (about 1 GB for 2,000 games).
    """
    extracted = extract(games, families=families)
    return extracted.counts, extracted.chosen_events


def extract(games: Sequence[GameMoves], *, families: Sequence[str] = DEFAULT_FAMILIES) -> Extracted:
    """Raw pattern counts and chosen events of a shard of games (:class:`Extracted`); ValueError for an illegal move."""
    names = tuple(families)
    pad, *config = _config(names)
    packed = pack_games(games)
    chosen_events = np.zeros(len(names), dtype=np.int64)
    n_moves, n_points = len(packed[4]), sum(len(FAMILIES[name].layout.points) for name in names)
    per_move = sum(1 if FAMILIES[name].anchor == "last_move" else len(FAMILIES[name].geometry.candidates)
                   for name in names)
    events, n_events = np.empty((n_moves * per_move, 4), dtype=np.int64), np.zeros(1, dtype=np.int64)
    table = new_table(initial_capacity(n_moves * n_points // 3))
    game, n_keys = 0, 0
    while True:
        table, game, n_keys, extra, bad_game, bad_move, status = _extract(
            table, n_keys, game, chosen_events, events, n_events, *packed, pad, *config
        )
        if bad_game >= 0:
            raise ValueError(f"game {bad_game}: move {bad_move + 1} is illegal ({REASONS[status]})")
        if game == len(games):
            break
        capacity = table.shape[0]
        while n_keys + extra > MAX_LOAD * capacity:
            capacity *= 2
        grown = new_table(capacity)
        rehash(table, grown)
        table = grown
    n_digits = np.array([FAMILIES[name].layout.n_digits for name in names], dtype=np.int64)
    fam, key, occurrence, chosen, result = table_rows(table, n_keys, n_digits)
    family_names = pl.Series(names, dtype=pl.String)
    frame = pl.DataFrame(
        {"family": family_names.gather(fam), "key": key, "occurrence": occurrence, "chosen": chosen, "result": result},
        schema=RAW_SCHEMA,
    )
    used = events[: n_events[0]]
    order = np.lexsort((used[:, 2], used[:, 1], used[:, 0]))  # stable: blk4's four keys keep candidate order
    used = used[order]
    event_frame = pl.DataFrame(
        {"family": family_names.gather(used[:, 0]), "game": used[:, 1], "move_number": used[:, 2] + 1,
         "key": used[:, 3]},
        schema=EVENT_SCHEMA,
    )
    return Extracted(frame, {name: int(chosen_events[i]) for i, name in enumerate(names)}, event_frame)
