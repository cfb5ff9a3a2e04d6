"""Real services of the scenarios: processes started in their own session, waited for and stopped."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
T = TypeVar("T")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(what: str, probe: Callable[[], T | None], *, timeout: float, process: subprocess.Popen, log: Path) -> T:
    """Poll `probe` until it returns something, failing early if `process` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what}: process exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            result = probe()
        except Exception:
            result = None
        if result is not None:
            return result
        time.sleep(0.5)
    pytest.fail(f"{what}: not ready after {timeout} s:\n{log.read_text()[-3000:]}")


def stop(process: subprocess.Popen) -> None:
    """Stop a process started with its own session, and its children."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def cli(env: dict[str, str], *args: str) -> str:
    """Run a command of the venv in the repository with `env`; its stdout (fails the test on a non-zero exit)."""
    done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout
