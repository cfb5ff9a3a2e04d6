"""The pattern_tail table: what pattern_stats leaves out of the complete counts, per family and symmetry."""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import pyarrow as pa

from gopat.transforms.analytics.loader import run


def build_pattern_tail(
    con: duckdb.DuckDBPyConnection, *, left_out: pa.Table, min_occurrence: Mapping[str, int]
) -> None:
    """Create table ``pattern_tail`` from the tallies of the keys pattern_stats left out, `left_out` (family,
    symmetry, keys, occurrence, chosen; flows/patterns.py sum_parts), and the families' thresholds
    (``transforms/analytics/sql/models/pattern_tail.sql``)."""
    thresholds = pa.table({
        "family": pa.array(sorted(min_occurrence), type=pa.string()),
        "min_occurrence": pa.array([min_occurrence[f] for f in sorted(min_occurrence)], type=pa.int32()),
    })
    con.register("pattern_tail_thresholds", thresholds)
    con.register("pattern_tail_counts", left_out)
    try:
        run(con, "models/pattern_tail")
    finally:
        con.unregister("pattern_tail_thresholds")
        con.unregister("pattern_tail_counts")
