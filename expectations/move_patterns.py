"""Expectation suite of the `move_patterns` table: schema, rows against the moves counted, keys against pattern_stats
(an incremental build: its added rows, and their keys against the new games' counts).

See docs/releases.md#move_patterns.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gopat.expectations import runner
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.canonical import key_texts, key_values
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.tables.registry import contract

TABLE = "move_patterns"
SCHEMA = contract(TABLE)
KEY_BATCH_ROWS = 1_000_000
SAMPLES = 3


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table move_patterns in `con` against games, moves and pattern_stats of the same connection.

    `manifest` gives the families (config.event_families), their chosen events and thresholds
    (config.min_occurrence). Per family, the rows equal the chosen events. A full build checks every
    row: the rows are the board moves the family counts, each published key's rows sum to its
    `pattern_stats.chosen` under 8 and 16 symmetries and the rows of the keys left out to
    `pattern_tail.chosen`; key8 is canonical and key16 its 16 key. An incremental build (manifest
    `incremental`) makes the row and key checks on the rows it adds (schema `added`), and checks
    that they sum to the new games' chosen count per key (view pattern_counts_new); the previous
    rows are the previous release's files, linked unchanged (their sha256 checked), which passed
    this suite; the whole table is checked against pattern_stats only for the families published
    from a threshold above 1, whose previous suite checked the sum of the keys left out, not each.
    """
    config = manifest.get("config")
    if not isinstance(config, Mapping) or not isinstance(config.get("event_families"), list):
        raise ValueError("manifest lacks config.event_families")
    families = sorted(config["event_families"])
    chosen_events = {name: runner.manifest_fact(manifest, "families", name, "chosen_events") for name in families}
    incremental = bool(manifest.get("incremental"))
    thresholded = [name for name in families if incremental and runner.manifest_fact(
        manifest, "config", "min_occurrence", name) > 1]
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    params = {
        "families": families,
        "last_move_families": [name for name in families if FAMILIES[name].anchor == "last_move"],
    }
    invariants = [schema, _chosen_events(con, chosen_events)]
    with _rows_checked(con, incremental=incremental):
        invariants += runner.sql_invariants(con, "checks/move_patterns", params=params, evidence={
            "rows_per_family_equal_the_board_moves_counted": "family, expected rows, rows",
        })
        invariants.append(_canonical_keys(con))
    if incremental:
        invariants += _added_key_counts(con, families)
    if not incremental or thresholded:
        invariants += runner.sql_invariants(
            con, "checks/move_patterns_published", params={"families": thresholded if incremental else families},
            evidence={
                "key_counts_equal_pattern_stats_chosen": "family, symmetry, key, rows, pattern_stats chosen",
                "rows_of_unpublished_keys_equal_pattern_tail_chosen": "family, symmetry, rows, pattern_tail chosen",
            })
    return runner.run_invariants(TABLE, invariants)


@contextlib.contextmanager
def _rows_checked(con: duckdb.DuckDBPyConnection, *, incremental: bool) -> Iterator[None]:
    """While in the block, `move_patterns`, `moves` and `games` are the rows an incremental build adds (schema `added`
    first on `con`'s search path, transforms/analytics/sql/steps/added_rows.sql); a full build's are its tables."""
    if not incremental:
        yield
        return
    con.execute("SET search_path = 'added,main'")
    try:
        yield
    finally:
        con.execute("RESET search_path")


def _added_key_counts(con: duckdb.DuckDBPyConnection, families: Sequence[str]) -> list[runner.Invariant]:
    """The rows an incremental build adds, per family, symmetry and key, against the new games' chosen counts (view
    pattern_counts_new, whose int64 keys are drawn as move_patterns' texts)."""
    counts = con.sql(
        "SELECT family, symmetry, key, chosen FROM pattern_counts_new "
        "WHERE chosen > 0 AND list_contains($families, family) ORDER BY family",
        params={"families": list(families)},
    ).to_arrow_table()
    texts = [
        key_texts(family, counts.filter(pc.equal(counts["family"], family))["key"].to_numpy()).cast(pa.string())
        for family in sorted(set(counts["family"].to_pylist()))
    ]
    new_chosen = counts.set_column(2, "key", pa.chunked_array(texts, type=pa.string()))
    con.register("new_chosen", new_chosen)
    try:
        return runner.sql_invariants(con, "checks/move_patterns_added_keys", evidence={
            "added_key_counts_equal_new_games_chosen": "family, symmetry, key, added rows, new games' chosen",
        })
    finally:
        con.unregister("new_chosen")


def _chosen_events(con: duckdb.DuckDBPyConnection, chosen_events: Mapping[str, int]) -> runner.Invariant:
    """Per family, the rows equal the manifest's chosen events (families.<name>.chosen_events)."""
    rows = dict(con.execute("SELECT family, count(*) FROM move_patterns GROUP BY family").fetchall())
    problems = [
        f"{family}: rows={rows.get(family, 0)}, chosen_events={chosen_events.get(family)}"
        for family in sorted(chosen_events.keys() | rows.keys())
        if rows.get(family, 0) != chosen_events.get(family)
    ]
    return runner.Invariant(
        "rows_per_family_equal_manifest_chosen_events", len(problems), "; ".join(problems[:SAMPLES])
    )


def _canonical_keys(con: duckdb.DuckDBPyConnection) -> runner.Invariant:
    """Every distinct (family, key8, key16): key8 is well formed and canonical under the family's group of 8, key16
    is key8's canonical key under the group of 16."""
    problems: list[str] = []
    count = 0
    reader = con.sql(sql_text("checks/move_patterns_keys")).to_arrow_reader(KEY_BATCH_ROWS)
    for batch in reader:
        for family in sorted(set(batch.column("family").to_pylist()) & FAMILIES.keys()):
            rows = batch.filter(batch.column("family").to_numpy(zero_copy_only=False) == family)
            spec = FAMILIES[family]
            try:
                key8 = key_values(rows.column("key8"), spec.layout.n_digits)
                key16 = key_values(rows.column("key16"), spec.layout.n_digits)
            except ValueError as error:
                count += 1
                problems.append(f"{family}: {error}")
                continue
            canonical8 = spec.group(8).canonicalize(key8)[0]
            bad = np.flatnonzero((canonical8 != key8) | (spec.group(16).canonicalize(key8)[0] != key16))
            count += len(bad)
            texts = rows.column("key8"), rows.column("key16")
            problems += [f"{family} {texts[0][int(i)]} {texts[1][int(i)]}" for i in bad[:SAMPLES]]
    return runner.Invariant("key8_canonical_and_key16_its_16_canonical_key", count, "; ".join(problems[:SAMPLES]))
