"""Fixtures shared by the transforms tests."""

from __future__ import annotations

import tarfile

import numpy as np
import pytest
from sgfmill import boards, sgf

from gopat.transforms.games.board import replay
from gopat.transforms.games.packed import GameMoves

B, W = 1, 2
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def raw_point(value: bytes, size: int) -> tuple[int, int]:
    text = value.decode("ascii")
    if text == "" or (text == "tt" and size <= 19):
        return -1, -1
    return LETTERS.index(text[1]), LETTERS.index(text[0])


@pytest.fixture(scope="module")
def real_games(tiny_archive) -> list[tuple[GameMoves, boards.Board, list]]:
    """~20 tiny-corpus games with moves, two of them with handicap stones, legal prefixes."""
    games, handicap = [], 0
    with tarfile.open(tiny_archive) as tar:
        for member in tar.getmembers():
            if not member.name.endswith(".sgf"):
                continue
            game = sgf.Sgf_game.from_bytes(tar.extractfile(member).read())
            root, size = game.get_root(), game.get_size()
            nodes = game.get_main_sequence()[1:]
            has_setup = root.has_property("AB") or root.has_property("AW")
            if len(nodes) < 20 or (has_setup and handicap == 2) or (not has_setup and len(games) - handicap >= 18):
                continue
            setup = [(colour, *raw_point(v, size)) for colour, prop in ((B, "AB"), (W, "AW"))
                     if root.has_property(prop) for v in root.get_raw_list(prop)]
            moves = []
            for node in nodes:
                colour, value = node.get_raw_move()
                if colour is not None:
                    moves.append((B if colour == "b" else W, *raw_point(value, size)))
            setup_arr = np.array(setup, dtype=np.int16).reshape(-1, 3)
            moves_arr = np.array(moves, dtype=np.int16).reshape(-1, 3)
            legal, _ = replay(size, setup_arr, moves_arr)
            start = boards.Board(size)
            for colour, (row, col) in [("b", p) for p in root.get_setup_stones()[0]] + \
                                      [("w", p) for p in root.get_setup_stones()[1]]:
                start.play(row, col, colour)
            plays = [node.get_move() for node in nodes if node.get_move()[0] is not None][:legal]
            games.append((GameMoves(size, setup_arr, moves_arr[:legal]), start, plays))
            handicap += has_setup
            if len(games) == 20:
                break
    assert len(games) == 20 and handicap == 2
    return games
