"""Fuzzing `parse_games`: records that describe a playable board, or one of the documented rejections.

An intact real record is also read by sgfmill, an independent parser: both give the same moves.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import sgf, sgf_moves

from gopat.transforms.games.board import BLACK, MAX_SIZE, MIN_SIZE, WHITE
from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.parsing import HEADER_KEYS, PASS, GameRecord, parse_collection, parse_games
from tests.fuzz.strategies import CI, documented_codes, real_files, seed_files, sgf_files

NAME = "parsing"
REASONS = documented_codes(parse_collection.__doc__, after="Raises")


def inputs(seeds: tuple[bytes, ...]) -> st.SearchStrategy[bytes]:
    """Mutated SGF files."""
    return sgf_files(seeds)


def check_record(record: GameRecord) -> None:
    """A record's board, setup and moves are on a supported board; headers are trimmed text."""
    size = record.board_size
    assert MIN_SIZE <= size <= MAX_SIZE, size
    for colour, row, col in record.moves:
        assert colour in (BLACK, WHITE), colour
        assert (row, col) == (PASS, PASS) or (0 <= row < size and 0 <= col < size), (row, col, size)
    points = [(row, col) for _, row, col in record.setup]
    assert len(set(points)) == len(points) and list(record.setup) == sorted(record.setup)
    assert all(colour in (BLACK, WHITE) and 0 <= r < size and 0 <= c < size for colour, r, c in record.setup)
    assert set(record.headers) == set(HEADER_KEYS)
    assert all(v is None or (isinstance(v, str) and v == v.strip() and v) for v in record.headers.values())
    assert record.encoding and all(isinstance(flag, str) and flag for flag in record.flags)


def sgfmill_moves(data: bytes) -> list[tuple[int, int, int]] | None:
    """The main line as sgfmill reads it, in our coordinates (row 0 = top), or None if it cannot."""
    try:
        game = sgf.Sgf_game.from_bytes(data)
        size = game.get_size()
        _, plays = sgf_moves.get_setup_and_moves(game)
    except ValueError:
        return None
    return [
        (BLACK if colour == "b" else WHITE, *((PASS, PASS) if point is None else (size - 1 - point[0], point[1])))
        for colour, point in plays
    ]


def check_rejection(error: RejectError) -> None:
    """A rejection carries a documented reason and a message."""
    assert error.reason in REASONS and str(error), (error.reason, str(error))


def check(data: bytes, real: frozenset[bytes] = frozenset()) -> None:
    """Raise AssertionError when a record or rejection breaks the contract; ``real``: the intact seeds."""
    try:
        records = parse_games(data)
    except RejectError as error:
        check_rejection(error)
        return
    assert records, "no record and no rejection"
    indexes = [record.tree_index for record in records]
    assert indexes == sorted(set(indexes)) and indexes[0] >= 0, indexes
    for record in records:
        check_record(record)
    if data in real and "move_off_board" not in records[0].flags:
        expected = sgfmill_moves(data)
        assert expected is None or list(records[0].moves) == expected, "moves differ from sgfmill's"


def reproducer(data: bytes) -> bytes:
    """The bytes to save for a failing input."""
    return data


@settings(CI, max_examples=800)
@given(data=st.data())
def test_parsing_survives_fuzzed_files(tiny_archive: Path, hostile_dir: Path, data: st.DataObject) -> None:
    check(data.draw(inputs(seed_files(tiny_archive, hostile_dir))), frozenset(real_files(tiny_archive)))
