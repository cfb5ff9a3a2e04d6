"""Every command meets bad input the same way: one line `gopat: error: <what>: <reason>`, exit 1, no traceback,
and before Prefect's temporary server starts (usage errors are argparse's: exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GOPAT = Path(sys.executable).parent / "gopat"
ONE_GAME = "(;GM[1]FF[4]SZ[19]DT[2024-01-02];B[pd];W[dp];B[pp])\n"

# (arguments, words the error line must contain); {w} is an empty warehouse, {sgf} a one-game file
# and {missing} a path that does not exist.
CASES = [
    (["openings", "--warehouse", "{w}"], ["no release", "gopat build"]),
    (["export", "gnugo", "--warehouse", "{w}"], ["no release"]),
    (["show", "1234", "--family", "sq3", "--warehouse", "{w}"], ["1234"]),
    (["show", "1000000000", "--family", "zz", "--warehouse", "{w}"], ["zz"]),
    (["suggest", "{sgf}", "--warehouse", "{w}"], ["no release"]),
    (["suggest", "{missing}", "--warehouse", "{w}"], ["{missing}"]),
    (["evaluate", "--games", "{sgf}", "--warehouse", "{w}"], ["no release"]),
    (["evaluate", "--games", "{missing}", "--warehouse", "{w}"], ["no release"]),  # the release is checked first
    (["calibrate", "--games", "{sgf}", "--out", "{w}/weights.json", "--warehouse", "{w}"], ["no release"]),
    (["holdout", "--source", "{missing}", "--test-from", "2020", "--train", "{w}/a.tar.gz", "--test", "{w}/b.tar.gz"],
     ["{missing}"]),
    (["release", "show", "0009-x", "--warehouse", "{w}"], ["0009-x"]),
    (["release", "pack", "0009-x", "--warehouse", "{w}", "--out", "{w}/p.tar.gz"], ["0009-x"]),
    (["verify", "--warehouse", "{w}"], ["no releases"]),
    (["report", "--warehouse", "{w}", "--out", "{w}/report"], ["no release"]),
    (["build", "--source", "{missing}", "--warehouse", "{w}"], ["{missing}"]),
    (["build", "--source", "{sgf}", "--warehouse", "{w}", "--families", "zz"], ["zz"]),
    (["build", "--source", "{sgf}", "--warehouse", "{w}", "--min-occurrence", "sq5"], ["--min-occurrence", "'sq5'"]),
    (["build", "--source", "{sgf}", "--warehouse", "{w}", "--min-occurrence", "sq5=0"], ["sq5", "positive int"]),
    (["build", "--source", "{sgf}", "--warehouse", "{w}", "--min-occurrence", "d12=2"], ["d12", "every key"]),
    (["build", "--source", "{sgf}", "--warehouse", "{w}", "--families", "sq3", "--min-occurrence", "sq5=2"],
     ["not built", "sq5"]),
]


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("every command")
    (root / "empty warehouse").mkdir()
    (root / "one.sgf").write_text(ONE_GAME)
    return {"w": str(root / "empty warehouse"), "sgf": str(root / "one.sgf"), "missing": str(root / "typo.sgf")}


@pytest.mark.parametrize(("arguments", "words"), CASES, ids=[" ".join(a[:2]) + f" #{i}" for i, (a, _) in
                                                             enumerate(CASES)])
def test_an_expected_error_is_one_line_before_prefect_starts(arguments: list[str], words: list[str],
                                                             paths: dict[str, str]) -> None:
    command = [str(GOPAT), *(a.format(**paths) for a in arguments)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, env=env)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gopat: error: "), done.stderr[-2000:]
    for word in words:
        assert word.format(**paths) in done.stderr
    assert "temporary server" not in done.stdout + done.stderr
