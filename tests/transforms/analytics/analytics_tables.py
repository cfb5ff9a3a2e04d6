"""Test data for the analytics tables: `games` and `moves` of the schema contract read with sgfmill."""

from __future__ import annotations

import hashlib
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
from sgfmill import boards, sgf

GAMES_DDL = """
CREATE OR REPLACE TABLE games (
    game_id VARCHAR, source VARCHAR, source_sha256 VARCHAR, member VARCHAR, tree_index INTEGER,
    pb VARCHAR, pw VARCHAR, br VARCHAR, wr VARCHAR, dt VARCHAR, ev VARCHAR, re VARCHAR, km VARCHAR,
    ha VARCHAR, ru VARCHAR, year INTEGER, winner VARCHAR, komi DOUBLE, handicap INTEGER,
    board_size INTEGER, move_count INTEGER, setup_stones INTEGER, encoding VARCHAR, flags VARCHAR[],
    sequence_sha1 VARCHAR
)
"""
MOVES_DDL = """
CREATE OR REPLACE TABLE moves (
    game_id VARCHAR, move_number INTEGER, colour VARCHAR, "row" SMALLINT, col SMALLINT, point VARCHAR
)
"""
HEADERS = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM", "HA", "RU")
LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Game:
    """One game as plain Python values: header fields and the legal main-line moves."""

    game_id: str
    headers: dict[str, str | None]
    board_size: int
    setup: tuple[tuple[str, int, int], ...]
    moves: tuple[tuple[str, int | None, int | None], ...]  # colour 'B'/'W', row (0 = top), col; None = pass

    @property
    def year(self) -> int | None:
        """First 4-digit number of DT within 1000..2999."""
        for text in re.findall(r"\d{4}", self.headers["DT"] or ""):
            if 1000 <= int(text) <= 2999:
                return int(text)
        return None

    @property
    def winner(self) -> str | None:
        """'B', 'W', 'D' (draw) or None, from RE."""
        result = (self.headers["RE"] or "").strip().upper()
        if result.startswith(("B+", "W+")):
            return result[0]
        if result in {"0", "DRAW", "JIGO", "D"}:
            return "D"
        return None

    @property
    def handicap(self) -> int:
        """HA as an int, 0 when absent or unreadable."""
        text = (self.headers["HA"] or "").strip()
        return int(text) if text.isdigit() else 0


def point_text(row: int, col: int) -> str:
    """SGF point of (row, col), row 0 = top: (3, 15) -> 'pd'."""
    return LETTERS[col] + LETTERS[row]


def read_games(archive: Path) -> list[Game]:
    """Every member of a tar.gz archive parsed by sgfmill, main line replayed up to the first illegal move."""
    raw = archive.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    games = []
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            game = sgf.Sgf_game.from_bytes(tar.extractfile(member).read())
            games.append(_game(game, f"{digest[:12]}:{member.name}"))
    return games


def game_from_moves(game_id: str, moves: str, *, dt: str | None = None, re_: str | None = None) -> Game:
    """A hand-made 19x19 game from SGF move text such as ';B[pd];W[dd];B[]' (empty = pass)."""
    played = []
    for colour, point in re.findall(r"([BW])\[([a-s]{2}|)\]", moves):
        if point:
            played.append((colour, LETTERS.index(point[1]), LETTERS.index(point[0])))
        else:
            played.append((colour, None, None))
    headers = dict.fromkeys(HEADERS)
    headers.update({"DT": dt, "RE": re_})
    return Game(game_id, headers, 19, (), tuple(played))


def _game(game: sgf.Sgf_game, game_id: str) -> Game:
    size = game.get_size()
    root = game.get_root()
    headers = {name: (root.get(name) if root.has_property(name) else None) for name in HEADERS}
    headers = {name: (None if value is None else str(value)) for name, value in headers.items()}
    black, white, _ = root.get_setup_stones()
    setup = tuple(("B", size - 1 - r, c) for r, c in sorted(black)) + tuple(
        ("W", size - 1 - r, c) for r, c in sorted(white)
    )
    board = boards.Board(size)
    for colour, r, c in setup:
        board.play(size - 1 - r, c, colour.lower())
    played = []
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        if colour is None:
            continue
        if move is None:
            played.append((colour.upper(), None, None))
            continue
        try:
            board.play(move[0], move[1], colour)
        except ValueError:
            break
        played.append((colour.upper(), size - 1 - move[0], move[1]))
    return Game(game_id, headers, size, setup, tuple(played))


def load_tables(con: duckdb.DuckDBPyConnection, games: list[Game]) -> None:
    """Create `games` and `moves` in `con` (schema contract types) from `games`."""
    con.execute(GAMES_DDL)
    con.execute(MOVES_DDL)
    game_rows = {name: [] for name in ("game_id", "year", "winner", "handicap", "board_size", "move_count", "setup")}
    header_rows = {name.lower(): [] for name in HEADERS}
    move_rows = {name: [] for name in ("game_id", "move_number", "colour", "row", "col", "point")}
    for game in games:
        game_rows["game_id"].append(game.game_id)
        game_rows["year"].append(game.year)
        game_rows["winner"].append(game.winner)
        game_rows["handicap"].append(game.handicap)
        game_rows["board_size"].append(game.board_size)
        game_rows["move_count"].append(len(game.moves))
        game_rows["setup"].append(len(game.setup))
        for name in HEADERS:
            header_rows[name.lower()].append(game.headers[name])
        for number, (colour, row, col) in enumerate(game.moves, start=1):
            move_rows["game_id"].append(game.game_id)
            move_rows["move_number"].append(number)
            move_rows["colour"].append(colour)
            move_rows["row"].append(row)
            move_rows["col"].append(col)
            move_rows["point"].append(None if row is None else point_text(row, col))
    game_input = pa.table({**game_rows, **header_rows})
    move_input = pa.table(move_rows)
    con.register("game_input", game_input)
    con.register("move_input", move_input)
    con.execute(
        """
        INSERT INTO games
        SELECT game_id, 'tiny.tar.gz', NULL, split_part(game_id, ':', 2), 0,
               pb, pw, br, wr, dt, ev, re, km, ha, ru, year, winner, NULL, handicap,
               board_size, move_count, setup, 'utf-8', [], NULL
        FROM game_input
        """
    )
    con.execute('INSERT INTO moves SELECT game_id, move_number, colour, "row", col, point FROM move_input')
    con.unregister("game_input")
    con.unregister("move_input")


def positions(game: Game) -> list[tuple[list[list[int]], int, tuple[int, int]]]:
    """(board, colour to move, move) before each board move; board[row][col] 0 empty, 1 black, 2 white, row 0 top."""
    size = game.board_size
    board = boards.Board(size)
    for colour, r, c in game.setup:
        board.play(size - 1 - r, c, colour.lower())
    found = []
    for colour, r, c in game.moves:
        if r is None:
            continue
        grid = [[0] * size for _ in range(size)]
        for stone, (sr, sc) in board.list_occupied_points():
            grid[size - 1 - sr][sc] = 1 if stone == "b" else 2
        found.append((grid, 1 if colour == "B" else 2, (r, c)))
        board.play(size - 1 - r, c, colour.lower())
    return found
