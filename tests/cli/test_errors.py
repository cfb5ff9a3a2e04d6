"""The `gopat` command line as a user meets it: input errors before anything slow, one line per
expected error, no telemetry, no native-extension noise at exit."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    """The user's environment with no telemetry switch set: gopat's own defaults must hold."""
    env = {k: v for k, v in os.environ.items() if k not in ("DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED")}
    return {**env, "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}"}


def test_a_missing_source_fails_at_once_with_one_line_before_prefect_starts(tmp_path: Path) -> None:
    missing = tmp_path / "typo.tar.gz"
    probe = (
        "import sys; from gopat.cli.main import main; code = main(['build', '--source', sys.argv[1], "
        "'--warehouse', sys.argv[2]]); print('prefect' in sys.modules); sys.exit(code)"
    )
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", probe, str(missing), str(tmp_path / "w")], env=_env(),
                          capture_output=True, text=True, timeout=60, check=False)
    elapsed = time.monotonic() - start
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"gopat: error: {missing}: no such file or folder\n"
    assert done.stdout == "False\n"  # Prefect (and its temporary API server) never started
    assert elapsed < 1.0, f"{elapsed:.2f} s"
    assert not (tmp_path / "w").exists()


def test_a_source_that_is_not_a_file_or_folder_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.sgf"
    os.mkfifo(fifo)
    done = subprocess.run([str(BIN / "gopat"), "build", "--source", str(fifo), "--warehouse", str(tmp_path / "w")],
                          env=_env(), capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (1, f"gopat: error: {fifo}: not a regular file or folder\n")


@pytest.mark.slow
def test_sources_without_a_game_fail_with_one_line_on_a_terminal_without_telemetry(tmp_path: Path) -> None:
    source = tmp_path / "notes"
    source.mkdir()
    (source / "readme.txt").write_text("no game records here\n")
    command = [str(BIN / "gopat"), "build", "--source", str(source), "--warehouse", str(tmp_path / "w")]
    # `script` gives the build a terminal, where Prefect would print its telemetry notice.
    done = subprocess.run(["script", "-qec", shlex.join(command), "/dev/null"], env=_env(), cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600, check=False)
    screen = done.stdout.replace("\r", "")
    assert done.returncode == 1, screen[-3000:]
    errors = [line for line in screen.splitlines() if "gopat: error" in line]
    assert errors == [
        f"gopat: error: {source}: no game in the sources (1 files in; rejected: 1 not_sgf_member); "
        "nothing was published"
    ], screen[-3000:]
    for noise in ("Traceback", "nanobind", "anonymous usage data", "telemetry", "ExpectationsFailed"):
        assert noise not in screen, f"{noise}:\n{screen[-3000:]}"
    assert not (tmp_path / "w" / "releases" / "CURRENT").exists()


@pytest.mark.slow
def test_a_failed_suite_on_a_side_thread_is_one_error_without_native_noise(tmp_path: Path, tiny_archive: Path) -> None:
    """The games suite runs on a side thread (flows/build.py); its failure must not keep DuckDB objects alive
    until the interpreter exits, where DuckDB's bindings would list them as leaked."""
    fault = "UPDATE games SET board_size = 99 WHERE game_id = (SELECT min(game_id) FROM games)"
    done = subprocess.run([str(BIN / "gopat"), "build", "--source", str(tiny_archive), "--warehouse",
                           str(tmp_path / "w"), "--families", "sq3", "--workers", "1"],
                          env={**_env(), "GOPAT_FAULT_SQL": fault}, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "gopat: error: expectations failed, nothing published:" in done.stderr
    assert "games: board_size_between_2_and_25" in done.stderr
    for noise in ("Traceback", "nanobind", "leaked"):
        assert noise not in done.stderr, f"{noise}:\n{done.stderr[-3000:]}"


@pytest.mark.slow
def test_a_rejected_source_is_one_warning_line_of_a_quiet_build(tmp_path: Path, tiny_archive: Path) -> None:
    """A task's warning is the first log a quiet build ships to its API: Prefect's log shipper must not start in
    that task and keep its DuckDB connection alive until exit (cli/commands/__init__.py console_warnings_only)."""
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w"):
        pass
    done = subprocess.run([str(BIN / "gopat"), "build", "--source", str(tiny_archive), "--source", str(empty),
                           "--warehouse", str(tmp_path / "w"), "--families", "sq3", "--workers", "1", "--quiet"],
                          env=_env(), capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    [warning] = done.stderr.splitlines()
    assert f"rejected {empty} (whole source): empty_archive" in warning, warning
    assert done.stdout.splitlines()[1] == (
        "files in 201 = ingested 200 + rejected 1; trees in 200 = games 200 + duplicates 0 + rejected 0 (holds)")
