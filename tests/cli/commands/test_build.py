"""`gopat build --move-patterns`: a family that cannot be published one key a move is refused before Prefect starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("family", ["blk4", "nope"])
def test_move_patterns_family_is_checked_before_prefect_starts(tiny_archive: Path, tmp_path: Path,
                                                                family: str) -> None:
    probe = (
        "import sys; from gopat.cli.main import main; code = main(['build', '--source', sys.argv[1], "
        "'--warehouse', sys.argv[2], '--move-patterns', 'd12', sys.argv[3]]); print('prefect' in sys.modules); "
        "sys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(tiny_archive), str(tmp_path / "w"), family],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        f"gopat: error: move_patterns families must be pattern families with one key a move (not blk4), "
        f"got ['{family}']\n"
    )
    assert done.stdout == "False\n"
    assert not (tmp_path / "w").exists()
