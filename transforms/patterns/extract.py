"""Raw pattern counts and chosen events from replayed games: the compiled replay keying every anchor."""

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
    new_board,
    place_setup,
    play_move,
)
from gopat.transforms.games.packed import GameMoves, PackedGames, pack_games
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
from gopat.transforms.patterns.kernel_layouts import LAST_MOVE, SCAN, Layouts, family_layouts
from gopat.transforms.patterns.liberties import fill_liberties, last_move_keys, refresh_liberties

RAW_SCHEMA = {"family": pl.String, "key": pl.Int64, "occurrence": pl.Int64, "chosen": pl.Int64, "result": pl.Int64}
EVENT_SCHEMA = {"family": pl.String, "game": pl.Int32, "move_number": pl.Int32, "key": pl.Int64}
# anchor state columns: key, empty candidate cells (-1 = not an anchor), segment starts per colour
_EMPTIES, _START_B, _START_W = 1, 2, 3


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
             n_events: np.ndarray, games: PackedGames, layouts: Layouts,
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
    pad, total_points, cand_total = layouts.pad, layouts.total_points, layouts.cand_total
    n_fam = layouts.kinds.shape[0]
    max_cells = 0
    for g in range(first, games.sizes.shape[0]):
        max_cells = max(max_cells, (games.sizes[g] + 2 * pad) ** 2)
    # one move: chosen and last_move rows (<= 2 per candidate), then every placed or captured stone
    # and every stone whose liberty digit changed re-keys <= total_points anchors; or the flush of
    # all anchors at the end of a game
    n_rows = (max_cells + 1) * total_points + max_cells * layouts.lib_points + 2 * cand_total + n_fam * max_cells
    rows = np.empty((n_rows, 4), dtype=np.int64)
    probes = np.empty((rows.shape[0], 2), dtype=np.int64)
    for g in range(first, games.sizes.shape[0]):
        n_cells = (games.sizes[g] + 2 * pad) ** 2
        n_moves = games.move_start[g + 1] - games.move_start[g]
        n_stones = games.setup_start[g + 1] - games.setup_start[g] + n_moves
        extra = (n_stones + n_moves) * total_points + n_moves * cand_total + n_fam * n_cells
        if n_keys + extra > MAX_LOAD * table.shape[0]:
            return table, g, n_keys, extra, -1, 0, OK
        table, n_keys, bad_move, status = _replay_game(table, n_keys, rows, probes, chosen_events, events, n_events,
                                                       games, g, layouts)
        if status != OK:
            return table, g, n_keys, 0, g, bad_move, status
    return table, games.sizes.shape[0], n_keys, 0, -1, 0, OK


@kernel(cache=True)
def _replay_game(table: np.ndarray, n_keys: int, rows: np.ndarray, probes: np.ndarray, chosen_events: np.ndarray,
                 events: np.ndarray, n_events: np.ndarray, games: PackedGames, g: int, layouts: Layouts,
                 ) -> tuple[np.ndarray, int, int, int]:
    """Replay game ``g`` into the hash table (see :func:`_extract`); (table, keys in it, bad move, status)."""
    size, pad = games.sizes[g], layouts.pad
    width = size + 2 * pad
    n_cells = width * width
    board = new_board(size, pad)
    place_setup(board, size, pad, games.setups[games.setup_start[g]:games.setup_start[g + 1]])
    mark = np.zeros(n_cells, dtype=np.int64)
    counter = np.zeros(3, dtype=np.int64)
    stack = np.empty(n_cells, dtype=np.int64)
    captured = np.empty(n_cells, dtype=np.int64)
    label = np.zeros((n_cells, 3), dtype=np.int64)
    libs = np.zeros(n_cells, dtype=np.int8)
    seen = np.zeros(n_cells, dtype=np.int64)
    changed = np.empty(n_cells, dtype=np.int64)
    old_libs = np.empty(n_cells, dtype=np.int64)
    if layouts.lib_points > 0:
        fill_liberties(board, width, libs, seen, counter, mark, stack)
    flat = layouts.off_rc[:, 0] * width + layouts.off_rc[:, 1]
    anchors = _new_anchors(board, size, libs, flat, layouts)
    ko = np.array([-1, 0], dtype=np.int64)
    count_b = 0
    count_w = 0
    last = -1
    first_move = games.move_start[g]
    for t in range(first_move, games.move_start[g + 1]):
        colour, row, col = games.moves[t, 0], games.moves[t, 1], games.moves[t, 2]
        if row == -1 and col == -1:
            ko[0] = -1
            last = -1
            continue
        if row < 0 or col < 0 or row >= size or col >= size:
            return table, n_keys, t - first_move, OFF_BOARD
        p = (row + pad) * width + col + pad
        n = _chosen_rows(rows, anchors, board, width, last, p, colour, g, t - first_move, flat, chosen_events,
                         events, n_events, label, mark, counter, stack, layouts)
        if colour == BLACK:
            count_b += 1
        else:
            count_w += 1
        status, n_captured = play_move(board, size, pad, colour, row, col, ko, mark, counter, stack, captured)
        if status != OK:
            return table, n_keys, t - first_move, status
        n = _rekey_stones(rows, n, anchors, board, p, captured, n_captured, colour, count_b, count_w, flat, layouts)
        if layouts.lib_points > 0:
            n_changed = refresh_liberties(board, width, p, captured, n_captured, libs, changed, old_libs,
                                          seen, counter, mark, stack)
            n = _rekey_liberties(rows, n, anchors, libs, changed, old_libs, n_changed, count_b, count_w, flat,
                                 layouts)
        table, n_keys = _commit_rows(table, n_keys, rows, n, probes)
        last = p
    n = 0
    for f in range(layouts.kinds.shape[0]):
        if layouts.kinds[f] == SCAN:
            for a in range(n_cells):
                if anchors[f, a, _EMPTIES] >= 0:
                    n = _flush(rows, n, anchors, f, a, count_b, count_w)
    table, n_keys = _commit_rows(table, n_keys, rows, n, probes)
    return table, n_keys, 0, OK


@kernel(cache=True)
def _commit_rows(table: np.ndarray, n_keys: int, rows: np.ndarray, n: int, probes: np.ndarray
                 ) -> tuple[np.ndarray, int]:
    """Commit ``n`` batch rows, growing the table in place above the hard load; (table, keys in it)."""
    if n_keys + n > HARD_LOAD * table.shape[0]:
        table = grown_table(table, n_keys + n)
    return table, n_keys + commit(table, rows, n, probes)


@kernel(cache=True)
def _new_anchors(board: np.ndarray, size: int, libs: np.ndarray, flat: np.ndarray, layouts: Layouts) -> np.ndarray:
    """Anchor state per family and cell of a game's first position (columns KEY, _EMPTIES, _START_B, _START_W).

    An anchor whose candidates are all off the board (a last_move family: any point) is -1 in _EMPTIES.
    """
    pad, width = layouts.pad, size + 2 * layouts.pad
    n_cells = width * width
    anchors = np.zeros((layouts.kinds.shape[0], n_cells, 4), dtype=np.int64)
    anchors[:, :, _EMPTIES] = -1
    for f in range(layouts.kinds.shape[0]):
        lo, hi = layouts.off_start[f], layouts.off_start[f + 1]
        for a in range(n_cells):
            r, c = a // width - pad, a % width - pad
            if layouts.kinds[f] == LAST_MOVE:
                inside = r >= 0 and c >= 0 and r < size and c < size
                for j in range(lo, hi):
                    rr, cc = r + layouts.off_rc[j, 0], c + layouts.off_rc[j, 1]
                    inside = inside and rr >= 0 and cc >= 0 and rr < size and cc < size
                anchors[f, a, _EMPTIES] = 0 if inside else -1
                continue
            for k in range(layouts.cand_start[f], layouts.cand_start[f + 1]):
                rr, cc = r + layouts.off_rc[lo + layouts.cands[k], 0], c + layouts.off_rc[lo + layouts.cands[k], 1]
                if rr >= 0 and cc >= 0 and rr < size and cc < size:
                    anchors[f, a, _EMPTIES] = 0
            if anchors[f, a, _EMPTIES] == 0:
                key = np.int64(0)
                for j in range(lo, hi):
                    v = board[a + flat[j]]
                    key += v * layouts.weight[j] + libs[a + flat[j]] * layouts.lib_weight[j]
                    if layouts.is_cand[j] and v == EMPTY:
                        anchors[f, a, _EMPTIES] += 1
                anchors[f, a, KEY] = key
    return anchors


@kernel(cache=True)
def _chosen_rows(rows: np.ndarray, anchors: np.ndarray, board: np.ndarray, width: int, last: int, p: int, colour: int,
                 g: int, move: int, flat: np.ndarray, chosen_events: np.ndarray, events: np.ndarray,
                 n_events: np.ndarray, label: np.ndarray, mark: np.ndarray, counter: np.ndarray, stack: np.ndarray,
                 layouts: Layouts) -> int:
    """The batch rows of a move before it is played: each scan family's chosen key at ``p`` for every candidate, and
    each last_move family's keys around the previous move ``last`` (-1: none); every chosen event recorded. Rows used.
    """
    n = 0
    for f in range(layouts.kinds.shape[0]):
        lo, hi = layouts.off_start[f], layouts.off_start[f + 1]
        n_points = layouts.n_points[f]
        colour_digit = np.int64(colour) << (2 * n_points * (2 if layouts.has_liberty[f] else 1))
        if layouts.kinds[f] == SCAN:
            for k in range(layouts.cand_start[f], layouts.cand_start[f + 1]):
                cand = layouts.cands[k]
                mask = colour << (2 * (n_points - 1 - cand)) if layouts.want_result[f] else 0
                key = anchors[f, p - flat[lo + cand], KEY]
                n = add_row(rows, n, -(f + 1), key, colour - 1, mask)
                chosen_events[f] += 1
                _event(events, n_events, f, g, move, colour_digit | key)
        elif last >= 0 and anchors[f, last, _EMPTIES] >= 0:
            before = n
            n, chosen = last_move_keys(rows, n, f, board, width, last, p, colour, flat[lo:hi],
                                        layouts.cands[layouts.cand_start[f]:layouts.cand_start[f + 1]],
                                        layouts.has_liberty[f], label, mark, counter, stack)
            chosen_events[f] += chosen
            for i in range(before, n):
                if rows[i, 1] == -(f + 1):
                    _event(events, n_events, f, g, move, colour_digit | rows[i, 0])
    return n


@kernel(cache=True, inline="always")
def _rekey_cell(rows: np.ndarray, n: int, anchors: np.ndarray, cell: int, delta: np.int64, empties_delta: np.int64,
                liberty: bool, count_b: int, count_w: int, flat: np.ndarray, layouts: Layouts) -> int:
    """Close and re-key every anchor of a scan family that sees ``cell``, whose stone digit (with ``liberty``: whose
    liberty digit, in the families with a liberty plane) moved by ``delta``; the anchor's empty candidate cells move
    by ``empties_delta`` where the cell is a candidate. Rows used."""
    weights = layouts.lib_weight if liberty else layouts.weight
    for f in range(layouts.kinds.shape[0]):
        if layouts.kinds[f] != SCAN or (liberty and not layouts.has_liberty[f]):
            continue
        for j in range(layouts.off_start[f], layouts.off_start[f + 1]):
            a = cell - flat[j]
            if anchors[f, a, _EMPTIES] < 0:
                continue
            n = _flush(rows, n, anchors, f, a, count_b, count_w)
            anchors[f, a, KEY] += delta * weights[j]
            if layouts.is_cand[j]:
                anchors[f, a, _EMPTIES] += empties_delta
    return n


@kernel(cache=True)
def _rekey_stones(rows: np.ndarray, n: int, anchors: np.ndarray, board: np.ndarray, p: int, captured: np.ndarray,
                  n_captured: int, colour: int, count_b: int, count_w: int, flat: np.ndarray, layouts: Layouts) -> int:
    """Close and re-key every scan anchor that sees the stone played at ``p`` or a captured one; rows used."""
    for x in range(-1, n_captured):
        cell = p if x < 0 else captured[x]
        new_value = np.int64(board[cell])
        old_value = np.int64(3 - colour if x >= 0 else EMPTY)
        empties = np.int64(new_value == EMPTY) - np.int64(old_value == EMPTY)
        n = _rekey_cell(rows, n, anchors, cell, new_value - old_value, empties, False, count_b, count_w, flat, layouts)
    return n


@kernel(cache=True)
def _rekey_liberties(rows: np.ndarray, n: int, anchors: np.ndarray, libs: np.ndarray, changed: np.ndarray,
                     old_libs: np.ndarray, n_changed: int, count_b: int, count_w: int, flat: np.ndarray,
                     layouts: Layouts) -> int:
    """Close and re-key every anchor of a scan family with a liberty plane that sees a stone whose liberty digit
    changed (``changed[:n_changed]``, from ``old_libs``); rows used."""
    for i in range(n_changed):
        cell = changed[i]
        delta = np.int64(libs[cell]) - old_libs[i]
        n = _rekey_cell(rows, n, anchors, cell, delta, np.int64(0), True, count_b, count_w, flat, layouts)
    return n


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
    layouts = family_layouts(names)
    packed = pack_games(games)
    chosen_events = np.zeros(len(names), dtype=np.int64)
    n_moves, n_points = len(packed.moves), layouts.total_points
    per_move = sum(1 if FAMILIES[name].anchor == "last_move" else len(FAMILIES[name].geometry.candidates)
                   for name in names)
    events, n_events = np.empty((n_moves * per_move, 4), dtype=np.int64), np.zeros(1, dtype=np.int64)
    table = new_table(initial_capacity(n_moves * n_points // 3))
    game, n_keys = 0, 0
    while True:
        table, game, n_keys, extra, bad_game, bad_move, status = _extract(
            table, n_keys, game, chosen_events, events, n_events, packed, layouts
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
