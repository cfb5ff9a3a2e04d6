"""pattern_tail: the table built from complete counts equals a plain-Python tally, and its suite names each fault."""

from __future__ import annotations

import random
from collections import defaultdict

import duckdb
import pytest

from gopat.expectations import pattern_tail
from tests.expectations.tails import tail_from_counts

THRESHOLDS = {"blk4": 4, "d12": 1, "sq3": 1, "sq5": 2}


def complete_counts() -> list[tuple[str, int, int, int, int]]:
    """Random complete counts (family, symmetry, key, occurrence, chosen) of a few families."""
    rng = random.Random(7)
    rows = []
    for family in sorted(THRESHOLDS):
        for symmetry in (8, 16):
            for key in rng.sample(range(1 << 20), 60):
                occurrence = rng.choice([1, 1, 2, 3, rng.randint(1, 40)])
                rows.append((family, symmetry, key, occurrence, rng.randint(0, occurrence)))
    return rows


ROWS = complete_counts()


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    """A connection with view-like table pattern_counts and the pattern_tail built from it."""
    connection = duckdb.connect()
    connection.execute("CREATE TABLE pattern_counts (family VARCHAR, symmetry INTEGER, key BIGINT, occurrence BIGINT, "
                       "chosen BIGINT, orbit_size INTEGER, result BIGINT)")
    connection.executemany("INSERT INTO pattern_counts VALUES (?, ?, ?, ?, ?, 1, NULL)", ROWS)
    tail_from_counts(connection, min_occurrence=THRESHOLDS)
    return connection


MANIFEST = {"families": {family: {} for family in THRESHOLDS}, "config": {"min_occurrence": THRESHOLDS}}


def failing(con: duckdb.DuckDBPyConnection, manifest: dict = MANIFEST) -> set[str]:
    result = pattern_tail.validate(con, manifest=manifest)
    assert result.table == "pattern_tail" and result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def test_tail_is_the_sum_of_the_keys_below_each_threshold(con: duckdb.DuckDBPyConnection) -> None:
    expected: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for family, symmetry, _, occurrence, chosen in ROWS:
        sums = expected[family, symmetry]
        if occurrence < THRESHOLDS[family]:
            sums[0], sums[1], sums[2] = sums[0] + 1, sums[1] + occurrence, sums[2] + chosen
    found = con.execute("SELECT family, symmetry, min_occurrence, keys, occurrence, chosen FROM pattern_tail")
    rows = found.fetchall()
    assert rows == [(f, s, THRESHOLDS[f], *expected[f, s]) for f, s in sorted(expected)]
    assert {f for f, _, _, keys, _, _ in rows if keys} == {"blk4", "sq5"}


def test_valid_tail_passes(con: duckdb.DuckDBPyConnection) -> None:
    result = pattern_tail.validate(con, manifest=MANIFEST)
    assert result.success, result.failures()
    assert [o.expectation for o in result.outcomes] == [
        "pattern_tail_schema_matches_contract",
        "one_row_per_family_and_symmetry_with_its_threshold",
        "counts_are_those_of_keys_below_the_threshold",
    ]


@pytest.mark.parametrize(("fault", "expected"), [
    ("DELETE FROM pattern_tail WHERE family = 'sq5' AND symmetry = 16",
     "one_row_per_family_and_symmetry_with_its_threshold"),
    ("INSERT INTO pattern_tail FROM pattern_tail WHERE family = 'd12' AND symmetry = 8",
     "one_row_per_family_and_symmetry_with_its_threshold"),
    ("UPDATE pattern_tail SET min_occurrence = 3 WHERE family = 'sq5'",
     "one_row_per_family_and_symmetry_with_its_threshold"),
    ("UPDATE pattern_tail SET occurrence = occurrence + 1 WHERE family = 'sq5' AND symmetry = 8",
     "counts_are_those_of_keys_below_the_threshold"),
    ("UPDATE pattern_tail SET chosen = occurrence + 1 WHERE family = 'blk4' AND symmetry = 8",
     "counts_are_those_of_keys_below_the_threshold"),
    ("UPDATE pattern_tail SET keys = 1 WHERE family = 'd12' AND symmetry = 16",
     "counts_are_those_of_keys_below_the_threshold"),
])
def test_fault_is_named(con: duckdb.DuckDBPyConnection, fault: str, expected: str) -> None:
    con.execute(fault)
    assert failing(con) == {expected}


def test_family_missing_from_the_manifest_config_is_an_error(con: duckdb.DuckDBPyConnection) -> None:
    manifest = {"families": {family: {} for family in THRESHOLDS}, "config": {"min_occurrence": {"sq5": 2}}}
    with pytest.raises(ValueError, match="blk4"):
        pattern_tail.validate(con, manifest=manifest)
