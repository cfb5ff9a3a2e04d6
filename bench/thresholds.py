"""Measurement for the publication thresholds of the large families: what `min_occurrence` keeps.

Usage: .venv/bin/python bench/thresholds.py --warehouse WH [--release V] [--families sq5 blk4]
       [--thresholds 1 2 3 5 10 100]

Reads the release's complete `pattern_stats` and prints, per family, symmetry and threshold t, the
keys seen at least t times, the share of all occurrences and of all chosen moves they carry, and their
share of the family's Parquet bytes (the compressed bytes of the family's row groups times the share of
its rows kept: an estimate, the kept rows' own bytes are not written). A Markdown table for
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb

from gopat.effects.warehouse.layout import Layout, current_version, resolve_version, table_files

QUERY = """
SELECT count(*) FILTER (WHERE occurrence >= $t), count(*),
       sum(occurrence) FILTER (WHERE occurrence >= $t) / sum(occurrence),
       sum(chosen) FILTER (WHERE occurrence >= $t) / sum(chosen)
FROM read_parquet($paths)
WHERE family = $family AND symmetry = $symmetry
"""
BYTES = """
SELECT sum(total_compressed_size) FROM (
    SELECT DISTINCT file_name, row_group_id, row_group_num_rows, total_compressed_size,
           min(stats_min_value) FILTER (WHERE path_in_schema = 'family')
               OVER (PARTITION BY file_name, row_group_id) AS family,
           min(stats_min_value) FILTER (WHERE path_in_schema = 'symmetry')
               OVER (PARTITION BY file_name, row_group_id) AS symmetry
    FROM parquet_metadata($paths)
) WHERE family = $family AND symmetry = $symmetry
"""


def main() -> None:
    """Print the table."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--warehouse", type=Path, required=True)
    options.add_argument("--release", help="default: the current one")
    options.add_argument("--families", nargs="+", default=["sq5", "blk4"])
    options.add_argument("--thresholds", nargs="+", type=int, default=[1, 2, 3, 5, 10, 100])
    args = options.parse_args()
    layout = Layout(args.warehouse)
    version = resolve_version(layout, args.release) if args.release else current_version(layout)
    if version is None:
        raise SystemExit(f"no release in {layout.releases}")
    paths = [str(path) for path in table_files(layout.release_dir(version))["pattern_stats"]]  # docs/releases.md
    con = duckdb.connect()
    start = time.perf_counter()
    print(f"release {version}\n")
    print("| family | symmetry | t | keys kept | of keys | occurrence kept | chosen kept | MB (estimate) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for family in args.families:
        for symmetry in (8, 16):
            params = {"paths": paths, "family": family, "symmetry": symmetry}
            row = con.execute(BYTES, {**params, "symmetry": str(symmetry)}).fetchone()
            total_bytes = float(row[0] or 0) if row else 0.0
            for t in args.thresholds:
                found = con.execute(QUERY, {**params, "t": t}).fetchone()
                assert found is not None  # an aggregate has one row
                kept, keys, occurrence, chosen = found
                if not keys:
                    continue
                print(f"| {family} | {symmetry} | {t} | {kept:,} | {kept / keys:.1%} | {occurrence:.1%} | "
                      f"{chosen:.1%} | {total_bytes * kept / keys / 1e6:,.0f} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
