"""Benchmark: `gopat search` on five patterns (docs/search.md), cold, in a fresh process, and warm.

Usage: .venv/bin/python bench/search.py --warehouse /tmp/wh-search [--runs 3]

- cold: the search index is deleted first, so the command builds it (a fresh process each run);
- fresh process: the index is cached; the whole command in a new process (imports included);
- warm: in this process, the index loaded once, the search alone (filters, replay, summary).

Prints a Markdown table of medians for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gopat.effects.search_index import load_index
from gopat.transforms.search.diagram import parse_diagram
from gopat.transforms.search.query import search, select_games, summary

PATTERNS = {
    "corner (4x6, two edges)": ("+------\n|......\n|......\n|...X..\n|..O...\n", []),
    "edge (3x7, one edge)": ("-------\n.......\n..X.O..\n.......\n", []),
    "centre shape (3x3)": (".X.\nXOX\n.X.\n", []),
    "wildcards (3x3)": ("?x?\nOXo\n?.?\n", []),
    "colour swap (corner 3x4)": ("+----\n|....\n|.XO.\n|.OX.\n", ["--colour-swap"]),
}
GOPAT = [sys.executable, "-m", "gopat.cli.main"]


def command(warehouse: Path, pattern: Path, options: list[str]) -> float:
    """Wall seconds of one `gopat search --json` in a new process."""
    start = time.perf_counter()
    subprocess.run([*GOPAT, "search", str(pattern), "--warehouse", str(warehouse), "--json", *options],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    """Time the five patterns and print the table."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--warehouse", type=Path, required=True)
    options.add_argument("--runs", type=int, default=3)
    args = options.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-search-"))
    index = load_index(args.warehouse)
    games = select_games(index.games)
    print(f"release {index.version}: {len(games)} games, {len(index.events.colour)} positions; "
          f"medians of {args.runs} runs\n")
    print("| pattern | hits | cold, index built (s) | fresh process (s) | warm search (s) |\n|---|---:|---:|---:|---:|")
    for name, (diagram, extra) in PATTERNS.items():
        path = folder / "pattern.txt"
        path.write_text(diagram)
        cold = []
        for _ in range(args.runs):
            shutil.rmtree(index.path, ignore_errors=True)
            cold.append(command(args.warehouse, path, extra))
        fresh = [command(args.warehouse, path, extra) for _ in range(args.runs)]
        index = load_index(args.warehouse)
        warm, hits = [], 0
        for _ in range(args.runs):
            start = time.perf_counter()
            found = search(index.events, games, parse_diagram(diagram, name=name), colour_swap="--colour-swap" in extra)
            hits = summary(found, index.games, searched=len(games))["hits"]
            warm.append(time.perf_counter() - start)
        print(f"| {name} | {hits} | {statistics.median(cold):.2f} | {statistics.median(fresh):.2f} | "
              f"{statistics.median(warm):.2f} |", flush=True)
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
