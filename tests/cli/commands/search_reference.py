"""A brute-force pattern search for the tests of `gopat search`, independent of the product's code.

Every game of a release is replayed with sgfmill (setup stones read again from the SGF bytes with
sgfmill, moves from the release's `moves` table). At every position, every image of the pattern
under the 8 symmetries (16 with the colour swap) is tried at every offset with numpy, as a padded
pattern on a padded board: a drawn edge is a row or column of cells that must be off the board.
The rules are those of docs/search.md.
"""

from __future__ import annotations

import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
from sgfmill import boards, sgf, sgf_grammar

OFF = 3
# value sets per diagram character (0 empty, 1 black, 2 white, 3 off the board); '#' = must be off the board.
# Tried in this order (the most selective first): edges, stones, empty, the wildcards.
ALLOWS = {"#": {OFF}, "X": {1}, "O": {2}, ".": {0}, "x": {0, 1}, "o": {0, 2}, "?": {0, 1, 2}}
ORDER = {ch: i for i, ch in enumerate(ALLOWS)}
SWAP = str.maketrans("XOxo", "OXox")


@dataclass
class Games:
    """Every position of every game: boards padded with one ring of OFF, and what each position is."""

    ids: list[str]
    winners: list[str | None]
    sizes: np.ndarray
    boards: dict[int, np.ndarray]       # board size -> (positions, size + 2, size + 2)
    position_game: dict[int, np.ndarray]  # board size -> game index per position
    position_k: dict[int, np.ndarray]     # board size -> moves played per position
    position_mover: dict[int, np.ndarray]  # board size -> colour to move per position
    moves: list[list[tuple[int, int, int]]]  # per game: (colour, row, col), row -1 for a pass
    setups: list[dict[tuple[int, int], int]]


def read_games(release: Path) -> Games:
    """Replay every game of the release folder with sgfmill."""
    con = duckdb.connect()
    games = con.execute("SELECT game_id, board_size, setup_stones, source, member, tree_index, winner "
                        "FROM read_parquet(?) ORDER BY game_id", [str(release / "games.parquet")]).fetchall()
    rows = con.execute("SELECT game_id, colour, coalesce(\"row\", -1), coalesce(col, -1) FROM read_parquet(?) "
                       "ORDER BY game_id, move_number", [str(release / "moves.parquet")]).fetchall()
    by_game: dict[str, list[tuple[int, int, int]]] = {}
    for game_id, colour, row, col in rows:
        by_game.setdefault(game_id, []).append((1 if colour == "B" else 2, row, col))
    result = Games([], [], np.zeros(len(games), np.int64), {}, {}, {}, {}, [], [])
    snapshots: dict[int, list[np.ndarray]] = {}
    owners: dict[int, list[tuple[int, int]]] = {}
    archives: dict[str, tarfile.TarFile] = {}
    for index, (game_id, size, n_setup, source, member, tree_index, winner) in enumerate(games):
        setup = sgfmill_setup(_member_bytes(archives, Path(source), member), tree_index) if n_setup else {}
        assert len(setup) == n_setup, game_id
        moves = by_game.get(game_id, [])
        result.ids.append(game_id)
        result.winners.append(winner)
        result.sizes[index] = size
        result.moves.append(moves)
        result.setups.append(setup)
        board = boards.Board(size)
        for (r, c), v in setup.items():  # as given: sgfmill's apply_setup would take off chains without liberties
            board.board[size - 1 - r][c] = "b" if v == 1 else "w"
        current = _snapshot(board, size)
        positions = [current.copy()]
        for colour, row, col in moves:
            if row >= 0:
                board.play(size - 1 - row, col, "b" if colour == 1 else "w")
                _follow(board, current, size, colour, row, col)
            positions.append(current.copy())
        snapshots.setdefault(size, []).extend(positions)
        owners.setdefault(size, []).extend((index, k) for k in range(len(positions)))
    for archive in archives.values():
        archive.close()
    for size, positions in snapshots.items():
        result.boards[size] = np.stack(positions)
        result.position_game[size] = np.array([g for g, _ in owners[size]], dtype=np.int64)
        result.position_k[size] = np.array([k for _, k in owners[size]], dtype=np.int64)
        result.position_mover[size] = np.array([to_move(result, g, k) for g, k in owners[size]], dtype=np.int64)
    return result


def _member_bytes(archives: dict[str, tarfile.TarFile], source: Path, member: str) -> bytes:
    if source.is_dir():
        return (source / member).read_bytes()
    if str(source) not in archives:
        archives[str(source)] = tarfile.open(source)  # noqa: SIM115 - closed by read_games
    handle = archives[str(source)].extractfile(member)
    assert handle is not None
    return handle.read()


def sgfmill_setup(data: bytes, tree_index: int) -> dict[tuple[int, int], int]:
    """The setup stones before the first move, (row from the top, col) -> colour, read with sgfmill."""
    game = sgf.Sgf_game.from_coarse_game_tree(sgf_grammar.parse_sgf_collection(data)[tree_index])
    size = game.get_size()
    stones: dict[tuple[int, int], int] = {}
    for node in game.get_main_sequence():
        if node.get_move()[0] is not None:
            break
        black, white, empty = node.get_setup_stones()
        for colour, points in ((0, empty), (1, black), (2, white)):
            for r, c in points:
                stones[(size - 1 - r, c)] = colour
    return {point: colour for point, colour in stones.items() if colour}


def _snapshot(board: boards.Board, size: int) -> np.ndarray:
    stones = np.array(board.board, dtype=object)[::-1]  # sgfmill's row 0 is the bottom row
    padded = np.full((size + 2, size + 2), OFF, dtype=np.int8)
    padded[1:-1, 1:-1] = (stones == "b") + 2 * (stones == "w")
    return padded


def _follow(board: boards.Board, padded: np.ndarray, size: int, colour: int, row: int, col: int) -> None:
    """Mirror sgfmill's move on the padded array: the stone, and every neighbouring chain sgfmill took off."""
    padded[row + 1, col + 1] = colour
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        taken = 0 <= r < size and 0 <= c < size and board.get(size - 1 - r, c) is None
        if taken and padded[r + 1, c + 1] == 3 - colour:
            stack = [(r, c)]
            while stack:
                r1, c1 = stack.pop()
                if padded[r1 + 1, c1 + 1] == 3 - colour:
                    assert board.get(size - 1 - r1, c1) is None
                    padded[r1 + 1, c1 + 1] = 0
                    stack += [(r1 - 1, c1), (r1 + 1, c1), (r1, c1 - 1), (r1, c1 + 1)]


def padded_pattern(diagram: str) -> np.ndarray:
    """The diagram as characters with a ring: '#' where an edge is drawn (corners too), '*' (anything) elsewhere."""
    lines = [line.replace(" ", "") for line in diagram.strip("\n").splitlines()]
    top, bottom = set(lines[0]) <= set("+-"), len(lines) > 1 and set(lines[-1]) <= set("+-")
    body = lines[int(top):len(lines) - int(bottom)]
    left, right = body[0][0] == "|", body[0][-1] == "|"
    cells = [list(row[int(left):len(row) - int(right)]) for row in body]
    h, w = len(cells), len(cells[0])
    grid = np.full((h + 2, w + 2), "*", dtype="<U1")
    grid[1:-1, 1:-1] = cells
    for drawn, index in ((top, (0, slice(None))), (bottom, (-1, slice(None))),
                         (left, (slice(None), 0)), (right, (slice(None), -1))):
        if drawn:
            grid[index] = "#"
    return grid


def image(grid: np.ndarray, symmetry: int) -> np.ndarray:
    """docs/search.md's symmetry numbering: transpose when bit 4, then flip rows when bit 1, columns when bit 2."""
    out = grid.swapaxes(0, 1) if symmetry & 4 else grid
    out = out[::-1] if symmetry & 1 else out
    return out[:, ::-1] if symmetry & 2 else out


def to_move(games: Games, g: int, k: int) -> int:
    moves = games.moves[g]
    if k < len(moves):
        return moves[k][0]
    if moves:
        return 3 - moves[-1][0]
    setup = games.setups[g]
    return 2 if setup and set(setup.values()) == {1} else 1


def search(games: Games, diagram: str, *, colour_swap: bool = False, want: int = 0) -> dict[str, Any]:
    """The expected `gopat search --json` games list: every hit, in game_id order."""
    grid = padded_pattern(diagram)
    source = np.full((*grid.shape, 2), -1, dtype=np.int64)
    source[1:-1, 1:-1] = np.stack(np.meshgrid(np.arange(grid.shape[0] - 2), np.arange(grid.shape[1] - 2),
                                              indexing="ij"), axis=-1)
    best: dict[int, tuple[tuple[int, int, int, int, int], np.ndarray]] = {}
    for swapped in (0, 1) if colour_swap else (0,):
        for symmetry in range(8):
            pattern = image(np.char.translate(grid, SWAP) if swapped else grid, symmetry)
            frame = image(source, symmetry)
            mover = (3 - want if swapped else want) if want else 0
            for size, padded in games.boards.items():
                for g, k, r0, c0 in _first_matches(games, size, padded, pattern, mover):
                    key = (k, swapped, symmetry, r0, c0)
                    if g not in best or key < best[g][0]:
                        best[g] = (key, frame)
    return {"games": [_hit(games, g, *best[g]) for g in sorted(best)]}


def _first_matches(games: Games, size: int, padded: np.ndarray, pattern: np.ndarray,
                   mover: int) -> list[tuple[int, int, int, int]]:
    """Per game, its first (position, row, col) where the padded pattern sits with its top-left at (row, col)
    of the padded board and `mover` (0: anyone) is to move: (game, position, row, col)."""
    ph, pw = pattern.shape
    nr, nc = size + 2 - ph + 1, size + 2 - pw + 1
    if nr <= 0 or nc <= 0:
        return []
    chars = sorted(((ORDER[ch], i, j, ch) for (i, j), ch in np.ndenumerate(pattern) if ch in ALLOWS))
    cells = [(i, j, np.isin(np.arange(4), sorted(ALLOWS[ch]))) for _, i, j, ch in chars]
    (i0, j0, first), rest = cells[0], cells[1:]
    boards_ = padded
    if mover:
        chosen = np.flatnonzero(games.position_mover[size] == mover)
        boards_ = padded[chosen]
    q, r, c = np.nonzero(first[boards_[:, i0:i0 + nr, j0:j0 + nc]])
    p = chosen[q] if mover else q
    for i, j, allowed in rest:
        keep = allowed[padded[p, r + i, c + j]]
        p, r, c = p[keep], r[keep], c[keep]
    if len(p) == 0:
        return []
    order = np.lexsort((c, r, p))  # positions of one game are consecutive and in order
    p, r, c = p[order], r[order], c[order]
    game = games.position_game[size][p]
    first = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    return [(int(game[i]), int(games.position_k[size][p[i]]), int(r[i]), int(c[i])) for i in first]


def _hit(games: Games, g: int, key: tuple[int, int, int, int, int], frame: np.ndarray) -> dict[str, Any]:
    k, swapped, _, r0, c0 = key
    h, w = frame.shape[0] - 2, frame.shape[1] - 2
    continuation = None
    for j, (colour, row, col) in enumerate(games.moves[g][k:], start=k + 1):
        if r0 <= row < r0 + h and c0 <= col < c0 + w:
            point = frame[row - r0 + 1, col - c0 + 1]
            drawn = 3 - colour if swapped else colour
            continuation = {"point": [int(point[0]), int(point[1])], "colour": "B" if drawn == 1 else "W",
                            "immediate": j == k + 1}
            break
    return {"game_id": games.ids[g], "move": k, "swapped": bool(swapped), "continuation": continuation}
