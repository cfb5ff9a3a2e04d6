"""The rejects suite passes a valid table and names the check that each injected fault breaks."""

from __future__ import annotations

import duckdb
import pytest

from gopat.expectations import rejects


def failing(con: duckdb.DuckDBPyConnection, manifest: dict) -> set[str]:
    """Names of the failed expectations of the rejects suite."""
    result = rejects.validate(con, manifest=manifest)
    assert result.table == "rejects"
    assert result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def test_valid_rejects_pass(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    result = rejects.validate(warehouse, manifest=manifest)
    assert result.success, result.failures()
    names = {outcome.expectation for outcome in result.outcomes}
    assert {
        "rejects_schema_matches_contract",
        "rejects_rows_equal_files_plus_trees_rejected",
        "file_rows_equal_files_rejected",
        "rejected_tree_is_in_a_member",
        "member_raw_only_for_guessed_names",
        "tree_index_at_least_0",
        "reason_not_null",
        "message_not_null",
        "reason_is_snake_case",
    } <= names


@pytest.mark.parametrize(
    "reason",
    ["empty_file", "bad_sgf", "member_too_large", "path_traversal", "zip_bomb", "sha256_mismatch", "x"],
)
def test_snake_case_reasons_pass(warehouse: duckdb.DuckDBPyConnection, manifest: dict, reason: str) -> None:
    warehouse.execute("UPDATE rejects SET reason = ? WHERE member = 'pro/bad.sgf'", [reason])
    assert not failing(warehouse, manifest)


@pytest.mark.parametrize(
    "reason", ["EmptyFile", "empty-file", "empty file", "_empty", "empty_", "empty__file", "1empty", ""]
)
def test_other_reasons_fail(warehouse: duckdb.DuckDBPyConnection, manifest: dict, reason: str) -> None:
    warehouse.execute("UPDATE rejects SET reason = ? WHERE member = 'pro/bad.sgf'", [reason])
    assert failing(warehouse, manifest) == {"reason_is_snake_case"}


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("UPDATE rejects SET reason = NULL WHERE member = ''", {"reason_not_null"}),
        ("UPDATE rejects SET message = NULL WHERE member = ''", {"message_not_null"}),
        ("UPDATE rejects SET member = NULL WHERE member = ''", {"member_not_null",
                                                              "unfetched_source_is_whole_source_reject"}),
        (
            "UPDATE rejects SET source_sha256 = NULL",
            {"unfetched_source_is_whole_source_reject", "rejected_tree_is_in_a_member"},
        ),
        (
            "UPDATE rejects SET source_sha256 = 'abc' WHERE member <> ''",
            {"source_sha256_is_64_hex_digits"},
        ),
        (
            "DELETE FROM rejects WHERE member = ''",
            {"rejects_rows_equal_files_plus_trees_rejected", "file_rows_equal_files_rejected"},
        ),
        (
            "INSERT INTO rejects SELECT * REPLACE ('pro/worse.sgf' AS member) FROM rejects "
            "WHERE member = 'pro/bad.sgf'",
            {"rejects_rows_equal_files_plus_trees_rejected", "file_rows_equal_files_rejected"},
        ),
        (
            # a file reject counted as a tree: the total holds, the split does not; a tree of a whole source
            "UPDATE rejects SET tree_index = 0 WHERE member = 'pro/bad.sgf';"
            "UPDATE rejects SET tree_index = NULL WHERE member = 'pro/b.sgf';"
            "UPDATE rejects SET tree_index = -1 WHERE member = ''",
            {
                "file_rows_equal_files_rejected",
                "rejected_tree_is_in_a_member",
                "tree_index_at_least_0",
            },
        ),
        (
            "UPDATE rejects SET member_raw = 'c6e5' WHERE member = 'pro/bad.sgf'",
            {"member_raw_only_for_guessed_names"},
        ),
    ],
)
def test_injected_fault_is_caught(
    warehouse: duckdb.DuckDBPyConnection, manifest: dict, fault: str, expected: set[str]
) -> None:
    warehouse.execute(fault)
    assert failing(warehouse, manifest) == expected


def test_count_must_match_manifest(warehouse: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    manifest["ingest"]["trees_rejected"] = 2
    result = rejects.validate(warehouse, manifest=manifest)
    (failure,) = result.failures()
    assert failure.expectation == "rejects_rows_equal_files_plus_trees_rejected"
    assert failure.details == "violations=1: 3 rows, files_rejected=2, trees_rejected=2"


def test_manifest_without_ingest_facts_raises(warehouse: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match=r"manifest lacks ingest\.files_rejected"):
        rejects.validate(warehouse, manifest={"families": {}})
