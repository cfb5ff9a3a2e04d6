"""The dont_care_templates suite passes on templates of real sq3 patterns and names each injected fault."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from gopat.expectations import dont_care_templates
from gopat.transforms.patterns.templates import build_dont_care_templates
from tests.transforms.analytics import analytics_oracles as O
from tests.transforms.analytics.analytics_tables import read_games

MIN_OCCURRENCE = 100


@pytest.fixture(scope="module")
def stats(tiny_archive: Path) -> dict[tuple[int, str], tuple[int, int]]:
    """Canonical sq3 counts of 6 real games."""
    games = [g for g in read_games(tiny_archive) if g.board_size == 19 and len(g.moves) > 100][:6]
    return O.sq3_stats(games)


@pytest.fixture(scope="module")
def built(stats: dict[tuple[int, str], tuple[int, int]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file with pattern_stats and dont_care_templates of those counts."""
    path = tmp_path_factory.mktemp("templates") / "built.duckdb"
    connection = duckdb.connect(str(path))
    O.pattern_stats_table(connection, stats)
    build_dont_care_templates(connection, families=["sq3"], min_occurrence=MIN_OCCURRENCE)
    connection.close()
    return path


def _failures(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {outcome.expectation for outcome in dont_care_templates.validate(con, manifest={}).failures()}


def _template(con: duckdb.DuckDBPyConnection, symmetry: int = 8) -> tuple[str, str]:
    """A template with a '?' and another wildcard (most occurrences first) and a non-minimal image of it."""
    template = con.execute(
        "SELECT template FROM dont_care_templates WHERE symmetry = ? AND template LIKE '%?%' AND wildcards >= 2 "
        "ORDER BY occurrence DESC, template LIMIT 1",
        [symmetry],
    ).fetchall()[0][0]
    return template, max(O.images(template, O.square_perms(3), symmetry == 16))


def test_valid_templates_pass(con: duckdb.DuckDBPyConnection) -> None:
    result = dont_care_templates.validate(con, manifest={})
    assert result.success, result.failures()
    counts = dict(con.execute("SELECT symmetry, count(*) FROM dont_care_templates GROUP BY ALL").fetchall())
    assert counts[8] > 10 and counts[16] > 5


def test_non_canonical_template_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    template, image = _template(con, 16)
    con.execute("UPDATE dont_care_templates SET template = ? WHERE symmetry = 16 AND template = ?", [image, template])
    assert "dont_care_templates_are_canonical" in _failures(con)


def test_missing_pattern_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    template, _ = _template(con)
    covered = sorted(O.cover(template, O.square_perms(3), False))
    con.execute("DELETE FROM pattern_stats WHERE symmetry = 8 AND key = ?", [covered[0]])
    assert "dont_care_templates_cover_only_existing_patterns" in _failures(con)


def test_rare_pattern_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    template, _ = _template(con)
    covered = sorted(O.cover(template, O.square_perms(3), False))
    con.execute(
        "UPDATE pattern_stats SET occurrence = ? WHERE symmetry = 8 AND key = ?", [MIN_OCCURRENCE - 1, covered[-1]]
    )
    assert "dont_care_templates_cover_only_existing_patterns" in _failures(con)


def test_non_maximal_template_is_caught(con: duckdb.DuckDBPyConnection) -> None:
    # a valid template inside a published one (one '?' made concrete), with its true counts
    template, _ = _template(con)
    smaller = O.canonical(template.replace("?", "0", 1), O.square_perms(3), False)
    covered = sorted(O.cover(smaller, O.square_perms(3), False))
    counts = con.execute(
        "SELECT count(*), sum(occurrence), sum(chosen) FROM pattern_stats WHERE symmetry = 8 AND list_contains(?, key)",
        [covered],
    ).fetchall()[0]
    con.execute(
        "INSERT INTO dont_care_templates SELECT * REPLACE (? AS template, wildcards - 1 AS wildcards, ? AS patterns, "
        "? AS occurrence, ? AS chosen, ?::DOUBLE / ? AS chosen_rate) FROM dont_care_templates "
        "WHERE template = ? AND symmetry = 8",
        [smaller, *counts, counts[2], counts[1], template],
    )
    assert _failures(con) == {"dont_care_templates_are_maximal"}


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        ("UPDATE dont_care_templates SET occurrence = occurrence + 1, chosen_rate = chosen / (occurrence + 1)",
         "dont_care_templates_counts_are_sums_of_covered_patterns"),
        ("UPDATE dont_care_templates SET patterns = patterns + 1",
         "dont_care_templates_counts_are_sums_of_covered_patterns"),
        ("UPDATE dont_care_templates SET chosen_rate = chosen_rate + 0.5", "dont_care_templates_rates"),
        ("UPDATE dont_care_templates SET wildcards = wildcards + 1", "dont_care_templates_wildcards_counted"),
        ("UPDATE dont_care_templates SET template = template || '0'", "dont_care_templates_fit_their_family"),
        ("UPDATE dont_care_templates SET family = 'd12'", "dont_care_templates_fit_their_family"),
        ("UPDATE dont_care_templates SET min_occurrence = min_occurrence + 1 WHERE symmetry = 16",
         "dont_care_templates_one_min_occurrence"),
        ("UPDATE dont_care_templates SET diagram = replace(diagram, 'Black', 'White')",
         "dont_care_templates_diagram_names_the_mover"),
        ("INSERT INTO dont_care_templates SELECT * FROM dont_care_templates LIMIT 1",
         "expect_compound_columns_to_be_unique(family, symmetry, template)"),
        ("ALTER TABLE dont_care_templates DROP COLUMN diagram", "dont_care_templates_schema_matches_contract"),
    ],
)
def test_injected_fault_is_caught(con: duckdb.DuckDBPyConnection, fault: str, check: str) -> None:
    con.execute(fault)
    assert check in _failures(con)
