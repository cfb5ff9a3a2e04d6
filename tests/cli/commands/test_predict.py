"""`gopat suggest` and `evaluate` on the default release rank with the shipped weights of its families; with weights
whose families a release lacks, and `calibrate` of levels it lacks: one line, exit 1."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gopat.transforms.predict.ranking import PREDICTION_WEIGHTS, SEED_WEIGHTS, load_weights
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
    prediction = ["--weights", str(PREDICTION_WEIGHTS)]
    commands = {
        "suggest": ["suggest", str(game), *prediction, *common],
        "evaluate": ["evaluate", "--games", str(game), "--no-record", *prediction, *common],
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


def test_the_default_release_predicts_with_the_seed_weights(
    tmp_path_factory: pytest.TempPathFactory, shared_dir: Path, tmp_path: Path
) -> None:
    warehouse = tiny_release(tmp_path_factory, shared_dir)
    levels = load_weights(SEED_WEIGHTS).levels
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[1]FF[4]SZ[19];B[pd];W[dp];B[pp];W[dd];B[fq])")
    common = ["--warehouse", str(warehouse)]
    suggest = subprocess.run([sys.executable, "-m", "gopat.cli.main", "suggest", str(game), "--top", "3", *common],
                             cwd=REPO, capture_output=True, text=True, timeout=300)
    assert suggest.returncode == 0, suggest.stderr
    lines = suggest.stdout.splitlines()
    assert lines[0].endswith("position after 5 moves, White to move, last move F3 (release "
                             f"{(warehouse / 'releases' / 'CURRENT').read_text().strip()})")
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["point", "prob"])
    candidates = [line.split() for line in lines[header + 1:]]
    assert len(candidates) == 3 and all(row[3] in levels or row[3] == "none" for row in candidates), lines
    evaluate = subprocess.run([sys.executable, "-m", "gopat.cli.main", "evaluate", "--games", str(game), "--json",
                               "--no-record", *common], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert evaluate.returncode == 0, evaluate.stderr[-2000:]
    result = json.loads(evaluate.stdout)
    assert result["positions"] == 5 and set(result["matched"]) == {*levels, "none"}
