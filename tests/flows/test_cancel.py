"""The cancellation watchdog in real processes: its deadline, the processes it stops, its one line."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from gopat.flows import cancel
from gopat.flows.cancel import DEADLINE_SECONDS, STOP_SECONDS, descendants

# A "build" that never unwinds: it swallows Cancelled and sleeps on, holding a child and a grandchild.
STUCK = """
import subprocess, sys, time
from pathlib import Path
from gopat.flows import cancel

child = subprocess.Popen(["sh", "-c", "sleep 300 & wait"])
with cancel.watch(describe=lambda: "stuck on purpose", raise_cancelled=True, quiet=True):
    with cancel.cleanup(lambda: Path(sys.argv[1]).write_text("cleaned")):
        said = False
        while True:
            try:  # the pid is printed inside the try: a signal right after it is caught too
                if not said:
                    said = True
                    print(child.pid, flush=True)  # the handlers are in place: the test signals from now on
                time.sleep(60)
            except cancel.Cancelled:
                print("cancelled, going on", flush=True)
"""


def test_descendants_are_the_process_tree_that_psutil_sees() -> None:
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    try:
        deadline = time.monotonic() + 30
        while len(psutil.Process(shell.pid).children()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        expected = {p.pid for p in psutil.Process(os.getpid()).children(recursive=True)}
        assert shell.pid in expected and len(expected) >= 3
        assert set(descendants(os.getpid())) == expected
        assert set(descendants(shell.pid)) == {p.pid for p in psutil.Process(shell.pid).children()}
    finally:
        for process in psutil.Process(shell.pid).children():
            process.kill()
        shell.kill()
        shell.wait()


def test_a_build_that_does_not_unwind_is_ended_by_the_watchdog_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "cleanup"
    proc = subprocess.Popen([sys.executable, "-c", STUCK, str(marker)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    child = psutil.Process(int(proc.stdout.readline()))
    deadline = time.monotonic() + 30
    while not child.children() and time.monotonic() < deadline:
        time.sleep(0.05)
    tree = [child, *child.children()]
    try:
        assert len(tree) == 2
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)  # a second signal neither kills it at once nor changes the deadline
        out, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - start
    finally:  # on a failure, nothing outlives the test: not the processes, not the pipes
        if proc.poll() is None:
            proc.kill()
        for process in tree:
            if _running(process):
                process.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 128 + signal.SIGTERM
    assert DEADLINE_SECONDS <= seconds < DEADLINE_SECONDS + STOP_SECONDS + 1.5, seconds
    assert out.splitlines()[-1] == "cancelled, going on"
    assert err.splitlines() == ["gopat: cancelled by SIGTERM: stuck on purpose"]
    assert marker.read_text() == "cleaned"
    deadline = time.monotonic() + 5
    while any(_running(p) for p in tree) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p.pid for p in tree if _running(p)]


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


class _Failing(logging.Handler):
    """A handler whose every emit fails, as Prefect's log shipper does once Ctrl-C stopped the temporary server."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            raise ConnectionError("All connection attempts failed")
        except ConnectionError:
            self.handleError(record)


@pytest.mark.parametrize("quiet", [True, False])
def test_a_quiet_watch_keeps_logging_errors_off_the_terminal(capsys: pytest.CaptureFixture[str], quiet: bool) -> None:
    logger = logging.getLogger("gopat-test-failing-handler")
    logger.addHandler(_Failing())
    logger.propagate = False
    try:
        with cancel.watch(describe=lambda: "nothing", quiet=quiet):
            logger.warning("a record the API never gets")
        assert ("Logging error" in capsys.readouterr().err) == (not quiet)
        logger.warning("after the block")
        assert "Logging error" in capsys.readouterr().err  # reported again once the build is over
    finally:
        logger.handlers.clear()
