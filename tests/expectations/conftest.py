"""Fixtures for the expectation suites: a small, valid warehouse in a real DuckDB file."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

import gopat.expectations.runner  # noqa: F401  (imports GX under its narrow warning filter before any test module)

# The published schemas, written out from the schema contract (not taken from the suites).
GAMES_DDL = """
CREATE TABLE games (
    game_id VARCHAR, source VARCHAR, source_sha256 VARCHAR, member VARCHAR, member_raw VARCHAR,
    member_name_guessed BOOLEAN, tree_index INTEGER,
    pb VARCHAR, pw VARCHAR, br VARCHAR, wr VARCHAR, dt VARCHAR, ev VARCHAR, re VARCHAR, km VARCHAR,
    ha VARCHAR, ru VARCHAR, year INTEGER, winner VARCHAR, komi DOUBLE, handicap INTEGER,
    board_size INTEGER, move_count INTEGER, setup_stones INTEGER, encoding VARCHAR, flags VARCHAR[],
    sequence_sha1 VARCHAR
)"""
MOVES_DDL = """
CREATE TABLE moves (
    game_id VARCHAR, move_number INTEGER, colour VARCHAR, row SMALLINT, col SMALLINT, point VARCHAR
)"""
REJECTS_DDL = """
CREATE TABLE rejects (
    source VARCHAR, source_sha256 VARCHAR, member VARCHAR, member_raw VARCHAR, member_name_guessed BOOLEAN,
    tree_index INTEGER, reason VARCHAR, message VARCHAR
)"""

SOURCE = "corpus/pro.tar.gz"
SHA = hashlib.sha256(b"pro archive").hexdigest()
LONG_GAME_MOVES = 24


def game_id(member: str, tree: int = 0) -> str:
    """The game id the contract prescribes."""
    return f"{SHA[:12]}:{member}" + (f"#{tree}" if tree else "")


# (member, raw name bytes of a guessed name or None, tree_index, board_size, moves as (colour, row, col) with
# None for a pass)
GAMES = [
    ("pro/a.sgf", None, 0, 19, [("B", 3, 15), ("W", 15, 3), ("B", None, None)]),
    ("pro/b.sgf", None, 0, 9, [("B", 4, 4), ("W", 2, 6)]),
    ("pro/b.sgf", None, 1, 13, []),
    ("pro/c.sgf", None, 0, 19, [("BW"[i % 2], 2 + i // 5, 1 + 3 * (i % 5)) for i in range(LONG_GAME_MOVES)]),
    ("棋谱/d.sgf", "棋谱/d.sgf".encode("gbk"), 0, 19, [("B", 3, 3)]),
]
MANIFEST = {
    # files: a.sgf, b.sgf, c.sgf, d.sgf ingested; bad.sgf rejected; the unreachable source rejected whole.
    # trees: a 1, b 3 (the third rejected), c 1 and its duplicate 1, d 1.
    "ingest": {
        "files_in": 6, "files_ingested": 4, "files_rejected": 2, "games": 5, "duplicates": 1,
        "trees_in": 7, "trees_rejected": 1,
    },
    "families": {},
}


def build_warehouse(con: duckdb.DuckDBPyConnection) -> None:
    """Create valid games, moves and rejects tables (hand-written rows)."""
    con.execute(GAMES_DDL)
    con.execute(MOVES_DDL)
    con.execute(REJECTS_DDL)
    for index, (member, raw, tree, size, moves) in enumerate(GAMES):
        sha1 = hashlib.sha1(repr((size, moves)).encode()).hexdigest()
        con.execute(
            "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, 'Black', 'White', '9d', '9d', ?, 'Cup', ?, '6.5', NULL,"
            " 'Japanese', ?, ?, 6.5, 0, ?, ?, 0, 'UTF-8', ?, ?)",
            [
                game_id(member, tree),
                SOURCE,
                SHA,
                member,
                None if raw is None else raw.hex(),
                raw is not None,
                tree,
                f"19{80 + index}-04-01",
                ["B+R", "W+2.5", "Jigo", None, "B+R"][index],
                1980 + index,
                ["B", "W", "D", None, "B"][index],
                size,
                len(moves),
                [] if index else ["komi_scaled"],
                sha1,
            ],
        )
        for number, (colour, row, col) in enumerate(moves, start=1):
            point = None if row is None else chr(97 + col) + chr(97 + row)
            con.execute(
                "INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?)", [game_id(member, tree), number, colour, row, col, point]
            )
    con.execute(
        "INSERT INTO rejects VALUES (?, ?, 'pro/bad.sgf', NULL, false, NULL, 'empty_file', 'no game tree'),"
        " (?, ?, 'pro/b.sgf', NULL, false, 2, 'truncated', 'error parsing game 2: unexpected end of SGF data'),"
        " ('https://example.org/gone.zip', NULL, '', NULL, false, NULL, 'download_failed', 'HTTP 404')",
        [SOURCE, SHA, SOURCE, SHA],
    )


@pytest.fixture
def warehouse(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to a fresh DuckDB file holding valid games, moves and rejects."""
    con = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    build_warehouse(con)
    yield con
    con.close()


@pytest.fixture
def manifest() -> dict:
    """Manifest facts matching the `warehouse` fixture (a fresh copy per test)."""
    return {"ingest": dict(MANIFEST["ingest"]), "families": {}}


@pytest.fixture
def con(built: Path, tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to a fresh copy of the test module's `built` DuckDB file, so each test may break its tables."""
    copy = tmp_path / "copy.duckdb"
    shutil.copy(built, copy)
    connection = duckdb.connect(str(copy))
    yield connection
    connection.close()
