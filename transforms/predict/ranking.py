"""Move ranking model: candidate features from pattern counts and distances, softmax weights and their fit."""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from gopat.transforms.kernels import kernel

# Feature bins. A count pair (occurrence o, chosen c) falls in rate bin floor(-2 log2((c + 0.5) / (o + 1)))
# (half-octaves of the smoothed chosen rate) and count bin floor(log2 o) (how much evidence), both capped.
# Distances follow Coulom (2007): d = |dr| + |dc| + max(|dr|, |dc|), capped; bin 0 means no such move.
# Game phases start at these move numbers; the phase_* groups let the opening weigh the largest
# pattern's rate, the response pattern and the distance to the last move differently from the endgame.
# A tactical cell (gopat.transforms.predict.candidates._tactics) is one of TACTICS_CELLS: stones captured, whether they
# hold the last move, the new chain's liberties, atari, escape from atari. The opening book's counts
# (gopat.transforms.predict.book: games reaching the whole-board position, games playing the point) bin like a
# pattern's.
# A point's lines (1 = the edge) from its two nearest edges, capped at LINES, give a line cell
# (nearer - 1) x LINES + (farther - 1): the diamonds cannot tell the 4-4 point from the empty centre.
RATE_BINS, COUNT_BINS, DISTANCE_BINS, TACTICS_CELLS, LINES = 20, 12, 20, 128, 6
PHASE_STARTS = np.array([1, 11, 31, 61, 101, 201], dtype=np.int64)
GROUPS = ("largest", "below", "response", "last_move", "move_before", "phase_last_move", "phase_largest",
          "phase_response", "level", "tactics", "book", "phase_line")
DISTANCE_GROUPS = ("last_move", "move_before", "phase_last_move")
# The shipped weights, most accurate first (README, Move prediction): fitted for the prediction
# families, and for the families of the default build, so that a default release predicts too.
PREDICTION_WEIGHTS = Path(__file__).with_name("prediction_weights.json")
SEED_WEIGHTS = Path(__file__).with_name("seed_weights.json")
SHIPPED_WEIGHTS = (PREDICTION_WEIGHTS, SEED_WEIGHTS)


def group_sizes(n_levels: int) -> tuple[int, ...]:
    """Weights per group (GROUPS order) for ``n_levels`` candidate levels (see :func:`feature_index`)."""
    block, phases = RATE_BINS * COUNT_BINS, len(PHASE_STARTS)
    cells = n_levels * block + 1
    return (cells, cells, block + 1, DISTANCE_BINS, DISTANCE_BINS, phases * DISTANCE_BINS,
            phases * (n_levels * RATE_BINS + 1), phases * (RATE_BINS + 1), n_levels * (block + 1), TACTICS_CELLS,
            block + 1, phases * LINES * LINES)


def column_groups(n_levels: int) -> tuple[str, ...]:
    """The group of each :func:`feature_index` column: one per group, but one per level for ``level``."""
    return tuple(g for g in GROUPS for _ in range(n_levels if g == "level" else 1))


def column_offsets(n_levels: int) -> np.ndarray:
    """Where each :func:`feature_index` column's group starts in a weight vector."""
    starts = dict(zip(GROUPS, np.cumsum((0, *group_sizes(n_levels)[:-1])).tolist(), strict=True))
    return np.array([starts[g] for g in column_groups(n_levels)], dtype=np.int64)


@kernel(cache=True)
def _count_cell(occurrence: float, chosen: float) -> int:
    """Rate bin x COUNT_BINS + count bin of one count pair."""
    rate_bin = math.floor(-2.0 * math.log2((chosen + 0.5) / (occurrence + 1.0)))
    count_bin = math.floor(math.log2(max(occurrence, 1.0)))
    return min(max(rate_bin, 0), RATE_BINS - 1) * COUNT_BINS + min(count_bin, COUNT_BINS - 1)


@kernel(cache=True, nogil=True)
def _feature_index(occurrence: np.ndarray, chosen: np.ndarray, d_last: np.ndarray, d_before: np.ndarray,
                   move: np.ndarray, tactics: np.ndarray, book: np.ndarray, line: np.ndarray, index: np.ndarray,
                   ) -> None:
    """Fill ``index`` (see :func:`feature_index`)."""
    n_levels = occurrence.shape[1] - 1
    block = RATE_BINS * COUNT_BINS
    for i in range(occurrence.shape[0]):
        phase = 0
        while phase + 1 < PHASE_STARTS.shape[0] and move[i] >= PHASE_STARTS[phase + 1]:
            phase += 1
        largest = n_levels
        for level in range(n_levels - 1, -1, -1):
            if occurrence[i, level] >= 1:
                largest = level
        for column in range(2):
            level = largest + column
            if level < n_levels:
                index[i, column] = level * block + _count_cell(occurrence[i, level], chosen[i, level])
            else:
                index[i, column] = n_levels * block
        if occurrence[i, n_levels] >= 1:
            index[i, 2] = _count_cell(occurrence[i, n_levels], chosen[i, n_levels])
        else:
            index[i, 2] = block
        index[i, 3] = min(d_last[i], DISTANCE_BINS - 1)
        index[i, 4] = min(d_before[i], DISTANCE_BINS - 1)
        index[i, 5] = phase * DISTANCE_BINS + index[i, 3]
        index[i, 6] = phase * (n_levels * RATE_BINS + 1) + index[i, 0] // COUNT_BINS
        index[i, 7] = phase * (RATE_BINS + 1) + index[i, 2] // COUNT_BINS
        for level in range(n_levels):
            cell = _count_cell(occurrence[i, level], chosen[i, level]) if occurrence[i, level] >= 1 else block
            index[i, 8 + level] = level * (block + 1) + cell
        index[i, 8 + n_levels] = tactics[i]
        index[i, 9 + n_levels] = _count_cell(book[i, 0], book[i, 1]) if book[i, 0] >= 1 else block
        index[i, 10 + n_levels] = phase * LINES * LINES + line[i]


def feature_index(occurrence: np.ndarray, chosen: np.ndarray, d_last: np.ndarray, d_before: np.ndarray,
                  move: np.ndarray, tactics: np.ndarray, book: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Per candidate, the index of its weight within the group of each column (:func:`column_groups`).

    ``occurrence`` and ``chosen`` have one column per level, largest first, then the response
    pattern's. largest: the largest level seen at least once, its rate and count bins; below: the
    same for the level under it; response: the response pattern's bins; last_move, move_before:
    the distance bins to the last two moves; phase_*: the game phase of the position's ``move``
    number with the last-move distance, the largest level's rate bin, the response's rate bin;
    level: every level's own bins (one column per level, each level's cells after the previous
    level's, "unseen" last); tactics: the tactical cell; book: the bins of the opening-book counts
    ``book`` (games reaching the position, games playing the point), like a pattern's; phase_line:
    the game phase with the point's ``line`` cell. int32, to keep the candidates of many games in
    memory for a fit.
    """
    n_levels = np.shape(occurrence)[1] - 1
    index = np.empty((len(occurrence), len(column_groups(n_levels))), dtype=np.int32)
    _feature_index(np.asarray(occurrence, dtype=np.float64), np.asarray(chosen, dtype=np.float64),
                   np.asarray(d_last, dtype=np.int64), np.asarray(d_before, dtype=np.int64),
                   np.asarray(move, dtype=np.int64), np.asarray(tactics, dtype=np.int64),
                   np.asarray(book, dtype=np.float64), np.asarray(line, dtype=np.int64), index)
    return index


def largest_level(index: np.ndarray) -> np.ndarray:
    """The largest level seen (0: the largest level; the number of levels: none) of :func:`feature_index` rows."""
    return index[:, 0] // (RATE_BINS * COUNT_BINS)


@dataclass(frozen=True)
class Weights:
    """A softmax (conditional logit) model: a point's score is the sum of one weight per group.

    ``levels`` are the candidate pattern families (largest first) the weights were fitted for,
    ``response`` the response family; ``distance`` False means the distance weights are zero
    (patterns alone). ``vector`` holds the groups one after another (see :func:`group_sizes`).
    """

    levels: tuple[str, ...]
    response: str
    distance: bool
    vector: np.ndarray
    fitted: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.vector) != sum(group_sizes(len(self.levels))):
            raise ValueError(f"{len(self.vector)} weights do not fit levels {list(self.levels)}")

    @classmethod
    def zeros(cls, levels: tuple[str, ...], *, response: str, distance: bool = True) -> Weights:
        """All-zero weights (every point ties): what a fit starts from and what names its levels."""
        return cls(levels=tuple(levels), response=response, distance=distance,
                   vector=np.zeros(sum(group_sizes(len(levels)))))

    @property
    def families(self) -> tuple[str, ...]:
        """The pattern families a release needs for these weights: the levels, then the response family."""
        return (*self.levels, self.response)

    def score(self, index: np.ndarray) -> np.ndarray:
        """Scores of candidates from :func:`feature_index` rows (columns added left to right)."""
        return _scores(self.vector, index, column_offsets(len(self.levels)))

    def to_json(self) -> str:
        """The weights as JSON: the model on the first line, then one line per group."""
        sizes = group_sizes(len(self.levels))
        groups = zip(GROUPS, np.split(np.round(self.vector, 6), np.cumsum(sizes)[:-1]), strict=True)
        model = json.dumps({"levels": list(self.levels), "response": self.response, "distance": self.distance,
                            "fitted": self.fitted})
        lines = ",\n".join(f"  {json.dumps(g)}: {json.dumps(v.tolist())}" for g, v in groups)
        return f'{model[:-1]},\n "weights": {{\n{lines}\n}}}}\n'


def load_weights(path: Path = PREDICTION_WEIGHTS) -> Weights:
    """Weights from a JSON file written by :meth:`Weights.to_json`; ValueError if it is not one."""
    try:
        data = json.loads(Path(path).read_text())
        vector = np.concatenate([np.asarray(data["weights"][g], dtype=np.float64) for g in GROUPS])
        return Weights(levels=tuple(data["levels"]), response=data["response"], distance=bool(data["distance"]),
                       vector=vector, fitted=data.get("fitted", {}))
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a weights file ({error})") from None


def shipped_weights(families: Collection[str]) -> Path:
    """The first of SHIPPED_WEIGHTS whose levels and response family are all in ``families`` (a release's), else the
    first (whose families the caller then names as missing)."""
    for path in SHIPPED_WEIGHTS:
        if set(load_weights(path).families) <= set(families):
            return path
    return SHIPPED_WEIGHTS[0]


def segments(counts: np.ndarray) -> np.ndarray:
    """The position of every candidate row, from the number of candidates of each position."""
    return np.repeat(np.arange(len(counts)), counts)


def ranks(scores: np.ndarray, counts: np.ndarray, played: np.ndarray) -> np.ndarray:
    """Rank of each position's played candidate (index ``played`` within it): higher scores first, then lower index."""
    starts = np.cumsum(counts) - counts
    position = segments(counts)
    local = np.arange(len(scores)) - starts[position]
    target = scores[starts + played][position]
    ahead = (scores > target) | ((scores == target) & (local < played[position]))
    return 1 + np.bincount(position, ahead, minlength=len(counts))


def played_log_probabilities(scores: np.ndarray, counts: np.ndarray, played: np.ndarray) -> np.ndarray:
    """Natural log of each position's played-candidate probability under the softmax of its scores (the model
    :func:`fit_weights` fits)."""
    starts = np.cumsum(counts) - counts
    position = segments(counts)
    peak = np.maximum.reduceat(scores, starts)
    total = np.add.reduceat(np.exp(scores - peak[position]), starts)
    log_probabilities: np.ndarray = scores[starts + played] - peak - np.log(total)
    return log_probabilities


@kernel(cache=True, nogil=True)
def _scores(vector: np.ndarray, index: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per row, the sum of the weights its columns select."""
    out = np.empty(index.shape[0])
    for r in range(index.shape[0]):
        total = 0.0
        for c in range(index.shape[1]):
            total += vector[offsets[c] + index[r, c]]
        out[r] = total
    return out


@kernel(cache=True)
def _loss(vector: np.ndarray, index: np.ndarray, offsets: np.ndarray, counts: np.ndarray, played: np.ndarray,
          l2: float) -> tuple[float, np.ndarray]:
    """Mean negative log-likelihood of the played moves (softmax over each position), L2 added, and its gradient."""
    gradient = np.zeros_like(vector)
    loss, start = 0.0, 0
    for p in range(counts.shape[0]):
        z = _scores(vector, index[start:start + counts[p]], offsets)
        peak = z.max()
        e = np.exp(z - peak)
        total = e.sum()
        loss += np.log(total) + peak - z[played[p]]
        e[played[p]] -= total
        for i in range(counts[p]):
            for c in range(index.shape[1]):
                gradient[offsets[c] + index[start + i, c]] += e[i] / total
        start += counts[p]
    n = counts.shape[0]
    return loss / n + l2 * (vector @ vector), gradient / n + 2 * l2 * vector


def fit_weights(index: np.ndarray, counts: np.ndarray, played: np.ndarray, *, levels: tuple[str, ...],
                response: str, distance: bool = True, l2: float = 1e-5, max_iterations: int = 300) -> Weights:
    """Maximum-likelihood weights (L2-regularised, L-BFGS) for positions whose played candidates are known.

    ``index`` are :func:`feature_index` rows of every candidate, position after position;
    ``counts`` the candidates per position; ``played`` the played candidate's index within each.
    Without ``distance`` the DISTANCE_GROUPS take no part (their weights stay zero).
    """
    if len(counts) == 0:
        raise ValueError("no positions to fit")
    columns = [c for c, g in enumerate(column_groups(len(levels))) if distance or g not in DISTANCE_GROUPS]
    result = minimize(_loss, np.zeros(sum(group_sizes(len(levels)))), jac=True, method="L-BFGS-B",
                      args=(index if len(columns) == index.shape[1] else np.ascontiguousarray(index[:, columns]),
                            column_offsets(len(levels))[columns],
                            np.asarray(counts, dtype=np.int64), np.asarray(played, dtype=np.int64), l2),
                      options={"maxiter": max_iterations})
    return Weights(levels=tuple(levels), response=response, distance=distance, vector=result.x,
                   fitted={"positions": len(counts), "loss": round(float(result.fun), 6),
                           "iterations": int(result.nit)})
