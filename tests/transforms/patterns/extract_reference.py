"""A slow, per-position reference of pattern extraction, written from docs/patterns.md and not from the kernels:
the raw counts (`reference_counts`) and chosen events (`reference_events`) of games replayed on sgfmill's board."""

from __future__ import annotations

from itertools import product

import numpy as np
import polars as pl
from sgfmill import boards

from gopat.transforms.patterns.families import DEFAULT_FAMILIES, PREDICTION_FAMILIES

B, W = 1, 2
# ---------------------------------------------------------------------------------------------
# Layouts written out independently of the code under test (docs/patterns.md#d12, docs/patterns.md#blk4).
SQUARE3 = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
SQUARE5 = [(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3)]
DIAMOND = [(-2, 0), (-1, -1), (-1, 0), (-1, 1), (0, -2), (0, -1), (0, 0), (0, 1), (0, 2),
           (1, -1), (1, 0), (1, 1), (2, 0)]  # fmt: skip
QUADRANTS = ["A-1 A-2 B-3 B-1", "A-3 A-4 B-4 B-2", "D-2 D-4 C-4 C-3", "D-1 D-3 C-2 C-1"]
BLOCK_CELL = {name: (r, c) for r, line in enumerate(QUADRANTS) for c, name in enumerate(line.split())}
BLOCK_ORDER = [f"{quadrant}-{i}" for quadrant in "ABCD" for i in range(1, 5)]
BLOCK_CENTRE = [(1, 1), (1, 2), (2, 1), (2, 2)]  # cells of the 4x4 block whose centre 2x2 holds the candidate
# Stern et al. 2006 / Pachi nested shapes: cells with |dr| + |dc| + max(|dr|, |dc|) <= distance.
GRIDCULAR = {d: [(dr, dc) for dr in range(-3, 4) for dc in range(-3, 4)
                 if abs(dr) + abs(dc) + max(abs(dr), abs(dc)) <= d]
             for d in (2, 3, 4, 5, 6)}
CANDIDATE_OFFSETS = {"sq3": SQUARE3, "sq5": SQUARE5, "dia13": DIAMOND, "lib5": GRIDCULAR[2], "lib9": GRIDCULAR[3],
                     "lib13": GRIDCULAR[4], "dia21": GRIDCULAR[5], "dia29": GRIDCULAR[6]}
LIBERTY_FAMILIES = {"lib5", "lib9", "lib13"}  # a second plane: the chain's liberties on each cell, capped at 3
ALL_FAMILIES = DEFAULT_FAMILIES + PREDICTION_FAMILIES


def digits_key(digits: list[int]) -> int:
    """Base-4 number of a digit list, most significant first (as docs/patterns.md#keys reads a key)."""
    return int("".join(map(str, digits)), 4)


class Position:
    """A position read off sgfmill's board (row 0 at the bottom) in our coordinates (row 0 at the top)."""

    PAD = 4

    def __init__(self, board: boards.Board) -> None:
        self.size = board.side
        self.grid = [[{None: 0, "b": B, "w": W}[board.get(self.size - 1 - r, c)] for c in range(self.size)]
                     for r in range(self.size)]
        self.liberties = [[0] * self.size for _ in range(self.size)]  # chain liberties capped at 3, 0 if empty
        for r, c in product(range(self.size), repeat=2):
            if self.grid[r][c] and not self.liberties[r][c]:
                stones, libs = chain(self.grid, r, c)
                for sr, sc in stones:
                    self.liberties[sr][sc] = min(len(libs), 3)
        self.padded = {}
        for plane, values, outside in (("stone", self.grid, 3), ("liberty", self.liberties, 0)):
            self.padded[plane] = np.full((self.size + 2 * self.PAD,) * 2, outside, dtype=np.int64)
            self.padded[plane][self.PAD:self.PAD + self.size, self.PAD:self.PAD + self.size] = values
        self._shifted: dict[tuple[str, int, int], np.ndarray] = {}

    def shifted(self, dr: int, dc: int, plane: str = "stone") -> np.ndarray:
        """Array whose [r, c] is the cell (r + dr, c + dc) of a plane: 3 (stone) or 0 (liberty) off the board."""
        if (plane, dr, dc) not in self._shifted:
            pad, size = self.PAD, self.size
            self._shifted[plane, dr, dc] = self.padded[plane][pad + dr:pad + dr + size, pad + dc:pad + dc + size]
        return self._shifted[plane, dr, dc]

    def cell(self, r: int, c: int) -> int:
        return self.grid[r][c] if 0 <= r < self.size and 0 <= c < self.size else 3

    def liberty(self, r: int, c: int) -> int:
        return self.liberties[r][c] if 0 <= r < self.size and 0 <= c < self.size else 0

    def empties(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(self.size) for c in range(self.size) if self.grid[r][c] == 0]


def window_keys(position: Position, offsets: list[tuple[int, int]], planes: tuple[str, ...] = ("stone",)) -> np.ndarray:
    """Colourless key of every point at once, from shifted copies of a board padded with off-board cells."""
    keys = np.zeros((position.size, position.size), dtype=np.int64)
    for plane in planes:
        for dr, dc in offsets:
            keys = keys * 4 + position.shifted(dr, dc, plane)
    return keys


def cell_digits(position: Position, r: int, c: int, offsets: list[tuple[int, int]], family: str) -> list[int]:
    """The stone digits (then, for a liberty family, the liberty digits) of the cells around (r, c), one by one."""
    digits = [position.cell(r + a, c + b) for a, b in offsets]
    if family in LIBERTY_FAMILIES:
        digits += [position.liberty(r + a, c + b) for a, b in offsets]
    return digits


def chain(grid: list[list[int]], r: int, c: int) -> tuple[set, set]:
    """Stones and liberties of the chain through (r, c)."""
    size = len(grid)
    colour, seen, libs, todo = grid[r][c], {(r, c)}, set(), [(r, c)]
    while todo:
        pr, pc = todo.pop()
        for qr, qc in ((pr - 1, pc), (pr + 1, pc), (pr, pc - 1), (pr, pc + 1)):
            if 0 <= qr < size and 0 <= qc < size:
                if grid[qr][qc] == 0:
                    libs.add((qr, qc))
                elif grid[qr][qc] == colour and (qr, qc) not in seen:
                    seen.add((qr, qc))
                    todo.append((qr, qc))
    return seen, libs


def d12_keys(position: Position, colour: int, last: tuple[int, int]) -> dict[tuple[int, int], int]:
    """docs/patterns.md#d12: for each empty S of the diamond around L, S -> 27-digit key, the mover's stone on S."""
    keys = {}
    lr, lc = last
    cells = [(lr + a, lc + b) for a, b in DIAMOND]
    for s in cells:
        if s == last or position.cell(*s) != 0:
            continue
        grid = [row[:] for row in position.grid]
        grid[s[0]][s[1]] = colour
        liberty_of = {}  # every stone of a chain already filled -> its chain's liberties
        for r, c in cells:
            if grid[r][c] and (r, c) not in liberty_of:
                stones, libs = chain(grid, r, c)
                liberty_of.update(dict.fromkeys(stones, len(libs)))
        stone_digits = [grid[r][c] for r, c in cells]
        liberty_digits = [min(liberty_of[r, c], 3) if grid[r][c] else 0 for r, c in cells]
        keys[s] = digits_key([colour, *stone_digits, *liberty_digits])
    return keys


def reference_counts(games: list[tuple[int, boards.Board, list]], families: tuple[str, ...] = ALL_FAMILIES) -> dict:
    """(family, key) -> [occurrence, chosen, result] by brute force, position by position, summed over games.

    Each game is (board size, sgfmill's board with the setup stones, sgfmill's (colour, (row, col) or
    None) moves): sgfmill does the captures. Occurrences of the candidate families come from whole-board
    array windows; chosen keys from a separate explicit per-cell computation at the played point.
    """
    occurrences: dict[str, list[np.ndarray]] = {family: [] for family in families if family != "d12"}
    chosen: dict = {}

    def add(family: str, key: int, occurrence: int, picked: int, result: int) -> None:
        row = chosen.setdefault((family, key), [0, 0, 0])
        row[0] += occurrence
        row[1] += picked
        row[2] |= result

    for size, start, plays in games:
        board = start.copy()
        last = None
        for colour_name, point in plays:
            if point is None:
                last = None
                continue
            colour = B if colour_name == "b" else W
            position = Position(board)
            r, c = size - 1 - point[0], point[1]
            empty = np.array(position.grid) == 0
            for family, offsets in CANDIDATE_OFFSETS.items():
                if family not in families:
                    continue
                planes = ("stone", "liberty") if family in LIBERTY_FAMILIES else ("stone",)
                keys = window_keys(position, offsets, planes)[empty]
                occurrences[family].append(colour * 4 ** (len(offsets) * len(planes)) + keys)
                add(family, digits_key([colour, *cell_digits(position, r, c, offsets, family)]), 0, 1, 0)
            for cr, cc in BLOCK_CENTRE if "blk4" in families else ():
                offsets = [(BLOCK_CELL[n][0] - cr, BLOCK_CELL[n][1] - cc) for n in BLOCK_ORDER]
                occurrences["blk4"].append(colour * 4**16 + window_keys(position, offsets)[empty])
                block = [(r - cr + BLOCK_CELL[n][0], c - cc + BLOCK_CELL[n][1]) for n in BLOCK_ORDER]
                result = colour << (2 * (15 - block.index((r, c))))
                add("blk4", digits_key([colour, *(position.cell(*p) for p in block)]), 0, 1, result)
            if "d12" in families and last is not None and 2 <= last[0] <= size - 3 and 2 <= last[1] <= size - 3:
                for s, key in d12_keys(position, colour, last).items():
                    add("d12", key, 1, int(s == (r, c)), 0)
            board.play(point[0], point[1], colour_name)
            last = (r, c)
    counts = {}
    for family, parts in occurrences.items():
        if parts:
            keys, n = np.unique(np.concatenate(parts), return_counts=True)
            counts.update({(family, key): [count, 0, 0] for key, count in zip(keys.tolist(), n.tolist(), strict=True)})
    for key, (occurrence, picked, result) in chosen.items():
        row = counts.setdefault(key, [0, 0, 0])
        row[0] += occurrence
        row[1] += picked
        row[2] |= result
    return counts


def as_counts(frame: pl.DataFrame) -> dict:
    assert frame.schema == pl.Schema({"family": pl.String, "key": pl.Int64, "occurrence": pl.Int64,
                                      "chosen": pl.Int64, "result": pl.Int64})
    assert frame.select(["family", "key"]).is_duplicated().sum() == 0
    return {(f, k): [o, c, r] for f, k, o, c, r in frame.iter_rows()}


def merge(total: dict, part: dict) -> None:
    for key, (o, c, r) in part.items():
        row = total.setdefault(key, [0, 0, 0])
        row[0] += o
        row[1] += c
        row[2] |= r


def reference_events(games: list[tuple[int, boards.Board, list]], families: tuple[str, ...]) -> list[tuple]:
    """(family, game, move number, raw key) of every chosen event, move by move, by the brute force of
    reference_counts (docs/patterns.md: every board move; d12 only where the played point is in the diamond of a
    usable last move)."""
    events = []
    for game, (size, start, plays) in enumerate(games):
        board, last = start.copy(), None
        for number, (colour_name, point) in enumerate(plays, start=1):
            if point is None:
                last = None
                continue
            colour, position, (r, c) = B if colour_name == "b" else W, Position(board), (size - 1 - point[0], point[1])
            for family in families:
                if family in CANDIDATE_OFFSETS:
                    key = digits_key([colour, *cell_digits(position, r, c, CANDIDATE_OFFSETS[family], family)])
                    events.append((family, game, number, key))
                elif last is not None and 2 <= last[0] <= size - 3 and 2 <= last[1] <= size - 3:
                    key = d12_keys(position, colour, last).get((r, c))
                    events += [(family, game, number, key)] if key is not None else []
            board.play(point[0], point[1], colour_name)
            last = (r, c)
    return events
