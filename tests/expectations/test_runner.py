"""The shared runner: real GX runs on pandas frames, results in suite order, nothing written or sent."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.expectations import expect
from gopat.expectations.runner import (
    ExpectationOutcome,
    Invariant,
    SuiteResult,
    combine,
    key_expectations,
    manifest_fact,
    run_checks,
    run_invariants,
    run_suite,
    schema_gate,
    schema_invariant,
    sql_invariant,
    table_columns,
)
from gopat.expectations.suites import SUITES
from gopat.transforms.tables.registry import TABLES

E = expect


def test_outcomes_keep_suite_order_and_readable_names() -> None:
    frame = pd.DataFrame({"key": ["a", "b", "b", None], "n": [1, 5, 2, 3]})
    expectations = [
        E.ExpectTableRowCountToEqual(value=4),
        E.ExpectColumnValuesToBeUnique(column="key"),
        E.ExpectColumnValuesToNotBeNull(column="n"),
        E.ExpectColumnValuesToBeBetween(column="n", min_value=0, max_value=3),
        E.ExpectCompoundColumnsToBeUnique(column_list=["key", "n"]),
        E.ExpectColumnValuesToBeInSet(column="key", value_set=["a", "b"], meta={"check": "keys_are_a_or_b"}),
        E.ExpectColumnValuesToNotBeNull(column="key"),
    ]
    result = run_suite("letters", frame, expectations)
    assert [(o.expectation, o.success) for o in result.outcomes] == [
        ("expect_table_row_count_to_equal(value=4)", True),
        ("expect_column_values_to_be_unique(key)", False),
        ("expect_column_values_to_not_be_null(n)", True),
        ("expect_column_values_to_be_between(n)", False),
        ("expect_compound_columns_to_be_unique(key, n)", True),
        ("keys_are_a_or_b", True),
        ("expect_column_values_to_not_be_null(key)", False),
    ]
    assert result.table == "letters"
    assert not result.success
    assert [o.expectation for o in result.failures()] == [
        "expect_column_values_to_be_unique(key)",
        "expect_column_values_to_be_between(n)",
        "expect_column_values_to_not_be_null(key)",
    ]
    details = {o.expectation: o.details for o in result.outcomes}
    assert details["expect_column_values_to_be_between(n)"] == "1 unexpected of 4; e.g. 5"
    assert details["expect_column_values_to_be_unique(key)"].startswith("2 unexpected of 4")
    assert details["expect_table_row_count_to_equal(value=4)"] == "observed 4, expected 4"


def test_caller_expectations_are_not_changed() -> None:
    expectation = E.ExpectColumnValuesToNotBeNull(column="x", meta={"owner": "test"})
    before = expectation.configuration.to_json_dict()
    run_suite("t", pd.DataFrame({"x": [1]}), [expectation])
    run_suite("t", pd.DataFrame({"x": [None]}), [expectation])
    assert expectation.configuration.to_json_dict() == before


def test_missing_column_is_a_failure_not_a_crash() -> None:
    result = run_suite("t", pd.DataFrame({"x": [1]}), [E.ExpectColumnValuesToBeBetween(column="nope", min_value=0)])
    (outcome,) = result.outcomes
    assert not outcome.success
    assert outcome.details.startswith("error:") and "nope" in outcome.details


def test_empty_suite_and_empty_frame_succeed() -> None:
    assert run_suite("t", pd.DataFrame({"x": []}), []).success
    empty = pd.DataFrame({"x": pd.Series([], dtype="int64")})
    assert run_suite("t", empty, [E.ExpectColumnValuesToNotBeNull(column="x")]).success


def test_no_files_and_no_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GX runs in memory: no gx/ folder in the working directory, no socket opened."""
    monkeypatch.chdir(tmp_path)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("GX tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    result = run_invariants("t", [Invariant("a", 0), Invariant("b", 2, "two bad rows")])
    assert [o.success for o in result.outcomes] == [True, False]
    assert list(tmp_path.iterdir()) == []


def test_invariants_are_named_and_explained() -> None:
    result = run_invariants(
        "pattern_stats",
        [Invariant("keys_canonical", 0, "unused when it holds"), Invariant("orbit_sizes", 3, "e.g. key 1200")],
    )
    assert result.outcomes == (
        ExpectationOutcome("keys_canonical", True, "violations=0"),
        ExpectationOutcome("orbit_sizes", False, "violations=3: e.g. key 1200"),
    )
    with pytest.raises(ValueError, match="duplicate invariant names"):
        run_invariants("t", [Invariant("a", 0), Invariant("a", 1)])


def test_to_dict_is_json_and_complete() -> None:
    result = combine(
        "games",
        [
            run_invariants("games", [Invariant("ingest_equation", 1, "files_in=3, ingested=1, rejected=1")]),
            run_suite("games", pd.DataFrame({"x": [1, 2]}), [E.ExpectColumnValuesToBeUnique(column="x")]),
        ],
    )
    document = json.loads(json.dumps(result.to_dict()))
    assert document == {
        "table": "games",
        "success": False,
        "evaluated": 2,
        "failed": 1,
        "outcomes": [
            {
                "expectation": "ingest_equation",
                "success": False,
                "details": "violations=1: files_in=3, ingested=1, rejected=1",
            },
            {"expectation": "expect_column_values_to_be_unique(x)", "success": True, "details": "0 unexpected of 2"},
        ],
    }
    assert combine("games", []) == SuiteResult("games", True, ())


def test_run_checks_reads_the_columns_the_expectations_name_after_the_invariants() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', NULL), (1, 'a', 2)) v(k, name, unread)")
    result = run_checks(con, "t", [Invariant("rows_ok", 0)], [
        *key_expectations(("k", "name"), not_null=("k",)),
        E.ExpectTableRowCountToEqual(value=2),
    ])
    assert [(o.expectation, o.success) for o in result.outcomes] == [
        ("rows_ok", True),
        ("expect_column_values_to_not_be_null(k)", True),
        ("expect_compound_columns_to_be_unique(k, name)", False),
        ("expect_table_row_count_to_equal(value=2)", True),
    ]
    assert not result.success and result.table == "t"


@settings(max_examples=15, deadline=None)
@given(
    values=st.lists(st.one_of(st.none(), st.integers(-50, 50)), max_size=30),
    low=st.integers(-60, 60),
    width=st.integers(0, 60),
)
def test_between_agrees_with_brute_force(values: list[int | None], low: int, width: int) -> None:
    """GX's verdict and unexpected count equal a plain Python count (nulls are not unexpected)."""
    high = low + width
    frame = pd.DataFrame({"v": pd.array(values, dtype="Int64")})
    expectation = E.ExpectColumnValuesToBeBetween(column="v", min_value=low, max_value=high)
    (outcome,) = run_suite("t", frame, [expectation]).outcomes
    bad = [v for v in values if v is not None and not low <= v <= high]
    assert outcome.success == (not bad)
    assert outcome.details.startswith(f"{len(bad)} unexpected of {len(values)}")


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    """A DuckDB file with one small table."""
    connection = duckdb.connect(str(tmp_path / "runner.duckdb"))
    connection.execute("CREATE TABLE t AS SELECT range::INTEGER AS x, range * 2 AS y FROM range(100)")
    yield connection
    connection.close()


def test_sql_invariant_counts_all_rows_and_samples_three(con: duckdb.DuckDBPyConnection) -> None:
    invariant = sql_invariant(con, "x_below_90", "SELECT x, y FROM t WHERE x >= 90 ORDER BY x", evidence="x < 90")
    assert invariant.violations == sum(1 for x in range(100) if x >= 90)
    assert invariant.evidence == "x < 90; e.g. 90, 180; 91, 182; 92, 184"
    assert sql_invariant(con, "none", "SELECT x FROM t WHERE x < 0") == Invariant("none", 0, "")
    assert sql_invariant(con, "p", "SELECT x FROM t WHERE x < $n", params={"n": 7}).violations == 7


def test_schema_invariant_lists_every_difference(con: duckdb.DuckDBPyConnection) -> None:
    columns = table_columns(con, "t")
    assert columns == {"x": "INTEGER", "y": "BIGINT"}
    assert schema_invariant("t", columns, {"x": "INTEGER", "y": "BIGINT"}).violations == 0
    drift = schema_invariant("t", columns, {"x": "SMALLINT", "z": "VARCHAR"})
    assert drift.name == "t_schema_matches_contract"
    assert drift.violations == 3
    assert drift.evidence == "missing z, unexpected y, x is INTEGER, not SMALLINT"
    with pytest.raises(ValueError, match="table u not found"):
        table_columns(con, "u")


def test_manifest_fact() -> None:
    manifest = {"ingest": {"games": 4, "flag": True, "text": "4"}}
    assert manifest_fact(manifest, "ingest", "games") == 4
    for path in (("ingest", "files_in"), ("families", "d12"), ("ingest", "games", "x")):
        with pytest.raises(ValueError, match="manifest lacks"):
            manifest_fact(manifest, *path)
    for name in ("flag", "text"):
        with pytest.raises(ValueError, match="not an integer"):
            manifest_fact(manifest, "ingest", name)


def test_every_published_table_has_the_suite_the_registry_names() -> None:
    assert sorted(SUITES) == sorted(TABLES)
    for name, suite in SUITES.items():
        assert f"expectations/{suite.__module__.rsplit('.', 1)[1]}.py" == TABLES[name].suite


def test_schema_gate_stops_a_suite_on_a_missing_column_and_with_types_on_another_type() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INTEGER, b VARCHAR)")
    schema, stopped = schema_gate(con, "t", {"a": "INTEGER", "b": "VARCHAR"})
    assert schema.violations == 0 and stopped is None
    schema, stopped = schema_gate(con, "t", {"a": "BIGINT", "b": "VARCHAR"})
    assert schema.evidence == "a is INTEGER, not BIGINT" and stopped is not None and not stopped.success
    assert schema_gate(con, "t", {"a": "BIGINT", "b": "VARCHAR"}, types=False)[1] is None
    schema, stopped = schema_gate(con, "t", {"a": "INTEGER", "c": "VARCHAR"}, types=False)
    assert "missing c" in schema.evidence and stopped is not None and not stopped.success
