"""Expectation suite of the `pattern_stats` table: schema, row checks, totals with `pattern_tail` against the complete
counts, and key checks (`pattern_stats_keys`, `pattern_counts_merge`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import runner
from gopat.expectations.key_batches import SAMPLES
from gopat.expectations.pattern_counts_merge import complete_count_invariants
from gopat.expectations.pattern_stats_keys import key_invariants
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.symmetry import SYMMETRIES
from gopat.transforms.tables.registry import contract

TABLE = "pattern_stats"
TAIL = "pattern_tail"
COMPLETE = "pattern_counts"  # the complete counts, when the build wrote them (docs/releases.md#complete-counts)
NEW = "pattern_counts_new"  # an incremental build's counts of its new games
PREVIOUS_STATS, PREVIOUS_TAIL = "pattern_stats_previous", "pattern_tail_previous"  # of the release it extends
SCHEMA = contract(TABLE)
RESULT_FAMILY = "blk4"


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table pattern_stats in `con` against pattern_tail and the complete counts (view pattern_counts).
    `manifest` holds the families' chosen events and the config's min_occurrence.

    Row checks are violation counts of one DuckDB scan; key checks stream the published keys in
    batches (parse every key text, re-canonicalise every key, recompute orbit sizes,
    apply one group element per row and re-canonicalise, find duplicate keys); the complete counts'
    8-symmetry rows merged by colour swap are compared with their 16-symmetry rows. Per family and
    symmetry, pattern_stats plus pattern_tail equal the complete counts, and their chosen sum the
    manifest's chosen events. GX asserts every count is 0.

    An incremental build (manifest `incremental`) adds the new games' counts (view pattern_counts_new)
    to the previous complete counts, whose totals are the previous release's pattern_stats plus
    pattern_tail (views pattern_stats_previous and pattern_tail_previous; its suite checked them with
    the same code): the merge check covers the new games' counts, and pattern_stats plus pattern_tail
    must be exactly previous plus new (keys: less the new keys the previous state has), and so must
    the complete counts when the build wrote them (a new base run). As counts add, the merge check
    that holds in both holds in their sum.
    """
    families = manifest.get("families")
    if not isinstance(families, Mapping):
        raise ValueError("manifest lacks families")
    chosen_events = {name: runner.manifest_fact(manifest, "families", name, "chosen_events") for name in families}
    thresholds = {name: runner.manifest_fact(manifest, "config", "min_occurrence", name) for name in families}
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    totals = _totals(con, TABLE)
    tail = _totals(con, TAIL, query="checks/pattern_tail_totals")
    invariants = [
        schema, *_row_invariants(con, thresholds), *_total_invariants(totals, tail, chosen_events),
        *key_invariants(con, TABLE),
    ]
    if manifest.get("incremental"):
        complete = _previous_plus_new(con)
        invariants += complete_count_invariants(con, NEW)
        if COMPLETE in runner.table_names(con):
            invariants.append(_equal_totals(
                "complete_counts_are_previous_plus_new_games", "complete counts", _totals(con, COMPLETE),
                "previous plus new", complete))
    else:
        complete = _totals(con, COMPLETE)
        invariants += complete_count_invariants(con, COMPLETE)
    invariants.append(_equal_totals(
        "published_plus_tail_equal_complete_counts", "published + tail", _added(totals, tail), "complete", complete))
    return runner.run_invariants(TABLE, invariants)


def _row_invariants(con: duckdb.DuckDBPyConnection, thresholds: Mapping[str, int]) -> list[runner.Invariant]:
    """Row checks counted in one DuckDB scan (evidence is queried only for the checks that fail)."""
    params = {
        "families": sorted(FAMILIES),
        "symmetries": list(SYMMETRIES),
        "built": sorted(thresholds),
        "thresholds": [thresholds[name] for name in sorted(thresholds)],
        "result_family": RESULT_FAMILY,
        "result_limit": 4 ** FAMILIES[RESULT_FAMILY].layout.n_digits,
    }
    return runner.count_invariants(con, TABLE, params=params, checks={
        "family_is_registered": ("family, symmetry, key", "family IS NULL OR NOT list_contains($families, family)"),
        "symmetry_in_8_16": ("family, symmetry, key", "symmetry IS NULL OR NOT list_contains($symmetries, symmetry)"),
        "occurrence_at_least_1": ("family, symmetry, key, occurrence", "occurrence IS NULL OR occurrence < 1"),
        "occurrence_at_least_min_occurrence": (
            "family, symmetry, key, occurrence",
            "occurrence < coalesce(list_extract($thresholds, list_position($built, family)), 1)"),
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
    })


def _totals(
    con: duckdb.DuckDBPyConnection, source: str, *, query: str = "checks/pattern_stats_totals"
) -> dict[tuple[str, int], tuple[int, int, int]]:
    """(keys, occurrence, chosen) of `source` per family and symmetry (8 or 16), by SQL file `query`."""
    text = sql_text(query)
    return {
        (family, symmetry): (int(rows), int(occurrence), int(chosen))
        for family, symmetry, rows, occurrence, chosen in con.sql(
            text, params=runner.used_params({"source": source, "symmetries": list(SYMMETRIES)}, text)
        ).fetchall()
    }


Totals = Mapping[tuple[str, int], tuple[int, int, int]]


def _added(*totals: Totals) -> dict[tuple[str, int], tuple[int, int, int]]:
    """Per family and symmetry, the sums of several totals."""
    summed: dict[tuple[str, int], tuple[int, int, int]] = {}
    for part_totals in totals:
        for part, (keys, occurrence, chosen) in part_totals.items():
            before = summed.get(part, (0, 0, 0))
            summed[part] = (before[0] + keys, before[1] + occurrence, before[2] + chosen)
    return summed


def _total_invariants(totals: Totals, tail: Totals, chosen_events: Mapping[str, int]) -> list[runner.Invariant]:
    """Per family and symmetry sums of occurrence and chosen, published plus tail (every count), against the manifest
    and each other."""
    sums = {part: (occurrence, chosen) for part, (_, occurrence, chosen) in _added(totals, tail).items()}
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
                    f"{family}/{symmetry}: sum(chosen) with the tail={chosen}, chosen_events={chosen_events[family]}"
                )
    merge_problems = [
        f"{family}: (occurrence, chosen) 8={sums.get((family, 8), (0, 0))}, 16={sums.get((family, 16), (0, 0))}"
        for family in families
        if sums.get((family, 8), (0, 0)) != sums.get((family, 16), (0, 0))
    ]
    return [
        runner.Invariant(
            "chosen_sum_equals_manifest_chosen_events", len(manifest_problems), "; ".join(manifest_problems)
        ),
        runner.Invariant("symmetry16_totals_equal_symmetry8", len(merge_problems), "; ".join(merge_problems)),
    ]


def _equal_totals(name: str, label: str, found: Totals, expected_label: str, expected: Totals) -> runner.Invariant:
    """Invariant `name`: per family and symmetry, totals (keys, occurrence, chosen) `found` equal `expected`."""
    problems = [
        f"{part[0]}/{part[1]}: (keys, occurrence, chosen) {label} {found.get(part, (0, 0, 0))}, "
        f"{expected_label} {expected.get(part, (0, 0, 0))}"
        for part in sorted(found.keys() | expected.keys())
        if found.get(part, (0, 0, 0)) != expected.get(part, (0, 0, 0))
    ]
    return runner.Invariant(name, len(problems), "; ".join(problems[:SAMPLES]))


def _previous_plus_new(con: duckdb.DuckDBPyConnection) -> Totals:
    """Per family and symmetry, the totals (keys, occurrence, chosen) of an incremental build's complete counts: the
    previous release's pattern_stats plus pattern_tail, plus the new games' counts, less the new keys the previous
    state has."""
    previous_tail = _totals(con, PREVIOUS_TAIL, query="checks/pattern_tail_totals")
    previous = _added(_totals(con, PREVIOUS_STATS), previous_tail)
    known = {
        (family, symmetry): rows
        for family, symmetry, rows in con.sql(sql_text("checks/pattern_stats_known_new_keys")).fetchall()
    }
    return {
        part: (keys - known.get(part, 0), occurrence, chosen)
        for part, (keys, occurrence, chosen) in _added(previous, _totals(con, NEW)).items()
    }
