"""Memory per phase: `gopat build` with the resident memory of the flow's own process sampled every 0.25 s, and its
peak between consecutive phase ends (the build's `<phase> took` log lines and each suite's result line).

Usage: .venv/bin/python bench/phases.py [--dask N] -- --source ../shared/corpus/pro-sample.tar.gz --warehouse /tmp/wh

Everything after `--` is passed to `gopat build`. Prints one line per phase: its wall seconds and the flow's peak
(workers are separate processes and not counted), then the build's wall seconds and the peak of its whole process
tree. With `--dask N`, the build runs on a Dask cluster started as a user starts one (docs/operations.md): `dask
scheduler` and N `dask worker` processes of one thread on 127.0.0.1, stopped at the end; the tree's peak then
counts the cluster's processes too.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from distributed import Client
from run import REPO, tree_rss

GIB = 2**30
PHASE_END = re.compile(r"(\w+) took [\d.]+ s")
SUITE_END = re.compile(r"expectations (\w+)\b.*passed")
DASK = REPO / ".venv" / "bin" / "dask"
READY_SECONDS = 120


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/phases.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dask", type=int, default=0, metavar="N", help="run the build on a Dask cluster of N workers")
    parser.add_argument("build", nargs=argparse.REMAINDER, help="-- then the arguments of `gopat build`")
    args = parser.parse_args()
    build = [arg for arg in args.build if arg != "--"]
    with tempfile.TemporaryDirectory(prefix="gopat-phases-") as folder, dask_cluster(args.dask, Path(folder)) as (
            address, cluster):
        return phases([*build, *(["--runner", address] if address else [])], cluster)


def phases(build: list[str], cluster: list[subprocess.Popen[str]]) -> int:
    """Run `gopat build` with `build`'s arguments; print its phases, wall seconds and peaks; its exit status."""
    start = time.monotonic()
    process = subprocess.Popen([str(REPO / ".venv" / "bin" / "gopat"), "build", *build], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "INFO"})
    assert process.stdout is not None
    samples: list[tuple[float, int]] = []
    tree_peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal tree_peak
        while not done.wait(0.25):
            tree, own = tree_rss(process.pid)
            samples.append((time.monotonic(), own))
            tree_peak = max(tree_peak, tree + sum(tree_rss(member.pid)[0] for member in cluster))

    threading.Thread(target=sample, daemon=True).start()
    ends = [(start, "start")]
    tail: collections.deque[str] = collections.deque(maxlen=20)  # the build's last lines, shown if it fails
    for text in process.stdout:
        tail.append(text)
        if phase := PHASE_END.search(text):
            ends.append((time.monotonic(), phase[1]))
        elif suite := SUITE_END.search(text):
            ends.append((time.monotonic(), f"suite {suite[1]}"))
    code = process.wait()
    done.set()
    ends.append((time.monotonic(), "end"))
    for (begin, _), (stop, name) in itertools.pairwise(ends):
        peak = max((resident for at, resident in samples if begin <= at < stop), default=0)
        print(f"{name:28} {stop - begin:8.1f} s  the flow's peak {peak / GIB:.2f} GiB")
    what = "its process tree and the cluster" if cluster else "its process tree"
    print(f"build exit {code}: {ends[-1][0] - start:.1f} s, the flow's peak "
          f"{max((r for _, r in samples), default=0) / GIB:.2f} GiB, {what} {tree_peak / GIB:.2f} GiB")
    if code:
        print("the build's last lines:\n" + "".join(tail), end="")
    return code


@contextlib.contextmanager
def dask_cluster(workers: int, folder: Path) -> Iterator[tuple[str | None, list[subprocess.Popen[str]]]]:
    """`dask scheduler` and `workers` single-threaded `dask worker` processes on 127.0.0.1, each in its own session
    (its output in `folder`); yields the scheduler's address and the processes, then stops them. No cluster for 0."""
    if not workers:
        yield None, []
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}  # the workers need no Prefect API
    processes: list[subprocess.Popen[str]] = []

    def start(name: str, *args: str) -> None:
        with (folder / f"{name}.log").open("w") as log:
            processes.append(subprocess.Popen([str(DASK), *args], cwd=folder, env=env, stdout=log,
                                              stderr=subprocess.STDOUT, start_new_session=True))

    try:
        file = folder / "scheduler.json"
        start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0",
              "--scheduler-file", str(file))
        deadline = time.monotonic() + READY_SECONDS
        while not file.is_file() and processes[0].poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        if not file.is_file():
            sys.exit(f"dask scheduler: no address within {READY_SECONDS} s; its log ends:\n"
                     f"{(folder / 'scheduler.log').read_text()[-2000:]}")
        address = json.loads(file.read_text())["address"]
        for i in range(workers):
            start(f"worker-{i}", "worker", address, "--nthreads", "1", "--name", f"worker-{i}", "--host", "127.0.0.1",
                  "--dashboard-address", "127.0.0.1:0", "--local-directory", str(folder))
        with Client(address, timeout=READY_SECONDS) as client:
            client.wait_for_workers(workers, timeout=READY_SECONDS)
        print(f"dask cluster {address}: a scheduler and {workers} workers", flush=True)
        yield address, processes
    finally:
        for process in reversed(processes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait()


if __name__ == "__main__":
    sys.exit(main())
