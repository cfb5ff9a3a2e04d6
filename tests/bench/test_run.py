"""Smoke test of bench/run.py on tiny.tar.gz: the benchmark runs end to end and flags a regression."""

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from prefect.settings import PREFECT_API_URL
from prefect.testing.utilities import prefect_test_harness

from tests.flows.archives import tiny_members, write_archive

REPO = Path(__file__).resolve().parents[2]
PHASES = ("fetch", "ingest", "extract", "aggregate", "analytics", "validate", "publish", "other")


@pytest.fixture(scope="module")
def prefect_api() -> Iterator[str]:
    """One Prefect API for the smoke run's four builds: each would otherwise start and stop a temporary server of
    its own (about 18 s each here). What the benchmark itself measures keeps the embedded default."""
    with prefect_test_harness(server_startup_timeout=120):
        yield PREFECT_API_URL.value()


@pytest.mark.slow
def test_benchmark_smoke_reports_every_figure_and_flags_a_regression(
    tiny_archive: Path, prefect_api: str, tmp_path: Path
) -> None:
    # six builds and A: the first 100 games of tiny keep them short
    corpus = write_archive(tmp_path / "first-100.tar.gz", tiny_members(tiny_archive)[:100])
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "--corpus", str(corpus), "--runs", "1",
         "--scaling", "--incremental", "--new-games", "25", "--small-base", "30", "--max-ratio", "0.001"],
        capture_output=True, text=True, timeout=900, check=False,
        env={**os.environ, "PREFECT_API_URL": prefect_api},
    )
    out = run.stdout
    assert run.returncode == 1, run.stdout + run.stderr  # no build of 100 games beats 0.001 x sgfmill
    assert "corpus" in out and "(100 SGF members)" in out
    line = re.search(r"run 1: A ([\d.]+) s \((\d+) games/s\), B ([\d.]+) s \((\d+) games/s\), B/A ([\d.]+), "
                     r"peak RSS ([\d.]+) GiB \(the flow's process ([\d.]+) GiB\), quarter ([\d.]+) s "
                     r"\(full/quarter ([\d.]+)\), "
                     r"incremental ([\d.]+) s \(incremental/B ([\d.]+)\), "
                     r"onto the small base ([\d.]+) s \(large/small ([\d.]+)\)", out)
    assert line, out
    a, b, ratio, peak = float(line[1]), float(line[3]), float(line[5]), float(line[6])
    assert a > 0 and b > 0
    assert (b - 0.05) / (a + 0.05) - 0.01 <= ratio <= (b + 0.05) / (a - 0.05) + 0.01  # printed to 0.1 s, 0.01
    parent = float(line[7])
    assert 0.05 < parent < peak < 16  # the sampler saw the build's processes, its workers beside the flow's
    incremental, incremental_ratio = float(line[10]), float(line[11])
    assert incremental > 0
    assert (incremental - 0.05) / (b + 0.05) - 0.001 <= incremental_ratio <= (incremental + 0.05) / (b - 0.05) + 0.001
    base = re.search(r"base build ([\d.]+) s \((\d+) games\)", out)
    assert base and float(base[1]) > 0 and 0 < int(base[2]) <= 75, out  # the first 75 of 100 games
    incremental_cpu = re.search(r"median incremental [\d.]+ s, median incremental/B [\d.]+ \(target <= 0\.10\), "
                                r"in CPU seconds ([\d.]+)", out)
    assert incremental_cpu and 0 < float(incremental_cpu[1]) < 2, out  # an add of 25 games against all 100
    cpu = re.search(r"median B CPU \(process tree, user \+ sys\) / A ([\d.]+): with all (\d+) cores busy all the "
                    r"time, B/A would be ([\d.]+)", out)
    assert cpu and float(cpu[1]) > 1 and int(cpu[2]) == os.cpu_count(), out  # B replays and does more than A
    assert abs(float(cpu[3]) - float(cpu[1]) / int(cpu[2])) <= 0.01, out
    assert re.search(r"median scaling full/quarter [\d.]+", out)
    small_seconds, size_ratio = float(line[12]), float(line[13])
    assert small_seconds > 0
    assert abs(size_ratio - incremental / small_seconds) <= 0.01 + 0.1 * incremental / small_seconds**2
    small = re.search(r"small base build ([\d.]+) s \((\d+) games\)", out)
    assert small and int(small[2]) == 30, out
    assert re.search(r"median incremental onto the small base [\d.]+ s, median large/small [\d.]+ \(target <= 1\.3\)",
                     out), out
    profile = re.search(r"B profile, wall \(median seconds, share of B[^)]*\): (.*)", out)
    assert profile, out
    shares = {}
    for phase in PHASES:
        found = re.search(rf"\b{phase} ([\d.]+) s (\d+)%", profile[1])
        assert found, (phase, profile[1])
        shares[phase] = int(found[2])
    assert float(re.search(r"\bpublish ([\d.]+) s", profile[1])[1]) > 0
    assert 95 <= sum(shares.values()) <= 105  # the phases add up to B
    assert re.search(r"B ingest CPU over all workers: parse [\d.]+ s, replay and rows [\d.]+ s", out)
    incremental_profile = re.search(r"incremental profile, wall \(median seconds, share\): (.*)", out)
    assert incremental_profile, out
    for phase in PHASES:
        assert re.search(rf"\b{phase} [\d.]+ s \d+%", incremental_profile[1]), (phase, incremental_profile[1])
    assert 95 <= sum(map(int, re.findall(r" s (\d+)%", incremental_profile[1]))) <= 105  # every phase, new ones too
    assert "REGRESSION: median B/A" in out
