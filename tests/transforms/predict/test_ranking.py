"""The ranking model: feature bins written out by hand, ranks with ties, a fit that recovers known weights, the
shipped weights a release uses."""

from __future__ import annotations

import numpy as np
import pytest

from gopat.transforms.patterns.families import DEFAULT_FAMILIES
from gopat.transforms.predict.predictor import LEVELS
from gopat.transforms.predict.ranking import (
    DISTANCE_GROUPS,
    GROUPS,
    PREDICTION_WEIGHTS,
    SEED_WEIGHTS,
    Weights,
    feature_index,
    fit_weights,
    group_sizes,
    load_weights,
    played_log_probabilities,
    ranks,
    shipped_weights,
)

BLOCK = 20 * 12  # rate bins x count bins of one level


def test_feature_index_bins_by_hand():
    # two levels then the response pattern; columns: largest, below, response, last move, move before,
    # phase x (last move, largest rate, response rate), level 0, level 1, tactics, opening book, phase x line
    occurrence = np.array([[10, 40, 0], [0, 0, 1], [0, 1, 0], [10**7, 10**7, 0]])
    chosen = np.array([[9, 9, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    moves = np.array([1, 10, 11, 250])  # phases 0, 0, 1, 5 (from moves 1, 11, 31, 61, 101, 201)
    tactics = np.array([5, 0, 127, 64])
    # opening book (games reaching the position, playing the point): 60.5/101 rate bin 1, 100 count bin 6;
    # never reached: "none"; 0.5/4 bin 6, 3 bin 1; a million of a million: bins 0 and 11 (capped)
    book = np.array([[100, 60], [0, 0], [3, 0], [10**6, 10**6]])
    lines = np.array([0, 35, 7, 21])
    index = feature_index(occurrence, chosen, np.array([3, 0, 2, 40]), np.array([25, 0, 19, 4]), moves, tactics, book,
                          lines)
    assert index.dtype == np.int16
    level1 = BLOCK + 1  # each level's cells, then its "unseen" cell
    assert index.tolist() == [
        # rate 9.5/11: bin 0, 10 seen: bin 3 | rate 9.5/41: bin 4, 40 seen: bin 5 | no response | distances |
        # phase 0 with: distance 3, level 0 rate bin 0, no response (rate "bin" 20) | both levels' own bins
        [0 * 12 + 3, BLOCK + 4 * 12 + 5, BLOCK, 3, 19, 3, 0, 20, 3, level1 + 4 * 12 + 5, 5, 1 * 12 + 6, 0],
        # nothing seen: the "none" cell of both level groups; response 1.5/2: bin 0, once: bin 0
        [2 * BLOCK, 2 * BLOCK, 0, 0, 0, 0, 40, 0, BLOCK, level1 + BLOCK, 0, BLOCK, 35],
        # only the smaller level seen (0.5/2: bin 4, once: bin 0); nothing below it; phase 1
        [BLOCK + 4 * 12, 2 * BLOCK, BLOCK, 2, 19, 20 + 2, 41 + 20 + 4, 21 + 20, BLOCK, level1 + 4 * 12, 127,
         6 * 12 + 1, 36 + 7],
        # seen ten million times, never chosen: both bins capped; phase 5
        [19 * 12 + 11, BLOCK + 19 * 12 + 11, BLOCK, 19, 4, 100 + 19, 5 * 41 + 19, 5 * 21 + 20, 19 * 12 + 11,
         level1 + 19 * 12 + 11, 64, 0 * 12 + 11, 5 * 36 + 21],
    ]


def test_ranks_break_ties_by_candidate_order():
    scores = np.array([1.0, 3.0, 3.0, 0.0, 5.0, 5.0, 2.0])
    counts = np.array([4, 3])
    assert ranks(scores, counts, np.array([2, 1])).tolist() == [2, 2]
    assert ranks(scores, counts, np.array([1, 0])).tolist() == [1, 1]
    assert ranks(scores, counts, np.array([3, 2])).tolist() == [4, 3]


def test_fit_recovers_the_weights_that_generated_the_moves():
    rng = np.random.default_rng(3)
    sizes = group_sizes(1)
    offsets = np.cumsum((0, *sizes[:-1]))
    used = {g: rng.choice(n, size=6, replace=False) for g, n in zip(GROUPS, sizes, strict=True)}
    truth = np.zeros(sum(sizes))
    for g, cells in used.items():
        truth[offsets[GROUPS.index(g)] + cells] = rng.normal(scale=0.7, size=len(cells))
    counts = np.full(20000, 12)
    index = np.stack([rng.choice(used[g], size=counts.sum()) for g in GROUPS], axis=1)
    scores = truth[index + offsets].sum(axis=1).reshape(len(counts), -1)
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    played = np.array([rng.choice(12, p=row / row.sum()) for row in p])
    fitted = fit_weights(index, counts, played, levels=("lib5",), response="d12", l2=1e-7)
    for g, cells in used.items():  # a softmax fixes each group's weights up to a constant
        at = offsets[GROUPS.index(g)] + cells
        assert fitted.vector[at] - fitted.vector[at].mean() == pytest.approx(truth[at] - truth[at].mean(), abs=0.15)
    plain = fit_weights(index, counts, played, levels=("lib5",), response="d12", distance=False)
    for g, size, at in zip(GROUPS, sizes, offsets, strict=True):
        assert plain.vector[at:at + size].any() == (g not in DISTANCE_GROUPS)
    assert not plain.distance
    assert plain.fitted["positions"] == 20000 and fitted.fitted["loss"] < plain.fitted["loss"]


def test_fit_learns_the_feature_interactions_that_generated_the_moves():
    rng = np.random.default_rng(5)
    sizes = group_sizes(1)
    offsets = np.cumsum((0, *sizes[:-1]))
    used = {g: rng.choice(n, size=4, replace=False) for g, n in zip(GROUPS, sizes, strict=True)}
    truth = Weights(levels=("lib5",), response="d12", distance=True, vector=np.zeros(sum(sizes)),
                    factors=np.zeros((sum(sizes), 2)))
    for g, cells in used.items():
        truth.vector[offsets[GROUPS.index(g)] + cells] = rng.normal(scale=0.5, size=len(cells))
        truth.factors[offsets[GROUPS.index(g)] + cells] = rng.normal(scale=0.5, size=(len(cells), 2))

    def sample(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        counts = np.full(n, 10)
        index = np.stack([rng.choice(used[g], size=counts.sum()) for g in GROUPS], axis=1).astype(np.int16)
        p = np.exp(truth.score(index)).reshape(n, -1)
        return index, counts, np.array([rng.choice(10, p=row / row.sum()) for row in p])

    def log_likelihood(weights: Weights, index: np.ndarray, counts: np.ndarray, played: np.ndarray) -> float:
        return float(played_log_probabilities(weights.score(index), counts, played).mean())

    index, counts, played = sample(20000)
    linear = fit_weights(index, counts, played, levels=("lib5",), response="d12")
    lines: list[str] = []
    paired = fit_weights(index, counts, played, levels=("lib5",), response="d12", factors=2, progress=lines.append)
    assert len(lines) == paired.fitted["iterations"] // 25 + paired.fitted["factor_iterations"] // 25
    assert lines[-1].startswith(f"weights and 2 factors: iteration {paired.fitted['factor_iterations'] // 25 * 25}, ")
    assert linear.factors.shape == (sum(sizes), 0) and paired.factors.shape == (sum(sizes), 2)
    assert paired.fitted["factors"] == 2 and paired.fitted["factor_loss"] < paired.fitted["loss"]
    unused = np.ones(sum(sizes), dtype=np.bool_)
    for g, cells in used.items():
        unused[offsets[GROUPS.index(g)] + cells] = False
    assert not paired.factors[unused].any()  # weights no candidate selects keep zero factors
    held_out = sample(5000)
    best = log_likelihood(truth, *held_out)
    assert best - log_likelihood(paired, *held_out) < 0.02 < best - log_likelihood(linear, *held_out)


def test_weights_round_trip_through_json(tmp_path):
    rng = np.random.default_rng(1)
    weights = Weights(levels=("dia21", "lib5"), response="d12", distance=True,
                      vector=rng.normal(size=sum(group_sizes(2))), fitted={"positions": 9})
    path = tmp_path / "w.json"
    path.write_text(weights.to_json())
    again = load_weights(path)
    assert (again.levels, again.response, again.distance) == (("dia21", "lib5"), "d12", True)
    assert again.fitted == {"positions": 9}
    assert np.allclose(again.vector, weights.vector, atol=1e-6) and again.factors.shape == (len(weights.vector), 0)
    assert len(path.read_text().splitlines()) == 2 + len(GROUPS) + 1  # model, "weights": {, one line per group, }}
    paired = Weights(levels=weights.levels, response="d12", distance=True, vector=weights.vector,
                     factors=rng.normal(size=(len(weights.vector), 3)))
    path.write_text(paired.to_json())
    again = load_weights(path)
    assert np.allclose(again.factors, paired.factors, atol=1e-6)
    assert np.allclose(again.vector, weights.vector, atol=1e-6)
    assert len(path.read_text().splitlines()) == 2 * len(GROUPS) + 5  # and "factors": {, one line per group
    path.write_text(path.read_text().replace("[", "[0, ", 1 + len(GROUPS) + 1))  # a ragged factor group
    with pytest.raises(ValueError, match="not a weights file"):
        load_weights(path)
    with pytest.raises(ValueError, match=r"factors of shape \(3, 2\) do not fit"):
        Weights(levels=weights.levels, response="d12", distance=True, vector=weights.vector, factors=np.ones((3, 2)))


def test_the_shipped_weights_load():
    weights = load_weights()
    assert weights.levels and weights.fitted["positions"] > 10_000
    seed = load_weights(SEED_WEIGHTS)
    assert set(seed.families) <= set(DEFAULT_FAMILIES) and seed.fitted["positions"] > 10_000


@pytest.mark.parametrize(("families", "expected"), [
    ((*DEFAULT_FAMILIES, *LEVELS), PREDICTION_WEIGHTS),  # both sets: the more accurate prediction families
    (DEFAULT_FAMILIES, SEED_WEIGHTS),  # what `make release` builds
    (("d12", "sq3", "dia13"), PREDICTION_WEIGHTS),  # neither: the first, whose families the commands name as missing
    ((*LEVELS, "sq5"), PREDICTION_WEIGHTS),
])
def test_the_shipped_weights_a_release_uses_are_the_first_whose_families_it_holds(families, expected):
    assert shipped_weights(families) == expected
    with pytest.raises(ValueError, match="no positions"):
        fit_weights(np.zeros((0, len(GROUPS)), dtype=np.int64), np.zeros(0, dtype=np.int64),
                    np.zeros(0, dtype=np.int64), levels=("lib5",), response="d12")
