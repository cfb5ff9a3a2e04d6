"""A slow reference for move prediction: legal points, canonical keys, features, scores and ranks per position,
written with plain Python rules (tests.transforms.games.rules) independently of gopat.transforms.predict."""
from __future__ import annotations

import math
from collections import Counter
from functools import cache

import numpy as np
import polars as pl
import pytest

from gopat.transforms.games.packed import GameMoves
from gopat.transforms.patterns.canonical import key_strings
from gopat.transforms.patterns.extract import extract_patterns
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import parse_key
from gopat.transforms.patterns.symmetry import Group
from gopat.transforms.predict.book import BOOK_MOVES, BOOK_SIZE, build_book, point_images
from gopat.transforms.predict.predictor import (
    LEVELS,
    PHASES,
    RESPONSE,
    TOP_K,
    evaluate,
    load_predictor,
    score_position,
)
from gopat.transforms.predict.ranking import (
    COUNT_BINS,
    DISTANCE_BINS,
    GROUPS,
    LINES,
    RATE_BINS,
    Weights,
    group_sizes,
)
from tests.transforms.games.rules import RulesOracle
from tests.transforms.patterns.extract_reference import (
    GRIDCULAR,
    chain,
    d12_keys,
    digits_key,
)

B, W = 1, 2
# Cells of each level written out independently of the code (Stern et al. 2006 / Pachi distances).
LEVEL_CELLS = {"dia29": GRIDCULAR[6], "dia21": GRIDCULAR[5], "lib13": GRIDCULAR[4], "lib9": GRIDCULAR[3],
               "lib5": GRIDCULAR[2]}
WITH_LIBERTIES = {"lib13", "lib9", "lib5"}
# Random weights and factors over all five levels: every group and bin moves the score, so any index slip shows.
WEIGHTS = Weights(levels=LEVELS, response=RESPONSE, distance=True,
                  vector=np.random.default_rng(7).normal(size=sum(group_sizes(len(LEVELS)))),
                  factors=np.random.default_rng(8).normal(scale=0.3, size=(sum(group_sizes(len(LEVELS))), 3)))


@cache
def group16(family: str) -> Group:
    return FAMILIES[family].group(16)


def stats_frame(games: list[GameMoves]) -> pl.DataFrame:
    """16-symmetry statistics of ``games`` as a release stores them (key as digit text)."""
    raw, _ = extract_patterns(games, families=(*LEVELS, RESPONSE))
    parts = []
    for (family,), part in raw.group_by("family"):
        canonical, _, _ = group16(family).canonicalize(part["key"].to_numpy())
        frame = pl.DataFrame({"key": canonical, "occurrence": part["occurrence"], "chosen": part["chosen"]})
        summed = frame.group_by("key").agg(pl.col("occurrence").sum(), pl.col("chosen").sum())
        texts = key_strings(summed["key"].to_numpy(), FAMILIES[family].layout.n_digits)
        parts.append(summed.with_columns(family=pl.lit(family), key=pl.Series(texts)))
    schema = {"family": pl.String, "key": pl.String, "occurrence": pl.Int64, "chosen": pl.Int64}
    return pl.concat([part.select(*schema) for part in parts]) if parts else pl.DataFrame(schema=schema)


class Grid:
    """The grid interface of the d12 reference in test_patterns."""

    def __init__(self, cells: list[list[int]]) -> None:
        self.grid = cells
        self.size = len(cells)

    def cell(self, r: int, c: int) -> int:
        return self.grid[r][c] if 0 <= r < self.size and 0 <= c < self.size else 3


def trial_move(oracle: RulesOracle, colour: int, r: int, c: int) -> RulesOracle | None:
    """The position after ``colour`` plays (r, c) on a copy of ``oracle``; None if the move is illegal."""
    trial = RulesOracle(oracle.size)
    trial.cells = [row[:] for row in oracle.cells]
    trial.ko = oracle.ko
    return trial if trial.play(colour, r, c) is None else None


def tactical_cell(before: RulesOracle, after: RulesOracle, colour: int, point: tuple[int, int],
                  last: tuple[int, int] | None) -> int:
    """The tactical cell of a move, read off the boards before and after it is played: stones captured
    (0, 1, 2-3, 4+), whether the last move's stone was among them, the new chain's liberties (1, 2, 3,
    4+), whether an opponent chain next to it is left with one liberty, whether it joins a chain of
    its own colour that had one liberty."""
    size = before.size
    captured = [(r, c) for r in range(size) for c in range(size) if before.cells[r][c] == 3 - colour
                and after.cells[r][c] == 0]
    size_bin = 0 if not captured else 1 if len(captured) == 1 else 2 if len(captured) <= 3 else 3
    liberties = min(len(after.chain(*point)[1]), 4)
    atari = any(after.cells[r][c] == 3 - colour and len(after.chain(r, c)[1]) == 1 for r, c in after.neighbours(*point))
    escape = any(before.cells[r][c] == colour and len(before.chain(r, c)[1]) == 1 for r, c in before.neighbours(*point))
    return (((size_bin * 2 + (last in captured)) * 4 + liberties - 1) * 2 + atari) * 2 + escape


def reference_positions(game: GameMoves) -> list[dict]:
    """Every position before a board move: the legal points in row-major order and their raw keys.

    Returns dicts with the move number, the colour to move, the played point, the legal points and,
    per level and for d12, the raw (not canonical) key of each point (d12: None where it has none).
    """
    oracle = RulesOracle(game.board_size)
    for colour, r, c in game.setup:
        oracle.cells[r][c] = int(colour)
    size, last, before, positions = game.board_size, None, None, []
    for t, (colour, row, col) in enumerate(tuple(int(v) for v in move) for move in game.moves):
        if row >= 0:
            grid = oracle.cells
            libs = {}
            for r in range(size):
                for c in range(size):
                    if grid[r][c] and (r, c) not in libs:
                        stones, liberties = chain(grid, r, c)
                        libs.update(dict.fromkeys(stones, min(len(liberties), 3)))
            trials = {(r, c): trial_move(oracle, colour, r, c)
                      for r in range(size) for c in range(size) if grid[r][c] == 0}
            points = [point for point, trial in trials.items() if trial is not None]
            tactics = [tactical_cell(oracle, trials[point], colour, point, last) for point in points]
            keys = {}
            for name, cells in LEVEL_CELLS.items():
                keys[name] = []
                for r, c in points:
                    around = [(r + a, c + b) for a, b in cells]
                    digits = [grid[p][q] if 0 <= p < size and 0 <= q < size else 3 for p, q in around]
                    if name in WITH_LIBERTIES:
                        digits += [libs.get((p, q), 0) for p, q in around]
                    keys[name].append(digits_key([colour, *digits]))
            response = {}
            if last is not None and 2 <= last[0] <= size - 3 and 2 <= last[1] <= size - 3:
                response = d12_keys(Grid(grid), colour, last)
            keys[RESPONSE] = [response.get(p) for p in points]
            positions.append({"move": t + 1, "colour": colour, "played": (row, col), "points": points, "keys": keys,
                              "last": last, "before": before, "tactics": tactics, "size": size})
        assert oracle.play(colour, row, col) is None
        last, before = None if row < 0 else (row, col), last
    return positions


def canonical_keys(positions: list[dict]) -> None:
    """Replace every raw key by its canonical key under the 16 symmetries (one vectorised call per family)."""
    for name in [*LEVELS, RESPONSE]:
        flat = [k for pos in positions for k in pos["keys"][name] if k is not None]
        canonical = iter(group16(name).canonicalize(np.array(flat, dtype=np.int64))[0].tolist() if flat else [])
        for pos in positions:
            pos["keys"][name] = [None if k is None else next(canonical) for k in pos["keys"][name]]


def book_position(game: GameMoves, move: int) -> tuple | None:
    """The stones of the moves before ``move`` (1-based) as the smallest of their 8 images (sorted black, white
    points), and those symmetries; None outside the book (not 19x19, setup stones, a pass before, past BOOK_MOVES)."""
    if game.board_size != BOOK_SIZE or len(game.setup) or move > BOOK_MOVES or (game.moves[:move - 1, 1] < 0).any():
        return None
    images = point_images()
    played = [(int(c), int(r) * BOOK_SIZE + int(q)) for c, r, q in game.moves[:move - 1]]
    keys = [(tuple(sorted(images[g][p] for c, p in played if c == B)),
             tuple(sorted(images[g][p] for c, p in played if c == W))) for g in range(8)]
    return min(keys), [g for g in range(8) if keys[g] == min(keys)]


def reference_book(training: list[GameMoves]) -> tuple[Counter, Counter]:
    """Games reaching each book position and playing each (position, point): points as their smallest image
    under the symmetries that map the game onto the position's key."""
    nodes, edges = Counter(), Counter()
    images = point_images()
    for g in training:
        for move in range(1, min(len(g.moves), BOOK_MOVES) + 1):
            found = book_position(g, move)
            if found is not None and g.moves[move - 1, 1] >= 0:
                key, syms = found
                point = int(g.moves[move - 1, 1]) * BOOK_SIZE + int(g.moves[move - 1, 2])
                nodes[key] += 1
                edges[key, min(images[s][point] for s in syms)] += 1
    return nodes, edges


def reference_scores(pos: dict, counts: dict, weights: Weights) -> list[tuple[float, str | None]]:
    """The ranking model written out: per point, the weights of its largest level seen and the level
    below (rate and count bins), of its response pattern, of its distances to the last two moves, and
    of the game phase with the last-move distance, the largest level's rate and the response's rate;
    of every level's own bins; of the tactical cell; of the opening book's bins; of the game phase
    with the point's lines from the two nearest edges; then the dot product of the factors of every pair of
    those weights."""

    def bins(occurrence: int, chosen: int) -> tuple[int, int]:
        rate = (chosen + 0.5) / (occurrence + 1)
        return (min(math.floor(-2 * math.log2(rate)), RATE_BINS - 1),
                min(math.floor(math.log2(max(occurrence, 1))), COUNT_BINS - 1))

    def rate_cell(occurrence: int, chosen: int) -> int:
        rate, count = bins(occurrence, chosen)
        return rate * COUNT_BINS + count

    def distance(point: tuple[int, int], move: tuple[int, int] | None) -> int:
        if move is None:
            return 0
        dr, dc = abs(point[0] - move[0]), abs(point[1] - move[1])
        return min(dr + dc + max(dr, dc), DISTANCE_BINS - 1)

    n = len(weights.levels)
    phase = sum(pos["move"] >= first for first in (11, 31, 61, 101, 201))  # phases from moves 1, 11, ..., 201
    start = dict(zip(GROUPS, np.cumsum((0, *group_sizes(n)[:-1])).tolist(), strict=True))
    block = RATE_BINS * COUNT_BINS
    scores = []
    for i, point in enumerate(pos["points"]):
        seen = [counts.get((name, pos["keys"][name][i]), (0, 0)) for name in weights.levels]
        levels_seen = [lv for lv, (occurrence, _) in enumerate(seen) if occurrence >= 1]
        largest = levels_seen[0] if levels_seen else None
        below = None if largest is None or largest + 1 == n else largest + 1
        cells = {}
        for group, level in (("largest", largest), ("below", below)):
            rate, count = bins(*seen[level]) if level is not None else (0, 0)  # none: the cell after the levels'
            cells[group] = (n if level is None else level) * block + rate * COUNT_BINS + count
        largest_rate = ((n if largest is None else largest) * RATE_BINS
                        + (bins(*seen[largest])[0] if largest is not None else 0))
        response = counts.get((RESPONSE, pos["keys"][RESPONSE][i]), (0, 0))
        rate, count = bins(*response) if pos["keys"][RESPONSE][i] is not None and response[0] >= 1 else (RATE_BINS, 0)
        cells["response"] = rate * COUNT_BINS + count
        cells["last_move"], cells["move_before"] = distance(point, pos["last"]), distance(point, pos["before"])
        cells["phase_last_move"] = phase * DISTANCE_BINS + cells["last_move"]
        cells["phase_largest"] = phase * (n * RATE_BINS + 1) + largest_rate
        cells["phase_response"] = phase * (RATE_BINS + 1) + rate
        cells["tactics"] = pos["tactics"][i]
        reached, chosen = pos["book"][i]
        cells["book"] = rate_cell(reached, chosen) if reached >= 1 else block
        near, far = sorted(min(x, pos["size"] - 1 - x) for x in point)  # 0: the edge
        cells["phase_line"] = phase * LINES * LINES + min(near, LINES - 1) * LINES + min(far, LINES - 1)
        selected = []
        for group in GROUPS:
            if group == "level":  # one weight per level: its bins, or the level's "unseen" cell
                for lv, (occurrence, chosen) in enumerate(seen):
                    cell = rate_cell(occurrence, chosen) if occurrence >= 1 else block
                    selected.append(start[group] + lv * (block + 1) + cell)
            else:
                selected.append(start[group] + cells[group])
        score = sum(weights.vector[j] for j in selected)
        for a, j in enumerate(selected):
            for k in selected[a + 1:]:
                score = score + weights.factors[j] @ weights.factors[k]
        scores.append((float(score), None if largest is None else weights.levels[largest]))
    return scores


def counts_of(stats: pl.DataFrame) -> dict:
    """(family, canonical key) -> (occurrence, chosen) of every pattern."""
    return {(f, parse_key(k)): (o, c) for f, k, o, c in stats.iter_rows()}


def game(size: int, setup: list, moves: list) -> GameMoves:
    return GameMoves(
        size, np.array(setup, dtype=np.int16).reshape(-1, 3), np.array(moves, dtype=np.int16).reshape(-1, 3)
    )


def ascii_setup(text: str) -> tuple[int, list]:
    rows = ["".join(line.split()) for line in text.strip().splitlines()]
    return len(rows), [({"X": B, "O": W}[ch], r, c)
                       for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "XO"]


# ---------------------------------------------------------------------------------------------
# Keys, scores and ranks against the reference.


def check_positions(games: list[GameMoves], training: list[GameMoves]) -> None:
    stats = stats_frame(training)
    predictor = load_predictor(stats, weights=WEIGHTS, book=build_book(training))
    counts = counts_of(stats)
    nodes, edges = reference_book(training)
    images = point_images()
    hits = np.zeros((len(PHASES), len(TOP_K)), dtype=np.int64)
    positions = np.zeros(len(PHASES), dtype=np.int64)
    rank_sum, log_likelihood = 0, 0.0
    for g in games:
        expected = reference_positions(g)
        canonical_keys(expected)
        for pos in expected:
            found = book_position(g, pos["move"])
            pos["book"] = [(0, 0)] * len(pos["points"])
            if found is not None and nodes[found[0]]:
                key, syms = found
                pos["book"] = [(nodes[key], edges[key, min(images[s][r * BOOK_SIZE + c] for s in syms)])
                               for r, c in pos["points"]]
            got = score_position(predictor, g, moves=pos["move"] - 1)
            assert got.colour == pos["colour"]
            by_point = {(c.row, c.col): c for c in got.candidates}
            assert sorted(by_point) == pos["points"]
            scores = reference_scores(pos, counts, WEIGHTS)
            for i, point in enumerate(pos["points"]):
                cand = by_point[point]
                want = [pos["keys"][name][i] for name in [*LEVELS, RESPONSE]]
                assert [None if k is None else parse_key(k) for k in cand.keys] == want
                assert cand.score == pytest.approx(scores[i][0], rel=1e-12, abs=1e-9)  # sums in another order
                assert cand.family == scores[i][1]
                assert (cand.occurrence[-1], cand.chosen[-1]) == counts.get((RESPONSE, want[-1]), (0, 0))
                assert cand.book == pos["book"][i]
            order = sorted(range(len(scores)), key=lambda i: (-scores[i][0], i))
            assert [(c.row, c.col) for c in got.candidates] == [pos["points"][i] for i in order]
            rank = order.index(pos["points"].index(pos["played"])) + 1
            phase = next(i for i, (lo, hi) in enumerate(PHASES)
                         if lo <= pos["move"] and (hi is None or pos["move"] <= hi))
            positions[phase] += 1
            hits[phase] += [rank <= k for k in TOP_K]
            rank_sum += rank
            peak = max(score for score, _ in scores)  # the softmax of the scores, in plain floats
            total = math.fsum(math.exp(score - peak) for score, _ in scores)
            log_likelihood += scores[pos["points"].index(pos["played"])][0] - peak - math.log(total)
    result = evaluate(predictor, games)
    assert result["positions"] == positions.sum() and result["games"] == len(games)
    n = max(int(positions.sum()), 1)
    assert result["mean_rank"] == round(rank_sum / n, 3)
    assert result["log_likelihood"] == pytest.approx(log_likelihood / n, abs=1e-4)
    for i, k in enumerate(TOP_K):
        assert result[f"top{k}"] == (round(hits[:, i].sum() / positions.sum(), 4) if positions.sum() else 0.0)
        for p, values in enumerate(result["phases"].values()):
            assert values["positions"] == positions[p]
            assert values[f"top{k}"] == (round(hits[p, i] / positions[p], 4) if positions[p] else 0.0)
