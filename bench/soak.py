"""Soak test: 20 incremental builds in a row, kill -9 in every third, then compare with a clean full build.

Usage: .venv/bin/python bench/soak.py [--corpus tiny.tar.gz] [--archives 20] [--kill-every 3] [--seed 0]
       [--families F ...] [--workers N] [--shared-server] [--workdir DIR]

The corpus's SGF members are split into --archives archives (in archive order). Build i runs
`gopat build --source a1 ... --source ai` on one warehouse (docs/operations.md "Incremental builds": each build adds
one archive to the current release's sources, so it is incremental). Every --kill-every-th build is
first killed with SIGKILL (its whole process group) at a seeded random moment of its progress
(right after a random line of its log, drawn from the first 90% of the previous build's lines:
unlike a time, this holds however loaded the machine is), the previous release must still be
current, and the build is run again. At the end the
release's Parquet files must be byte-identical to those of a clean full build of all archives in a
fresh warehouse, no process started by any build may be left, and no staging or temporary file may
remain in either warehouse. With --shared-server the builds talk to one Prefect server started here
(as the end-to-end tests do) instead of each starting its own temporary one; it is stopped at the
end and must leave no process either. Prints one line per build and the verdict; exits 1 when
anything failed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
GOPAT = REPO / ".venv" / "bin" / "gopat"
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "tiny.tar.gz"
# Leftovers a build removes when it takes the lock (docs/releases.md, docs/guarantees.md).
TEMPORARY = (".tmp-", ".trash-", "CURRENT.tmp-", ".catalog-")


@dataclass
class Run:
    """One `gopat build` process: exit code, seconds, and every process seen in its tree."""

    code: int
    seconds: float
    killed: bool
    tree: dict[int, float] = field(default_factory=dict)  # pid -> create_time
    output: str = ""


def prefect_server(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A Prefect server on a free local port, in its own process group; (process, API URL) once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with log.open("wb") as out:
        server = subprocess.Popen([str(GOPAT.parent / "prefect"), "server", "start", "--host", "127.0.0.1", "--port",
                                   str(port), "--no-ui", "--analytics-off"], stdout=out, stderr=subprocess.STDOUT,
                                  env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/api"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as answer:
                if answer.status == 200:
                    return server, url
        except OSError:
            time.sleep(1)
    os.killpg(server.pid, signal.SIGKILL)
    sys.exit(f"the Prefect server did not answer; see {log}")


def split_corpus(corpus: Path, folder: Path, parts: int) -> list[Path]:
    """The corpus's SGF members in ``parts`` tar.gz archives of consecutive members (sizes differ by at most 1)."""
    members: list[tuple[tarfile.TarInfo, bytes]] = []
    with tarfile.open(corpus) as src:
        for member in src:
            file = src.extractfile(member) if member.name.lower().endswith(".sgf") else None
            if member.isfile() and file is not None:
                members.append((member, file.read()))
    if len(members) < parts:
        sys.exit(f"{corpus} has {len(members)} SGF members, fewer than --archives {parts}")
    paths = []
    for index in range(parts):
        chunk = members[index * len(members) // parts : (index + 1) * len(members) // parts]
        path = folder / f"part-{index + 1:02d}.tar.gz"
        with tarfile.open(path, "w:gz") as dst:
            for info, data in chunk:
                dst.addfile(info, io.BytesIO(data))
        paths.append(path)
    return paths


def watch_tree(process: subprocess.Popen[str], tree: dict[int, float], done: threading.Event) -> None:
    """Record every descendant of the build (pid and start time) until it ends."""
    try:
        root = psutil.Process(process.pid)
    except psutil.NoSuchProcess:
        return
    while not done.wait(0.25):
        try:
            for proc in [root, *root.children(recursive=True)]:
                tree.setdefault(proc.pid, proc.create_time())
        except psutil.NoSuchProcess:
            continue


def build(sources: list[Path], warehouse: Path, env: dict[str, str], options: list[str],
          kill_at_line: int | None = None) -> Run:
    """Run `gopat build` (in its own process group); with ``kill_at_line`` SIGKILL the group after that log line."""
    args = [str(GOPAT), "build", *(a for s in sources for a in ("--source", str(s))), "--warehouse", str(warehouse)]
    args += options
    start = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                               start_new_session=True)
    tree: dict[int, float] = {}
    done = threading.Event()
    watcher = threading.Thread(target=watch_tree, args=(process, tree, done), daemon=True)
    watcher.start()
    killed = False
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:  # ends when every process of the group is gone
        lines.append(line)
        if len(lines) == kill_at_line:
            os.killpg(process.pid, signal.SIGKILL)
            killed = True
    process.wait()
    done.set()
    watcher.join()
    return Run(process.returncode, time.perf_counter() - start, killed, tree, "".join(lines))


def survivors(tree: dict[int, float]) -> list[str]:
    """Processes of a build's tree that still run (same pid and start time)."""
    left = []
    for pid, created in tree.items():
        try:
            proc = psutil.Process(pid)
            if proc.create_time() == created and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{pid} {' '.join(proc.cmdline())[:120]}")
        except psutil.NoSuchProcess:
            continue
    return left


def leftover_files(warehouse: Path) -> list[str]:
    """Staging entries, temporary release/CURRENT/catalog files and partial downloads left in a warehouse."""
    found = [p for p in (warehouse / "staging").glob("*")] if (warehouse / "staging").is_dir() else []
    for folder in (warehouse, warehouse / "releases"):
        if folder.is_dir():
            found += [p for p in folder.iterdir() if p.name.startswith(TEMPORARY)]
    found += list((warehouse / "raw").glob("*.part")) if (warehouse / "raw").is_dir() else []
    return sorted(str(p.relative_to(warehouse)) for p in found)


def current(warehouse: Path) -> str | None:
    """The current release's version, or None before the first."""
    path = warehouse / "releases" / "CURRENT"
    return path.read_text().strip() if path.exists() else None


def parquet_digests(warehouse: Path) -> dict[str, str]:
    """sha256 of every Parquet file of the current release (a partitioned table's too), by path in the release."""
    release = warehouse / "releases" / str(current(warehouse))
    return {p.relative_to(release).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(release.rglob("*.parquet"))}


def manifest(warehouse: Path) -> dict[str, object]:
    """The current release's manifest."""
    path = warehouse / "releases" / str(current(warehouse)) / "manifest.json"
    data: dict[str, object] = json.loads(path.read_text())
    return data


def soak(archives: list[Path], root: Path, env: dict[str, str], args: argparse.Namespace) -> list[str]:
    """The incremental chain with kills, then the clean build; returns the problems found."""
    rng = random.Random(args.seed)
    warehouse, problems, trees = root / "incremental", [], []
    expected_lines = 10
    for i in range(1, len(archives) + 1):
        before = current(warehouse)
        note = ""
        if i % args.kill_every == 0:
            moment = rng.randint(1, max(1, int(0.9 * expected_lines)))
            run = build(archives[:i], warehouse, env, args.options, kill_at_line=moment)
            trees.append(run.tree)
            if run.killed:
                after = current(warehouse)
                note = f"killed after log line {moment} at {run.seconds:.1f} s ({len(run.tree)} processes), then "
                if after != before:
                    problems.append(f"build {i}: CURRENT changed by the killed build: {before} -> {after}")
            else:
                note = f"finished before log line {moment}, run again: "
        run = build(archives[:i], warehouse, env, args.options)
        trees.append(run.tree)
        expected_lines = run.output.count("\n")
        if run.code != 0:
            problems.append(f"build {i} exited {run.code}: {run.output[-2000:]}")
            print(f"build {i:2}: FAILED ({run.code})", flush=True)
            break
        info = manifest(warehouse)
        incremental = "incremental" if info.get("incremental") else "full"
        if i > 1 and incremental == "full":
            problems.append(f"build {i} was a full build")
        print(f"build {i:2}/{len(archives)}: {note}{run.seconds:.1f} s, {incremental}, {current(warehouse)}, "
              f"{info['ingest']['games']} games", flush=True)  # type: ignore[index]
    clean = root / "clean"
    run = build(archives, clean, env, args.options)
    trees.append(run.tree)
    if run.code != 0:
        problems.append(f"clean build exited {run.code}: {run.output[-2000:]}")
        return problems
    print(f"clean full build: {run.seconds:.1f} s, {current(clean)}", flush=True)
    mine, theirs = parquet_digests(warehouse), parquet_digests(clean)
    same = mine == theirs and bool(mine)
    print(f"final release {current(warehouse)} vs clean {current(clean)}: {len(mine)} Parquet files, "
          f"byte-identical: {'yes' if same else 'NO'}", flush=True)
    if not same:
        problems += [f"{name}: {mine.get(name)} != {theirs.get(name)}" for name in sorted(set(mine) | set(theirs))
                     if mine.get(name) != theirs.get(name)]
    if current(warehouse).partition("-")[2] != current(clean).partition("-")[2]:  # type: ignore[union-attr]
        problems.append(f"content hashes differ: {current(warehouse)} vs {current(clean)}")
    time.sleep(2)  # let the killed builds' process groups finish dying
    left = [proc for tree in trees for proc in survivors(tree)]
    files = [f"{w.name}/{f}" for w in (warehouse, clean) for f in leftover_files(w)]
    print(f"processes seen in the builds: {sum(len(t) for t in trees)}, left running: {len(left)}; "
          f"leftover files: {len(files)}", flush=True)
    problems += [f"process left: {proc}" for proc in left] + [f"file left: {f}" for f in files]
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--archives", type=int, default=20)
    parser.add_argument("--kill-every", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", nargs="+", default=[], help="passed to gopat build (default: its own)")
    parser.add_argument("--workers", type=int, default=None, help="passed to gopat build (default: its own)")
    parser.add_argument("--shared-server", action="store_true", help="one Prefect server for every build")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep archives and warehouses here (default: a temporary folder)")
    args = parser.parse_args()
    args.options = (["--families", *args.families] if args.families else []) + (
        ["--workers", str(args.workers)] if args.workers else [])
    if args.archives < 2 or args.kill_every < 1:
        parser.error("--archives must be at least 2 and --kill-every at least 1")
    if not args.corpus.is_file():
        parser.error(f"{args.corpus} does not exist")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gopat-soak-") as tmp:
        root = args.workdir or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        (root / "sources").mkdir(exist_ok=True)
        archives = split_corpus(args.corpus, root / "sources", args.archives)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GOPAT_", "PREFECT_"))}
        env["PREFECT_HOME"] = str(root / "prefect-home")
        print(f"soak: {args.archives} archives from {args.corpus}, kill -9 in builds {args.kill_every}, "
              f"{2 * args.kill_every}, ..., seed {args.seed}, build options {' '.join(args.options) or '(none)'}, "
              f"in {root}", flush=True)
        server = None
        if args.shared_server:
            server, env["PREFECT_API_URL"] = prefect_server(env, root / "prefect-server.log")
            root_process = psutil.Process(server.pid)
            server_tree = {p.pid: p.create_time() for p in [root_process, *root_process.children(recursive=True)]}
        try:
            problems = soak(archives, root, env, args)
        finally:
            if server is not None:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=60)
        if server is not None:
            time.sleep(2)
            problems += [f"Prefect server process left: {proc}" for proc in survivors(server_tree)]
    for problem in problems:
        print(f"PROBLEM: {problem}")
    minutes, seconds = divmod(time.perf_counter() - start, 60)
    print(f"soak {'passed' if not problems else 'FAILED'} in {int(minutes)}:{seconds:04.1f}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
