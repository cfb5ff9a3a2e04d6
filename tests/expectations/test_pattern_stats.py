"""The pattern_stats suite: a table built by brute force passes, and each injected fault is named."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from gopat.expectations import key_batches, pattern_counts_merge, pattern_stats, pattern_stats_keys
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string, parse_key
from tests.expectations.tails import tail_from_counts

DDL = """
CREATE TABLE pattern_stats (
    family VARCHAR, symmetry INTEGER, key VARCHAR, occurrence BIGINT, chosen BIGINT, chosen_rate DOUBLE,
    orbit_size INTEGER, stones INTEGER, diagram VARCHAR, result BIGINT
)"""
# docs/patterns.md#worked-example: a non-canonical d12 key; its canonical form under 8 and 16 symmetries.
SEED_HASH = "110000020000013000003000003"
SEED_CANONICAL = "100001020100000000303030000"
RAW_KEYS_PER_FAMILY = 30
RESULT = "result_is_blk4_mask_else_null"
TOTALS, MERGE, COMPLETE = (
    "symmetry16_totals_equal_symmetry8", "symmetry16_is_symmetry8_merged_by_colour_swap",
    "published_plus_tail_equal_complete_counts",
)
# The complete counts of a table whose every key is published: its int keys and counts
# (docs/releases.md#complete-counts).
COUNTS = """
CREATE OR REPLACE TABLE pattern_counts AS
SELECT
    family, symmetry,
    list_reduce(
        list_concat([0::BIGINT], list_transform(split(key, ''), lambda d: d::BIGINT)), lambda acc, d: acc * 4 + d
    ) AS key,
    occurrence, chosen, orbit_size, result
FROM pattern_stats
ORDER BY family, symmetry, key"""


def raw_events() -> dict[str, list[tuple[str, int, int]]]:
    """Per family: raw keys (digit strings, not canonical) with occurrence and chosen counts."""
    rng = random.Random(20240611)
    events: dict[str, list[tuple[str, int, int]]] = {}
    for name, family in FAMILIES.items():
        n_cells = family.layout.n_digits - 1
        cells = ("".join(rng.choice("0001123") for _ in range(n_cells)) for _ in range(RAW_KEYS_PER_FAMILY))
        keys = [rng.choice("12") + text for text in cells]
        if name == "d12":
            keys.append(SEED_HASH)
        rows = []
        for key in keys:
            occurrence = rng.randint(1, 9)
            rows.append((key, occurrence, rng.choice([0, 0, rng.randint(0, occurrence)])))
        events[name] = rows
    return events


def brute_force_rows(events: dict[str, list[tuple[str, int, int]]]) -> list[tuple]:
    """pattern_stats rows by brute force: scalar min over all group images, counted variants."""
    rows = []
    for name, raw in events.items():
        layout = FAMILIES[name].layout
        n_points = len(layout.points)
        for symmetry in (8, 16):
            group = FAMILIES[name].group(symmetry)
            summed: dict[int, list[int]] = defaultdict(lambda: [0, 0])
            orbit: dict[int, int] = {}
            for text, occurrence, chosen in raw:
                images = {group.apply(element, parse_key(text)) for element in group.elements}
                canonical = min(images)
                summed[canonical][0] += occurrence
                summed[canonical][1] += chosen
                orbit[canonical] = len(images)
            for canonical, (occurrence, chosen) in sorted(summed.items()):
                text = key_string(canonical, layout.n_digits)
                stones = sum(digit in "12" for digit in text[1 : 1 + n_points])
                result = canonical % (1 << 32) if name == "blk4" else None
                rate = chosen / occurrence
                orbit_size = orbit[canonical]
                rows.append((name, symmetry, text, occurrence, chosen, rate, orbit_size, stones, "diagram", result))
    return rows


EVENTS = raw_events()
ROWS = brute_force_rows(EVENTS)
CHOSEN_EVENTS = {name: sum(chosen for _, _, chosen in raw) for name, raw in EVENTS.items()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file with the brute-force pattern_stats table, built once; each test gets a copy (`con`)."""
    path = tmp_path_factory.mktemp("patterns") / "template.duckdb"
    con = duckdb.connect(str(path))
    con.execute(DDL)
    con.executemany("INSERT INTO pattern_stats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    con.execute(COUNTS)  # the complete counts: every key published (thresholds of 1)
    tail_from_counts(con, min_occurrence=dict.fromkeys(FAMILIES, 1))
    con.close()
    return path


@pytest.fixture
def manifest() -> dict:
    """The families facts and thresholds matching the table."""
    return {"ingest": {}, "config": {"min_occurrence": dict.fromkeys(FAMILIES, 1)},
            "families": {name: {"chosen_events": count} for name, count in CHOSEN_EVENTS.items()}}


def failing(con: duckdb.DuckDBPyConnection, manifest: dict) -> set[str]:
    """Names of the failed expectations of the pattern_stats suite."""
    result = pattern_stats.validate(con, manifest=manifest)
    assert result.table == "pattern_stats"
    assert result.success == (not result.failures())
    return {outcome.expectation for outcome in result.failures()}


def row_where(con: duckdb.DuckDBPyConnection, condition: str) -> tuple[str, int, str, int, int]:
    """(family, symmetry, key, occurrence, chosen) of the first row (in key order) matching `condition`."""
    return con.sql(
        f"SELECT family, symmetry, key, occurrence, chosen FROM pattern_stats WHERE {condition} "
        "ORDER BY family, symmetry, key LIMIT 1"
    ).fetchall()[0]


def test_seed_example_is_in_the_brute_force_table(con: duckdb.DuckDBPyConnection) -> None:
    query = f"SELECT symmetry, orbit_size FROM pattern_stats WHERE key = '{SEED_CANONICAL}' ORDER BY 1"
    found = con.sql(query).fetchall()
    assert found == [(8, 2), (16, 4)]


def test_valid_table_passes(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    result = pattern_stats.validate(con, manifest=manifest)
    assert result.success, result.failures()
    names = [outcome.expectation for outcome in result.outcomes]
    assert set(names) >= {
        "family_symmetry_key_unique",
        "chosen_between_0_and_occurrence",
        "chosen_rate_between_0_and_1",
        "symmetry_in_8_16",
        "orbit_size_divides_symmetry",
        "key_is_canonical",
        "key_variants_recanonicalise_to_key",
        "orbit_size_matches_key",
        "chosen_sum_equals_manifest_chosen_events",
        TOTALS,
        MERGE,
        COMPLETE,
        "occurrence_at_least_min_occurrence",
        "complete_counts_key_unique",
    }
    assert json.loads(json.dumps(result.to_dict()))["success"] is True


def test_many_small_batches_and_parts_give_the_same_verdicts(
    con: duckdb.DuckDBPyConnection, manifest: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(key_batches, "BATCH_ROWS", 7)
    monkeypatch.setattr(pattern_counts_merge, "MERGE_PARTITION_ROWS", 5)  # 8 or 16 scratch tables per family
    assert not failing(con, manifest)
    family, symmetry, key, _, _ = row_where(con, "family = 'dia13' AND symmetry = 8 AND chosen = 0")
    con.execute("INSERT INTO pattern_stats SELECT * FROM pattern_stats WHERE family = ? AND symmetry = ? AND key = ?",
                [family, symmetry, key])
    assert failing(con, manifest) == {"family_symmetry_key_unique", TOTALS, COMPLETE}
    con.execute("CREATE OR REPLACE TABLE pattern_stats AS SELECT DISTINCT * FROM pattern_stats ORDER BY ALL")
    assert not failing(con, manifest)
    con.execute("INSERT INTO pattern_counts FROM pattern_counts WHERE family = 'dia13' AND symmetry = 8 LIMIT 1")
    assert failing(con, manifest) == {"complete_counts_key_unique", MERGE, COMPLETE}
    con.execute(COUNTS)
    assert not failing(con, manifest)
    family, symmetry, key, _, _ = row_where(con, "family = 'sq5' AND symmetry = 16 AND orbit_size = 16")
    con.execute(
        "UPDATE pattern_stats SET orbit_size = 8 WHERE family = ? AND symmetry = ? AND key = ?", [family, symmetry, key]
    )
    assert failing(con, manifest) == {"orbit_size_matches_key"}


@pytest.mark.parametrize("symmetry", [8, 16])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_non_canonical_key_is_caught(
    con: duckdb.DuckDBPyConnection, manifest: dict, family: str, symmetry: int
) -> None:
    _, _, key, _, _ = row_where(con, f"family = '{family}' AND symmetry = {symmetry} AND orbit_size > 1")
    group = FAMILIES[family].group(symmetry)
    variant = max(group.apply(element, parse_key(key)) for element in group.elements)
    text = key_string(variant, len(key))
    con.execute(
        "UPDATE pattern_stats SET key = ? WHERE family = ? AND symmetry = ? AND key = ?", [text, family, symmetry, key]
    )
    expected = {"key_is_canonical", "key_variants_recanonicalise_to_key"}
    result = pattern_stats.validate(con, manifest=manifest)
    assert {outcome.expectation for outcome in result.failures()} == expected
    details = {outcome.expectation: outcome.details for outcome in result.failures()}
    assert f"{family}/{symmetry} {text}: canonical form {key}" in details["key_is_canonical"]


def test_seed_printed_hash_is_not_canonical(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    con.execute(f"UPDATE pattern_stats SET key = '{SEED_HASH}' WHERE key = '{SEED_CANONICAL}' AND symmetry = 8")
    assert failing(con, manifest) == {"key_is_canonical", "key_variants_recanonicalise_to_key"}


def test_wrong_orbit_sizes_are_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    family, symmetry, key, _, _ = row_where(con, "family = 'dia13' AND symmetry = 8 AND orbit_size = 8")
    update = "UPDATE pattern_stats SET orbit_size = ? WHERE family = ? AND symmetry = ? AND key = ?"
    con.execute(update, [4, family, symmetry, key])
    assert failing(con, manifest) == {"orbit_size_matches_key"}
    con.execute(update, [3, family, symmetry, key])
    assert failing(con, manifest) == {"orbit_size_matches_key", "orbit_size_divides_symmetry"}
    con.execute(update, [0, family, symmetry, key])
    assert failing(con, manifest) == {"orbit_size_matches_key", "orbit_size_divides_symmetry"}


def test_chosen_above_occurrence_is_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    family, symmetry, key, _, _ = row_where(con, "family = 'sq3' AND symmetry = 8")
    con.execute(
        "UPDATE pattern_stats SET chosen = occurrence + 1, chosen_rate = (occurrence + 1) / occurrence "
        "WHERE family = ? AND symmetry = ? AND key = ?",
        [family, symmetry, key],
    )
    assert failing(con, manifest) == {
        "chosen_between_0_and_occurrence",
        "chosen_rate_between_0_and_1",
        "chosen_sum_equals_manifest_chosen_events",
        TOTALS,
        COMPLETE,
    }


def test_symmetry16_table_with_other_totals_is_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    family, symmetry, key, _, _ = row_where(con, "family = 'blk4' AND symmetry = 16")
    con.execute(
        "UPDATE pattern_stats SET occurrence = occurrence + 5, chosen_rate = chosen / (occurrence + 5) "
        "WHERE family = ? AND symmetry = ? AND key = ?",
        [family, symmetry, key],
    )
    assert failing(con, manifest) == {TOTALS, COMPLETE}
    con.execute("UPDATE pattern_counts SET occurrence = occurrence + 5 WHERE family = ? AND symmetry = ? AND key = ("
                "SELECT min(key) FROM pattern_counts WHERE family = ? AND symmetry = ?)", [family, symmetry] * 2)
    result = pattern_stats.validate(con, manifest=manifest)
    assert {o.expectation for o in result.failures()} == {TOTALS, MERGE}
    assert f"{family} {key}: merged 8 occurrence" in result.failures()[-1].details


def test_symmetry16_table_with_moved_counts_is_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    """Same totals, but the counts sit on the wrong keys of the complete counts: only the merge check can see it."""
    rows = con.sql(
        "SELECT key FROM pattern_counts WHERE family = 'd12' AND symmetry = 16 AND occurrence >= 2 "
        "AND chosen < occurrence ORDER BY key LIMIT 2"
    ).fetchall()
    update = "UPDATE pattern_counts SET occurrence = occurrence + ? WHERE family = 'd12' AND symmetry = 16 AND key = ?"
    con.execute(update, [1, rows[0][0]])
    con.execute(update, [-1, rows[1][0]])
    assert failing(con, manifest) == {MERGE}


def test_missing_symmetry16_row_is_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    family, symmetry, key, _, _ = row_where(con, "family = 'sq5' AND symmetry = 16 AND chosen = 0")
    con.execute("DELETE FROM pattern_stats WHERE family = ? AND symmetry = ? AND key = ?", [family, symmetry, key])
    assert failing(con, manifest) == {TOTALS, COMPLETE}
    con.execute("DELETE FROM pattern_counts WHERE family = ? AND symmetry = ? AND chosen = 0 AND key = ("
                "SELECT min(key) FROM pattern_counts WHERE family = ? AND symmetry = ? AND chosen = 0)",
                [family, symmetry] * 2)
    assert failing(con, manifest) == {TOTALS, MERGE}


def test_duplicate_key_is_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    family, symmetry, key, _, _ = row_where(con, "family = 'dia13' AND symmetry = 8 AND chosen = 0")
    con.execute(
        "INSERT INTO pattern_stats SELECT * FROM pattern_stats WHERE family = ? AND symmetry = ? AND key = ?",
        [family, symmetry, key],
    )
    assert failing(con, manifest) == {"family_symmetry_key_unique", TOTALS, COMPLETE}


def test_keys_in_order_are_unique_without_counting_duplicates(
    con: duckdb.DuckDBPyConnection, manifest: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    def duplicates(*_: object) -> None:
        raise AssertionError("duplicates counted although every key came in increasing order")

    monkeypatch.setattr(pattern_counts_merge, "_duplicates", duplicates)
    monkeypatch.setattr(pattern_stats_keys, "_duplicate_texts", duplicates)
    assert not failing(con, manifest)


def test_keys_out_of_order_are_counted_for_duplicates(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    con.execute("CREATE OR REPLACE TABLE pattern_stats AS FROM pattern_stats ORDER BY hash(key)")
    assert not failing(con, manifest)
    family, symmetry, key, _, _ = row_where(con, "family = 'sq3' AND symmetry = 16 AND chosen = 0")
    con.execute(
        """CREATE OR REPLACE TABLE pattern_stats AS
           SELECT * FROM (FROM pattern_stats UNION ALL FROM pattern_stats WHERE family = ? AND symmetry = ? AND key = ?)
           ORDER BY family, symmetry, key""",
        [family, symmetry, key],
    )
    assert "family_symmetry_key_unique" in failing(con, manifest)


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (
            "UPDATE pattern_stats SET chosen_rate = chosen_rate / 2 + 0.25 WHERE family = 'd12' AND symmetry = 8",
            {"chosen_rate_is_chosen_over_occurrence"},
        ),
        ("UPDATE pattern_stats SET result = 0 WHERE family = 'sq3'", {RESULT}),
        ("UPDATE pattern_stats SET result = NULL WHERE family = 'blk4' AND symmetry = 8", {RESULT}),
        ("UPDATE pattern_stats SET result = 1099511627776 WHERE family = 'blk4' AND symmetry = 8", {RESULT}),
        (
            "UPDATE pattern_stats SET family = 'zz' WHERE family = 'sq3'",
            {"family_is_registered", "chosen_sum_equals_manifest_chosen_events", COMPLETE},
        ),
        (
            "UPDATE pattern_stats SET key = '7' || substr(key, 2) WHERE family = 'sq3' AND symmetry = 8 "
            "AND key = (SELECT min(key) FROM pattern_stats WHERE family = 'sq3' AND symmetry = 8)",
            {"key_is_colour_then_family_digits"},
        ),
        (
            "UPDATE pattern_stats SET key = key || '0' WHERE family = 'sq3' AND symmetry = 16",
            {"key_is_colour_then_family_digits"},
        ),
        (
            "UPDATE pattern_stats SET occurrence = 0, chosen = 0, chosen_rate = 0 "
            "WHERE family = 'd12' AND symmetry = 8 AND chosen = 0",
            {
                "occurrence_at_least_1",
                "occurrence_at_least_min_occurrence",
                "chosen_rate_is_chosen_over_occurrence",
                TOTALS,
                COMPLETE,
            },
        ),
    ],
)
def test_injected_fault_is_caught(
    con: duckdb.DuckDBPyConnection, manifest: dict, fault: str, expected: set[str]
) -> None:
    con.execute(fault)
    assert failing(con, manifest) == expected


def test_bad_symmetry_value_is_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    con.execute("UPDATE pattern_stats SET symmetry = 4 WHERE family = 'blk4' AND symmetry = 16")
    assert "symmetry_in_8_16" in failing(con, manifest)


def test_manifest_mismatches_are_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    manifest["families"]["sq5"]["chosen_events"] += 1
    assert failing(con, manifest) == {"chosen_sum_equals_manifest_chosen_events"}
    del manifest["families"]["sq5"]
    result = pattern_stats.validate(con, manifest=manifest)
    (failure,) = result.failures()
    assert "sq5: not in manifest families" in failure.details
    with pytest.raises(ValueError, match="manifest lacks families"):
        pattern_stats.validate(con, manifest={"ingest": {}})


def test_family_in_manifest_without_rows_is_caught(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    con.execute("DELETE FROM pattern_stats WHERE family = 'blk4'")
    assert failing(con, manifest) == {"chosen_sum_equals_manifest_chosen_events", COMPLETE}
    con.execute("DELETE FROM pattern_counts WHERE family = 'blk4'")
    tail_from_counts(con, min_occurrence=dict.fromkeys(FAMILIES, 1))
    manifest["families"]["blk4"]["chosen_events"] = 0
    assert not failing(con, manifest)


def test_missing_column_is_reported_alone(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    con.execute("ALTER TABLE pattern_stats DROP COLUMN stones")
    result = pattern_stats.validate(con, manifest=manifest)
    assert [(o.expectation, o.success) for o in result.outcomes] == [("pattern_stats_schema_matches_contract", False)]


@pytest.fixture
def extended(con: duckdb.DuckDBPyConnection, manifest: dict) -> tuple[duckdb.DuckDBPyConnection, dict]:
    """An incremental build's connection that wrote a new base run: the previous release's table and tail, the
    previous state and the new games' counts (here: the same again), the complete counts (twice each count) and the
    table published from them."""
    con.execute("CREATE TABLE pattern_stats_previous AS FROM pattern_stats")
    con.execute("CREATE TABLE pattern_tail_previous AS FROM pattern_tail")
    con.execute("CREATE TABLE pattern_counts_previous AS FROM pattern_counts")
    con.execute("CREATE TABLE pattern_counts_new AS FROM pattern_counts")
    con.execute("UPDATE pattern_stats SET occurrence = 2 * occurrence, chosen = 2 * chosen")
    con.execute("UPDATE pattern_counts SET occurrence = 2 * occurrence, chosen = 2 * chosen")
    families = {name: {"chosen_events": 2 * facts["chosen_events"]} for name, facts in manifest["families"].items()}
    return con, {**manifest, "families": families, "incremental": {"base": "0001-000000000000"}}


def test_incremental_counts_are_checked_against_previous_plus_new(
    extended: tuple[duckdb.DuckDBPyConnection, dict],
) -> None:
    con, manifest = extended
    result = pattern_stats.validate(con, manifest=manifest)
    assert result.success, result.failures()
    assert "complete_counts_are_previous_plus_new_games" in {outcome.expectation for outcome in result.outcomes}
    con.execute("UPDATE pattern_counts SET chosen = chosen - 1 WHERE family = 'sq3' AND symmetry = 8 AND chosen > 0")
    assert failing(con, manifest) == {"complete_counts_are_previous_plus_new_games"}


def test_incremental_build_without_complete_counts_checks_the_table_against_previous_plus_new(
    extended: tuple[duckdb.DuckDBPyConnection, dict],
) -> None:
    con, manifest = extended
    con.execute("DROP TABLE pattern_counts")  # the new games' counts became a delta run: no complete counts
    result = pattern_stats.validate(con, manifest=manifest)
    assert result.success, result.failures()
    assert "complete_counts_are_previous_plus_new_games" not in {outcome.expectation for outcome in result.outcomes}
    con.execute("UPDATE pattern_tail_previous SET keys = keys + 1 WHERE family = 'sq5' AND symmetry = 16")
    assert failing(con, manifest) == {COMPLETE}
    con.execute("UPDATE pattern_tail_previous SET keys = keys - 1 WHERE family = 'sq5' AND symmetry = 16")
    con.execute("DELETE FROM pattern_counts_previous WHERE family = 'blk4' AND symmetry = 8 AND key IN ("
                "SELECT key FROM pattern_counts_previous WHERE family = 'blk4' AND symmetry = 8 LIMIT 1)")
    assert failing(con, manifest) == {COMPLETE}  # a new key the previous state lacks: one key too many


def test_incremental_merge_check_covers_the_new_counts(extended: tuple[duckdb.DuckDBPyConnection, dict]) -> None:
    con, manifest = extended
    con.execute("INSERT INTO pattern_counts_new FROM pattern_counts_new WHERE family = 'blk4' AND symmetry = 16 "
                "LIMIT 1")
    assert {"complete_counts_key_unique", MERGE, "complete_counts_are_previous_plus_new_games"} <= failing(
        con, manifest)


@pytest.fixture
def thresholded(con: duckdb.DuckDBPyConnection, manifest: dict) -> tuple[duckdb.DuckDBPyConnection, dict]:
    """A table that publishes the sq5 and blk4 keys seen at least 3 times; the tail sums the rest."""
    thresholds = {**dict.fromkeys(FAMILIES, 1), "sq5": 3, "blk4": 3}
    con.execute("DELETE FROM pattern_stats WHERE family IN ('sq5', 'blk4') AND occurrence < 3")
    tail_from_counts(con, min_occurrence=thresholds)
    return con, {**manifest, "config": {"min_occurrence": thresholds}}


def test_table_with_a_tail_passes_and_its_faults_are_caught(
    thresholded: tuple[duckdb.DuckDBPyConnection, dict],
) -> None:
    con, manifest = thresholded
    tail = con.execute("SELECT sum(keys), sum(chosen) FROM pattern_tail WHERE family = 'sq5'").fetchone()
    assert tail[0] > 0 and tail[1] > 0  # keys and chosen moves were left out
    assert not failing(con, manifest)
    con.execute("UPDATE pattern_tail SET chosen = chosen + 1 WHERE family = 'sq5' AND symmetry = 8")
    assert failing(con, manifest) == {"chosen_sum_equals_manifest_chosen_events", TOTALS, COMPLETE}
    tail_from_counts(con, min_occurrence=manifest["config"]["min_occurrence"])
    assert not failing(con, manifest)
    family, symmetry, key, _, _ = row_where(con, "family = 'sq5' AND symmetry = 8 AND chosen = 0")
    con.execute("UPDATE pattern_stats SET occurrence = 2 WHERE family = ? AND symmetry = ? AND key = ?",
                [family, symmetry, key])
    assert failing(con, manifest) == {"occurrence_at_least_min_occurrence", TOTALS, COMPLETE}
