"""Pattern families: their key layouts, what anchors them, their geometry around the anchor, and the registry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gopat.transforms.checks import positive
from gopat.transforms.patterns.keys import BLOCK4_POINTS, DIAMOND13_POINTS, KeyLayout, square_points
from gopat.transforms.patterns.symmetry import SYMMETRIES, Group, square_group

ANCHORS = ("last_move", "candidate", "block")
LIBERTY_ANCHORS = ("last_move", "candidate")


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
    candidates = np.setdiff1d(np.arange(len(points)), near) if anchor == "last_move" else near
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
        if symmetries not in SYMMETRIES:
            raise ValueError(f"symmetries must be one of {SYMMETRIES}, got {symmetries!r}")
        return square_group(self.layout, colour_swap=symmetries == SYMMETRIES[1])


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
           "13-point diamond around the last move with liberties, the mover's stone on each empty point "
           "(docs/patterns.md#d12)"),
    Family("sq3", KeyLayout(square_points(3)), "candidate", "3x3 square centred on each empty point"),
    Family("sq5", KeyLayout(square_points(5)), "candidate", "5x5 square centred on each empty point"),
    Family("dia13", KeyLayout(DIAMOND13_POINTS), "candidate",
           "13-point diamond (radius 2) centred on each empty point"),
    Family("blk4", KeyLayout(BLOCK4_POINTS), "block",
           "4x4 blocks whose centre 2x2 holds the empty point, 32-bit quadrant code (docs/patterns.md#blk4)"),
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
# Move prediction (transforms/predict/predictor.py) reads d12 and the levels its weights file names (shipped: all five).
PREDICTION_FAMILIES: tuple[str, ...] = ("lib5", "lib9", "lib13", "dia21", "dia29")
# pattern_stats publishes every key of these; the others' keys seen fewer than min_occurrence times go to
# pattern_tail (docs/releases.md#pattern_tail). The default, 2, drops the shapes seen once: on pro-sample 38% of the
# sq5 keys, 0.8% of its occurrences (BENCHMARKS.md, "Publication thresholds").
COMPLETE_FAMILIES: tuple[str, ...] = ("d12", "sq3", "dia13")
DEFAULT_MIN_OCCURRENCE: dict[str, int] = {name: 2 for name in ("sq5", "blk4", *PREDICTION_FAMILIES)}


def replay_groups(names: Sequence[str]) -> list[tuple[str, ...]]:
    """The families `names` in the groups that one replay of a game keys together: each family whose distinct keys
    grow with the games has a replay and a hash table of its own, in the order of `names` (one table for two such
    families costs every key more cache misses than the replay it saves); the families of COMPLETE_FAMILIES, whose
    keys are few, share the last replay."""
    shared = tuple(name for name in names if name in COMPLETE_FAMILIES)
    groups: list[tuple[str, ...]] = [(name,) for name in names if name not in COMPLETE_FAMILIES]
    return [*groups, shared] if shared else groups


def check_families(names: Sequence[str]) -> tuple[str, ...]:
    """`names` if every one is a registered pattern family, else ValueError naming the unknown ones."""
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown pattern families {unknown}; known: {sorted(FAMILIES)}")
    return tuple(names)


def min_occurrence(families: Sequence[str], given: Mapping[str, int]) -> dict[str, int]:
    """The publication threshold of each of `families`: `given` over DEFAULT_MIN_OCCURRENCE, else 1.

    ValueError for a family not in `families`, a threshold that is not a positive int, or one above
    1 for a family of COMPLETE_FAMILIES.
    """
    unknown = sorted(set(given) - set(families))
    if unknown:
        raise ValueError(f"min_occurrence for families not built: {unknown}")
    thresholds = {name: given.get(name, DEFAULT_MIN_OCCURRENCE.get(name, 1)) for name in sorted(families)}
    for name, value in thresholds.items():
        positive(f"min_occurrence of {name}", value)
        if name in COMPLETE_FAMILIES and value != 1:
            raise ValueError(f"{name} is published with every key: its min_occurrence must be 1, got {value}")
    return thresholds
