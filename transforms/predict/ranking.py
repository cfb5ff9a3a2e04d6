"""Move ranking model: candidate features from pattern counts and distances, softmax weights with latent
factors (feature interactions) and their fit."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import OptimizeResult, minimize

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
# The shipped weights, most accurate first (docs/prediction.md): fitted for the prediction
# families, and for the families of the default build, so that a default release predicts too.
PREDICTION_WEIGHTS = Path(__file__).with_name("prediction_weights.json")
SEED_WEIGHTS = Path(__file__).with_name("seed_weights.json")
SHIPPED_WEIGHTS = (PREDICTION_WEIGHTS, SEED_WEIGHTS)
REPORT_EVERY = 25  # L-BFGS iterations between the fit's progress lines


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
    the game phase with the point's ``line`` cell. int16 (every group has fewer cells than that holds),
    to keep the candidates of thousands of games in memory for a fit.
    """
    n_levels = np.shape(occurrence)[1] - 1
    if max(group_sizes(n_levels)) > np.iinfo(np.int16).max:
        raise ValueError(f"{n_levels} levels have more feature cells than int16 indexes")
    index = np.empty((len(occurrence), len(column_groups(n_levels))), dtype=np.int16)
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
    """A softmax (conditional logit) model: a point's score is the sum of one weight per group, plus the
    interactions of those features: the dot products of their latent factors, pair by pair (a factorization
    machine; docs/prediction.md).

    ``levels`` are the candidate pattern families (largest first) the weights were fitted for,
    ``response`` the response family; ``distance`` False means the distance weights are zero
    (patterns alone). ``vector`` holds the groups one after another (see :func:`group_sizes`), ``factors``
    one row of latent factors per weight (no columns: no interactions).
    """

    levels: tuple[str, ...]
    response: str
    distance: bool
    vector: np.ndarray
    factors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    fitted: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.vector) != sum(group_sizes(len(self.levels))):
            raise ValueError(f"{len(self.vector)} weights do not fit levels {list(self.levels)}")
        if self.factors.size == 0:  # a frozen dataclass sets a derived field this way
            object.__setattr__(self, "factors", np.zeros((len(self.vector), 0)))
        if self.factors.ndim != 2 or len(self.factors) != len(self.vector):
            raise ValueError(f"factors of shape {self.factors.shape} do not fit {len(self.vector)} weights")

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
        return _scores(self.vector, self.factors, index, column_offsets(len(self.levels)))

    def to_json(self) -> str:
        """The weights as JSON: the model on the first line, then one line per group, then (with factors) one line
        per group of factor rows."""
        splits = np.cumsum(group_sizes(len(self.levels)))[:-1]
        model = json.dumps({"levels": list(self.levels), "response": self.response, "distance": self.distance,
                            "fitted": self.fitted})
        parts = [("weights", np.split(np.round(self.vector, 6), splits))]
        if self.factors.shape[1]:
            parts.append(("factors", np.split(np.round(self.factors, 6), splits)))
        blocks = [f' "{name}": {{\n' + ",\n".join(f"  {json.dumps(g)}: {json.dumps(v.tolist())}"
                                                  for g, v in zip(GROUPS, values, strict=True)) + "\n}"
                  for name, values in parts]
        return model[:-1] + ",\n" + ",\n".join(blocks) + "}\n"


def load_weights(path: Path = PREDICTION_WEIGHTS) -> Weights:
    """Weights from a JSON file written by :meth:`Weights.to_json`; ValueError if it is not one."""
    try:
        data = json.loads(Path(path).read_text())
        vector = np.concatenate([np.asarray(data["weights"][g], dtype=np.float64) for g in GROUPS])
        sizes = group_sizes(len(data["levels"]))
        factors = (np.concatenate([np.asarray(data["factors"][g], dtype=np.float64).reshape(size, -1)
                                   for g, size in zip(GROUPS, sizes, strict=True)])
                   if "factors" in data else np.zeros((0, 0)))
        return Weights(levels=tuple(data["levels"]), response=data["response"], distance=bool(data["distance"]),
                       vector=vector, factors=factors, fitted=data.get("fitted", {}))
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
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
def _score_row(vector: np.ndarray, factors: np.ndarray, index: np.ndarray, offsets: np.ndarray, r: int,
               sums: np.ndarray) -> float:
    """Score of row ``r``: the weights its columns select, plus half of (squared sum of their factor rows minus
    their squared norms), the sum over pairs of columns of their factors' dot products; ``sums`` gets the sum."""
    total = squares = 0.0
    sums[:] = 0.0
    for c in range(index.shape[1]):
        j = offsets[c] + index[r, c]
        total += vector[j]
        for f in range(factors.shape[1]):
            sums[f] += factors[j, f]
            squares += factors[j, f] * factors[j, f]
    for f in range(factors.shape[1]):
        total += 0.5 * sums[f] * sums[f]
    return total - 0.5 * squares


@kernel(cache=True, nogil=True)
def _scores(vector: np.ndarray, factors: np.ndarray, index: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per row, its :func:`_score_row`."""
    out = np.empty(index.shape[0])
    sums = np.empty(factors.shape[1])
    for r in range(index.shape[0]):
        out[r] = _score_row(vector, factors, index, offsets, r, sums)
    return out


@kernel(cache=True, nogil=True)
def _loss_part(vector: np.ndarray, factors: np.ndarray, index: np.ndarray, offsets: np.ndarray, counts: np.ndarray,
               starts: np.ndarray, played: np.ndarray, first: int, stop: int, gradient: np.ndarray,
               factor_gradient: np.ndarray) -> float:
    """Summed negative log-likelihood of positions ``first``..``stop`` (softmax over each), their gradient added to
    ``gradient`` and ``factor_gradient``."""
    most = 1
    for p in range(first, stop):
        most = max(most, counts[p])
    z = np.empty(most)
    sums = np.empty((most, factors.shape[1]))
    loss = 0.0
    for p in range(first, stop):
        for i in range(counts[p]):
            z[i] = _score_row(vector, factors, index, offsets, starts[p] + i, sums[i])
        n, target = counts[p], z[played[p]]
        peak = z[:n].max()
        e = np.exp(z[:n] - peak)
        total = e.sum()
        loss += np.log(total) + peak - target
        e /= total
        e[played[p]] -= 1.0
        for i in range(n):
            for c in range(index.shape[1]):
                j = offsets[c] + index[starts[p] + i, c]
                gradient[j] += e[i]
                for f in range(factors.shape[1]):  # d score / d factor = the other columns' factor sum
                    factor_gradient[j, f] += e[i] * (sums[i, f] - factors[j, f])
    return loss


def _loss(x: np.ndarray, index: np.ndarray, offsets: np.ndarray, counts: np.ndarray, starts: np.ndarray,
          played: np.ndarray, l2: tuple[float, float], rank: int, threads: int) -> tuple[float, np.ndarray]:
    """Mean negative log-likelihood of the played moves (softmax over each position), L2 added, and its gradient;
    ``x`` holds the weights, then ``rank`` factors per weight; ``starts`` each position's first row. Parts of the
    positions run on ``threads`` threads."""
    n = len(x) // (1 + rank)
    vector, factors = x[:n], x[n:].reshape(n, rank)
    bounds = [len(counts) * t // threads for t in range(threads + 1)]
    gradients = np.zeros((threads, n))
    factor_gradients = np.zeros((threads, n, rank))
    with ThreadPoolExecutor(threads) as pool:
        losses = pool.map(lambda t: _loss_part(vector, factors, index, offsets, counts, starts, played, bounds[t],
                                               bounds[t + 1], gradients[t], factor_gradients[t]), range(threads))
        loss = sum(losses) / len(counts)
    gradient = np.concatenate([gradients.sum(axis=0) / len(counts) + 2 * l2[0] * vector,
                               (factor_gradients.sum(axis=0) / len(counts) + 2 * l2[1] * factors).ravel()])
    return loss + l2[0] * (vector @ vector) + l2[1] * (factors.ravel() @ factors.ravel()), gradient


def _reporter(stage: str, progress: Callable[[str], None] | None) -> Callable[[OptimizeResult], None]:
    """An L-BFGS callback that gives ``progress`` the loss of every REPORT_EVERY-th iteration of ``stage``."""
    iterations = itertools.count(1)

    def report(intermediate_result: OptimizeResult) -> None:  # the name scipy passes the iterate by
        iteration = next(iterations)
        if progress is not None and iteration % REPORT_EVERY == 0:
            progress(f"{stage}: iteration {iteration}, loss {intermediate_result.fun:.6f}")

    return report


def fit_weights(index: np.ndarray, counts: np.ndarray, played: np.ndarray, *, levels: tuple[str, ...],
                response: str, distance: bool = True, factors: int = 0, l2: float = 1e-5, factor_l2: float = 1e-4,
                max_iterations: int = 300, factor_iterations: int = 150, threads: int = 2,
                progress: Callable[[str], None] | None = None) -> Weights:
    """Maximum-likelihood weights (L2-regularised, L-BFGS) for positions whose played candidates are known.

    ``index`` are :func:`feature_index` rows of every candidate, position after position;
    ``counts`` the candidates per position; ``played`` the played candidate's index within each.
    Without ``distance`` the DISTANCE_GROUPS take no part (their weights stay zero). With ``factors`` the
    linear fit is followed by a fit of the weights and that many latent factors per weight together, the
    factors starting small and random (seeded). ``progress`` gets a line every REPORT_EVERY iterations.
    """
    if len(counts) == 0:
        raise ValueError("no positions to fit")
    if factors < 0:
        raise ValueError(f"factors must be at least 0, got {factors}")
    columns = [c for c, g in enumerate(column_groups(len(levels))) if distance or g not in DISTANCE_GROUPS]
    counts = np.asarray(counts, dtype=np.int64)
    args = (index if len(columns) == index.shape[1] else np.ascontiguousarray(index[:, columns]),
            column_offsets(len(levels))[columns], counts, np.cumsum(counts) - counts,
            np.asarray(played, dtype=np.int64))
    n = sum(group_sizes(len(levels)))
    result = minimize(_loss, np.zeros(n), jac=True, method="L-BFGS-B", args=(*args, (l2, factor_l2), 0, threads),
                      options={"maxiter": max_iterations}, callback=_reporter("weights", progress))
    fitted = {"positions": len(counts), "loss": round(float(result.fun), 6), "iterations": int(result.nit)}
    if factors:
        start = np.random.default_rng(0).normal(scale=0.01, size=(n, factors))
        selected = np.zeros(n, dtype=np.bool_)
        for c, offset in enumerate(args[1]):
            cells = np.flatnonzero(np.bincount(args[0][:, c]))
            selected[offset + cells] = True
        start[~selected] = 0.0  # the factors of weights no candidate selects stay 0
        result = minimize(_loss, np.concatenate([result.x, start.ravel()]), jac=True, method="L-BFGS-B",
                          args=(*args, (l2, factor_l2), factors, threads), options={"maxiter": factor_iterations},
                          callback=_reporter(f"weights and {factors} factors", progress))
        fitted |= {"factors": factors, "factor_loss": round(float(result.fun), 6),
                   "factor_iterations": int(result.nit)}
    return Weights(levels=tuple(levels), response=response, distance=distance, vector=result.x[:n],
                   factors=result.x[n:].reshape(n, factors), fitted=fitted)
