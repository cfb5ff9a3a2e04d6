"""Independent oracles for the analytics tests: D4 by closure, brute-force canonical forms, template expansion."""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict

import duckdb
import pyarrow as pa

from tests.transforms.analytics.analytics_tables import LETTERS, Game, positions

WILD_VALUES = {"?": "012", "x": "01", "o": "02"}  # what a wildcard stands for (0 empty, 1 black, 2 white)
SWAP = str.maketrans("12xo", "21ox")  # the colour swap on template text


def rot90(point: tuple[int, int]) -> tuple[int, int]:
    """Quarter turn of the 19x19 board."""
    row, col = point
    return col, 18 - row


def transpose(point: tuple[int, int]) -> tuple[int, int]:
    """Reflection of the 19x19 board in its main diagonal."""
    return point[1], point[0]


def d4_maps() -> list[dict[tuple[int, int], tuple[int, int]]]:
    """The 8 symmetries of the 19x19 board as point dictionaries, by closure of rot90 and transpose."""
    points = [(r, c) for r in range(19) for c in range(19)]
    identity = {p: p for p in points}
    found = {tuple(sorted(identity.items())): identity}
    frontier = [identity]
    while frontier:
        current = frontier.pop()
        for generator in (rot90, transpose):
            composed = {p: generator(current[p]) for p in points}
            signature = tuple(sorted(composed.items()))
            if signature not in found:
                found[signature] = composed
                frontier.append(composed)
    assert len(found) == 8
    return list(found.values())


D4 = d4_maps()


def text(point: tuple[int, int]) -> str:
    """SGF text of a (row, col) point."""
    return LETTERS[point[1]] + LETTERS[point[0]]


def sequence_variants(points: list[tuple[int, int]]) -> list[str]:
    """The sequence text under each of the 8 symmetries."""
    return [" ".join(text(m[p]) for p in points) for m in D4]


def position_text(black: list[tuple[int, int]], white: list[tuple[int, int]], m: dict) -> str:
    """'B:...|W:...' of the stones moved by the symmetry `m`."""
    return "B:" + " ".join(sorted(text(m[p]) for p in black)) + "|W:" + " ".join(sorted(text(m[p]) for p in white))


def opening_points(game: Game, moves: int) -> list[tuple[int, int]] | None:
    """The first `moves` points if the game is an opening game (definitions of models/opening_games.sql)."""
    if game.board_size != 19 or game.setup or game.handicap or len(game.moves) < moves:
        return None
    first = game.moves[:moves]
    if any(row is None for _, row, _ in first):
        return None
    if [colour for colour, _, _ in first] != ["BW"[i % 2] for i in range(moves)]:
        return None
    return [(row, col) for _, row, col in first]


def score(winner: str | None) -> float | None:
    """Black's score of a result."""
    return {"B": 1.0, "W": 0.0, "D": 0.5}.get(winner)


def square_perms(size: int) -> list[tuple[int, ...]]:
    """The 8 symmetries of a size x size square as cell permutations (closure of a rotation and a flip)."""
    cells = [(r, c) for r in range(size) for c in range(size)]
    rotate = tuple(cells.index((size - 1 - c, r)) for r, c in cells)
    flip = tuple(cells.index((c, r)) for r, c in cells)
    found = {tuple(range(len(cells)))}
    frontier = list(found)
    while frontier:
        current = frontier.pop()
        for generator in (rotate, flip):
            composed = tuple(current[generator[i]] for i in range(len(cells)))
            if composed not in found:
                found.add(composed)
                frontier.append(composed)
    assert len(found) == 8
    return sorted(found)


def images(template: str, perms: list[tuple[int, ...]], swap: bool) -> set[str]:
    """A key or template (colour digit, then cells) under the 8 symmetries, and the colour swap if `swap`."""
    moved = {template[0] + "".join(template[1 + p] for p in perm) for perm in perms}
    return moved | {t.translate(SWAP) for t in moved} if swap else moved


def canonical(template: str, perms: list[tuple[int, ...]], swap: bool) -> str:
    """The smallest image (character order '0' < ... < '3' < '?' < 'o' < 'x')."""
    return _canonical(template, tuple(perms), swap)


@functools.cache
def _canonical(template: str, perms: tuple[tuple[int, ...], ...], swap: bool) -> str:
    return min(images(template, list(perms), swap))


def expand(template: str) -> list[str]:
    """Every concrete key a template stands for."""
    return ["".join(cells) for cells in itertools.product(*(WILD_VALUES.get(s, s) for s in template))]


def cover(template: str, perms: list[tuple[int, ...]], swap: bool) -> set[str]:
    """The canonical concrete keys a template stands for."""
    return {canonical(p, perms, swap) for p in expand(template)}


def valid(template: str, concrete: set[str], perms: list[tuple[int, ...]], swap: bool) -> bool:
    """Every concrete key of the template is, up to the symmetries, in `concrete`."""
    return cover(template, perms, swap) <= concrete


def generalisations(template: str) -> list[str]:
    """The templates with exactly one cell more general (a value set strictly inside a wildcard's)."""
    found = []
    for i, symbol in enumerate(template[1:], start=1):
        values = set(WILD_VALUES.get(symbol, symbol))
        for wildcard, covered in WILD_VALUES.items():
            if values < set(covered):
                found.append(template[:i] + wildcard + template[i + 1:])
    return found


def inside(small: str, large: str) -> bool:
    """Cell by cell, every value `small` allows is allowed by `large`."""
    return all(set(WILD_VALUES.get(a, a)) <= set(WILD_VALUES.get(b, b)) for a, b in zip(small, large, strict=True))


def sq3_stats(games: list[Game]) -> dict[tuple[int, str], tuple[int, int]]:
    """Canonical sq3 counts (symmetry 8 and 16, key) -> (occurrence, chosen) of real games.

    Keys: colour to move, then the 3x3 cells around each empty point row by row (3 off-board);
    every empty point of the position before each board move is a candidate, the played one is chosen.
    """
    raw: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for game in games:
        for grid, colour, move in positions(game):
            size = len(grid)
            for r in range(size):
                for c in range(size):
                    if grid[r][c] == 0:
                        cells = (
                            grid[r + dr][c + dc] if 0 <= r + dr < size and 0 <= c + dc < size else 3
                            for dr in (-1, 0, 1)
                            for dc in (-1, 0, 1)
                        )
                        key = str(colour) + "".join(map(str, cells))
                        raw[key][0] += 1
                        raw[key][1] += (r, c) == move
    perms = square_perms(3)
    stats: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0])
    for symmetry in (8, 16):
        for key, (occurrence, chosen) in raw.items():
            entry = stats[(symmetry, canonical(key, perms, symmetry == 16))]
            entry[0] += occurrence
            entry[1] += chosen
    return {k: (v[0], v[1]) for k, v in stats.items()}


def pattern_stats_table(
    con: duckdb.DuckDBPyConnection, rows: dict[tuple[int, str], tuple[int, int]], family: str = "sq3"
) -> None:
    """Create `pattern_stats` (schema contract) holding `rows` (symmetry, key) -> (occurrence, chosen)."""
    con.execute(
        "CREATE OR REPLACE TABLE pattern_stats (family VARCHAR, symmetry INTEGER, key VARCHAR, occurrence BIGINT, "
        "chosen BIGINT, chosen_rate DOUBLE, orbit_size INTEGER, stones INTEGER, diagram VARCHAR, result BIGINT)"
    )
    items = list(rows.items())
    stats_input = pa.table({
        "symmetry": pa.array([symmetry for (symmetry, _), _ in items], pa.int32()),
        "key": [key for (_, key), _ in items],
        "occurrence": pa.array([occ for _, (occ, _) in items], pa.int64()),
        "chosen": pa.array([cho for _, (_, cho) in items], pa.int64()),
    })
    con.register("stats_input", stats_input)
    con.execute(
        "INSERT INTO pattern_stats SELECT ?, symmetry, key, occurrence, chosen, chosen / occurrence, "
        "NULL, NULL, NULL, NULL FROM stats_input",
        [family],
    )
    con.unregister("stats_input")
