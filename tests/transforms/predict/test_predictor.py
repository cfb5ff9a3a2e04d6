"""Move prediction against a slow reference: legal points, canonical keys, features, scores and ranks, per position."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.games.packed import GameMoves
from gopat.transforms.patterns.canonical import key_strings
from gopat.transforms.patterns.keys import parse_key
from gopat.transforms.predict.candidates import tactics_text
from gopat.transforms.predict.predictor import (
    LEVELS,
    PHASES,
    RESPONSE,
    evaluate,
    levels,
    load_predictor,
    score_position,
)
from gopat.transforms.predict.ranking import COUNT_BINS, RATE_BINS, Weights, load_weights
from tests.transforms.games.rules import RulesOracle
from tests.transforms.predict.reference import (
    WEIGHTS,
    B,
    W,
    ascii_setup,
    check_positions,
    game,
    group16,
    stats_frame,
    trial_move,
)


@st.composite
def small_games(draw) -> GameMoves:
    """A random legal game on a 5x5 to 9x9 board: captures, ko, suicide points, passes, setup stones."""
    size = draw(st.integers(5, 9))
    oracle = RulesOracle(size)
    setup = []
    for _ in range(draw(st.integers(0, 3))):
        r, c = draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))
        if oracle.cells[r][c] == 0:
            setup.append((B, r, c))
            oracle.cells[r][c] = B
    moves, colour = [], W if setup else B
    for _ in range(draw(st.integers(0, 50))):
        if draw(st.integers(0, 12)) == 0:
            row, col = -1, -1
        else:
            points = [(r, c) for r in range(size) for c in range(size) if oracle.cells[r][c] == 0]
            row, col = draw(st.sampled_from(points)) if points else (-1, -1)
            if trial_move(oracle, colour, row, col) is None:
                continue
        assert oracle.play(colour, row, col) is None
        moves.append((colour, row, col))
        colour = 3 - colour
    return game(size, setup, moves)


@settings(max_examples=15, deadline=None, print_blob=True)
@given(packed=st.lists(small_games(), min_size=2, max_size=4), data=st.data())
def test_keys_scores_and_ranks_match_the_reference_on_random_small_board_games(packed, data):
    training = data.draw(st.lists(st.sampled_from(packed), min_size=1, max_size=len(packed)))
    check_positions(packed[:2], training + packed[2:])


def test_keys_scores_and_ranks_match_the_reference_on_real_games(real_games):
    games = [g for g, _, _ in real_games]
    test = [GameMoves(g.board_size, g.setup, g.moves[:40]) for g in games[:2]]
    check_positions(test, [*games[2:], games[0]])


def test_a_game_in_its_own_statistics_matches_its_largest_pattern_every_time(real_games):
    games = [g for g, _, _ in real_games]
    result = evaluate(load_predictor(stats_frame(games[:6]), weights=WEIGHTS), games[:6])
    assert result["matched"][LEVELS[0]] == 1.0 and result["matched"]["none"] == 0.0
    assert result["positions"] == sum(int((g.moves[:, 1] >= 0).sum()) for g in games[:6])
    numbers = np.concatenate([np.flatnonzero(g.moves[:, 1] >= 0) + 1 for g in games[:6]])  # board moves' numbers
    assert [v["positions"] for v in result["phases"].values()] == [
        int(((numbers >= lo) & (numbers <= (hi or 10**6))).sum()) for lo, hi in PHASES]
    assert list(result["phases"]) == ["1-30", "31-100", "101-200", "201+"] and numbers.max() > 200
    assert result["top1"] <= result["top5"] <= result["top10"] <= 1.0


# ---------------------------------------------------------------------------------------------
# Hand-checked positions.


def rate_weights(names: tuple[str, ...]) -> Weights:
    """Weights that rank by the largest level's chosen rate alone (rate bin 0 best), below any seen pattern: none."""
    vector = Weights.zeros(names, response=RESPONSE, distance=False).vector
    rate_bin = np.repeat(np.arange(RATE_BINS), COUNT_BINS)
    vector[:len(names) * RATE_BINS * COUNT_BINS] = -np.tile(rate_bin, len(names))
    vector[len(names) * RATE_BINS * COUNT_BINS] = -RATE_BINS
    return Weights(levels=names, response=RESPONSE, distance=False, vector=vector)


CAPTURE = """
. . . . .
. X O X .
. . X . .
. . . . .
. . . . .
"""


def test_a_capture_learned_from_statistics_ranks_first_with_its_counts():
    # black to move; the white stone at (1,2) has one liberty, (0,2): capturing there is the lib5 pattern
    # centre (0,2) empty, up off-board, left (0,1) empty, right (0,3) empty, down (1,2) white with 1 liberty
    size, setup = ascii_setup(CAPTURE)
    raw = parse_key("1" "30002" "00001")  # stone digits (-1,0) (0,-1) (0,0) (0,1) (1,0), then liberties
    key = group16("lib5").canonical(raw)
    stats = pl.DataFrame({"family": ["lib5", "sq3"], "key": [key_strings(np.array([key]), 11)[0], "1000000000"],
                          "occurrence": [10, 50], "chosen": [9, 50]})
    weights = rate_weights(("lib5",))
    position = score_position(load_predictor(stats, weights=weights), game(size, setup, []), moves=0)
    best = position.candidates[0]
    assert (best.row, best.col) == (0, 2) and position.colour == B
    assert best.family == "lib5" and (best.occurrence[-2], best.chosen[-2]) == (10, 9)
    assert sum(c.probability for c in position.candidates) == pytest.approx(1.0)
    # every other point has the same features (nothing seen, no last move), so one score, in row-major order;
    # the sq3 row was ignored
    assert len({c.score for c in position.candidates[1:]}) == 1
    assert all(c.family is None for c in position.candidates[1:])
    assert best.probability > position.candidates[1].probability
    rest = [(c.row, c.col) for c in position.candidates[1:]]
    assert rest == sorted(rest) and len(rest) == 25 - 4 - 1


TACTICS = """
O . . . . . . . X
X X . . . . . . O
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. O . . . . . . .
. . O O . . . . .
"""


def test_tactical_cells_of_hand_checked_points():
    # white has just played (0,1): its two stones in the corner have one liberty left, (0,2)
    size, setup = ascii_setup(TACTICS)
    predictor = load_predictor(pl.DataFrame(schema={"family": pl.String, "key": pl.String,
                                                    "occurrence": pl.Int64, "chosen": pl.Int64}))
    position = score_position(predictor, game(size, setup, [(W, 0, 1)]), moves=1)
    assert position.colour == B
    tactics = {(c.row, c.col): tactics_text(c.tactics) for c in position.candidates}
    assert tactics[(0, 2)] == "captures 2-3 (the last move), 3 liberties"
    assert tactics[(0, 7)] == "2 liberties, escapes atari"  # joins the black stone in atari at (0,8)
    assert tactics[(1, 7)] == "3 liberties, atari"  # the white stone at (1,8) keeps one liberty
    assert tactics[(8, 1)] == "1 liberty"  # self-atari; the white stones keep 3 liberties each
    assert tactics[(4, 4)] == "4+ liberties"


SUICIDE_AND_KO = """
. X O . .
X O . O .
. X O . .
X . X . .
. X . . .
"""


def test_suicide_and_ko_recapture_points_are_not_candidates():
    size, setup = ascii_setup(SUICIDE_AND_KO)
    predictor = load_predictor(pl.DataFrame(schema={"family": pl.String, "key": pl.String,
                                                    "occurrence": pl.Int64, "chosen": pl.Int64}))
    black = {(c.row, c.col) for c in score_position(predictor, game(size, setup, []), moves=0).candidates}
    assert {(1, 2), (3, 1)} <= black and len(black) == 25 - 10  # its own eye and the capture are legal
    # black captures (1,1) at (1,2): white may neither retake at once (ko) nor fill black's eye (suicide)
    taken = game(size, setup, [(B, 1, 2), (W, -1, -1), (B, -1, -1)])
    white = score_position(predictor, taken, moves=1)
    empty = {(r, c) for r, row in enumerate(white.board) for c, ch in enumerate(row) if ch == "."}
    # (1,1): ko; (3,1), and the edge points (0,0), (2,0), (4,0) between black stones: suicide
    assert white.colour == W
    assert {(c.row, c.col) for c in white.candidates} == empty - {(1, 1), (3, 1), (0, 0), (2, 0), (4, 0)}
    # after a pass each the ko is lifted
    later = score_position(predictor, taken, moves=3)
    assert later.colour == W and (1, 1) in {(c.row, c.col) for c in later.candidates}
    assert all(c.family is None and c.keys[-1] is None for c in later.candidates)


def test_colour_to_move_and_move_bounds():
    predictor = load_predictor(pl.DataFrame(schema={"family": pl.String, "key": pl.String,
                                                    "occurrence": pl.Int64, "chosen": pl.Int64}))
    handicap = game(9, [(B, 2, 2), (B, 6, 6)], [])
    assert score_position(predictor, handicap, moves=0).colour == W
    played = game(9, [], [(B, 4, 4), (W, 2, 2)])
    assert [score_position(predictor, played, moves=n).colour for n in (0, 1, 2)] == [B, W, B]
    assert score_position(predictor, played, moves=2).last == (2, 2)
    assert score_position(predictor, played, moves=2).board[4][4] == "X"
    for bad in (-1, 3, True):
        with pytest.raises(ValueError, match=r"the move number must be within"):
            score_position(predictor, played, moves=bad)


def test_levels_and_weights_reject_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"is not a candidate pattern family"):
        levels(["blk4"])
    with pytest.raises(ValueError, match=r"levels must be distinct family names"):
        levels(["dia29", "dia29"])
    with pytest.raises(ValueError, match=r"is not a last_move family with liberties"):
        levels(["lib5"], response="sq3")
    with pytest.raises(ValueError, match="do not fit"):
        Weights(levels=("lib5",), response=RESPONSE, distance=True, vector=WEIGHTS.vector)
    (tmp_path / "w.json").write_text('{"levels": ["lib5"]}')
    with pytest.raises(ValueError, match="not a weights file"):
        load_weights(tmp_path / "w.json")
    empty = load_predictor(pl.DataFrame(schema={"family": pl.String, "key": pl.String,
                                                "occurrence": pl.Int64, "chosen": pl.Int64}))
    assert evaluate(empty, [])["positions"] == 0


def test_statistics_load_in_batches_as_in_one_frame(real_games):
    stats = stats_frame([g for g, _, _ in real_games][:3])
    whole = load_predictor(stats, weights=WEIGHTS)
    parts = load_predictor((stats.slice(i, 500) for i in range(0, len(stats), 500)), weights=WEIGHTS, rows=len(stats))
    assert np.array_equal(whole.table, parts.table) and whole.n_patterns == parts.n_patterns == len(stats)
    with pytest.raises(ValueError, match="announced"):
        load_predictor(iter([stats]), weights=WEIGHTS, rows=len(stats) - 1)
    with pytest.raises(ValueError, match="number of rows"):
        load_predictor(iter([stats]), weights=WEIGHTS)
