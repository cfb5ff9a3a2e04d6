"""Smoke test of bench/run.py on tiny.tar.gz: the benchmark runs end to end and flags a regression."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_benchmark_smoke_reports_every_figure_and_flags_a_regression(tiny_archive):
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "--corpus", str(tiny_archive), "--runs", "1",
         "--scaling", "--max-ratio", "0.001"],
        capture_output=True, text=True, timeout=900, check=False,
    )
    out = run.stdout
    assert run.returncode == 1, run.stdout + run.stderr  # no build of 200 games beats 0.001 x sgfmill
    assert "corpus" in out and "(200 SGF members)" in out
    line = re.search(r"run 1: A ([\d.]+) s \((\d+) games/s\), B ([\d.]+) s \((\d+) games/s\), B/A ([\d.]+), "
                     r"peak RSS ([\d.]+) GiB, quarter ([\d.]+) s \(full/quarter ([\d.]+)\)", out)
    assert line, out
    a, b, ratio, peak = float(line[1]), float(line[3]), float(line[5]), float(line[6])
    assert a > 0 and b > 0
    assert (b - 0.05) / (a + 0.05) - 0.01 <= ratio <= (b + 0.05) / (a - 0.05) + 0.01  # printed to 0.1 s, 0.01
    assert 0.05 < peak < 16  # the sampler saw the build's processes
    assert re.search(r"median scaling full/quarter [\d.]+", out)
    profile = re.search(r"B profile, wall \(median seconds, share of B[^)]*\): (.*)", out)
    assert profile, out
    shares = {}
    for phase in ("fetch", "ingest", "extract", "aggregate", "analytics", "validate", "publish", "other"):
        found = re.search(rf"\b{phase} ([\d.]+) s (\d+)%", profile[1])
        assert found, (phase, profile[1])
        shares[phase] = int(found[2])
    assert float(re.search(r"\bpublish ([\d.]+) s", profile[1])[1]) > 0
    assert 95 <= sum(shares.values()) <= 105  # the phases add up to B
    assert re.search(r"B ingest CPU over all workers: parse [\d.]+ s, replay and rows [\d.]+ s", out)
    assert "REGRESSION: median B/A" in out
