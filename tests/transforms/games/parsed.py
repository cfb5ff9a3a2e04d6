"""Helpers of the parse_games tests: one record, one reject reason, every record's invariants, sgfmill's reading."""

import re

import pytest
from sgfmill import sgf, sgf_moves

from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.parsing import HEADER_KEYS, GameRecord, parse_games

SNAKE = re.compile(r"[a-z][a-z0-9_]*\Z")


def only(data: bytes) -> GameRecord:
    records = parse_games(data)
    assert len(records) == 1
    return records[0]


def reason(data: bytes) -> str:
    with pytest.raises(RejectError) as caught:
        parse_games(data)
    return caught.value.reason


def check_invariants(records: list[GameRecord]) -> None:
    assert records
    indexes = [r.tree_index for r in records]
    assert indexes == sorted(set(indexes))
    for r in records:
        assert tuple(r.headers) == HEADER_KEYS
        assert all(v is None or (v == v.strip() and v) for v in r.headers.values())
        assert 2 <= r.board_size <= 25
        for colour, row, col in r.setup:
            assert colour in (1, 2) and 0 <= row < r.board_size and 0 <= col < r.board_size
        for colour, row, col in r.moves:
            assert colour in (1, 2)
            assert (row, col) == (-1, -1) or (0 <= row < r.board_size and 0 <= col < r.board_size)
        assert len(set(r.flags)) == len(r.flags) and all(SNAKE.match(f) for f in r.flags)
        assert ("no_moves" in r.flags) == (not r.moves)


def sgfmill_reference(data: bytes) -> tuple[int, tuple, tuple]:
    """Board size, sorted setup and main-line moves in our coordinates, read by sgfmill."""
    game = sgf.Sgf_game.from_bytes(data)
    board, plays = sgf_moves.get_setup_and_moves(game)
    size = game.get_size()

    def colour(c: str) -> int:
        return 1 if c == "b" else 2

    setup = tuple(
        sorted((colour(c), size - 1 - r, col) for c, (r, col) in board.list_occupied_points())
    )
    moves = tuple(
        (colour(c), -1, -1) if p is None else (colour(c), size - 1 - p[0], p[1]) for c, p in plays
    )
    return size, setup, moves
