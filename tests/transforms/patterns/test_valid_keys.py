"""Key texts checked against what a position can produce (docs/patterns.md#valid-keys)."""

from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from gopat.transforms.games.board import BLACK, WHITE
from gopat.transforms.games.packed import GameMoves
from gopat.transforms.patterns.extract import extract_patterns
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string
from gopat.transforms.patterns.valid_keys import parse_family_key


def _accepted(family: str, text: str) -> bool:
    """Whether the text is accepted; a rejection quotes the text as typed."""
    try:
        key = parse_family_key(family, text)
    except ValueError as error:
        message = str(error)
    else:
        assert key_string(key, FAMILIES[family].layout.n_digits) == text  # accepted keys round-trip
        return True
    assert message.startswith(f"{text!r} is not a {family} key: "), message
    return False


@st.composite
def games(draw: st.DrawFn) -> GameMoves:
    """A random position from setup stones (any pattern, even chains without liberties), then a few moves."""
    size = draw(st.sampled_from([2, 3, 4, 5, 6, 7, 9, 19]))
    points = [(r, c) for r in range(size) for c in range(size)]
    stones = draw(st.lists(st.sampled_from(points), unique=True, max_size=min(len(points), 60)))
    split = draw(st.integers(max(0, len(stones) - 4), len(stones)))  # at most 4 moves: 4 positions
    setup = [(draw(st.sampled_from([BLACK, WHITE])), r, c) for r, c in stones[:split]]
    first = draw(st.sampled_from([BLACK, WHITE]))
    moves = [(first if i % 2 == 0 else BLACK + WHITE - first, r, c) for i, (r, c) in enumerate(stones[split:])]
    return GameMoves(size, np.array(setup, dtype=np.int16).reshape(-1, 3),
                     np.array(moves, dtype=np.int16).reshape(-1, 3))


@settings(max_examples=20, deadline=None)
@given(games())
def test_every_key_the_extraction_produces_is_accepted(game: GameMoves) -> None:
    try:
        frame, _ = extract_patterns([game], families=tuple(FAMILIES))
    except ValueError:  # a random move was suicide: not a game
        reject()
    for family, key in {(f, k) for f, k in frame.select("family", "key").iter_rows()}:
        text = key_string(key, FAMILIES[family].layout.n_digits)
        assert _accepted(family, text), (family, text)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(FAMILIES)), st.data())
def test_random_integers_are_accepted_and_round_trip_or_rejected_quoting_the_input(family: str, data: st.DataObject
                                                                                  ) -> None:
    n = FAMILIES[family].layout.n_digits
    key = data.draw(st.integers(0, 4**n - 1))
    _accepted(family, key_string(key, n))
    _accepted(family, data.draw(st.text(alphabet="01234 x", max_size=n + 1)))


def _sq3_keys_of_real_boards() -> set[str]:
    """Every sq3 key of every board size and empty point: each filling of the on-board cells (the slow reference)."""
    keys = set()
    for size in range(2, 6):  # from 5x5 on, no 3x3 window sees two opposite edges
        for r, c in itertools.product(range(size), repeat=2):
            window = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
            on = [i for i, (pr, pc) in enumerate(window) if 0 <= pr < size and 0 <= pc < size and i != 4]
            for stones in itertools.product("012", repeat=len(on)):
                cells = ["3"] * 9
                cells[4] = "0"
                for i, stone in zip(on, stones, strict=True):
                    cells[i] = stone
                keys |= {"1" + "".join(cells), "2" + "".join(cells)}
    return keys


def test_sq3_accepts_exactly_the_keys_of_real_boards() -> None:
    real = _sq3_keys_of_real_boards()
    assert all(_accepted("sq3", text) for text in real)
    sample = random.Random(7).sample(range(4**10), 20_000)
    assert all(_accepted("sq3", key_string(key, 10)) == (key_string(key, 10) in real) for key in sample)


@pytest.mark.parametrize(("family", "text", "reason"), [
    ("sq3", "1333333333", "the centre cell is the empty candidate point (0), got 3"),
    ("sq3", "3000000000", "the first digit is the colour to move, 1 (Black) or 2 (White), got 3"),
    ("sq3", "0000000000", "the first digit is the colour to move"),
    ("sq3", "1303000000", "the off-board cells (3) are not the part of the pattern beyond a board's edges"),
    ("sq3", "100000000", "a sq3 key has 10 digits, got 9"),
    ("sq3", "10000000004", "a sq3 key has 10 digits, got 11"),
    ("sq3", "100000000x", "the digits of a key are 0, 1, 2 and 3, got 'x'"),
    ("blk4", "1" + "3" * 16, "none of the centre 2x2 cells is an empty candidate point (0)"),
    ("d12", "1" + "0" * 26, "the centre cell is the last move, a stone (1 or 2), got 0"),
    ("d12", "1" + "0000002000000" + "0000003000000", "no stone of the colour to move around the last move"),
    ("d12", "1" + "3010002000000" + "0" * 13, "the whole pattern around the last move is on the board: no cell is 3"),
    ("lib9", "1" + "000000000" + "100000000", "cell 0 is empty, so its liberty digit is 0, got 1"),
    ("lib9", "1" + "110000000" + "320000000", "the stones of one chain (cells [0, 1]) have different liberty"),
    ("lib9", "1" + "010000000" + "020000000", "has at least 3 liberties in the pattern, so its liberty digit is at"),
    ("lib5", "1" + "33303" + "00000", "the centre cell is the empty candidate point"),
])
def test_impossible_keys_are_rejected_with_the_reason(family: str, text: str, reason: str) -> None:
    quoted = re.escape(f"{text!r} is not a {family} key: ")
    with pytest.raises(ValueError, match=f"^{quoted}.*{re.escape(reason)}"):
        parse_family_key(family, text)


def test_the_keys_of_the_docs_are_accepted() -> None:
    for family, text in [("d12", "110000020000013000003000003"), ("d12", "100001020100000000303030000"),
                         ("sq3", "1333300300"), ("sq3", "2003003003"), ("blk4", "1" + "0" * 16)]:
        assert _accepted(family, text), text


def test_a_chain_inside_the_pattern_has_exactly_its_liberties() -> None:
    # lib13: a black stone at the diamond's centre-left point, every neighbour inside the diamond
    n = len(FAMILIES["lib13"].layout.points)
    stones, liberties = ["0"] * n, ["0"] * n
    stones[5], liberties[5] = "1", "2"  # (0,-1): neighbours (0,-2), (-1,-1), (1,-1), (0,0), all empty -> 3
    with pytest.raises(ValueError, match="lies inside the pattern with 4 liberties, so its liberty digit is 3, got 2"):
        parse_family_key("lib13", "1" + "".join(stones) + "".join(liberties))
    liberties[5] = "3"
    assert _accepted("lib13", "1" + "".join(stones) + "".join(liberties))


def test_unknown_family() -> None:
    with pytest.raises(ValueError, match="unknown family 'sq4'"):
        parse_family_key("sq4", "1000000000")
