"""Scale benchmark: a build of 8 times a release's games (its image corpus) against a build of the games, the exact
check of the two, an incremental add to the large warehouse, the commands on its release and SIGTERM during its build.

Usage: .venv/bin/python bench/scale.py --warehouse W --workdir DIR [--new-games 1000] [--sigterm PHASE ...] [--reuse]

One line per step as it ends:
1. images: bench/images.py writes DIR/archives/base.tar.gz and images.tar.gz from the current release of W (skipped
   when both exist: the same release gives the same bytes);
2. split: images.tar.gz into split/base.tar.gz (every member but the last --new-games) and split/new.tar.gz (those);
3. base build: base.tar.gz into DIR/base (a fresh warehouse);
4. images build: split/base.tar.gz into DIR/images, every min_occurrence x8 (bench/images.py);
5. incremental build: new.tar.gz added to DIR/images (in place: DIR/images then holds every image);
6. check: bench/images.py's exact check of DIR/images against 8 times DIR/base, one line per table;
7. commands on DIR/images: `gopat search` with the index deleted (the first query builds it) and then in 3 new
   processes, and `openings`, `report`, `verify`, `release pack`, `suggest` (a 60-move game of the corpus) and
   `evaluate` (tiny.tar.gz, the default weights, --no-record) once each;
8. with --sigterm: for each PHASE (a phase of the build's profile, such as extract or aggregate), a full build of
   split/base.tar.gz into a hard-linked copy of DIR/base gets SIGTERM --sigterm-after seconds after the phase
   before it logs its end; the seconds to exit, its exit status, and DIR/base's release still current and verified.

With --reuse, steps 3-6 are skipped and DIR/base and DIR/images are used as an earlier run left them (the
commands and SIGTERM steps again, after a change that does not touch the build); the builds' targets are not printed.

Builds report wall seconds and the peak resident memory of their process tree and of the flow's own process;
commands their wall seconds and peak tree memory. Then each target of docs/scaling.md is printed as met or
missed. Exits 1 when the check or a SIGTERM step fails (a missed target is a figure, not a failure).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import images as imaging
from run import REPO, build, is_sgf, linked_copy, split_archive, watch

from gopat.effects.search_index import index_path
from gopat.effects.warehouse.layout import Layout, current_version

GOPAT = str(REPO / ".venv" / "bin" / "gopat")
TINY = REPO.parent / "shared" / "corpus" / "tiny.tar.gz"
PATTERN = "+------\n|......\n|......\n|...X..\n|..O...\n"  # a corner pattern of bench/search.py
SIGTERM_SECONDS = 10
GIB = 2**30
PHASES = ("fetch", "ingest", "extract", "aggregate", "move_patterns", "analytics", "validate", "publish")


def line(step: str, text: str) -> None:
    print(f"{step:12} {text}", flush=True)


def built(step: str, sources: list[Path], warehouse: Path, options: tuple[str, ...]) -> tuple[float, int, dict]:
    """A build of `sources` into `warehouse`, its figures printed."""
    seconds, peak, manifest = build(sources, warehouse=warehouse, options=options)
    timings = ", ".join(f"{phase} {manifest['timings'][phase]:.0f}" for phase in (*PHASES, "other")
                        if phase in manifest["timings"])
    line(step, f"{manifest['ingest']['games']:,} games in {seconds:.1f} s, peak RSS {peak / GIB:.2f} GiB (the flow's "
               f"process {manifest['parent_peak'] / GIB:.2f} GiB); phases (s): {timings}")
    return seconds, peak, manifest


def command(step: str, args: list[str]) -> tuple[float, int]:
    """`gopat ARGS` in a new process: (seconds, peak tree RSS bytes); exits when it fails."""
    run = watch([GOPAT, *args])
    if run.returncode != 0:
        sys.exit(f"gopat {' '.join(args)} failed:\n{run.output[-2000:]}")
    line(step, f"{run.seconds:.1f} s, peak RSS {run.peak / GIB:.2f} GiB")
    return run.seconds, run.peak


def suggest_game(corpus: Path, folder: Path) -> Path:
    """The first SGF member of `corpus` with at least 60 moves, as a file in `folder`."""
    with tarfile.open(corpus) as tar:
        for member in tar:
            data = tar.extractfile(member).read() if is_sgf(member) else b""
            if data.count(b";B[") + data.count(b";W[") >= 60:
                (folder / "game.sgf").write_bytes(data)
                return folder / "game.sgf"
    raise ValueError(f"no game of 60 moves in {corpus}")


def sigterm_during(phase: str, after: float, source: Path, base: Path, copy: Path, options: tuple[str, ...]) -> bool:
    """SIGTERM to a full build of `source` into a linked copy of `base`, `after` seconds into `phase`; whether it
    stopped within SIGTERM_SECONDS with 143 and left the base's release current and verified."""
    before = PHASES[PHASES.index(phase) - 1]
    warehouse = linked_copy(base, copy)
    release = current_version(Layout(warehouse))
    process = subprocess.Popen(
        [GOPAT, "build", "--source", str(source), "--warehouse", str(warehouse), *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        env={**os.environ, "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "INFO"})
    assert process.stdout is not None
    for text in process.stdout:
        if f"{before} took" in text:
            break
    time.sleep(after)
    start = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        output, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    seconds = time.monotonic() - start
    verified = subprocess.run([GOPAT, "verify", "--warehouse", str(warehouse)], capture_output=True, check=False)
    intact = current_version(Layout(warehouse)) == release and verified.returncode == 0
    ok = process.returncode == 128 + signal.SIGTERM and seconds <= SIGTERM_SECONDS and intact
    last = output.strip().splitlines()[-1] if output.strip() else ""
    line("sigterm", f"{after:.0f} s into {phase}: exit {process.returncode} after {seconds:.1f} s, release {release} "
                    f"{'current and verified' if intact else 'NOT intact'}: {last}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/scale.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, required=True, help="the warehouse whose current release is imaged")
    parser.add_argument("--workdir", type=Path, required=True, help="archives and warehouses are written here")
    parser.add_argument("--new-games", type=int, default=1000, help="games of the incremental build")
    parser.add_argument("--sigterm", nargs="+", default=[], choices=PHASES[1:], metavar="PHASE")
    parser.add_argument("--sigterm-after", type=float, default=30.0, metavar="SECONDS")
    parser.add_argument("--reuse", action="store_true", help="skip the builds and the check: DIR/base and DIR/images "
                                                             "as an earlier run left them")
    args = parser.parse_args()
    archives, work = args.workdir / "archives", args.workdir.resolve()
    if not ((archives / "base.tar.gz").is_file() and (archives / "images.tar.gz").is_file()):
        start = time.perf_counter()
        tally = imaging.generate(args.warehouse, archives)
        line("images", f"{tally.written:,} games, {imaging.IMAGES * tally.written:,} images in "
                       f"{time.perf_counter() - start:.0f} s; left out {tally.left_out}")
    (archives / "split").mkdir(exist_ok=True)
    head, new = split_archive(archives / "images.tar.gz", archives / "split", args.new_games)
    line("split", f"{head} and {new} ({args.new_games:,} games)")
    thresholds = imaging.images_min_occurrence(args.warehouse)
    families = ("--families", *thresholds)
    scaled = (*families, "--min-occurrence", *(f"{f}={n}" for f, n in thresholds.items()
                                                if f not in imaging.COMPLETE_FAMILIES))

    targets: list[tuple[str, bool]] = []
    results: list[tuple[str, bool, str]] = []
    if not args.reuse:
        base_seconds, _, base = built("base", [archives / "base.tar.gz"], work / "base", families)
        big_seconds, big_peak, big = built("images", [head], work / "images", scaled)
        incremental_seconds, _, added = built("incremental", [head, new], work / "images", scaled)
        if not isinstance(added.get("incremental"), dict):
            sys.exit(f"the build that added {new} was not incremental (manifest incremental: "
                     f"{added.get('incremental')!r})")
        results = imaging.check(work / "base", work / "images")
        for table, exact, detail in results:
            line("check", f"{table:14} {'exact' if exact else 'MISMATCH'}  {detail}")
        targets += [
            (f"images build / base build {big_seconds / base_seconds:.2f}", big_seconds / base_seconds <= 8.5),
            (f"images build's process tree peak {big_peak / GIB:.2f} GiB", big_peak <= 6 * GIB),
            (f"the flow's process peak, images / base {big['parent_peak'] / base['parent_peak']:.2f}",
             big["parent_peak"] <= 1.2 * base["parent_peak"]),
            (f"incremental / images build {incremental_seconds / big_seconds:.3f}",
             incremental_seconds <= 0.1 * big_seconds),
        ]

    layout = Layout(work / "images")
    version = current_version(layout)
    assert version is not None
    with tempfile.TemporaryDirectory(prefix="gopat-scale-") as tmp:
        folder = Path(tmp)
        (folder / "pattern.txt").write_text(PATTERN)
        search = ["search", str(folder / "pattern.txt"), "--warehouse", str(work / "images"), "--json"]
        shutil.rmtree(index_path(layout, version), ignore_errors=True)  # the first query builds it again
        cold, cold_peak = command("search cold", search)
        fresh = statistics.median(command("search", search)[0] for _ in range(3))
        on = ("--warehouse", str(work / "images"))
        commands = {
            "openings": ["openings", *on],
            "report": ["report", *on, "--output", str(folder / "report")],
            "verify": ["verify", *on],
            "release pack": ["release", "pack", "current", *on, "--output", str(folder / "release.tar.gz")],
            "suggest": ["suggest", str(suggest_game(TINY, folder)), *on],
            "evaluate": ["evaluate", "--games", str(TINY), *on, "--no-record"],
        }
        for step, args_ in commands.items():
            command(step, args_)
        sigterms = [sigterm_during(phase, args.sigterm_after, head, work / "base", folder / f"sigterm-{phase}",
                                   scaled) for phase in args.sigterm]

    targets += [
        (f"search in a new process {fresh:.1f} s", fresh <= 3),
        (f"search's first query {cold:.1f} s", cold <= 30),
        (f"search's first query peak {cold_peak / GIB:.2f} GiB", cold_peak <= 2.5 * GIB),
    ]
    for text, met in targets:
        line("target", f"{'met' if met else 'MISSED'}: {text}")
    return 0 if all(exact for _, exact, _ in results) and all(sigterms) else 1


if __name__ == "__main__":
    sys.exit(main())
