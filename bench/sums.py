"""The sum of the runs of a release's complete counts, both ways: every part as an incremental build plans it, merged
by numpy (transforms/patterns/canonical.py summed_runs, what the build does) and summed by DuckDB
(models/pattern_counts.sql, what the build does with the extraction shards).

Usage: .venv/bin/python bench/sums.py --warehouse W [--runs 3]

The runs are those of W's current release (docs/releases.md#complete-counts): a warehouse an incremental build left
holds a base run and a delta run. Each way runs in a process of its own, one part after another as one worker
does, alternately, --runs times; prints per run its wall and CPU seconds and peak resident memory, then the
medians, and exits 1 unless both ways wrote the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from gopat.effects.pattern_parts import key_sample, part_files, sum_part
from gopat.effects.warehouse.layout import Layout, count_runs, current_version, read_manifest
from gopat.flows.patterns import SAMPLE_FILE
from gopat.transforms.patterns.parts import plan_parts

WAYS = ("numpy", "duckdb")


def sum_all(warehouse: Path, out: Path, way: str) -> None:
    """Sum every part of the runs of `warehouse`'s current release into `out` the given `way`; print its figures."""
    layout = Layout(warehouse)
    manifest = read_manifest(layout, current_version(layout) or "")
    runs = [layout.run_dir(run["version"]) for run in count_runs(manifest)]
    config = manifest["config"]
    with duckdb.connect() as con:
        parts = plan_parts(key_sample(con, [run / SAMPLE_FILE for run in runs]), families=config["families"])
    start, cpu = time.perf_counter(), time.process_time()
    for part in parts:
        sum_part(part, [path for run in runs for path in part_files(run, part)], runs=way == "numpy",
                 run=out / "run" / part.file, published=out / "published" / part.file,
                 min_occurrence=config["min_occurrence"][part.family])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"{time.perf_counter() - start:.1f} {time.process_time() - cpu:.1f} {peak}", flush=True)


def digest(folder: Path) -> str:
    """One sha256 over the relative paths and bytes of every Parquet file under `folder`."""
    sha = hashlib.sha256()
    for path in sorted(folder.rglob("*.parquet")):
        sha.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return sha.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/sums.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--way", choices=WAYS, help=argparse.SUPPRESS)  # one way, in the child process
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.way:
        sum_all(args.warehouse, args.out, args.way)
        return 0
    figures: dict[str, list[tuple[float, float, int]]] = {way: [] for way in WAYS}
    digests = set()
    for run in range(1, args.runs + 1):
        for way in WAYS:
            with tempfile.TemporaryDirectory(prefix="gopat-sums-") as out:
                done = subprocess.run([sys.executable, __file__, "--warehouse", str(args.warehouse), "--way", way,
                                       "--out", out], capture_output=True, text=True, check=True)
                wall, cpu, peak = done.stdout.split()
                figures[way].append((float(wall), float(cpu), int(peak)))
                digests.add(digest(Path(out)))
            print(f"run {run} {way:6}  {float(wall):7.1f} s  CPU {float(cpu):7.1f} s  peak {int(peak) / 2**30:.2f} GiB",
                  flush=True)
    for way, rows in figures.items():
        wall, cpu, peak = (statistics.median(column) for column in zip(*rows, strict=True))
        print(f"median {way:6}  {wall:7.1f} s  CPU {cpu:7.1f} s  peak {peak / 2**30:.2f} GiB")
    print("the same bytes both ways" if len(digests) == 1 else f"DIFFERENT bytes: {len(digests)} digests")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
