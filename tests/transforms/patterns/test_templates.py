"""Don't-care templates: the lattice against exhaustive enumeration, and table dont_care_templates on real games."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.patterns.gnugo import export_gnugo
from gopat.transforms.patterns.templates import build_dont_care_templates, dont_care_lattice
from tests.transforms.analytics import analytics_oracles as O
from tests.transforms.analytics.analytics_tables import Game, load_tables, read_games


@pytest.fixture(scope="module")
def tiny_games(tiny_archive: Path) -> list[Game]:
    return read_games(tiny_archive)


def _connection(games: list[Game]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_tables(con, games)
    return con


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
    from gopat.transforms.patterns.keys import KeyLayout, square_points
    from gopat.transforms.patterns.symmetry import square_group

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
