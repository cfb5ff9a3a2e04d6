"""Fuzzing campaign: the strategies and checks of tests/fuzz/ driven for many inputs per target.

Usage: .venv/bin/python bench/fuzz.py [--inputs 100000] [--targets decoding parsing archives ingest replay]
       [--seed 0] [--timeout 5] [--max-seconds S] [--out DIR] [--corpus tiny.tar.gz] [--hostile DIR]

Each target's inputs are drawn by Hypothesis (no database, seeded, in batches so memory stays
bounded) and checked one by one with a per-input limit of --timeout CPU seconds (CPU, not wall time:
the machine is shared, and a niced process may wait far longer than it runs; a watchdog ends the
campaign when one input takes over 60 times the limit in wall time). An AssertionError is a broken
invariant, an input over the limit a hang, any other exception a crash; each failing input is
saved under --out/<target>/ with its traceback. With --max-seconds a target stops early when its time
is up (the line says how many inputs it reached). Prints one summary line per target and exits 1
when anything failed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import sys
import tarfile
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.strategies import SearchStrategy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.fuzz: the same strategies and checks as the CI tests

from tests.fuzz import test_archives, test_decoding, test_ingest, test_parsing, test_replay  # noqa: E402
from tests.fuzz.strategies import Archive, Entry, real_files, seed_files, tar_bytes  # noqa: E402

TARGETS: dict[str, ModuleType] = {
    module.NAME: module for module in (test_decoding, test_parsing, test_archives, test_ingest, test_replay)
}
SHARED = REPO.parent / "shared"
BATCH = 1000  # inputs per Hypothesis run: its bookkeeping of the inputs seen grows with the run


class Hang(BaseException):
    """Raised by the CPU-time alarm in the input being checked (a BaseException: no `except Exception` swallows it)."""


@dataclass
class Tally:
    """What one target's campaign saw."""

    target: str
    inputs: int = 0
    passed: int = 0
    failures: dict[str, int] = field(default_factory=lambda: dict.fromkeys(("crash", "hang", "broken"), 0))
    slowest: float = 0.0  # CPU seconds
    slowest_wall: float = 0.0
    seconds: float = 0.0
    distinct: set[str] = field(default_factory=set)

    def line(self) -> str:
        """One summary line."""
        rate = self.inputs / self.seconds if self.seconds else 0.0
        crash, hang, broken = self.failures.values()
        return (f"{self.target:<10} {self.inputs:>8} {self.passed:>8} {crash:>8} {hang:>6} {broken:>7} "
                f"{self.slowest:>9.2f} {self.slowest_wall:>10.2f} {rate:>9.1f} {self.seconds:>9.1f}")


HEADER = (f"{'target':<10} {'inputs':>8} {'passed':>8} {'crashes':>8} {'hangs':>6} {'broken':>7} "
          f"{'max cpu s':>9} {'max wall s':>10} {'inputs/s':>9} {'seconds':>9}")


def checked(check: Callable[[Any], object], value: Any, timeout: float, state: dict[str, Any]) -> tuple[str, Any]:
    """Check one input under the CPU-time alarm: ('', None), or the kind of failure and its exception."""
    try:
        state["armed"] = True
        signal.setitimer(signal.ITIMER_PROF, timeout)
        check(value)
    except Hang as error:
        return "hang", error
    except AssertionError as error:
        return "broken", error
    except Exception as error:
        return "crash", error
    finally:
        state["armed"] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
    return "", None


def save(out: Path, tally: Tally, kind: str, blob: bytes, value: Any, error: BaseException) -> None:
    """Write the failing input and its traceback under ``out/<target>/``; count its distinct cause."""
    folder = out / tally.target
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{kind}-{hashlib.sha1(blob).hexdigest()[:12]}"
    (folder / f"{stem}.bin").write_bytes(blob)
    trace = "".join(traceback.format_exception(error))
    (folder / f"{stem}.txt").write_text(f"{kind}\n{repr(value)[:4000]}\n\n{trace}")
    where = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    tally.distinct.add(f"{kind} {type(error).__name__} " + " ".join(f"{f.filename}:{f.lineno}" for f in where))


def watchdog(state: dict[str, Any], limit: float, out: Path) -> None:
    """Exit the process when one input runs past ``limit`` seconds (stuck where the alarm cannot interrupt)."""
    while True:
        time.sleep(1.0)
        started = state.get("started")
        if started is not None and time.perf_counter() - started > limit:
            folder = out / state["target"]
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "stuck.bin").write_bytes(state["blob"])
            print(f"{state['target']}: an input ran over {limit:.0f} s; saved {folder / 'stuck.bin'}", flush=True)
            os._exit(3)


def campaign(module: ModuleType, check: Callable[[Any], object], strategy: SearchStrategy[Any], *, inputs: int,
             first_seed: int, timeout: float, seconds: float, out: Path, state: dict[str, Any]) -> Tally:
    """Check ``inputs`` inputs of one target (fewer if ``seconds`` run out first); returns its tally."""
    tally = Tally(module.NAME)
    state["target"] = module.NAME
    start = time.perf_counter()

    def one(value: Any) -> None:
        if tally.inputs >= inputs or time.perf_counter() - start > seconds:
            return
        tally.inputs += 1
        state["blob"] = module.reproducer(value)
        began = state["started"] = time.perf_counter()
        cpu = time.process_time()
        try:
            kind, caught = checked(check, value, timeout, state)
        except Hang as error:  # the alarm went off while leaving checked(): the input reached the limit
            kind, caught = "hang", error
        state["started"] = None
        took = time.process_time() - cpu
        tally.slowest = max(tally.slowest, took)
        tally.slowest_wall = max(tally.slowest_wall, time.perf_counter() - began)
        if not kind and took > timeout:
            kind, caught = "hang", Hang(f"{took:.1f} CPU s")
        if kind:
            tally.failures[kind] += 1
            save(out, tally, kind, state["blob"], value, caught)
        else:
            tally.passed += 1
        if tally.inputs % 5000 == 0:
            print(f"  {module.NAME}: {tally.inputs} inputs, {time.perf_counter() - start:.0f} s", flush=True)

    batch = 0
    while tally.inputs < inputs:
        done = tally.inputs
        run: Callable[[], None] = settings(
            max_examples=min(BATCH, inputs - done), database=None, deadline=None, phases=[Phase.generate],
            suppress_health_check=list(HealthCheck))(given(strategy)(one))
        seed(first_seed * 1_000_003 + batch)(run)()
        batch += 1
        if tally.inputs == done:
            break  # time is up, or Hypothesis generated nothing new
    tally.seconds = time.perf_counter() - start
    return tally


def warm_up(name: str, seeds: tuple[bytes, ...]) -> Any:
    """A benign input checked untimed first, so numba's compilation and lazy imports do not count as a hang."""
    if name in ("decoding", "parsing"):
        return seeds[0]
    if name == "replay":
        return test_replay.Game(9, ((1, 0, 0),), ((2, 0, 1), (1, 1, 0), (2, -1, -1)))
    entry = Entry("warm/up.sgf", "file", seeds[0])
    data = tar_bytes((entry,), compression="gz", tar_format=tarfile.USTAR_FORMAT)
    return Archive(data, ".tar.gz", "tar.gz", (entry,))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=1000, help="inputs per target")
    parser.add_argument("--targets", nargs="+", choices=list(TARGETS), default=list(TARGETS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=5.0, help="CPU seconds per input before it counts as a hang")
    parser.add_argument("--max-seconds", type=float, default=float("inf"), help="time budget per target")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "gopat-fuzz",
                        help="folder for failing inputs and their tracebacks")
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus" / "tiny.tar.gz")
    parser.add_argument("--hostile", type=Path, default=SHARED / "hostile")
    args = parser.parse_args()
    if args.inputs < 1 or args.timeout <= 0:
        parser.error("--inputs and --timeout must be positive")
    for path in (args.corpus, args.hostile / "files"):
        if not path.exists():
            parser.error(f"{path} does not exist")

    seeds = seed_files(args.corpus, args.hostile)
    checks: dict[str, Callable[[Any], object]] = {name: TARGETS[name].check for name in args.targets}
    if "parsing" in checks:
        real = frozenset(real_files(args.corpus))
        checks["parsing"] = lambda data: test_parsing.check(data, real)
    state: dict[str, Any] = {"started": None}
    def alarm(signum: int, frame: FrameType | None) -> None:
        if state.get("armed"):
            raise Hang

    signal.signal(signal.SIGPROF, alarm)
    threading.Thread(target=watchdog, args=(state, 60 * args.timeout, args.out), daemon=True).start()
    print(f"fuzzing {', '.join(args.targets)}: {args.inputs} inputs each, seed {args.seed}, "
          f"{args.timeout:g} CPU s per input, {len(seeds)} seed files; failures go to {args.out}", flush=True)
    tallies = []
    for name in args.targets:
        module = TARGETS[name]
        checks[name](warm_up(name, seeds))
        tallies.append(campaign(module, checks[name], module.inputs(seeds), inputs=args.inputs,
                                first_seed=args.seed, timeout=args.timeout, seconds=args.max_seconds, out=args.out,
                                state=state))
    print(HEADER)
    for tally in tallies:
        print(tally.line())
    failed = [cause for tally in tallies for cause in sorted(tally.distinct)]
    for cause in failed:
        print(f"distinct failure: {cause}")
    total = sum(sum(t.failures.values()) for t in tallies)
    print(f"total: {sum(t.inputs for t in tallies)} inputs, {total} failures "
          f"({len(failed)} distinct), slowest input {max(t.slowest for t in tallies):.2f} CPU s")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
