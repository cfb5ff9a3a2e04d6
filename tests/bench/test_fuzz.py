"""bench/fuzz.py end to end on a few inputs: the summary table, and failing inputs counted and saved."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FUZZ = REPO / "bench" / "fuzz.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(FUZZ), *args], capture_output=True, text=True, timeout=600, check=False)


def test_fuzz_reports_each_target_and_saves_every_input_over_the_limit(tmp_path: Path) -> None:
    passing = run("--inputs", "4", "--targets", "decoding", "replay", "--out", str(tmp_path / "ok"))
    assert passing.returncode == 0, passing.stdout + passing.stderr
    for target in ("decoding", "replay"):
        line = re.search(rf"^{target} +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$",
                         passing.stdout, re.MULTILINE)
        assert line and line.groups() == ("4", "4", "0", "0", "0"), passing.stdout
    assert "total: 8 inputs, 0 failures (0 distinct)" in passing.stdout
    assert not (tmp_path / "ok").exists()

    # a limit of a microsecond of CPU: a replay (boards, sgfmill, game_row) is a hang, saved with its traceback,
    # unless it ends before the CPU timer's first tick (a small board's few moves can)
    hanging = run("--inputs", "6", "--targets", "replay", "--timeout", "0.000001", "--out", str(tmp_path / "hang"))
    assert hanging.returncode == 1, hanging.stdout + hanging.stderr
    line = re.search(r"^replay +6 +(\d+) +0 +(\d+) +0 ", hanging.stdout, re.MULTILINE)
    assert line, hanging.stdout
    passed, hangs = map(int, line.groups())
    assert passed + hangs == 6 and hangs >= 1, hanging.stdout
    saved = sorted((tmp_path / "hang" / "replay").iterdir())
    assert {p.suffix for p in saved} == {".bin", ".txt"} and 2 <= len(saved) <= 2 * hangs  # one pair an input
    assert all(p.read_text().startswith("hang\n") and "Hang" in p.read_text() for p in saved if p.suffix == ".txt")
    assert "distinct failure: hang" in hanging.stdout


def test_fuzz_refuses_a_missing_corpus(tmp_path: Path) -> None:
    refused = run("--corpus", str(tmp_path / "missing.tar.gz"))
    assert refused.returncode == 2 and "missing.tar.gz does not exist" in refused.stderr, refused.stderr
