"""The requested pattern families as the arrays the extraction kernel reads (transforms/patterns/extract.py):
each family's cells as offsets from its anchor, its candidates, planes and the place value of each digit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from gopat.transforms.patterns.families import FAMILIES

SCAN, LAST_MOVE = 0, 1  # anchors: every cell (candidate and block families) or the last move (d12)


class Layouts(NamedTuple):
    """The requested families as kernel arrays (:func:`family_layouts`); family ``f``'s points are
    ``off_start[f]:off_start[f + 1]`` of the per-point arrays, its candidates ``cand_start[f]:cand_start[f + 1]``
    of ``cands``."""

    pad: int  # border width around the board
    total_points: int  # points of all families
    lib_points: int  # points of the scan families with a liberty plane
    cand_total: int  # candidates of all families
    kinds: np.ndarray  # SCAN or LAST_MOVE
    n_points: np.ndarray  # points of the layout
    has_liberty: np.ndarray  # whether the layout has a liberty plane
    want_result: np.ndarray  # whether chosen events record who played where (blk4)
    off_rc: np.ndarray  # per point: (row, col) offset from the anchor
    is_cand: np.ndarray  # per point: whether it is a candidate
    weight: np.ndarray  # per point: place value of its stone digit
    lib_weight: np.ndarray  # per point: place value of its liberty digit (scan families), else 0
    off_start: np.ndarray
    cand_start: np.ndarray
    cands: np.ndarray  # candidate points, as indices into the family's points


def family_layouts(names: Sequence[str]) -> Layouts:
    """Kernel arrays describing the requested families (offsets, candidates, planes, place values, border width)."""
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
    scan = [family.anchor != "last_move" for family in families]
    liberty = ["liberty" in family.layout.planes for family in families]
    is_cand, weight, lib_weight = [], [], []
    for geo, scans, has_liberty in zip(geometries, scan, liberty, strict=True):
        points = len(geo.offsets)
        planes = 2 if has_liberty else 1
        is_cand.append(np.isin(np.arange(points), geo.candidates))
        # the stone digits come first, then (with a liberty plane) the liberty digits, most significant first
        weight.append(4 ** (planes * points - 1 - np.arange(points, dtype=np.int64)))
        lib_weight.append(4 ** (points - 1 - np.arange(points, dtype=np.int64)) * (scans and has_liberty))
    n_points = np.array([len(family.layout.points) for family in families], dtype=np.int64)
    return Layouts(
        pad=pad,
        total_points=int(n_points.sum()),
        lib_points=int(sum(n for n, s, lib in zip(n_points, scan, liberty, strict=True) if s and lib)),
        cand_total=sum(len(geo.candidates) for geo in geometries),
        kinds=np.array([SCAN if s else LAST_MOVE for s in scan], dtype=np.int64),
        n_points=n_points,
        has_liberty=np.array(liberty, dtype=np.bool_),
        want_result=np.array([f.anchor == "block" for f in families], dtype=np.bool_),
        off_rc=np.concatenate([geo.offsets for geo in geometries]).astype(np.int64),
        is_cand=np.concatenate(is_cand),
        weight=np.concatenate(weight).astype(np.int64),
        lib_weight=np.concatenate(lib_weight).astype(np.int64),
        off_start=np.cumsum([0] + [len(geo.offsets) for geo in geometries]).astype(np.int64),
        cand_start=np.cumsum([0] + [len(geo.candidates) for geo in geometries]).astype(np.int64),
        cands=np.concatenate([geo.candidates for geo in geometries]).astype(np.int64),
    )
