"""Tables fuseki and opening_tree and the openings text against brute-force oracles."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.analytics.counting import build_game_counts
from gopat.transforms.analytics.openings import build_fuseki, build_opening_tree, openings_text
from tests.transforms.analytics import analytics_oracles as O
from tests.transforms.analytics.analytics_tables import Game, game_from_moves, load_tables, read_games

WORKED_EXAMPLE = ";B[pd];W[dd];B[qp];W[dq];B[do];W[co];B[dp];W[cp];B[eq];W[cn]"


@pytest.fixture(scope="module")
def tiny_games(tiny_archive: Path) -> list[Game]:
    return read_games(tiny_archive)


@pytest.fixture(scope="module")
def tiny_con(tiny_games: list[Game]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_tables(con, tiny_games)
    build_fuseki(con, moves=10)
    build_opening_tree(con, moves=10)
    return con


def _connection(games: list[Game]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_tables(con, games)
    return con


def _transformed(game_id: str, moves: str, m: dict) -> Game:
    base = game_from_moves(game_id, moves)
    moved = tuple((colour, *m[(row, col)]) for colour, row, col in base.moves)
    return Game(game_id, base.headers, 19, (), moved)


def test_worked_example_canonical_forms_are_minimal() -> None:
    base = game_from_moves("g", WORKED_EXAMPLE)
    points = [(row, col) for _, row, col in base.moves]
    games = [_transformed(f"g{i}", WORKED_EXAMPLE, m) for i, m in enumerate(O.D4)]
    # the same stones in another order: Black's 1st and 3rd moves swapped
    reordered = ";B[qp];W[dd];B[pd];W[dq];B[do];W[co];B[dp];W[cp];B[eq];W[cn]"
    games.append(game_from_moves("r", reordered))
    con = _connection(games)
    build_fuseki(con)
    rows = con.execute("SELECT kind, key, sgf, position, games, distinct_sequences FROM fuseki").fetchall()
    position = min(O.position_text(points[0::2], points[1::2], m) for m in O.D4)
    sequence = min(O.sequence_variants(points))
    assert sequence == "dd dp pc qp op oq pp pq qo nq"
    other = min(O.sequence_variants([(row, col) for _, row, col in games[-1].moves]))
    assert sorted(rows) == sorted([
        ("position", position, None, position, 9, 2),
        ("sequence", sequence, ";B[dd];W[dp];B[pc];W[qp];B[op];W[oq];B[pp];W[pq];B[qo];W[nq]", position, 8, 1),
        ("sequence", other, "".join(f";{'BW'[i % 2]}[{p}]" for i, p in enumerate(other.split())), position, 1, 1),
    ])


def test_fuseki_matches_brute_force_on_tiny(tiny_con: duckdb.DuckDBPyConnection, tiny_games: list[Game]) -> None:
    expected: dict[tuple[str, str], list[Game]] = defaultdict(list)
    for game in tiny_games:
        points = O.opening_points(game, 10)
        if points is None:
            continue
        expected[("sequence", min(O.sequence_variants(points)))].append(game)
        position = min(O.position_text(points[0::2], points[1::2], m) for m in O.D4)
        expected[("position", position)].append(game)
    rows = tiny_con.execute(
        "SELECT kind, key, games, first_year, last_year, year_counts, unknown_year, results_known, "
        "unknown_results, black_win_rate FROM fuseki"
    ).fetchall()
    assert len(rows) == len(expected) and len(expected) > 100
    for kind, key, games, first, last, per_year, unknown_year, known, unknown, rate in rows:
        group = expected[(kind, key)]
        years = Counter(g.year for g in group if g.year is not None)
        scores = [O.score(g.winner) for g in group if g.winner is not None]
        assert games == len(group)
        assert (first, last) == ((min(years), max(years)) if years else (None, None))
        assert per_year == [{"year": y, "games": n} for y, n in sorted(years.items())]
        assert unknown_year == sum(g.year is None for g in group)
        assert (known, unknown) == (len(scores), len(group) - len(scores))
        assert rate == (pytest.approx(sum(scores) / len(scores)) if scores else None)


def test_opening_games_exclude_passes_handicap_short_and_non_alternating() -> None:
    good = game_from_moves("good", ";B[pd];W[dd];B[pp]")
    passing = game_from_moves("pass", ";B[pd];W[];B[pp]")
    short = game_from_moves("short", ";B[pd];W[dd]")
    twice = game_from_moves("twice", ";B[pd];B[dd];W[pp]")
    handicap = Game("hand", {**good.headers, "HA": "2"}, 19, (), good.moves)
    setup = Game("setup", good.headers, 19, (("B", 3, 3),), good.moves)
    small = Game("small", good.headers, 13, (), good.moves)
    con = _connection([good, passing, short, twice, handicap, setup, small])
    build_fuseki(con, moves=3)
    assert con.execute("SELECT kind, games, example_game_id FROM fuseki ORDER BY kind").fetchall() == [
        ("position", 1, "good"),
        ("sequence", 1, "good"),
    ]


def test_fuseki_years_and_results() -> None:
    opening = ";B[pd];W[dd];B[pq]"
    games = [
        _transformed("a", opening, O.D4[1]),
        _transformed("b", opening, O.D4[2]),
        _transformed("c", opening, O.D4[5]),
        game_from_moves("d", opening),
        game_from_moves("e", opening),
    ]
    headers = [("1999-01-02", "B+R"), ("2003", "W+0.5"), ("12-12-1998", "Draw"), (None, "?"), ("2003-05-05", "B+T")]
    games = [Game(g.game_id, {**g.headers, "DT": dt, "RE": re_}, 19, (), g.moves)
             for g, (dt, re_) in zip(games, headers, strict=True)]
    con = _connection(games)
    build_fuseki(con, moves=3)
    rows = con.execute(
        "SELECT kind, games, first_year, last_year, year_counts, unknown_year, results_known, unknown_results, "
        "black_score, black_win_rate, example_game_id FROM fuseki ORDER BY kind"
    ).fetchall()
    per_year = [{"year": 1998, "games": 1}, {"year": 1999, "games": 1}, {"year": 2003, "games": 2}]
    assert rows == [
        ("position", 5, 1998, 2003, per_year, 1, 4, 1, 2.5, 0.625, "a"),
        ("sequence", 5, 1998, 2003, per_year, 1, 4, 1, 2.5, 0.625, "a"),
    ]


def _tree_oracle(points_by_game: dict[str, list[tuple[int, int]]], moves: int,
                 by: Callable[[str], object] | None = None) -> tuple[Counter, Counter]:
    """Edges (depth, node, move, child) and nodes (depth, node) counted by brute force; with `by`, each key
    ends with by(game_id)."""
    edges: Counter = Counter()
    nodes: Counter = Counter()
    for game_id, points in points_by_game.items():
        extra = () if by is None else (by(game_id),)
        for depth in range(moves):
            before, after = points[:depth], points[: depth + 1]
            framed = [(O.position_text(before[0::2], before[1::2], m), m) for m in O.D4]
            node = min(label for label, _ in framed)
            move = min(O.text(m[points[depth]]) for label, m in framed if label == node)
            child = min(O.position_text(after[0::2], after[1::2], m) for m in O.D4)
            edges[(depth, node, move, child, *extra)] += 1
            nodes[(depth, node, *extra)] += 1
    return edges, nodes


def test_opening_tree_matches_brute_force_on_tiny(tiny_con: duckdb.DuckDBPyConnection, tiny_games: list[Game]) -> None:
    points_by_game = {g.game_id: p for g in tiny_games if (p := O.opening_points(g, 10)) is not None}
    edges, nodes = _tree_oracle(points_by_game, 10)
    years = {g.game_id: g.year for g in tiny_games}
    edge_years, _ = _tree_oracle(points_by_game, 10, by=lambda game_id: years[game_id])
    rows = tiny_con.execute("SELECT depth, node, move, child, games, node_games FROM opening_tree").fetchall()
    assert Counter({row[:4]: row[4] for row in rows}) == edges
    per_year = tiny_con.sql("SELECT depth, node, move, child, year_counts, unknown_year FROM opening_tree").fetchall()
    assert len(per_year) == len(edges) and any(row[4] for row in per_year)
    for *edge, year_counts, unknown_year in per_year:
        assert year_counts == [{"year": y, "games": edge_years[(*edge, y)]}
                               for y in sorted(y for (*e, y) in edge_years if e == edge and y is not None)]
        assert unknown_year == edge_years[(*edge, None)]
    assert {(row[0], row[1]): row[5] for row in rows} == dict(nodes)
    per_node = Counter()
    for depth, node, _, _, games, _ in rows:
        per_node[(depth, node)] += games
    assert per_node == nodes
    assert nodes[(0, "B:|W:")] == len(points_by_game)


def test_opening_tree_merges_equivalent_continuations() -> None:
    # the four star points are one first move; after B dd, W pp and W dp are different, and
    # after B dd W pp (symmetric about the main diagonal) B dp and B pd are the same move
    games = [
        game_from_moves("a", ";B[dd];W[pp];B[dp]"),
        game_from_moves("b", ";B[pp];W[dd];B[pd]"),
        game_from_moves("c", ";B[pd];W[dp];B[dd]"),
        game_from_moves("d", ";B[dp];W[pd];B[pp]"),
        game_from_moves("e", ";B[dd];W[dp];B[pd]"),
    ]
    con = _connection(games)
    build_opening_tree(con, moves=3)
    rows = con.execute("SELECT depth, node, move, games, node_games, black_win_rate FROM opening_tree").fetchall()
    assert sorted(rows) == [
        (0, "B:|W:", "dd", 5, 5, None),
        (1, "B:dd|W:", "dp", 1, 5, None),
        (1, "B:dd|W:", "pp", 4, 5, None),
        (2, "B:dd|W:dp", "pd", 1, 1, None),
        (2, "B:dd|W:pp", "dp", 4, 4, None),
    ]


def test_opening_tree_win_rates() -> None:
    games = [
        game_from_moves("a", ";B[dd];W[pp]", re_="B+R"),
        game_from_moves("b", ";B[pp];W[dd]", re_="W+3.5"),
        game_from_moves("c", ";B[pd];W[dp]", re_="Draw"),
        game_from_moves("d", ";B[dp];W[pd]", re_="?"),
    ]
    con = _connection(games)
    build_opening_tree(con, moves=2)
    root = con.execute("SELECT games, results_known, unknown_results, black_score, black_win_rate FROM opening_tree "
                       "WHERE depth = 0").fetchall()
    assert root == [(4, 3, 1, 1.5, 0.5)]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 18), st.integers(0, 18)), min_size=4, max_size=4, unique=True),
       st.integers(0, 7))
def test_fuseki_keys_are_minimal_and_invariant(points: list[tuple[int, int]], t: int) -> None:
    record = "".join(f";{'BW'[i % 2]}[{O.text(p)}]" for i, p in enumerate(points))
    games = [game_from_moves("a", record), _transformed("b", record, O.D4[t])]
    con = _connection(games)
    build_fuseki(con, moves=4)
    rows = con.execute("SELECT kind, key, games FROM fuseki ORDER BY kind").fetchall()
    assert rows == [
        ("position", min(O.position_text(points[0::2], points[1::2], m) for m in O.D4), 2),
        ("sequence", min(O.sequence_variants(points)), 2),
    ]


def test_openings_text_lists_the_most_common_lines(tiny_games: list[Game]) -> None:
    con = _connection(tiny_games)
    counts = Counter(
        min(O.sequence_variants(p)) for g in tiny_games if (p := O.opening_points(g, 4)) is not None
    )
    text = openings_text(con, moves=4, top=3)
    lines = text.splitlines()
    assert len(lines) == 2 + 3
    assert f"of {sum(counts.values())} games" in lines[0]
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:3]
    for line, (sequence, games) in zip(lines[2:], ranked, strict=True):
        _rank, count, *_ = line.split()
        spelled = "  ".join(f"{'BW'[i % 2]} {p}" for i, p in enumerate(sequence.split()))
        assert int(count) == games and line.endswith(spelled)
    assert not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'opening_games'").fetchall()[0][0]


def test_build_rejects_bad_options() -> None:
    con = duckdb.connect()
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="moves"):
            build_fuseki(con, moves=bad)
    with pytest.raises(ValueError, match="max_moves"):
        build_game_counts(con, max_moves=0)
