"""Benchmark: `gopat search` on five patterns (docs/search.md), cold, in a fresh process, and warm.

Usage: .venv/bin/python bench/search.py --warehouse /tmp/wh-search [--runs 3] [--cold-runs 3]

- cold: the search index is deleted first, so the command builds it (a fresh process each run);
- fresh process: the index is cached; the whole command in a new process (imports included);
- warm: in this process, the index loaded once, the search alone (filters, replay, summary).

Prints a Markdown table of medians for BENCHMARKS.md: wall seconds, and CPU seconds (user + system, all
threads) in brackets, which a busy machine inflates less.
"""

from __future__ import annotations

import argparse
import resource
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
    "centre shape (4x4 crosscut)": ("....\n.XO.\n.OX.\n....\n", []),
    "wildcards (3x3)": ("?x?\nOXo\n?.?\n", []),
    "colour swap (corner 3x4)": ("+----\n|....\n|.XO.\n|.OX.\n", ["--colour-swap"]),
}
GOPAT = [sys.executable, "-m", "gopat.cli.main"]


def command(warehouse: Path, pattern: Path, options: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one `gopat search --json` in a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*GOPAT, "search", str(pattern), "--warehouse", str(warehouse), "--json", *options],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def median(runs: list[tuple[float, float]]) -> str:
    """Median wall seconds and, in brackets, median CPU seconds."""
    return f"{statistics.median(r[0] for r in runs):.2f} ({statistics.median(r[1] for r in runs):.2f})"


def main() -> None:
    """Time the five patterns and print the table."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--warehouse", type=Path, required=True)
    options.add_argument("--runs", type=int, default=3)
    options.add_argument("--cold-runs", type=int, default=3, help="runs that rebuild the index, per pattern")
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
        for _ in range(args.cold_runs):
            shutil.rmtree(index.path, ignore_errors=True)
            cold.append(command(args.warehouse, path, extra))
        fresh = [command(args.warehouse, path, extra) for _ in range(args.runs)]
        index = load_index(args.warehouse)
        warm: list[tuple[float, float]] = []
        hits = 0
        for _ in range(args.runs + 1):  # the first call loads the compiled kernels: not counted
            start, cpu = time.perf_counter(), time.process_time()
            found = search(index.events, games, parse_diagram(diagram, name=name), colour_swap="--colour-swap" in extra)
            hits = summary(found, index.games, searched=len(games))["hits"]
            warm.append((time.perf_counter() - start, time.process_time() - cpu))
        print(f"| {name} | {hits} | {median(cold)} | {median(fresh)} | {median(warm[1:])} |", flush=True)
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
