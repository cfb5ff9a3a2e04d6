"""The opening_tree suite passes on a tree built from real games and names each injected fault."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from gopat.expectations import opening_tree
from gopat.transforms.analytics.openings import build_fuseki, build_opening_tree
from tests.transforms.analytics.analytics_tables import load_tables, read_games

MOVES = 6
GAMES = 200


@pytest.fixture(scope="module")
def built(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file with games, moves, fuseki and opening_tree of the 200 real games."""
    path = tmp_path_factory.mktemp("tree") / "built.duckdb"
    con = duckdb.connect(str(path))
    load_tables(con, read_games(tiny_archive))
    build_fuseki(con, moves=MOVES)
    build_opening_tree(con, moves=MOVES)
    con.close()
    return path


def _failures(con: duckdb.DuckDBPyConnection, games: int = GAMES) -> set[str]:
    result = opening_tree.validate(con, manifest={"ingest": {"games": games}})
    return {outcome.expectation for outcome in result.failures()}


def test_valid_tree_passes(con: duckdb.DuckDBPyConnection) -> None:
    result = opening_tree.validate(con, manifest={"ingest": {"games": GAMES}})
    assert result.success, result.failures()
    names = {outcome.expectation for outcome in result.outcomes}
    assert {"opening_tree_edges_sum_to_node_games", "opening_tree_leaves_match_fuseki_positions"} <= names


def test_fuseki_comparison_needs_the_same_moves(con: duckdb.DuckDBPyConnection) -> None:
    build_fuseki(con, moves=MOVES + 1)
    result = opening_tree.validate(con, manifest={"ingest": {"games": GAMES}})
    assert result.success
    assert "opening_tree_leaves_match_fuseki_positions" not in {o.expectation for o in result.outcomes}


@pytest.mark.parametrize(
    ("fault", "checks"),
    [
        (
            "UPDATE opening_tree SET games = games + 1 "
            "WHERE depth = 2 AND move = (SELECT min(move) FROM opening_tree WHERE depth = 2)",
            {"opening_tree_edges_sum_to_node_games", "opening_tree_node_games_equal_games_arriving"},
        ),
        (  # the empty board's stabiliser maps every star point to dd
            "UPDATE opening_tree SET move = 'pp' WHERE depth = 0 AND move = 'dd'",
            {"opening_tree_move_is_smallest_under_the_node_stabiliser"},
        ),
        (
            "UPDATE opening_tree SET child = 'B:dd|W:pp' WHERE depth = 1 AND child <> 'B:dd|W:pp'",
            {"opening_tree_child_is_node_plus_move", "opening_tree_node_games_equal_games_arriving"},
        ),
        (
            "UPDATE opening_tree SET node = 'B:pp|W:' WHERE node = 'B:dd|W:'",
            {"opening_tree_node_is_smallest_of_its_8_variants", "opening_tree_node_games_equal_games_arriving"},
        ),
        (
            "UPDATE opening_tree SET move = 'dd' WHERE depth = 1 AND node = 'B:dd|W:'",
            {"opening_tree_move_is_on_an_empty_point"},
        ),
        (
            "UPDATE fuseki SET games = games + 1 WHERE kind = 'position' AND games = (SELECT max(games) FROM fuseki)",
            {"opening_tree_leaves_match_fuseki_positions"},
        ),
        ("UPDATE opening_tree SET colour = 'B'", {"opening_tree_node_has_depth_stones"}),
        ("UPDATE opening_tree SET share = share / 2", {"opening_tree_results_add_up"}),
        ("UPDATE opening_tree SET black_score = black_score + 0.5", {"opening_tree_results_add_up"}),
        ("UPDATE opening_tree SET unknown_year = unknown_year + 1 WHERE depth = 2",
         {"opening_tree_year_counts_add_up"}),
        ("UPDATE opening_tree SET year_counts = list_reverse(year_counts)", {"opening_tree_year_counts_add_up"}),
        ("DELETE FROM opening_tree WHERE depth = 0 AND move = 'dd'", {"opening_tree_edges_sum_to_node_games"}),
        (
            "UPDATE opening_tree SET node_games = node_games - 1, games = games - (move = 'dd')::INTEGER "
            "WHERE depth = 0",
            {"opening_tree_root_counts_the_opening_games", "opening_tree_node_games_equal_games_arriving"},
        ),
        ("INSERT INTO opening_tree SELECT * REPLACE ('B:|W:dd' AS node) FROM opening_tree WHERE depth = 0",
         {"opening_tree_one_root"}),
        ("UPDATE opening_tree SET moves = moves + 1 WHERE depth = 3", {"opening_tree_depth_within_moves"}),
    ],
)
def test_injected_fault_is_caught(con: duckdb.DuckDBPyConnection, fault: str, checks: set[str]) -> None:
    con.execute(fault)
    assert checks <= _failures(con)


def test_more_games_than_the_manifest_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    assert "opening_tree_games_within_manifest_games" in _failures(con, games=10)


def test_games_shorter_than_the_opening_give_an_empty_tree_that_passes(
    warehouse: duckdb.DuckDBPyConnection,
) -> None:
    """Every game ends before move 30: the tree is empty and the suite counts the opening games for the build's
    30 moves (the manifest's config), not for the empty tree's."""
    build_opening_tree(warehouse, moves=30)
    assert warehouse.execute("SELECT count(*) FROM opening_tree").fetchall() == [(0,)]
    result = opening_tree.validate(warehouse, manifest={"ingest": {"games": 5}, "config": {"fuseki_moves": 30}})
    assert result.success, result.failures()
    claimed = opening_tree.validate(warehouse, manifest={"ingest": {"games": 5}, "config": {"fuseki_moves": 2}})
    assert "opening_tree_root_counts_the_opening_games" in {outcome.expectation for outcome in claimed.failures()}
