"""parse_collection: collection files with a broken, truncated or garbled game tree keep their other trees."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import sgf

from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.parsing import GameRecord, TreeReject, parse_collection, parse_games

LETTERS = "abcdefghi"


def tree(name: str, moves: str) -> bytes:
    """One 9x9 game tree with a root node (GM, FF, SZ) and the given SGF move nodes."""
    return f"(;GM[1]FF[4]SZ[9]PB[{name}]{moves})".encode()


def sgfmill_moves(data: bytes) -> tuple[tuple[int, int, int], ...]:
    """The main line of a single well-formed tree read by sgfmill alone: the independent reference."""
    game = sgf.Sgf_game.from_bytes(data)
    moves = []
    for node in game.get_main_sequence():
        colour, point = node.get_move()
        if colour is not None:
            row, col = point if point is not None else (-1, -1)
            moves.append((1 if colour == "b" else 2, 8 - row if point is not None else -1, col))
    return tuple(moves)


def games_and_rejects(data: bytes) -> tuple[list[GameRecord], list[TreeReject]]:
    records, rejected = parse_collection(data)
    assert records == parse_games(data)
    return records, rejected


FIRST, SECOND, THIRD = tree("first", ";B[aa];W[cc]"), tree("second", ";B[bb]"), tree("third", ";B[dd];W[ee]")


@pytest.mark.parametrize(
    ("data", "kept", "rejected"),
    [
        # a middle tree cut inside a value: its bytes run into the next root node
        (FIRST + b"\n(;GM[1]FF[4]SZ[9];B[bb];W[cc]C[cut her\n" + THIRD, {0: FIRST, 2: THIRD}, [(1, "truncated")]),
        # a middle tree cut between nodes and a tree with a byte string lost inside a node
        (FIRST + b"(;GM[1]SZ[9];B[bb] lost ;W[cc])" + THIRD, {0: FIRST, 2: THIRD}, [(1, "parse_error")]),
        # the last tree truncated (the case)
        (FIRST + SECOND + b"(;GM[1]FF[4]SZ[9];B[cc];W[d", {0: FIRST, 1: SECOND}, [(2, "truncated")]),
        # garbage between trees that opens a tree of its own
        (FIRST + b"\n junk ) ( ;; [[ \n" + SECOND, {0: FIRST, 2: SECOND}, [(1, "truncated")]),
        # a middle tree that is not Go
        (FIRST + b"(;GM[2];B[bb])" + THIRD, {0: FIRST, 2: THIRD}, [(1, "not_go")]),
    ],
)
def test_broken_tree_is_rejected_and_the_others_kept(
    data: bytes, kept: dict[int, bytes], rejected: list[tuple[int, str]]
) -> None:
    records, rejects = games_and_rejects(data)
    assert [r.tree_index for r in records] == list(kept)
    assert [(r.tree_index, r.reason) for r in rejects] == rejected
    assert all(r.message for r in rejects)
    for record in records:
        assert record.moves == sgfmill_moves(kept[record.tree_index])
        assert "skipped_trees" in record.flags


def test_middle_tree_without_its_close_is_repaired_alone() -> None:
    records, rejects = games_and_rejects(FIRST + b"\n(;GM[1]FF[4]SZ[9];B[bb];W[ee]\n" + THIRD)
    assert rejects == []
    assert [(r.tree_index, r.moves, "repaired_missing_close" in r.flags) for r in records] == [
        (0, sgfmill_moves(FIRST), False),
        (1, ((1, 1, 1), (2, 4, 4)), True),
        (2, sgfmill_moves(THIRD), False),
    ]


def test_garbage_without_a_tree_start_is_skipped() -> None:
    records, rejects = games_and_rejects(b"prose ) [ ]\n" + FIRST + b"\n more ] prose ((\n" + SECOND + b" tail")
    assert ([r.tree_index for r in records], rejects) == ([0, 1], [])
    assert "skipped_trees" not in records[0].flags


def test_a_file_without_any_game_is_rejected_whole_with_its_first_error() -> None:
    with pytest.raises(RejectError) as caught:
        parse_collection(b"(;GM[2];B[aa])" + b"(;GM[1]FF[4]SZ[9];B[cc];W[d")
    assert caught.value.reason == "not_go"


@st.composite
def collections(draw: st.DrawFn) -> tuple[bytes, dict[int, bytes], set[int]]:
    """Good 9x9 trees and cut ones, with junk between them. A tree is cut after its '(;GM[', so
    every tree starts with a root node, where parsing resumes (docs/releases.md#collections)."""
    data, good, cut = b"", {}, set()
    for index in range(draw(st.integers(1, 6))):
        moves = draw(st.lists(st.tuples(st.sampled_from(LETTERS), st.sampled_from(LETTERS)), max_size=6))
        body = tree(f"p{index}", "".join(f";{'BW'[i % 2]}[{c}{r}]" for i, (c, r) in enumerate(moves)))
        if draw(st.booleans()):
            good[index] = body
            junk = [b"", b"\n", b" junk ] ) text\n"]
        else:
            body = body[: draw(st.integers(len(b"(;GM["), len(body) - 1))]
            cut.add(index)
            junk = [b"", b"\n", b" junk text\n"]  # no ']' or ')', which could close the cut tree
        data += body + draw(st.sampled_from(junk))
    return data, good, cut


@settings(max_examples=100, deadline=None)
@given(collections())
def test_every_tree_is_a_game_or_a_reject(case: tuple[bytes, dict[int, bytes], set[int]]) -> None:
    data, good, cut = case
    try:
        records, rejects = games_and_rejects(data)
    except RejectError:  # no game: every tree was cut beyond repair
        assert not good
        return
    by_index = {r.tree_index: r for r in records}
    assert len(records) + len(rejects) == len(good) + len(cut)  # trees in = games + rejected trees
    for index, body in good.items():
        assert by_index[index].moves == sgfmill_moves(body)
    for reject in rejects:
        assert reject.tree_index in cut and reject.reason in ("truncated", "parse_error")
    for index in cut - {r.tree_index for r in rejects}:
        assert "repaired_missing_close" in by_index[index].flags
