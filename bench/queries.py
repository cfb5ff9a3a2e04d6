"""Benchmark: the wall time of every SQL cookbook query (docs/queries.md) against a catalog.

Usage: .venv/bin/python bench/queries.py [--catalog warehouse/catalog.duckdb] [--runs 3]

Each query runs `--runs` times on one read-only connection (the first run reads the Parquet
footers cold); prints a Markdown table of the first and the median time per question and the
release it ran on, for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]
COOKBOOK = REPO / "docs" / "queries.md"


def questions(cookbook: Path = COOKBOOK) -> list[tuple[str, str]]:
    """(heading, SQL) of every `## ` section of the cookbook that has a sql block."""
    found = []
    for section in re.split(r"^## ", cookbook.read_text(), flags=re.MULTILINE)[1:]:
        block = re.search(r"```sql\n(.*?)```\n", section, flags=re.DOTALL)
        if block:
            found.append((section.splitlines()[0], block.group(1)))
    return found


def main() -> None:
    """Time every cookbook query and print the table."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--catalog", type=Path, default=REPO / "warehouse" / "catalog.duckdb")
    options.add_argument("--runs", type=int, default=3)
    args = options.parse_args()
    con = duckdb.connect(str(args.catalog), read_only=True)
    (release,) = con.execute("SELECT version FROM releases WHERE is_current").fetchone() or ("none",)
    print(f"catalog {args.catalog}, release {release}, {args.runs} runs per query\n")
    print("| question | first (s) | median (s) |\n|---|---:|---:|")
    for title, sql in questions():
        seconds = []
        for _ in range(args.runs):
            start = time.perf_counter()
            con.execute(sql).fetchall()
            seconds.append(time.perf_counter() - start)
        print(f"| {title} | {seconds[0]:.2f} | {statistics.median(seconds):.2f} |")


if __name__ == "__main__":
    main()
