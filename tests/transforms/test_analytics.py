"""Analytics tables (fuseki, opening tree, game counts, don't-care templates) against independent oracles."""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.analytics.counting import build_game_counts, count_games
from gopat.transforms.analytics.openings import build_fuseki, build_opening_tree, openings_text
from gopat.transforms.patterns.gnugo import export_gnugo
from gopat.transforms.patterns.templates import build_dont_care_templates, dont_care_lattice
from tests.transforms import analytics_oracles as O
from tests.transforms.analytics_tables import Game, game_from_moves, load_tables, read_games

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
    games = [Game(g.game_id, {**g.headers, "DT": dt, "RE": re_}, 19, (), g.moves) for g, (dt, re_) in zip(games, headers)]
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


def _tree_oracle(points_by_game: dict[str, list[tuple[int, int]]], moves: int) -> tuple[Counter, Counter]:
    """Edges (depth, node, move, child) and nodes (depth, node) counted by brute force."""
    edges: Counter = Counter()
    nodes: Counter = Counter()
    for points in points_by_game.values():
        for depth in range(moves):
            before, after = points[:depth], points[: depth + 1]
            framed = [(O.position_text(before[0::2], before[1::2], m), m) for m in O.D4]
            node = min(label for label, _ in framed)
            move = min(O.text(m[points[depth]]) for label, m in framed if label == node)
            child = min(O.position_text(after[0::2], after[1::2], m) for m in O.D4)
            edges[(depth, node, move, child)] += 1
            nodes[(depth, node)] += 1
    return edges, nodes


def test_opening_tree_matches_brute_force_on_tiny(tiny_con: duckdb.DuckDBPyConnection, tiny_games: list[Game]) -> None:
    points_by_game = {g.game_id: p for g in tiny_games if (p := O.opening_points(g, 10)) is not None}
    edges, nodes = _tree_oracle(points_by_game, 10)
    rows = tiny_con.execute("SELECT depth, node, move, child, games, node_games FROM opening_tree").fetchall()
    assert Counter({row[:4]: row[4] for row in rows}) == edges
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
    for line, (sequence, games) in zip(lines[2:], ranked):
        rank, count, *_ = line.split()
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


def test_game_counts_table() -> None:
    con = duckdb.connect()
    build_game_counts(con, max_moves=5)
    rows = con.execute("SELECT board_size, moves, sequences, positions, sequences_approx FROM game_counts").fetchall()
    assert rows[:3] == [
        (19, 1, "55", "55", 55.0),
        (19, 2, "16416", "16416", 16416.0),
        (19, 3, "5834862", "2919078", 5834862.0),
    ]
    for board_size, moves, sequences, positions, approx in rows:
        assert (int(sequences), int(positions)) == count_games(moves, board_size=board_size)
        assert approx == pytest.approx(int(sequences))
    build_game_counts(con, max_moves=4, board_size=3)
    cells = [(r, c) for r in range(3) for c in range(3)]
    # the 19x19 symmetries restricted to the points whose coordinates are 0, 9 or 18 act on a 3x3 board
    maps = [{(r, c): (m[(9 * r, 9 * c)][0] // 9, m[(9 * r, 9 * c)][1] // 9) for r, c in cells} for m in O.D4]
    expected = []
    for n in (1, 2, 3, 4):
        orders = list(itertools.permutations(cells, n))
        sequences = {min(tuple(mp[p] for p in seq) for mp in maps) for seq in orders}
        positions = {
            min((tuple(sorted(mp[p] for p in seq[0::2])), tuple(sorted(mp[p] for p in seq[1::2]))) for mp in maps)
            for seq in orders
        }
        expected.append((3, n, str(len(sequences)), str(len(positions))))
    assert con.execute("SELECT board_size, moves, sequences, positions FROM game_counts").fetchall() == expected


# --- don't-care templates -------------------------------------------------------------------


def _oracle_lattice(concrete: set[str], perms: list[tuple[int, ...]], swap: bool) -> tuple[set[str], set[str]]:
    """All valid templates and the maximal ones, by enumerating every template over the symbols."""
    n_cells = len(perms[0])
    found = set()
    for colour in "12":
        for cells in itertools.product("0123?xo", repeat=n_cells):
            template = colour + "".join(cells)
            if any(c in "?xo" for c in cells) and O.valid(template, concrete, perms, swap):
                found.add(O.canonical(template, perms, swap))
    maximal = {t for t in found if not any(O.valid(g, concrete, perms, swap) for g in O.generalisations(t))}
    return found, maximal


def _group(size: int, swap: bool):
    from gopat.transforms.patterns.symmetry import KeyLayout, square_group, square_points

    return square_group(KeyLayout(square_points(size)), colour_swap=swap)


def _all_2x2_keys(swap: bool) -> list[str]:
    """Every canonical 2x2 key: interior, one side off the board, a corner (two sides off the board)."""
    perms = O.square_perms(2)
    keys = set()
    for colour in "12":
        for cells in itertools.product("012", repeat=4):
            keys.add(O.canonical(colour + "".join(cells), perms, swap))
        for cells in itertools.product("012", repeat=2):
            keys.add(O.canonical(colour + "33" + "".join(cells), perms, swap))
        for cell in "012":
            keys.add(O.canonical(colour + "333" + cell, perms, swap))
    return sorted(keys)


@settings(max_examples=30, deadline=None)
@given(st.data(), st.booleans())
def test_lattice_equals_exhaustive_enumeration_on_2x2(data: st.DataObject, swap: bool) -> None:
    keys = _all_2x2_keys(swap)
    chosen = data.draw(st.lists(st.sampled_from(keys), unique=True, min_size=1, max_size=len(keys)))
    maximal, every = dont_care_lattice(chosen, _group(2, swap))
    valid, expected_maximal = _oracle_lattice(set(chosen), O.square_perms(2), swap)
    assert set(every.tolist()) == valid
    assert set(maximal.tolist()) == expected_maximal
    assert len(maximal) == len(expected_maximal) and list(maximal) == sorted(maximal)


@pytest.fixture(scope="module")
def sq3_stats(tiny_games: list[Game]) -> dict[tuple[int, str], tuple[int, int]]:
    """Canonical sq3 pattern counts of 8 real games, for 8 and 16 symmetries."""
    return O.sq3_stats([g for g in tiny_games if g.board_size == 19 and len(g.moves) > 100][:8])


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.5, 1.0), st.sampled_from([1, 20, 200]))
def test_templates_cover_only_existing_patterns_and_sum_their_counts(
    sq3_stats: dict[tuple[int, str], tuple[int, int]], seed: int, density: float, min_occurrence: int
) -> None:
    # a random part of the real patterns with few stones (the common ones; templates need dense sets)
    rng = random.Random(seed)
    rows = {k: v for k, v in sq3_stats.items() if sum(ch in "12" for ch in k[1][1:]) <= 3 and rng.random() < density}
    con = duckdb.connect()
    O.pattern_stats_table(con, rows)
    build_dont_care_templates(con, families=["sq3"], min_occurrence=min_occurrence)
    found = con.execute(
        "SELECT symmetry, template, wildcards, patterns, occurrence, chosen, min_occurrence FROM dont_care_templates"
    ).fetchall()
    perms = O.square_perms(3)
    for symmetry in (8, 16):
        swap = symmetry == 16
        concrete = {key for (s, key), (occ, _) in rows.items() if s == symmetry and occ >= min_occurrence}
        templates = [row for row in found if row[0] == symmetry]
        assert len({row[1] for row in templates}) == len(templates)
        for _, template, wildcards, patterns, occurrence, chosen, threshold in templates:
            covered = O.cover(template, perms, swap)
            assert covered <= concrete, template
            assert (patterns, occurrence, chosen) == (
                len(covered),
                sum(rows[(symmetry, key)][0] for key in covered),
                sum(rows[(symmetry, key)][1] for key in covered),
            )
            assert template == O.canonical(template, perms, swap)
            assert wildcards == sum(ch in "?xo" for ch in template) >= 1 and threshold == min_occurrence
            assert not any(O.valid(g, concrete, perms, swap) for g in O.generalisations(template)), template
        # nothing is missed: every valid one-wildcard template lies inside some published template
        published = [(O.cover(t[1], perms, swap), O.images(t[1], perms, swap)) for t in templates]
        for key in concrete:
            for general in O.generalisations(key):
                if O.valid(general, concrete, perms, swap):
                    small = O.cover(general, perms, swap)
                    assert any(
                        small <= big and any(O.inside(general, image) for image in variants)
                        for big, variants in published
                    ), general




def _templates_from(keys: list[str], family: str = "sq3") -> duckdb.DuckDBPyConnection:
    """A connection whose pattern_stats holds the canonical forms of `keys` (8 symmetries), built templates."""
    perms = O.square_perms(3)
    rows = {(8, O.canonical(key, perms, False)): (1000 + i, 10 + i) for i, key in enumerate(keys)}
    con = duckdb.connect()
    O.pattern_stats_table(con, rows, family)
    build_dont_care_templates(con, families=[family], min_occurrence=1)
    return con


def test_gnugo_export_blocks() -> None:
    # the centre is the candidate; a corner stone of either colour or none -> one '?' corner;
    # White to move, an edge column, a corner cell empty or white -> 'o' = the mover's stone or empty
    con = _templates_from(["1000000000", "1000000001", "1000000002", "2333000000", "2333000200"])
    assert con.execute("SELECT template, patterns, occurrence, chosen FROM dont_care_templates").fetchall() == [
        ("100000000?", 3, 3003, 33),
        ("2003003o03", 2, 2007, 27),
    ]
    text = export_gnugo(con)
    blocks = text.split("Pattern ")[1:]
    assert blocks == [
        "sq3_8_1\n# 33/3003 chosen/occurrence, covers 3 patterns, template 100000000?\n\n...\n.*.\n..?\n\n"
        ":8,-,value(33)\n\n",
        "sq3_8_2\n# 27/2007 chosen/occurrence, covers 2 patterns, template 2003003o03\n\n..|\n.*|\no.|\n\n"
        ":8,-,value(27)\n",
    ]
    assert text.startswith("# ") and export_gnugo(con, top=1).count("Pattern ") == 1


def test_gnugo_export_relative_colours_and_corner() -> None:
    # Black to move: a white stone or empty is 'x' (the opponent or empty) in GNU Go's view
    con = _templates_from(["1333000000", "1333000200", "1333300300", "1333300301", "1333300302"])
    text = export_gnugo(con)
    assert "\n..|\n.*|\nx.|\n" in text
    assert "\n|.?\n|*.\n+--\n" in text
    diagrams = dict(con.execute("SELECT template, diagram FROM dont_care_templates").fetchall())
    assert diagrams == {
        "1003003o03": "Black to move\n..#\n..#\no.#",
        "130?300333": "Black to move\n#.?\n#..\n###",
    }


def test_templates_reject_unsupported_families() -> None:
    con = duckdb.connect()
    O.pattern_stats_table(con, {})
    for family in ("d12", "sq5", "nope"):
        with pytest.raises(ValueError, match=family):
            build_dont_care_templates(con, families=[family])
    with pytest.raises(ValueError, match="square"):
        export_gnugo(con, family="dia13")
    with pytest.raises(ValueError, match="min_occurrence"):
        build_dont_care_templates(con, min_occurrence=0)
    build_dont_care_templates(con, families=["sq3", "dia13"])
    assert con.execute("SELECT count(*) FROM dont_care_templates").fetchall() == [(0,)]
