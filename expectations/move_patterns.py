"""Expectation suite of the `move_patterns` table: schema, rows against the moves counted, keys against pattern_stats.

See docs/releases.md#move_patterns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb
import numpy as np

from gopat.expectations import runner
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.canonical import key_values
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.tables.registry import contract

TABLE = "move_patterns"
SCHEMA = contract(TABLE)
KEY_BATCH_ROWS = 1_000_000
SAMPLES = 3


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table move_patterns in `con` against games, moves and pattern_stats of the same connection.

    `manifest` gives the families (config.event_families) and their chosen events. Every check
    covers the whole table, also in an incremental build: per family, the rows are the board
    moves the family counts and equal the chosen events; each published key's rows sum to its
    `pattern_stats.chosen` under 8 and 16 symmetries, and the rows of the keys left out to
    `pattern_tail.chosen`; key8 is canonical and key16 its 16 key.
    """
    config = manifest.get("config")
    if not isinstance(config, Mapping) or not isinstance(config.get("event_families"), list):
        raise ValueError("manifest lacks config.event_families")
    families = sorted(config["event_families"])
    chosen_events = {name: runner.manifest_fact(manifest, "families", name, "chosen_events") for name in families}
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA)
    if stopped:
        return stopped
    params = {
        "families": families,
        "last_move_families": [name for name in families if FAMILIES[name].anchor == "last_move"],
    }
    return runner.run_invariants(TABLE, [
        schema,
        _chosen_events(con, chosen_events),
        *runner.sql_invariants(con, "checks/move_patterns", params=params, evidence={
            "rows_per_family_equal_the_board_moves_counted": "family, expected rows, rows",
            "key_counts_equal_pattern_stats_chosen": "family, symmetry, key, rows, pattern_stats chosen",
            "rows_of_unpublished_keys_equal_pattern_tail_chosen": "family, symmetry, rows, pattern_tail chosen",
        }),
        _canonical_keys(con),
    ])


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
