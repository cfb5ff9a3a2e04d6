"""The sum per key of a folder of pattern counts, both ways the build sums (effects/pattern_parts.py sum_part): merged
by numpy (transforms/patterns/canonical.py summed_runs, what the build does with the runs of the complete counts) and
summed by DuckDB's hash aggregate (models/pattern_counts.sql, what the build does with the extraction shards).

Usage: .venv/bin/python bench/sums.py --inputs DIR [--runs 3]

DIR holds pattern counts as Parquet files, each sorted by family, symmetry and key: a run of the complete counts (a
warehouse's `state/<version>/` folder, docs/releases.md#complete-counts; a folder of such folders sums them all), or
a build's extraction shards (its `staging/<content>/patterns/` folder, which the build removes when it ends:
hard-link it elsewhere while the build sums its parts). Every Parquet file under DIR but the runs' key samples
is read, cut in the parts a build cuts. Each way runs in a process of its own, one part after another as one worker
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

from gopat.effects.pattern_parts import key_sample, sum_part
from gopat.flows.patterns import SAMPLE_FILE
from gopat.transforms.patterns.parts import Part, plan_parts

WAYS = ("numpy", "duckdb")


def sum_all(inputs: Path, out: Path, way: str) -> None:
    """Sum every part of the pattern counts under `inputs` into `out` the given `way`; print its figures."""
    files = sorted(path for path in inputs.rglob("*.parquet") if path.name != SAMPLE_FILE)
    with duckdb.connect() as con:
        sample = key_sample(con, files)
    parts = plan_parts(sample, families=sorted(set(sample["family"].to_pylist())))
    start, cpu = time.perf_counter(), time.process_time()
    for part in parts:
        sum_part(part, _inputs(files, part), runs=way == "numpy", run=out / part.file, published=None, min_occurrence=1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"{time.perf_counter() - start:.1f} {time.process_time() - cpu:.1f} {peak}", flush=True)


def _inputs(files: list[Path], part: Part) -> list[Path]:
    """The files a build gives `part`: every shard, or a run's files of its family and symmetry (a run's files are
    ``<family>/<symmetry>/<part>.parquet``)."""
    return [path for path in files
            if not path.parent.name.isdigit() or path.parent.match(f"{part.family}/{part.symmetry:02d}")]


def digest(folder: Path) -> str:
    """One sha256 over the relative paths and bytes of every Parquet file under `folder`."""
    sha = hashlib.sha256()
    for path in sorted(folder.rglob("*.parquet")):
        sha.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return sha.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/sums.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--way", choices=WAYS, help=argparse.SUPPRESS)  # one way, in the child process
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not any(path.name != SAMPLE_FILE for path in args.inputs.rglob("*.parquet")):
        parser.error(f"{args.inputs}: no Parquet files of pattern counts")
    if args.way:
        sum_all(args.inputs, args.out, args.way)
        return 0
    figures: dict[str, list[tuple[float, float, int]]] = {way: [] for way in WAYS}
    digests = set()
    for run in range(1, args.runs + 1):
        for way in WAYS:
            with tempfile.TemporaryDirectory(prefix="gopat-sums-") as out:
                done = subprocess.run([sys.executable, __file__, "--inputs", str(args.inputs), "--way", way,
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
