"""pattern_tail from a test's complete counts: the keys below each family's threshold tallied in SQL (the build tallies
them as it writes pattern_stats, effects/parquet.py Tail)."""

from __future__ import annotations

from collections.abc import Mapping

import duckdb

from gopat.transforms.analytics.tail import build_pattern_tail


def tail_from_counts(con: duckdb.DuckDBPyConnection, *, min_occurrence: Mapping[str, int]) -> None:
    """Create table pattern_tail from table or view pattern_counts of `con` and the thresholds `min_occurrence`."""
    families = sorted(min_occurrence)
    left_out = con.sql(
        "SELECT family, symmetry::INTEGER AS symmetry, count(*)::BIGINT AS keys, "
        "sum(occurrence)::BIGINT AS occurrence, sum(chosen)::BIGINT AS chosen "
        "FROM pattern_counts JOIN (SELECT unnest($families) AS family, unnest($thresholds) AS threshold) "
        "USING (family) WHERE occurrence < threshold GROUP BY ALL",
        params={"families": families, "thresholds": [min_occurrence[f] for f in families]},
    ).to_arrow_table()
    build_pattern_tail(con, left_out=left_out, min_occurrence=min_occurrence)
