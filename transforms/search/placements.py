"""Every placement of a pattern on a board: the 8 symmetries (16 with the colour swap) times the offsets.

Placements are numbered in the order that breaks ties (docs/search.md#hits): unswapped before swapped,
then the symmetry index, then the row and the column of the placed pattern's top-left cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gopat.transforms.search.diagram import ALLOWED, ANY, BLACK, SWAPPED, WHITE, Pattern

N_CODES = ALLOWED.shape[0]
_EDGE, _OPEN = 1, 0


@dataclass(frozen=True, slots=True)
class Variant:
    """The pattern under one symmetry (and maybe swapped): its cells and, per cell, the diagram's (row, col)."""

    symmetry: int
    swapped: bool
    cells: np.ndarray      # (h, w) cell codes, colours exchanged when swapped
    source: np.ndarray     # (h, w, 2) the diagram's row and column of each cell
    edges: tuple[bool, bool, bool, bool]  # top, bottom, left, right


@dataclass(frozen=True, slots=True)
class Placements:
    """All placements on a board of `size`, in tie-break order, with the kernels' lookup tables.

    `by_point[start[q * N_CODES + t]:start[q * N_CODES + t + 1]]` lists the placements whose cell of
    code t (never ANY) lies on point q = row * size + col; `unmet` counts each placement's cells
    that the empty board does not satisfy; `stones[stone_start[p]:stone_start[p + 1]]` are its
    X and O cells as (point, colour).
    """

    size: int
    variants: tuple[Variant, ...]
    variant: np.ndarray    # per placement: index into variants
    origin: np.ndarray     # per placement: (row, col) of the top-left cell on the board
    swapped: np.ndarray    # per placement: 1 when the colours are exchanged
    box: np.ndarray        # per placement: (row0, col0, row1, col1), the region's rows and columns, inclusive
    unmet: np.ndarray
    start: np.ndarray
    by_point: np.ndarray
    stone_start: np.ndarray
    stones: np.ndarray

    def __len__(self) -> int:
        return int(self.variant.shape[0])

    def frame_points(self, placement: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Board points, each inside its placement's region, as the diagram's rows and columns."""
        rows, cols = np.empty(len(point), np.int64), np.empty(len(point), np.int64)
        variant = self.variant[placement]
        row, col = np.divmod(point, self.size)
        row, col = row - self.origin[placement, 0], col - self.origin[placement, 1]
        for index, v in enumerate(self.variants):
            here = variant == index
            rows[here], cols[here] = v.source[row[here], col[here]].T
        return rows, cols


def variants(pattern: Pattern, *, colour_swap: bool, keep_swapped: bool = False) -> tuple[Variant, ...]:
    """The distinct images of the pattern, in tie-break order (an image equal to an earlier one is dropped).

    With `keep_swapped` (a colour to move is asked for, and a swapped image asks for the other colour)
    a swapped image is kept even when it equals an unswapped one.
    """
    rows, cols = pattern.shape
    padded = np.full((rows + 2, cols + 2), _OPEN, dtype=np.int8)
    padded[0, :], padded[-1, :] = _EDGE if pattern.top else _OPEN, _EDGE if pattern.bottom else _OPEN
    padded[1:-1, 0], padded[1:-1, -1] = _EDGE if pattern.left else _OPEN, _EDGE if pattern.right else _OPEN
    grid = np.stack(np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij"), axis=-1)
    found: list[Variant] = []
    seen: set[bytes] = set()
    for swapped in (False, True) if colour_swap else (False,):
        cells = SWAPPED[pattern.cells] if swapped else pattern.cells
        for symmetry in range(8):
            image, source, border = (_transform(a, symmetry) for a in (cells, grid, padded))
            edges = (bool(border[0, 1]), bool(border[-1, 1]), bool(border[1, 0]), bool(border[1, -1]))
            identity = image.tobytes() + bytes(image.shape) + bytes(edges) + bytes([swapped and keep_swapped])
            if identity not in seen:
                seen.add(identity)
                found.append(Variant(symmetry, swapped, np.ascontiguousarray(image),
                                     np.ascontiguousarray(source), edges))
    return tuple(found)


def _transform(array: np.ndarray, symmetry: int) -> np.ndarray:
    """Symmetry s of D4 on the first two axes: transpose if s & 4, then flip rows if s & 1, columns if s & 2."""
    out = array.swapaxes(0, 1) if symmetry & 4 else array
    if symmetry & 1:
        out = out[::-1]
    if symmetry & 2:
        out = out[:, ::-1]
    return out


def _offsets(length: int, size: int, low: bool, high: bool) -> range:
    """Offsets of a side of `length` cells on a board side of `size`: edges drawn at the low/high end must coincide."""
    if length > size or (low and high and length != size):
        return range(0)
    if low:
        return range(0, 1)
    if high:
        return range(size - length, size - length + 1)
    return range(0, size - length + 1)


def placements(pattern: Pattern, *, size: int, colour_swap: bool, keep_swapped: bool = False) -> Placements:
    """Every placement of the pattern's images on a board of `size`, with the kernels' tables."""
    images = variants(pattern, colour_swap=colour_swap, keep_swapped=keep_swapped)
    rows: list[tuple[int, int, int]] = []
    for index, v in enumerate(images):
        h, w = v.cells.shape
        top, bottom, left, right = v.edges
        rows += [(index, r0, c0) for r0 in _offsets(h, size, top, bottom) for c0 in _offsets(w, size, left, right)]
    table = np.array(rows, dtype=np.int64).reshape(-1, 3)
    variant, origin = table[:, 0], table[:, 1:]
    shapes = np.array([v.cells.shape for v in images], dtype=np.int64).reshape(-1, 2)
    box = np.concatenate([origin, origin + shapes[variant] - 1], axis=1) if len(table) else np.zeros((0, 4), np.int64)
    entries: list[np.ndarray] = []  # per placement: (point, code, placement)
    stone_lists: list[np.ndarray] = []
    for p, (index, r0, c0) in enumerate(rows):
        cells = images[index].cells
        rr, cc = np.nonzero(cells != ANY)
        codes = cells[rr, cc].astype(np.int64)
        points = (rr + r0) * size + (cc + c0)
        entries.append(np.stack([points, codes, np.full_like(points, p)], axis=1))
        stone = (codes == BLACK) | (codes == WHITE)
        stone_lists.append(np.stack([points[stone], codes[stone]], axis=1))
    flat = np.concatenate(entries) if entries else np.zeros((0, 3), np.int64)
    slot = flat[:, 0] * N_CODES + flat[:, 1]
    order = np.argsort(slot, kind="stable")  # keeps placement order within a slot
    start = np.zeros(size * size * N_CODES + 1, dtype=np.int64)
    np.cumsum(np.bincount(slot, minlength=size * size * N_CODES), out=start[1:])
    unmet = np.bincount(flat[:, 2], weights=1 - ALLOWED[flat[:, 1], 0], minlength=len(rows)).astype(np.int32)
    counts = np.array([len(s) for s in stone_lists], dtype=np.int64)
    return Placements(
        size=size, variants=images, variant=variant, origin=origin,
        swapped=np.array([images[i].swapped for i in variant], dtype=np.int8), box=box,
        unmet=unmet, start=start, by_point=flat[order, 2].astype(np.int32),
        stone_start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        stones=(np.concatenate(stone_lists) if stone_lists else np.zeros((0, 2), np.int64)).astype(np.int64),
    )
