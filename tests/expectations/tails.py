"""pattern_tail from a test's complete counts: the keys below each family's threshold tallied in SQL (the build tallies
them as it writes pattern_stats, flows/patterns.py sum_parts)."""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import pyarrow as pa

from gopat.transforms.analytics.tail import build_pattern_tail


def left_out(con: duckdb.DuckDBPyConnection, *, min_occurrence: Mapping[str, int], source: str = "pattern_counts"
             ) -> pa.Table:
    """Per family and symmetry, the keys of complete counts `source` (a table or view of `con`) seen fewer than
    `min_occurrence[family]` times and their summed counts: family, symmetry, keys, occurrence, chosen."""
    families = sorted(min_occurrence)
    return con.sql(
        "SELECT family, symmetry::INTEGER AS symmetry, count(*)::BIGINT AS keys, "
        "sum(occurrence)::BIGINT AS occurrence, sum(chosen)::BIGINT AS chosen "
        "FROM query_table($source) JOIN (SELECT unnest($families) AS family, unnest($thresholds) AS threshold) "
        "USING (family) WHERE occurrence < threshold GROUP BY ALL ORDER BY ALL",
        params={"source": source, "families": families, "thresholds": [min_occurrence[f] for f in families]},
    ).to_arrow_table()


def tail_from_counts(con: duckdb.DuckDBPyConnection, *, min_occurrence: Mapping[str, int]) -> None:
    """Create table pattern_tail from table or view pattern_counts of `con` and the thresholds `min_occurrence`."""
    build_pattern_tail(con, left_out=left_out(con, min_occurrence=min_occurrence), min_occurrence=min_occurrence)
