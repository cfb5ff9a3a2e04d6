"""Expectation suite of the `pattern_stats` table: schema, row checks and totals (key checks: `pattern_stats_keys`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations.pattern_stats_keys import SAMPLES, SYMMETRIES, key_invariants
from gopat.expectations.runner import (
    Invariant,
    SuiteResult,
    count_invariants,
    manifest_fact,
    run_invariants,
    schema_invariant,
    table_columns,
)
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.families import FAMILIES

TABLE = "pattern_stats"
PREVIOUS, NEW = "pattern_stats_previous", "pattern_stats_new"  # the views of an incremental build
SCHEMA = {
    "family": "VARCHAR",
    "symmetry": "INTEGER",
    "key": "VARCHAR",
    "occurrence": "BIGINT",
    "chosen": "BIGINT",
    "chosen_rate": "DOUBLE",
    "orbit_size": "INTEGER",
    "stones": "INTEGER",
    "diagram": "VARCHAR",
    "result": "BIGINT",
}
RESULT_FAMILY = "blk4"


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> SuiteResult:
    """Validate table pattern_stats in `con` (tables are named games, moves, rejects, pattern_stats in
    the connection's default schema). `manifest` holds the ingest and families facts of the schema contract.

    Row checks are violation counts of one DuckDB scan; key checks stream the keys in batches
    (parse every key text, re-canonicalise every key, recompute orbit sizes and stones, apply one
    group element per row and re-canonicalise, find duplicate keys, merge the 8-symmetry rows by
    colour swap and compare with the 16-symmetry rows). GX asserts every count is 0.

    An incremental build (manifest `incremental`) adds the new games' counts (view
    pattern_stats_new) to the previous release's table (view pattern_stats_previous), which passed
    this suite with the same code. Row and total checks cover the whole table; key checks cover the
    new games' rows; and the table must be exactly previous plus new (rows, occurrence, chosen). As
    counts add, every key check that holds in both holds in their sum.
    """
    families = manifest.get("families")
    if not isinstance(families, Mapping):
        raise ValueError("manifest lacks families")
    chosen_events = {name: manifest_fact(manifest, "families", name, "chosen_events") for name in families}
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(columns.get(name) != kind for name, kind in SCHEMA.items()):
        return run_invariants(TABLE, [schema])
    totals = _totals(con, TABLE)
    invariants = [schema, *_row_invariants(con), *_total_invariants(totals, chosen_events)]
    if manifest.get("incremental"):
        invariants += [*key_invariants(con, NEW), _previous_plus_new(con, totals)]
    else:
        invariants += key_invariants(con, TABLE)
    return run_invariants(TABLE, invariants)


def _row_invariants(con: duckdb.DuckDBPyConnection) -> list[Invariant]:
    """Row checks counted in one DuckDB scan (evidence is queried only for the checks that fail)."""
    params = {
        "families": sorted(FAMILIES),
        "result_family": RESULT_FAMILY,
        "result_limit": 4 ** FAMILIES[RESULT_FAMILY].layout.n_digits,
    }
    return count_invariants(con, TABLE, params=params, checks={
        "family_is_registered": ("family, symmetry, key", "family IS NULL OR NOT list_contains($families, family)"),
        "symmetry_in_8_16": ("family, symmetry, key", "symmetry IS NULL OR symmetry NOT IN (8, 16)"),
        "occurrence_at_least_1": ("family, symmetry, key, occurrence", "occurrence IS NULL OR occurrence < 1"),
        "chosen_between_0_and_occurrence": (
            "family, symmetry, key, chosen, occurrence", "chosen IS NULL OR chosen < 0 OR chosen > occurrence"),
        "chosen_rate_between_0_and_1": (
            "family, symmetry, key, chosen_rate", "chosen_rate IS NULL OR NOT (chosen_rate BETWEEN 0 AND 1)"),
        "chosen_rate_is_chosen_over_occurrence": (
            "family, symmetry, key, chosen_rate, chosen, occurrence",
            "NOT (abs(chosen_rate - chosen::DOUBLE / occurrence) <= 1e-12)"),
        "orbit_size_divides_symmetry": (
            "family, symmetry, key, orbit_size",
            "CASE WHEN orbit_size >= 1 THEN symmetry % orbit_size <> 0 ELSE true END"),
        "result_is_blk4_mask_else_null": (
            "family, symmetry, key, result",
            "(family = $result_family) IS DISTINCT FROM (result IS NOT NULL) OR result < 0 OR result >= $result_limit"),
        "diagram_present": ("family, symmetry, key", "diagram IS NULL OR diagram = ''"),
    })


def _totals(con: duckdb.DuckDBPyConnection, source: str) -> dict[tuple[str, int], tuple[int, int, int]]:
    """(rows, occurrence, chosen) of `source` per family and symmetry (8 or 16)."""
    return {
        (family, symmetry): (int(rows), int(occurrence), int(chosen))
        for family, symmetry, rows, occurrence, chosen in con.sql(
            sql_text("expectations__pattern_stats_totals"), params={"source": source}
        ).fetchall()
    }


def _total_invariants(
    totals: Mapping[tuple[str, int], tuple[int, int, int]], chosen_events: Mapping[str, int]
) -> list[Invariant]:
    """Per family and symmetry sums of occurrence and chosen (from `totals`) against the manifest and each other."""
    sums = {part: (occurrence, chosen) for part, (_, occurrence, chosen) in totals.items()}
    families = sorted(set(chosen_events) | {family for family, _ in totals})
    manifest_problems = []
    for family in families:
        if family not in chosen_events:
            manifest_problems.append(f"{family}: not in manifest families")
            continue
        for symmetry in SYMMETRIES:
            chosen = sums.get((family, symmetry), (0, 0))[1]
            if chosen != chosen_events[family]:
                manifest_problems.append(
                    f"{family}/{symmetry}: sum(chosen)={chosen}, chosen_events={chosen_events[family]}"
                )
    merge_problems = [
        f"{family}: (occurrence, chosen) 8={sums.get((family, 8), (0, 0))}, 16={sums.get((family, 16), (0, 0))}"
        for family in families
        if sums.get((family, 8), (0, 0)) != sums.get((family, 16), (0, 0))
    ]
    return [
        Invariant("chosen_sum_equals_manifest_chosen_events", len(manifest_problems), "; ".join(manifest_problems)),
        Invariant("symmetry16_totals_equal_symmetry8", len(merge_problems), "; ".join(merge_problems)),
    ]



def _previous_plus_new(
    con: duckdb.DuckDBPyConnection, totals: Mapping[tuple[str, int], tuple[int, int, int]]
) -> Invariant:
    """Per family and symmetry, the table's `totals` (rows, occurrence, chosen) equal the previous release's plus
    the new games' (rows: less the new keys the previous table has)."""
    previous, new = _totals(con, PREVIOUS), _totals(con, NEW)
    known = {
        (family, symmetry): rows
        for family, symmetry, rows in con.sql(sql_text("expectations__pattern_stats_known_new_keys")).fetchall()
    }
    problems = []
    for part in sorted(previous.keys() | new.keys() | totals.keys()):
        before, added = previous.get(part, (0, 0, 0)), new.get(part, (0, 0, 0))
        expected = (before[0] + added[0] - known.get(part, 0), before[1] + added[1], before[2] + added[2])
        if totals.get(part, (0, 0, 0)) != expected:
            problems.append(f"{part[0]}/{part[1]}: (rows, occurrence, chosen) expected {expected}, "
                            f"found {totals.get(part, (0, 0, 0))}")
    return Invariant("table_is_previous_release_plus_new_games", len(problems), "; ".join(problems[:SAMPLES]))

