"""bench/thresholds.py on the session's tiny release, against the kept keys and shares counted in polars."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from gopat.effects.warehouse.layout import table_files
from tests.docs.release import tiny_release

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def test_threshold_table_counts_what_each_threshold_keeps(tmp_path_factory: pytest.TempPathFactory,
                                                          shared_dir: Path) -> None:
    warehouse = tiny_release(tmp_path_factory, shared_dir)
    done = subprocess.run([sys.executable, str(REPO / "bench" / "thresholds.py"), "--warehouse", str(warehouse),
                           "--thresholds", "1", "2", "5"], capture_output=True, text=True, timeout=300, check=True)
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in done.stdout.splitlines()
            if line.startswith(("| sq5", "| blk4"))]
    version = (warehouse / "releases" / "CURRENT").read_text().strip()
    stats = pl.read_parquet(table_files(warehouse / "releases" / version)["pattern_stats"],
                            columns=["family", "symmetry", "occurrence", "chosen"])
    expected = []
    for family in ("sq5", "blk4"):
        for symmetry in (8, 16):
            part = stats.filter(family=family, symmetry=symmetry)
            for t in (1, 2, 5):
                kept = part.filter(pl.col("occurrence") >= t)
                expected.append([family, str(symmetry), str(t), f"{kept.height:,}", f"{kept.height / part.height:.1%}",
                                 f"{kept['occurrence'].sum() / part['occurrence'].sum():.1%}",
                                 f"{kept['chosen'].sum() / part['chosen'].sum():.1%}"])
    assert [row[:7] for row in rows] == expected
    estimates = [float(row[7].replace(",", "")) for row in rows]
    for start in range(0, len(estimates), 3):  # one family and symmetry, thresholds 1, 2, 5: fewer bytes kept
        assert estimates[start:start + 3] == sorted(estimates[start:start + 3], reverse=True)
