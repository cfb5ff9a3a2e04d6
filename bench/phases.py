"""Memory per phase: `gopat build` with the resident memory of the flow's own process sampled every 0.25 s, and its
peak between consecutive phase ends (the build's `<phase> took` log lines and each suite's result line).

Usage: .venv/bin/python bench/phases.py -- --source ../shared/corpus/pro-sample.tar.gz --warehouse /tmp/wh

Everything after `--` is passed to `gopat build`. Prints one line per phase: its wall seconds and the flow's peak
(workers are separate processes and not counted: `bench/run.py` reports the process tree).
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import subprocess
import sys
import threading
import time

from run import REPO, tree_rss

GIB = 2**30
PHASE_END = re.compile(r"(\w+) took [\d.]+ s")
SUITE_END = re.compile(r"expectations (\w+)\b.*passed")


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/phases.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("build", nargs=argparse.REMAINDER, help="-- then the arguments of `gopat build`")
    args = parser.parse_args()
    build = [arg for arg in args.build if arg != "--"]
    process = subprocess.Popen([str(REPO / ".venv" / "bin" / "gopat"), "build", *build], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "INFO"})
    assert process.stdout is not None
    samples: list[tuple[float, int]] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.25):
            samples.append((time.monotonic(), tree_rss(process.pid)[1]))

    threading.Thread(target=sample, daemon=True).start()
    ends = [(time.monotonic(), "start")]
    for text in process.stdout:
        if phase := PHASE_END.search(text):
            ends.append((time.monotonic(), phase[1]))
        elif suite := SUITE_END.search(text):
            ends.append((time.monotonic(), f"suite {suite[1]}"))
    code = process.wait()
    done.set()
    ends.append((time.monotonic(), "end"))
    for (start, _), (stop, name) in itertools.pairwise(ends):
        peak = max((resident for at, resident in samples if start <= at < stop), default=0)
        print(f"{name:28} {stop - start:8.1f} s  the flow's peak {peak / GIB:.2f} GiB")
    return code


if __name__ == "__main__":
    sys.exit(main())
