"""One release per test session, built by `gopat build` from tiny.tar.gz and the hostile files.

Shared by tests/docs (the SQL cookbook) and tests/effects/report/test_report.py, so that the build (about a
minute) runs once. The hostile files add rejected files, odd board sizes and a second source.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def tiny_release(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    """The warehouse folder of the session's release, built on first use."""
    warehouse = tmp_path_factory.getbasetemp() / "tiny-release"
    if not (warehouse / "releases" / "CURRENT").is_file():
        build = subprocess.run(
            [sys.executable, "-m", "gopat.cli.main", "build", "--warehouse", str(warehouse), "--workers", "2",
             "--source", str(shared_dir / "corpus" / "tiny.tar.gz"), "--source", str(shared_dir / "hostile" / "files")],
            cwd=REPO, capture_output=True, text=True, timeout=900,
            # Prefect's temporary server may need more than its default 20 s on a busy machine
            env={**os.environ, "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120"},
        )
        assert build.returncode == 0, build.stderr[-3000:]
    return warehouse


def run_example(code: str, warehouse: Path, folder: Path) -> str:
    """What a documented Python example prints, run from `folder`, whose `warehouse` is a link to `warehouse`."""
    (folder / "warehouse").symlink_to(warehouse)
    done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
