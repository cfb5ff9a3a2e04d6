"""Benchmark: sgfmill's parse + replay (A) against a full `gopat build` (B), in one run.

Usage: .venv/bin/python bench/run.py [--corpus PATH] [--runs 3] [--scaling] [--max-ratio X]

Prints wall seconds, games/s, the ratio B/A, B's peak RSS (process tree), B's phase profile, and
with --scaling the time ratio of B on the whole corpus against B on its first quarter. Exits 1
when the median B/A exceeds --max-ratio.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

from sgfmill import sgf, sgf_moves

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "pro-sample.tar.gz"


def sgf_members(corpus: Path) -> list[bytes]:
    """Every .sgf member's bytes, in archive order."""
    with tarfile.open(corpus) as tar:
        return [tar.extractfile(m).read() for m in tar if m.isfile() and m.name.lower().endswith(".sgf")]


def reference(members: list[bytes]) -> tuple[float, int]:
    """A: sgfmill parse + main-line replay of every game on one core; (seconds, games replayed)."""
    start = time.perf_counter()
    games = 0
    for data in members:
        try:
            game = sgf.Sgf_game.from_bytes(data)
            board, plays = sgf_moves.get_setup_and_moves(game)
            for colour, move in plays:
                if move is not None:
                    board.play(move[0], move[1], colour)
            games += 1
        except ValueError:
            continue
    return time.perf_counter() - start, games


def tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        rss[int(entry.name)] = next(
            (int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0
        )
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        tree.update(children)
        frontier.extend(children)
    return sum(rss.get(pid, 0) for pid in tree)


def build(corpus: Path) -> tuple[float, int, dict]:
    """B: `gopat build` into a fresh warehouse; (seconds, peak tree RSS bytes, manifest)."""
    with tempfile.TemporaryDirectory(prefix="gopat-bench-") as warehouse:
        start = time.perf_counter()
        process = subprocess.Popen(
            [str(REPO / ".venv" / "bin" / "gopat"), "build", "--source", str(corpus), "--warehouse", warehouse],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.wait(0.2):
                peak = max(peak, tree_rss(process.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        output, _ = process.communicate()
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        if process.returncode != 0:
            sys.exit(f"gopat build failed:\n{output[-4000:]}")
        current = (Path(warehouse) / "releases" / "CURRENT").read_text().strip()
        manifest = json.loads((Path(warehouse) / "releases" / current / "manifest.json").read_text())
        # the manifest is written during publish, so publish's own time comes from the flow's log
        published = re.search(r"publish took ([\d.]+) s", output)
        timings = {**manifest.get("timings", {}), "publish": float(published[1]) if published else 0.0}
        timings["other"] = max(0.0, seconds - sum(timings.values()))  # Prefect's start and stop, artifacts
        return seconds, peak, {**manifest, "timings": timings}


def quarter_archive(corpus: Path, folder: Path) -> Path:
    """A temporary archive with the first quarter of the corpus's SGF members."""
    out = folder / "quarter.tar.gz"
    with tarfile.open(corpus) as src, tarfile.open(out, "w:gz") as dst:
        members = [m for m in src if m.isfile() and m.name.lower().endswith(".sgf")]
        for member in members[: len(members) // 4]:
            dst.addfile(member, io.BytesIO(src.extractfile(member).read()))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scaling", action="store_true", help="also time B on the first quarter")
    parser.add_argument("--max-ratio", type=float, default=None, help="exit 1 if median B/A exceeds this")
    args = parser.parse_args()

    members = sgf_members(args.corpus)
    print(f"corpus {args.corpus} ({len(members)} SGF members), {os.cpu_count()} cores", flush=True)
    a_times, b_times, peaks, ratios, profiles, quarter_times = [], [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="gopat-bench-q-") as tmp:
        quarter = quarter_archive(args.corpus, Path(tmp)) if args.scaling else None
        for run in range(1, args.runs + 1):
            a_seconds, a_games = reference(members)
            b_seconds, peak, manifest = build(args.corpus)
            a_times.append(a_seconds)
            b_times.append(b_seconds)
            peaks.append(peak)
            ratios.append(b_seconds / a_seconds)
            profiles.append({**manifest.get("timings", {}), **manifest.get("ingest_cpu", {})})
            line = (f"run {run}: A {a_seconds:.1f} s ({a_games / a_seconds:.0f} games/s), "
                    f"B {b_seconds:.1f} s ({manifest['ingest']['games'] / b_seconds:.0f} games/s), "
                    f"B/A {b_seconds / a_seconds:.2f}, peak RSS {peak / 2**30:.2f} GiB")
            if quarter is not None:
                q_seconds, _, _ = build(quarter)
                quarter_times.append(q_seconds)
                line += f", quarter {q_seconds:.1f} s (full/quarter {b_seconds / q_seconds:.2f})"
            print(line, flush=True)
    median_ratio = statistics.median(ratios)
    print(f"median A {statistics.median(a_times):.1f} s, median B {statistics.median(b_times):.1f} s, "
          f"median B/A {median_ratio:.2f}, median peak RSS {statistics.median(peaks) / 2**30:.2f} GiB")
    if quarter_times:
        scaling = statistics.median(b / q for b, q in zip(b_times, quarter_times, strict=True))
        print(f"median scaling full/quarter {scaling:.2f} (linear: 3.6-4.4)")
    phases = [phase for phase in profiles[0] if not phase.endswith("_cpu")]
    if phases:
        medians = {phase: statistics.median(p.get(phase, 0.0) for p in profiles) for phase in phases}
        total = sum(medians.values())
        print("B profile, wall (median seconds, share of B; other = Prefect start/stop, artifacts): " + ", ".join(
            f"{phase} {seconds:.1f} s {100 * seconds / total:.0f}%" for phase, seconds in medians.items()))
        parse, replay = (statistics.median(p.get(k, 0.0) for p in profiles) for k in ("parse_cpu", "replay_cpu"))
        print(f"B ingest CPU over all workers: parse {parse:.1f} s, replay and rows {replay:.1f} s")
    if args.max_ratio is not None and median_ratio > args.max_ratio:
        print(f"REGRESSION: median B/A {median_ratio:.2f} > {args.max_ratio}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
