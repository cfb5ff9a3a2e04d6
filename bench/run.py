"""Benchmark: sgfmill's parse + replay (A) against a full `gopat build` (B), in one run.

Usage: .venv/bin/python bench/run.py [--corpus PATH] [--runs 3] [--scaling] [--incremental] [--new-games 1000]
       [--small-base 12000] [--max-ratio X]

Prints wall seconds, games/s, the ratio B/A, B's peak RSS (process tree; its own process), B's CPU seconds (process
tree) over A (divided by the cores: the B/A of a build that kept every core busy), B's phase profile, and
with --scaling the time ratio of B on the whole corpus against B on its first quarter. With
--incremental the corpus is split into a base archive and a new one (its last --new-games games);
a warehouse built once from the base gets the new archive added in each run (an incremental build,
on a hard-linked copy), timed against B with its own phase profile; with --small-base N
the same new games are also added to a warehouse of the corpus's first N games, and the time ratio
of the two incremental builds (large base over small) says whether the cost follows the new games
only. Exits 1 when the median B/A exceeds --max-ratio.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import json
import os
import re
import resource
import shutil
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


def is_sgf(member: tarfile.TarInfo) -> bool:
    """Whether an archive member is an SGF file."""
    return member.isfile() and member.name.lower().endswith(".sgf")


def sgf_members(corpus: Path) -> list[bytes]:
    """Every .sgf member's bytes, in archive order."""
    with tarfile.open(corpus) as tar:
        return [tar.extractfile(m).read() for m in tar if is_sgf(m)]


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


def tree_rss(root: int) -> tuple[int, int]:
    """Resident bytes of a process and all its descendants, and of the process alone, from /proc."""
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
    return sum(rss.get(pid, 0) for pid in tree), rss.get(root, 0)


@dataclasses.dataclass(frozen=True)
class Watched:
    """A finished command: wall and CPU seconds (its process tree), peak resident bytes (tree; its own process)."""

    seconds: float
    cpu: float
    peak: int
    parent_peak: int
    returncode: int
    output: str


def watch(command: list[str], *, env: dict[str, str] | None = None) -> Watched:
    """Run `command` to its end, sampling its process tree's resident memory every 0.2 s.

    CPU seconds count every process it started (each is waited for, so its rusage reaches ours)."""
    start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    peak = parent = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, parent
        while not done.wait(0.2):
            tree, own = tree_rss(process.pid)
            peak, parent = max(peak, tree), max(parent, own)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = process.communicate()
    seconds, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    done.set()
    sampler.join()
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return Watched(seconds, cpu, peak, parent, process.returncode, output)


def build(sources: list[Path], *, warehouse: Path | None = None, options: tuple[str, ...] = ()
          ) -> tuple[float, int, dict]:
    """`gopat build` of `sources` into `warehouse` (None: a fresh one) with more `options`; (seconds, peak tree RSS
    bytes, manifest).

    The manifest gains `tree_cpu`: the CPU seconds (user + sys) of the build's process tree, and `parent_peak`:
    the peak resident bytes of the build's own process (the flow's), without its workers."""
    if warehouse is None:
        with tempfile.TemporaryDirectory(prefix="gopat-bench-") as fresh:
            return build(sources, warehouse=Path(fresh), options=options)
    run = watch(
        [str(REPO / ".venv" / "bin" / "gopat"), "build", *(arg for s in sources for arg in ("--source", str(s))),
         "--warehouse", str(warehouse), *options],
        # the profile's publish time is a log line of the flow: the console shows INFO lines whatever the caller set
        env={**os.environ, "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "INFO"},
    )
    if run.returncode != 0:
        sys.exit(f"gopat build failed:\n{run.output[-4000:]}")
    current = (warehouse / "releases" / "CURRENT").read_text().strip()
    manifest = json.loads((warehouse / "releases" / current / "manifest.json").read_text())
    # the manifest is written during publish, so publish's own time comes from the flow's log
    published = re.search(r"publish took ([\d.]+) s", run.output)
    timings = {**manifest.get("timings", {}), "publish": float(published[1]) if published else 0.0}
    timings["other"] = max(0.0, run.seconds - sum(timings.values()))  # Prefect's start and stop, artifacts
    return run.seconds, run.peak, {**manifest, "timings": timings, "tree_cpu": run.cpu,
                                   "parent_peak": run.parent_peak}


def linked_copy(warehouse: Path, copy: Path) -> Path:
    """A hard-linked copy of `warehouse` at `copy`: a build writes new files and renames, never in place; only its
    lock file is rewritten, so it is not linked."""
    shutil.copytree(warehouse, copy, copy_function=os.link, ignore=shutil.ignore_patterns(".build.lock"))
    return copy


def incremental_build(base: Path, sources: list[Path], *, options: tuple[str, ...] = ()) -> tuple[float, dict]:
    """`gopat build` of `sources` with `options` into a hard-linked copy of the warehouse `base`; (seconds,
    manifest).

    Exits when the build fell back to a full build.
    """
    with tempfile.TemporaryDirectory(prefix="gopat-bench-i-") as tmp:
        seconds, _, manifest = build(sources, warehouse=linked_copy(base, Path(tmp) / "warehouse"), options=options)
    incremental = manifest.get("incremental")
    if not isinstance(incremental, dict) or "base" not in incremental:
        sys.exit(f"the build of {', '.join(s.name for s in sources)} onto the base warehouse was not incremental "
                 f"(manifest incremental: {incremental!r}): it fell back to a full build "
                 "(did the code change since the base build?)")
    return seconds, manifest


def write_archive(src: tarfile.TarFile, members: list[tarfile.TarInfo], out: Path) -> Path:
    """Copy `members` of the open archive `src` into a new .tar.gz `out`, in order; the same members give the same
    bytes (the gzip header's time is 0), so builds of two runs can be compared file by file."""
    with gzip.GzipFile(out, "wb", mtime=0) as packed, tarfile.open(fileobj=packed, mode="w") as dst:
        for member in members:
            dst.addfile(member, io.BytesIO(src.extractfile(member).read()))
    return out


def quarter_archive(corpus: Path, folder: Path) -> Path:
    """A temporary archive with the first quarter of the corpus's SGF members."""
    with tarfile.open(corpus) as src:
        members = [m for m in src if is_sgf(m)]
        return write_archive(src, members[: len(members) // 4], folder / "quarter.tar.gz")


def first_games(corpus: Path, folder: Path, count: int) -> Path:
    """A temporary archive `small-base.tar.gz` with the corpus's first `count` SGF members."""
    with tarfile.open(corpus) as src:
        members = [m for m in src if is_sgf(m)]
        return write_archive(src, members[:count], folder / "small-base.tar.gz")


def split_archive(corpus: Path, folder: Path, new: int) -> tuple[Path, Path]:
    """`base.tar.gz` with the corpus's SGF members but the last `new` and `new.tar.gz` with those, in archive order.

    A corpus of fewer than 2 * `new` members gives its last quarter to `new.tar.gz`.
    """
    with tarfile.open(corpus) as src:
        members = [m for m in src if is_sgf(m)]
        if len(members) < 2 * new:
            new = len(members) // 4
            print(f"corpus has fewer than twice --new-games SGF members: the new archive gets the last {new}")
        cut = len(members) - new
        base = write_archive(src, members[:cut], folder / "base.tar.gz")
        return base, write_archive(src, members[cut:], folder / "new.tar.gz")


def profile_line(title: str, profiles: list[dict[str, float]]) -> str:
    """`title` then each phase's median wall seconds and share of their sum (`_cpu` entries left out)."""
    phases = [phase for phase in profiles[0] if not phase.endswith("_cpu")]
    medians = {phase: statistics.median(p.get(phase, 0.0) for p in profiles) for phase in phases}
    total = sum(medians.values())
    return title + ", ".join(
        f"{phase} {seconds:.2f} s {100 * seconds / total:.0f}%" for phase, seconds in medians.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scaling", action="store_true", help="also time B on the first quarter")
    parser.add_argument("--incremental", action="store_true",
                        help="also time adding the last --new-games games to a warehouse built from the rest")
    parser.add_argument("--new-games", type=int, default=1000, help="games in the new archive of --incremental")
    parser.add_argument("--small-base", type=int, default=None, metavar="N",
                        help="with --incremental: also add the new games to a warehouse of the first N games")
    parser.add_argument("--max-ratio", type=float, default=None, help="exit 1 if median B/A exceeds this")
    args = parser.parse_args()

    members = sgf_members(args.corpus)
    print(f"corpus {args.corpus} ({len(members)} SGF members), {os.cpu_count()} cores", flush=True)
    a_times, b_times, peaks, parent_peaks, ratios, profiles, quarter_times = [], [], [], [], [], [], []
    i_times, i_ratios, i_profiles, small_times = [], [], [], []
    cpu_ratios, i_cpu_ratios = [], []  # B's CPU seconds over A's seconds; the incremental build's over B's
    with tempfile.TemporaryDirectory(prefix="gopat-bench-q-") as tmp:
        quarter = quarter_archive(args.corpus, Path(tmp)) if args.scaling else None
        parts = list(split_archive(args.corpus, Path(tmp), args.new_games)) if args.incremental else None
        base_warehouse = Path(tmp) / "base-warehouse"
        small_warehouse = Path(tmp) / "small-warehouse"
        small = first_games(args.corpus, Path(tmp), args.small_base) if parts and args.small_base else None
        if parts is not None:
            seconds, _, manifest = build(parts[:1], warehouse=base_warehouse)
            print(f"base build {seconds:.1f} s ({manifest['ingest']['games']} games)", flush=True)
        if small is not None:
            seconds, _, manifest = build([small], warehouse=small_warehouse)
            print(f"small base build {seconds:.1f} s ({manifest['ingest']['games']} games)", flush=True)
        for run in range(1, args.runs + 1):
            a_seconds, a_games = reference(members)
            b_seconds, peak, manifest = build([args.corpus])
            a_times.append(a_seconds)
            b_times.append(b_seconds)
            peaks.append(peak)
            parent_peaks.append(manifest["parent_peak"])
            ratios.append(b_seconds / a_seconds)
            cpu_ratios.append(manifest["tree_cpu"] / a_seconds)
            profiles.append({**manifest.get("timings", {}), **manifest.get("ingest_cpu", {})})
            line = (f"run {run}: A {a_seconds:.1f} s ({a_games / a_seconds:.0f} games/s), "
                    f"B {b_seconds:.1f} s ({manifest['ingest']['games'] / b_seconds:.0f} games/s), "
                    f"B/A {b_seconds / a_seconds:.2f}, peak RSS {peak / 2**30:.2f} GiB "
                    f"(the flow's process {manifest['parent_peak'] / 2**30:.2f} GiB)")
            if quarter is not None:
                q_seconds, _, _ = build([quarter])
                quarter_times.append(q_seconds)
                line += f", quarter {q_seconds:.1f} s (full/quarter {b_seconds / q_seconds:.2f})"
            if parts is not None:
                i_seconds, i_manifest = incremental_build(base_warehouse, parts)
                i_times.append(i_seconds)
                i_ratios.append(i_seconds / b_seconds)
                i_profiles.append(i_manifest["timings"])
                i_cpu_ratios.append(i_manifest["tree_cpu"] / manifest["tree_cpu"])
                line += f", incremental {i_seconds:.1f} s (incremental/B {i_seconds / b_seconds:.3f})"
            if parts is not None and small is not None:
                s_seconds, _ = incremental_build(small_warehouse, [small, parts[1]])
                small_times.append(s_seconds)
                line += f", onto the small base {s_seconds:.1f} s (large/small {i_times[-1] / s_seconds:.2f})"
            print(line, flush=True)
    median_ratio = statistics.median(ratios)
    print(f"median A {statistics.median(a_times):.1f} s, median B {statistics.median(b_times):.1f} s, "
          f"median B/A {median_ratio:.2f}, median peak RSS {statistics.median(peaks) / 2**30:.2f} GiB, "
          f"of the flow's process {statistics.median(parent_peaks) / 2**30:.2f} GiB")
    cores, cpu_ratio = os.cpu_count() or 1, statistics.median(cpu_ratios)
    print(f"median B CPU (process tree, user + sys) / A {cpu_ratio:.2f}: with all {cores} cores busy all the time, "
          f"B/A would be {cpu_ratio / cores:.2f}")
    if quarter_times:
        scaling = statistics.median(b / q for b, q in zip(b_times, quarter_times, strict=True))
        print(f"median scaling full/quarter {scaling:.2f} (linear: 3.6-4.4)")
    print(profile_line("B profile, wall (median seconds, share of B; other = Prefect start/stop, artifacts): ",
                       profiles))
    parse, replay = (statistics.median(p.get(k, 0.0) for p in profiles) for k in ("parse_cpu", "replay_cpu"))
    print(f"B ingest CPU over all workers: parse {parse:.1f} s, replay and rows {replay:.1f} s")
    if i_times:
        print(f"median incremental {statistics.median(i_times):.1f} s, "
              f"median incremental/B {statistics.median(i_ratios):.3f} (target <= 0.10), "
              f"in CPU seconds {statistics.median(i_cpu_ratios):.3f}")
        print(profile_line("incremental profile, wall (median seconds, share): ", i_profiles))
    if small_times:
        print(f"median incremental onto the small base {statistics.median(small_times):.1f} s, median large/small "
              f"{statistics.median(i / s for i, s in zip(i_times, small_times, strict=True)):.2f} (target <= 1.3)")
    if args.max_ratio is not None and median_ratio > args.max_ratio:
        print(f"REGRESSION: median B/A {median_ratio:.2f} > {args.max_ratio}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
