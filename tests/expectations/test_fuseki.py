"""The fuseki suite passes on tables built from real games and names each injected fault."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from gopat.expectations import fuseki
from gopat.transforms.analytics.openings import build_fuseki
from tests.transforms.analytics import analytics_oracles as O
from tests.transforms.analytics.analytics_tables import load_tables, read_games

MOVES = 6
GAMES = 200


@pytest.fixture(scope="module")
def built(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file with games, moves and fuseki of the 200 real games."""
    path = tmp_path_factory.mktemp("fuseki") / "built.duckdb"
    con = duckdb.connect(str(path))
    load_tables(con, read_games(tiny_archive))
    build_fuseki(con, moves=MOVES)
    con.close()
    return path


def _failures(con: duckdb.DuckDBPyConnection, games: int = GAMES) -> set[str]:
    result = fuseki.validate(con, manifest={"ingest": {"games": games}})
    assert result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def test_valid_fuseki_passes(con: duckdb.DuckDBPyConnection) -> None:
    result = fuseki.validate(con, manifest={"ingest": {"games": GAMES}})
    assert result.success, result.failures()
    names = {outcome.expectation for outcome in result.outcomes}
    assert {"fuseki_sequence_is_smallest_of_its_8_variants", "fuseki_position_is_smallest_of_its_8_variants"} <= names
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'opening_games'").fetchall() == [(0,)]


def _a_larger_variant(key: str) -> str:
    """Another orientation of a sequence key (the largest of its 8)."""
    points = [(ord(p[1]) - 97, ord(p[0]) - 97) for p in key.split()]
    return max(O.sequence_variants(points))


def test_non_minimal_sequence_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    key = con.execute("SELECT key FROM fuseki WHERE kind = 'sequence' ORDER BY games DESC, key").fetchall()[0][0]
    con.execute("UPDATE fuseki SET key = ? WHERE kind = 'sequence' AND key = ?", [_a_larger_variant(key), key])
    assert "fuseki_sequence_is_smallest_of_its_8_variants" in _failures(con)


def test_non_minimal_position_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    key = con.execute("SELECT key FROM fuseki WHERE kind = 'position' ORDER BY games DESC, key").fetchall()[0][0]
    black, white = (part[2:].split() for part in key.split("|"))
    to_point = lambda p: (ord(p[1]) - 97, ord(p[0]) - 97)  # noqa: E731 - a one-line converter beside its use
    larger = max(O.position_text([to_point(p) for p in black], [to_point(p) for p in white], m) for m in O.D4)
    con.execute("UPDATE fuseki SET key = ?, position = ? WHERE kind = 'position' AND key = ?", [larger, larger, key])
    failures = _failures(con)
    assert "fuseki_position_is_smallest_of_its_8_variants" in failures
    assert "fuseki_position_rows_sum_their_sequences" in failures


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        (
            "UPDATE fuseki SET games = games + 1 WHERE kind = 'position' AND games = (SELECT max(games) FROM fuseki)",
            "fuseki_sequences_and_positions_count_the_same_games",
        ),
        (
            "DELETE FROM fuseki WHERE key IN (SELECT position FROM fuseki WHERE kind = 'sequence' LIMIT 1)",
            "fuseki_position_rows_sum_their_sequences",
        ),
        (
            "DELETE FROM fuseki WHERE kind = 'sequence' "
            "AND key = (SELECT max(key) FROM fuseki WHERE kind = 'sequence')",
            "fuseki_games_are_the_opening_games",
        ),
        ("UPDATE fuseki SET first_year = first_year - 1 WHERE first_year IS NOT NULL", "fuseki_year_counts_add_up"),
        ("UPDATE fuseki SET black_win_rate = 1 - black_win_rate WHERE black_win_rate <> 0.5", "fuseki_results_add_up"),
        ("UPDATE fuseki SET unknown_results = unknown_results + 1", "fuseki_results_add_up"),
        ("UPDATE fuseki SET sgf = replace(sgf, ';B[', ';W[')", "fuseki_sgf_spells_the_sequence"),
        ("UPDATE fuseki SET moves = moves + 1 WHERE kind = 'position'", "fuseki_one_moves_value"),
        ("UPDATE fuseki SET example_game_id = 'nope'", "fuseki_example_game_is_an_opening_game"),
        ("ALTER TABLE fuseki DROP COLUMN sgf", "fuseki_schema_matches_contract"),
    ],
)
def test_injected_fault_is_caught(con: duckdb.DuckDBPyConnection, fault: str, check: str) -> None:
    con.execute(fault)
    assert check in _failures(con)


def test_more_games_than_the_manifest_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    assert "fuseki_games_within_manifest_games" in _failures(con, games=10)


def test_games_shorter_than_the_opening_give_an_empty_table_that_passes(
    warehouse: duckdb.DuckDBPyConnection,
) -> None:
    """Every game ends before move 30: the table is empty and the suite counts the opening games for the build's
    30 moves (the manifest's config), not for the empty table's."""
    build_fuseki(warehouse, moves=30)
    assert warehouse.execute("SELECT count(*) FROM fuseki").fetchall() == [(0,)]
    result = fuseki.validate(warehouse, manifest={"ingest": {"games": 5}, "config": {"fuseki_moves": 30}})
    assert result.success, result.failures()
    claimed = fuseki.validate(warehouse, manifest={"ingest": {"games": 5}, "config": {"fuseki_moves": 2}})
    assert "fuseki_games_are_the_opening_games" in {outcome.expectation for outcome in claimed.failures()}
