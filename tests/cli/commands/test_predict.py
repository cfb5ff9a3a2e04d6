"""`gopat suggest`, `evaluate` and `calibrate` on a release without the prediction families: one line, exit 1."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.release import REPO, tiny_release

pytestmark = pytest.mark.slow

# Runs a command in-process and reports whether Prefect was imported: the check comes before any flow.
PROBE = (
    "import sys; from gopat.cli.main import main; code = main(sys.argv[1:]); "
    "print('prefect' in sys.modules); sys.exit(code)"
)


def test_prediction_commands_name_the_release_and_the_build_command(
    tmp_path_factory: pytest.TempPathFactory, shared_dir: Path, tmp_path: Path
) -> None:
    warehouse = tiny_release(tmp_path_factory, shared_dir)  # the default families: no prediction family
    version = (warehouse / "releases" / "CURRENT").read_text().strip()
    manifest = json.loads((warehouse / "releases" / version / "manifest.json").read_text())
    built = manifest["config"]["families"]
    assert "d12" in built and "lib5" not in built
    sources = " ".join(f"--source {shlex.quote(s['source'])}" for s in manifest["sources"])
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[1]FF[4]SZ[19];B[pd];W[dp];B[pp];W[dd])")
    common = ["--warehouse", str(warehouse)]
    commands = {
        "suggest": ["suggest", str(game), *common],
        "evaluate": ["evaluate", "--games", str(game), "--no-record", *common],
        "calibrate": ["calibrate", "--games", str(game), "--out", str(tmp_path / "w.json"), "--levels", "dia21",
                      "lib9", *common],
    }
    runs = {name: subprocess.Popen([sys.executable, "-c", PROBE, *argv], cwd=REPO, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for name, argv in commands.items()}
    for name, run in runs.items():
        out, err = run.communicate(timeout=300)
        missing = "dia21 lib9" if name == "calibrate" else "dia29 dia21 lib13 lib9 lib5"
        assert (run.returncode, out, err) == (1, "False\n", (
            f"gopat: error: release {version}: lacks the prediction families {missing}; build them with "
            f"gopat build {sources} --warehouse {shlex.quote(str(warehouse))} --families {' '.join(built)} {missing}\n"
        )), name
    assert not (tmp_path / "w.json").exists()
