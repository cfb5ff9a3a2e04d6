"""Pattern extraction against a slow, per-position reference (extract_reference.py) on real and random games, plus
hand-made d12 cases."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards

from gopat.transforms.games.packed import GameMoves
from gopat.transforms.patterns.extract import extract, extract_patterns
from gopat.transforms.patterns.families import DEFAULT_FAMILIES, PREDICTION_FAMILIES
from gopat.transforms.patterns.keys import parse_key
from tests.transforms.games.rules import RulesOracle
from tests.transforms.patterns.extract_reference import (
    ALL_FAMILIES,
    BLOCK_ORDER,
    CANDIDATE_OFFSETS,
    B,
    W,
    as_counts,
    merge,
    reference_counts,
    reference_events,
)


@pytest.mark.parametrize(("families", "n_games"), [(DEFAULT_FAMILIES, 20), (PREDICTION_FAMILIES, 8)])
def test_all_families_match_the_reference_on_real_games(real_games, families, n_games):
    games = sorted(real_games, key=lambda game: -len(game[0].setup))[:n_games]  # both handicap games first
    frame, chosen_events = extract_patterns([game for game, _, _ in games], families=families)
    expected = reference_counts([(game.board_size, start, plays) for game, start, plays in games], families)
    got = as_counts(frame)
    for family in families:
        mine = {k: v for k, v in got.items() if k[0] == family}
        theirs = {k: v for k, v in expected.items() if k[0] == family}
        assert len(mine) == len(theirs), family
        assert mine == theirs, family
        assert chosen_events[family] == sum(v[1] for v in theirs.values())
    assert set(frame["family"].unique(maintain_order=True)) == set(families)


def test_totals_on_real_games(real_games):
    games = [game for game, _, _ in real_games]
    frame, chosen_events = extract_patterns(games, families=ALL_FAMILIES)
    sums = {f: (o, c) for f, o, c in frame.group_by("family").agg(pl.col("occurrence").sum(),
                                                                   pl.col("chosen").sum()).iter_rows()}
    candidates, board_moves = 0, 0
    for game, start, plays in real_games:
        board = start.copy()
        for colour, point in plays:
            if point is not None:
                candidates += sum(board.get(r, c) is None for r in range(game.board_size)
                                  for c in range(game.board_size))
                board_moves += 1
                board.play(point[0], point[1], colour)
    for family in CANDIDATE_OFFSETS:
        assert sums[family] == (candidates, board_moves) and chosen_events[family] == board_moves
    assert sums["blk4"] == (4 * candidates, 4 * board_moves) and chosen_events["blk4"] == 4 * board_moves
    assert sums["d12"][1] == chosen_events["d12"] > 0
    assert (frame["chosen"] <= frame["occurrence"]).all()
    assert (frame.filter(pl.col("family") != "blk4")["result"] == 0).all()


def test_one_shard_equals_the_sum_of_single_games(real_games):
    games = [game for game, _, _ in real_games[:4]]
    families = ("sq3", "blk4", "d12", "lib9")
    whole = as_counts(extract_patterns(games, families=families)[0])
    parts: dict = {}
    for game in games:
        merge(parts, as_counts(extract_patterns([game], families=families)[0]))
    assert whole == parts


def test_chosen_events_are_the_reference_keys_of_each_move_in_order(real_games):
    games = real_games[:6]
    families = ("sq3", "d12", "dia13", "lib9")
    extracted = extract([game for game, _, _ in games], families=families)
    expected = reference_events([(game.board_size, start, plays) for game, start, plays in games], families)
    assert extracted.events.rows() == sorted(expected, key=lambda event: (families.index(event[0]), *event[1:3]))
    assert extracted.events.group_by("family").len().sort("family").rows() == sorted(
        extracted.chosen_events.items())
    assert extracted.counts.equals(extract_patterns([game for game, _, _ in games], families=families)[0])


def legal_here(oracle: RulesOracle, colour: int, r: int, c: int) -> bool:
    trial = RulesOracle(oracle.size)
    trial.cells = [row[:] for row in oracle.cells]
    trial.ko = oracle.ko
    return trial.play(colour, r, c) is None


@st.composite
def random_games(draw):
    size = draw(st.one_of(st.integers(2, 9), st.just(25)))
    oracle = RulesOracle(size)
    setup = []
    for _ in range(draw(st.integers(0, 3))):
        colour, r, c = draw(st.sampled_from((B, W))), draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))
        if legal_here(oracle, colour, r, c) and not any(
            oracle.cells[rr][cc] == 3 - colour and len(oracle.chain(rr, cc)[1]) == 1
            for rr, cc in oracle.neighbours(r, c)
        ):  # setup stones never capture: keep only those that take no chain's last liberty
            setup.append((colour, r, c))
            oracle.cells[r][c] = colour
    moves, colour = [], B
    for _ in range(draw(st.integers(0, 60))):
        if draw(st.integers(0, 9)) == 0:
            moves.append((colour, -1, -1))
            oracle.play(colour, -1, -1)
        else:
            legal = [(r, c) for r in range(size) for c in range(size) if legal_here(oracle, colour, r, c)]
            if not legal:
                break
            r, c = draw(st.sampled_from(legal))
            assert oracle.play(colour, r, c) is None
            moves.append((colour, r, c))
        colour = 3 - colour
    return size, setup, moves


def sgfmill_start(size: int, setup: list) -> tuple[boards.Board, list]:
    start = boards.Board(size)
    for colour, r, c in setup:
        start.play(size - 1 - r, c, "b" if colour == B else "w")
    return start


@settings(max_examples=40, deadline=None)
@given(games=st.lists(random_games(), min_size=1, max_size=3))
def test_all_families_match_the_reference_on_random_small_board_games(games):
    packed, reference_games = [], []
    for size, setup, moves in games:
        packed.append(GameMoves(size, np.array(setup, dtype=np.int16).reshape(-1, 3),
                                np.array(moves, dtype=np.int16).reshape(-1, 3)))
        plays = [("b" if colour == B else "w", None if r < 0 else (size - 1 - r, c)) for colour, r, c in moves]
        reference_games.append((size, sgfmill_start(size, setup), plays))
    expected = reference_counts(reference_games)
    frame, chosen_events = extract_patterns(packed, families=ALL_FAMILIES)
    assert as_counts(frame) == expected
    for family in ALL_FAMILIES:
        assert chosen_events[family] == sum(v[1] for k, v in expected.items() if k[0] == family)


def d12_frame(setup: list, moves: list, size: int = 19) -> dict:
    game = GameMoves(
        size, np.array(setup, dtype=np.int16).reshape(-1, 3), np.array(moves, dtype=np.int16).reshape(-1, 3)
    )
    frame, chosen_events = extract_patterns([game], families=("d12",))
    counts = {key: (o, c) for _, key, o, c, _ in frame.iter_rows()}
    assert chosen_events["d12"] == sum(c for _, c in counts.values())
    return counts


def test_d12_worked_example_of_docs_patterns():
    # black stone above L; white plays L in the centre; black answers below L
    counts = d12_frame(setup=[(B, 7, 9)], moves=[(W, 9, 9), (B, 11, 9)])
    example = parse_key("110000020000013000003000003")
    assert counts[example] == (1, 1)
    # black on (0,1) instead: the hand-computed hash, white keeps 3 liberties, the new stone 3
    assert counts[parse_key("1" "1000002100000" "3000003300000")] == (1, 0)
    # one key per empty diamond point (11: the black stone fills one), all black to move
    assert len(counts) == 11 and sum(o for o, _ in counts.values()) == 11
    assert all(key >> 52 == 1 for key in counts)


def test_d12_liberties_are_counted_with_no_captures_removed():
    # white plays into black's mouth at L; black fills the last liberty below: white keeps 0 liberties
    counts = d12_frame(setup=[(B, 8, 9), (B, 9, 8), (B, 9, 10)], moves=[(W, 9, 9), (B, 10, 9)])
    assert counts[parse_key("1" "0010012100100" "0030030300300")] == (1, 1)


def test_d12_chain_liberties_and_opponent_losing_one():
    # a black chain of two (L's neighbours) and white L with two liberties before S is placed
    counts = d12_frame(setup=[(B, 8, 9), (B, 8, 10), (B, 9, 8)], moves=[(W, 9, 9), (B, 9, 10)])
    # S = (0,1): black stone joins (8,10) -> chain (8,9),(8,10),(9,10) with liberties
    # (7,9),(8,8),(7,10),(8,11),(9,11),(10,10) -> 3; white L keeps only (10,9) -> 1
    key = parse_key("1" "0011012100000" "0033031300000")
    assert counts[key] == (1, 1)


@pytest.mark.parametrize(("last", "rows"), [((1, 9), 0), ((9, 1), 0), ((17, 9), 0), ((9, 17), 0),
                                            ((0, 0), 0), ((2, 9), 12), ((9, 16), 12), ((16, 16), 12)])
def test_d12_last_move_on_the_first_or_second_line_is_skipped(last, rows):
    counts = d12_frame(setup=[], moves=[(W, *last), (B, 5, 5)])
    assert sum(o for o, _ in counts.values()) == rows


def test_d12_pass_resets_the_last_move_and_the_first_move_has_none():
    assert d12_frame(setup=[], moves=[(B, 9, 9)]) == {}
    assert d12_frame(setup=[], moves=[(B, 9, 9), (W, -1, -1), (B, 5, 5)]) == {}
    assert sum(o for o, _ in d12_frame(setup=[], moves=[(B, 9, 9), (W, 5, 5)]).values()) == 12
    # a position followed by a pass is not counted either: white to move before the pass
    counts = d12_frame(setup=[], moves=[(B, 9, 9), (W, 5, 5), (B, -1, -1)])
    assert all(key >> 52 == 2 for key in counts) and sum(o for o, _ in counts.values()) == 12


def test_candidate_families_on_a_two_by_two_board():
    game = GameMoves(2, np.zeros((0, 3), dtype=np.int16), np.array([(B, 0, 0), (W, 1, 1)], dtype=np.int16))
    frame, chosen_events = extract_patterns([game], families=("sq3", "blk4"))
    counts = {(f, k): (o, c, r) for f, k, o, c, r in frame.iter_rows()}
    # first position (black to move, empty board): one key per corner; black plays the top left
    assert counts[("sq3", parse_key("1" "333" "300" "300"))] == (1, 1, 0)
    assert counts[("sq3", parse_key("1" "333" "003" "003"))] == (1, 0, 0)
    # second position: white to move, black on (0,0); white plays (1,1)
    assert counts[("sq3", parse_key("2" "310" "300" "333"))] == (1, 0, 0)  # candidate (1,0)
    assert counts[("sq3", parse_key("2" "103" "003" "333"))] == (1, 1, 0)  # (1,1), played
    assert chosen_events == {"sq3": 2, "blk4": 8}
    # the 4x4 block whose top-left cell is the board's (0,0): its centre 2x2 holds only (1,1) on the board.
    # Quadrant order A-1 A-2 A-3 A-4 = board (0,0) (0,1) (1,0) (1,1); B, C, D cells are all off the board.
    # White plays (1,1) = cell A-4: result 10 in A-4's two bits.
    block = parse_key("2" "1000" "3333" "3333" "3333")
    assert counts[("blk4", block)] == (1, 1, 2 << (2 * (15 - 3)))


def test_blk4_result_mask_marks_who_played_where():
    # on an empty 19x19 board black plays (9,9): it sits in cell A-4 of the block with top-left (8,8)
    game = GameMoves(19, np.zeros((0, 3), dtype=np.int16), np.array([(B, 9, 9)], dtype=np.int16))
    frame, _ = extract_patterns([game], families=("blk4",))
    empty_block = 1 << 32
    row = frame.filter(pl.col("key") == empty_block).row(0, named=True)
    # the four blocks around (9,9) have the same (empty) key: chosen 4, p sits once in each centre cell
    # A-4, B-4, C-4, D-4 -> mask 01 in each of those 2-bit cells
    mask = sum(1 << (2 * (15 - BLOCK_ORDER.index(name))) for name in ("A-4", "B-4", "C-4", "D-4"))
    assert row["chosen"] == 4 and row["result"] == mask
    # a 4x4 block lies wholly on a 19x19 board at 16 x 16 places, each with 4 empty centre cells
    assert row["occurrence"] == 16 * 16 * 4


def test_bad_input_is_a_value_error():
    legal = GameMoves(5, np.zeros((0, 3), dtype=np.int16), np.array([(B, 0, 0)], dtype=np.int16))
    with pytest.raises(ValueError, match=r"families must be distinct names"):
        extract_patterns([legal], families=("nope",))
    illegal = GameMoves(5, np.zeros((0, 3), dtype=np.int16), np.array([(B, 0, 0), (W, 0, 0)], dtype=np.int16))
    with pytest.raises(ValueError, match="occupied"):
        extract_patterns([legal, illegal])
    off = GameMoves(5, np.zeros((0, 3), dtype=np.int16), np.array([(B, 5, 0)], dtype=np.int16))
    with pytest.raises(ValueError, match="off_board"):
        extract_patterns([off])
    frame, chosen_events = extract_patterns([])
    assert frame.is_empty() and chosen_events == dict.fromkeys(DEFAULT_FAMILIES, 0)
